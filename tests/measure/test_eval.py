"""Eval metrics by hand, and `finrag eval financebench` end to end on two real questions."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from conftest import FakeEmbedder, shared_path

from finrag import cli
from finrag.manifest import READABLE_FORMATS
from finrag.measure.financebench import Document, Question
from finrag.measure.financebench_retrieval import evaluate
from finrag.measure.retrieval_metrics import MethodScores, Outcome, first_hit, ndcg


def test_first_hit_is_the_rank_of_the_first_chunk_on_an_evidence_page():
    assert first_hit([3, None, 7, 7], {7}) == 3
    assert first_hit([3, 4], {7}) is None
    assert first_hit([], {7}) is None


def test_ndcg_credits_each_evidence_page_once():
    # two evidence pages; ranks 1 and 3 hit page 7 (counted once), rank 4 hits page 9
    got = ndcg([7, 1, 7, 9], {7, 9}, k=10)
    want = (1 + 1 / math.log2(5)) / (1 + 1 / math.log2(3))
    assert got == pytest.approx(want)
    assert ndcg([1, 2, 7], {7}, k=2) == 0.0  # the hit is past k
    assert ndcg([7], {7}, k=10) == 1.0


def test_summary_rates_and_mrr():
    scores = MethodScores([
        Outcome([5, 1], frozenset({5}), 10.0),                  # rank 1
        Outcome([1, 2, 3, 4, 5, 6], frozenset({6}), 20.0),     # rank 6
        Outcome([1, 2], frozenset({9}), 30.0),                  # miss
    ])
    s = scores.summary(k=10)
    assert s["hit@1"] == round(1 / 3, 3) and s["hit@5"] == round(1 / 3, 3)
    assert s["hit@10"] == round(2 / 3, 3)
    assert s["mrr@10"] == round((1 + 1 / 6) / 3, 3)
    assert s["median_ms"] == 20.0
    assert scores.curve()[:6] == [0.333, 0.333, 0.333, 0.333, 0.333, 0.667]


class _FastEmbedder(FakeEmbedder):
    """The eval's wiring does not depend on embedding quality; chunking needs real token counts."""

    def __init__(self, *a, **kw):
        from finrag.embed import TokenCounter

        self.count_tokens = TokenCounter().count


def _two_questions(tmp_path):
    root = shared_path("financebench")
    keep = {"AMAZON_2017_10K", "NETFLIX_2015_10K"}
    lines = [line for line in (root / "questions.dev.jsonl").read_text().splitlines()
             if json.loads(line)["doc_name"] in keep]
    questions = tmp_path / "q.jsonl"
    questions.write_text("\n".join(lines) + "\n")
    return ["--questions", str(questions), "--pdfs", str(root / "pdfs"),
            "--doc-index", str(root / "doc_index.csv")]


@pytest.mark.slow  # builds two PDF indexes through the real ingest path
def test_eval_command_scores_methods_and_reuses_its_index(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("finrag.embed.Embedder", _FastEmbedder)
    args = ["eval", "financebench", *_two_questions(tmp_path), "--data-dir", str(tmp_path / "d"),
            "--json"]
    plot = tmp_path / "hit.png"
    assert cli.main(args + ["--plot", str(plot)]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["questions"] == 2 and first["filter"] == "filing"
    assert set(first["methods"]) == {"dense", "bm25", "fused"}
    for s in first["methods"].values():
        assert set(s) == {"hit@1", "hit@5", "hit@10", "mrr@10", "ndcg@10", "median_ms"}
    assert first["index"]["documents"] == 2 and first["index"]["chunks"] > 500
    assert sum(v["questions"] for v in first["by_type"].values()) == 2
    for miss in first["misses"]:
        assert set(miss) == {"financebench_id", "question", "doc_name", "evidence_pages",
                             "fused_pages", "fused_docs"}
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    assert cli.main(args + ["--filter", "none"]) == 0  # same index, no rebuild
    again = json.loads(capsys.readouterr().out)
    assert again["index"]["generation"] == first["index"]["generation"]
    assert again["filter"] == "none"

    # an index cached by an older finrag (another format) is rebuilt from the PDFs, not refused
    manifest = tmp_path / "d" / "generations" / first["index"]["generation"] / "manifest.json"
    old = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**old, "format": min(READABLE_FORMATS) - 1}))
    assert cli.main(args) == 0
    out, err = capsys.readouterr()
    rebuilt = json.loads(out)
    assert "rebuilding it from the PDFs" in err
    assert rebuilt["index"]["generation"] != first["index"]["generation"]
    assert _quality(rebuilt) == _quality(first)


def _quality(report: dict) -> dict:
    return {m: {k: v for k, v in s.items() if k != "median_ms"}
            for m, s in report["methods"].items()}


def test_eval_command_names_a_missing_file(tmp_path, capsys):
    code = cli.main(["eval", "financebench", "--questions", str(tmp_path / "nope.jsonl"),
                     "--pdfs", str(tmp_path), "--doc-index", str(tmp_path / "d.csv")])
    err = capsys.readouterr().err.strip()
    assert code == 1 and "nope.jsonl: not found" in err and len(err.splitlines()) == 1


def test_eval_command_refuses_an_index_of_other_filings(tmp_path, monkeypatch, capsys):
    """Pointed at an analyst's own data dir, the eval would add the benchmark's PDFs to it."""
    from finrag.config import Settings
    from finrag.index import Index, current_generation
    from finrag.ingest.build import build
    from finrag.ingest.sample import unpack_sample

    monkeypatch.setattr("finrag.embed.Embedder", _FastEmbedder)
    data = tmp_path / "mine"
    filing = unpack_sample(tmp_path / "src") / "sec-edgar-filings" / "AAPL" / "10-K"
    build([filing], Settings(data_dir=data, qdrant_url=None), _FastEmbedder(),
          _FastEmbedder().count_tokens)
    before = current_generation(data)

    code = cli.main(["eval", "financebench", *_two_questions(tmp_path), "--data-dir", str(data)])
    err = capsys.readouterr().err.strip()
    assert code == 1 and len(err.splitlines()) == 1
    assert f"--data-dir {data} holds an index of other filings" in err
    assert "directory of its own" in err
    assert current_generation(data) == before  # nothing added, nothing rebuilt
    index = Index.open(Settings(data_dir=data, qdrant_url=None))
    try:
        assert index.facets()["companies"] == {"AAPL": "Apple Inc."}
    finally:
        index.close()


def test_a_hit_is_the_evidence_page_of_the_evidence_filing():
    evidence = frozenset({("AAA_2021_10K.pdf", 3)})
    ranked = [("AAA_2020_10K.pdf", 3), ("BBB_2021_10K.pdf", 3), ("AAA_2021_10K.pdf", 3)]
    assert first_hit(ranked, evidence) == 3  # page 3 of the other filings is not the evidence
    assert ndcg(ranked, evidence, k=10) == pytest.approx(1 / math.log2(4))


# A tiny index whose right answers are known: one chunk per page, so each page is one entry
# in every list. Q1's words are all in AAA FY2020 p. 3 (a chunk of exactly those words) and in
# its evidence, AAA FY2021 p. 3 (the same words and two more): both retrievers rank the other
# year's p. 3 first, the evidence second. Q2's words are in its evidence page only.
PAGES = [  # (document, ticker, fiscal year, page, text)
    ("AAA_2020_10K", "AAA", 2020, 3, "zebra quokka okapi"),
    ("AAA_2021_10K", "AAA", 2021, 3, "zebra quokka okapi narwhal walrus"),
    ("AAA_2021_10K", "AAA", 2021, 4, "dividends paid to shareholders"),
    ("BBB_2021_10K", "BBB", 2021, 8, "lemur gecko ibis"),
    ("BBB_2021_10K", "BBB", 2021, 3, "properties leased offices"),
]


def _question(qid, text, doc, ticker, year, page):
    return Question(qid, text, "metrics-generated",
                    Document(doc, ticker, year, Path(f"/fb/pdfs/{doc}.pdf")), frozenset({page}))


QUESTIONS = [_question("q1", "zebra quokka okapi", "AAA_2021_10K", "AAA", 2021, 3),
             _question("q2", "lemur gecko ibis", "BBB_2021_10K", "BBB", 2021, 8)]


@pytest.fixture
def tiny_searcher(data_dir, fake_embedder):
    from finrag.config import Settings
    from finrag.generation import publish, write_generation
    from finrag.models import Chunk
    from finrag.search import HybridSearcher

    chunks = [Chunk(chunk_id=f"{i:032x}", ticker=t, company=f"{t} Inc.", fiscal_year=y,
                    chunk_type="narrative", page=p, text=text, source=f"/fb/pdfs/{doc}.pdf",
                    filing_key=f"{t}:{y}:10-K")
              for i, (doc, t, y, p, text) in enumerate(PAGES)]
    settings = Settings(data_dir=data_dir, qdrant_url=None)
    write_generation(settings, "gen-000001", chunks,
                     fake_embedder.encode([c.text for c in chunks]), fake_embedder.name)
    publish(data_dir, "gen-000001")
    searcher = HybridSearcher(settings, fake_embedder)
    yield searcher
    searcher.close()


# q1 at rank 2 and q2 at rank 1 in every list (ticker, none); both at rank 1 (filing)
SECOND_AND_FIRST = {"hit@1": 0.5, "hit@5": 1.0, "hit@10": 1.0, "mrr@10": 0.75,
                    "ndcg@10": round((1 / math.log2(3) + 1) / 2, 3)}
BOTH_FIRST = {"hit@1": 1.0, "hit@5": 1.0, "hit@10": 1.0, "mrr@10": 1.0, "ndcg@10": 1.0}


@pytest.mark.parametrize("mode, want", [("filing", BOTH_FIRST), ("ticker", SECOND_AND_FIRST),
                                        ("none", SECOND_AND_FIRST)])
def test_evaluate_on_an_index_whose_answers_are_known(tiny_searcher, mode, want):
    report = evaluate(tiny_searcher, QUESTIONS, mode, k=10, expand=False)
    for method in ("dense", "bm25", "fused"):
        got = {k: v for k, v in report["methods"][method].items() if k != "median_ms"}
        assert got == want, method
    assert report["misses"] == []
