"""Eval metrics by hand, and `finrag eval financebench` end to end on two real questions."""

from __future__ import annotations

import json
import math

import pytest

from conftest import FakeEmbedder, shared_path
from finrag import cli
from finrag.measure.eval import MethodScores, Outcome, first_hit, ndcg


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
        assert 0 <= s["hit@1"] <= s["hit@5"] <= s["hit@10"] <= 1
    assert first["index"]["documents"] == 2 and first["index"]["chunks"] > 500
    assert sum(v["questions"] for v in first["by_type"].values()) == 2
    for miss in first["misses"]:
        assert set(miss) == {"financebench_id", "question", "evidence_pages", "fused_pages"}
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    assert cli.main(args + ["--filter", "none"]) == 0  # same index, no rebuild
    again = json.loads(capsys.readouterr().out)
    assert again["index"]["generation"] == first["index"]["generation"]
    assert again["filter"] == "none"

    # an index cached by an older finrag (another format) is rebuilt from the PDFs, not refused
    manifest = tmp_path / "d" / "generations" / first["index"]["generation"] / "manifest.json"
    old = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**old, "format": old["format"] - 1}))
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
