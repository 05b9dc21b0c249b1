"""The narrative eval: evidence pages found from the key's phrases in the index measured, ranks
per method, and where the answer quotes from."""

from __future__ import annotations

import json

import pytest
from conftest import searcher_over

from finrag.measure.keyfile import DataError
from finrag.measure.narrative_eval import (
    NarrativeQuestion,
    evaluate,
    evidence_places,
    load_key,
    table,
)

TEXTS = [  # (ticker, year, page, text)
    ("AAA", 2024, 3, "Our customers are airlines. Revenue grew in every region."),
    ("AAA", 2024, 7, "Gross margin decreased, primarily due to higher freight costs and the"),
    ("AAA", 2024, 7, "\u201cstrong dollar\u201d, offset by lower   promotional spending."),
    ("AAA", 2023, 7, "Gross margin decreased, primarily due to higher freight costs last year."),
    ("BBB", 2024, 2, "We sell lemurs and geckos to zoos in Europe and Asia."),
]


@pytest.fixture
def searcher(data_dir, fake_embedder):
    from finrag.models import Chunk

    s = searcher_over(data_dir, fake_embedder, [
        Chunk(chunk_id=f"{i:032x}", ticker=t, company=f"{t} Corp", fiscal_year=y,
              chunk_type="narrative", page=p, text=text, source=f"/f/{t}{y}.htm",
              filing_key=f"{t}:{y}:10-K", section="Item 7")
        for i, (t, y, p, text) in enumerate(TEXTS)])
    yield s
    s.close()


def _q(qid, text, ticker, year, *phrases, kind="cause"):
    return NarrativeQuestion(qid, text, kind, ticker, year, "x", tuple(phrases))


def test_evidence_is_the_filings_pages_that_print_a_phrase_across_chunks_and_quote_marks(searcher):
    # the phrase runs over two chunks of page 7, with curly quotes and doubled spaces in the
    # filing; the FY2023 filing prints the same words but is another filing
    q = _q("n1", "Why did gross margin fall?", "AAA", 2024,
           'freight costs and the "strong dollar", offset by lower promotional')
    assert evidence_places(searcher.index, q) == {("AAA", 2024, 7)}
    assert evidence_places(searcher.index, _q("n2", "x", "AAA", 2024, "no such words")) == set()


def test_evaluate_ranks_each_method_under_the_filing_filter_and_lists_unfound(searcher):
    qs = [_q("n1", "lemurs geckos zoos", "BBB", 2024, "lemurs and geckos to zoos"),
          _q("n2", "anything", "AAA", 2024, "words no page prints")]
    report = evaluate(searcher, qs, "filing", k=5, answers=False)
    assert report["questions"] == 1 and report["evidence_not_found"] == ["n2"]
    assert report["methods"]["fused"]["hit@1"] == 1.0
    assert report["rows"][0]["ranks"] == {"dense": 1, "bm25": 1, "fused": 1}
    assert "n2" in table(report)


def test_answers_are_tallied_by_where_their_quotes_are_printed(searcher):
    q = _q("n1", "What drove AAA's gross margin decrease in 2024?", "AAA", 2024,
           "higher freight costs and the")
    report = evaluate(searcher, [q], "filing", k=5)
    assert report["answers"] == {"cause": {"evidence": 1, "phrase": 1}}
    # the quote is printed on the evidence page but is not the sentence the key's phrase is in
    other = _q("n2", q.question, "AAA", 2024, "offset by lower promotional spending")
    report = evaluate(searcher, [other], "filing", k=5)
    assert report["answers"] == {"cause": {"evidence": 1, "phrase": 0}}
    assert "cause    1 / 0 / 0; 0" in table(report)


def test_a_key_line_that_is_not_a_narrative_question_is_refused_with_its_line(tmp_path):
    path = tmp_path / "key.jsonl"
    good = {"id": "n1", "question": "Why?", "kind": "cause", "ticker": "aaa",
            "fiscal_year": 2024, "filing": "f/x.htm", "evidence": ["some words"]}
    path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "kind": "essay"}) + "\n")
    with pytest.raises(DataError, match=r"key.jsonl:2: .*essay"):
        load_key(path)
    path.write_text(json.dumps(good) + "\n")
    assert load_key(path)[0].ticker == "AAA"
