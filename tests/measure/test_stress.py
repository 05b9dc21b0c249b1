"""Ingest while serving: concurrent query processes across a re-ingest into a new generation
see only complete indexes and switch without a restart; the stress command's report shape."""

from __future__ import annotations

import json
import shutil

from conftest import SAMPLE_SUBSET, FakeEmbedder

from finrag.cli import main as finrag_main
from finrag.config import Settings
from finrag.index import current_generation
from finrag.measure.stress import Query, _ask, default_queries, run_stress
from finrag.models import Filters
from finrag.search import HybridSearcher

QUERIES = [
    Query("services revenue", Filters()),
    Query("research and development expense", Filters()),
    Query("supply chain risk", Filters(tickers=["TSLA"])),
    Query("net sales by category", Filters(tickers=["AAPL"], chunk_types=["table"])),
]


def _expected(data_dir) -> dict[int, str]:
    """Each query's fused ids (hashed) from a fresh searcher on the published generation."""
    searcher = HybridSearcher(Settings(data_dir=data_dir, qdrant_url=None), FakeEmbedder())
    try:
        return {i: _ask(searcher, 0, i, q).digest for i, q in enumerate(QUERIES)}
    finally:
        searcher.close()


def test_four_query_processes_across_a_reingest_see_one_complete_index(sample_index, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(sample_index, data)
    old = current_generation(data)
    expected = {old: _expected(data)}
    aapl_only = [sample_index / "sample-filings" / "sec-edgar-filings" / SAMPLE_SUBSET[0]]
    report = run_stress(data, clients=4, seconds=4, reingest=True, queries=QUERIES,
                        embedder="conftest:FakeEmbedder", rebuild_paths=aapl_only,
                        reingest_after=1.0, keep_answers=True)
    new = current_generation(data)
    expected[new] = _expected(data)
    # the rebuild (AAPL only) changes what the unfiltered and TSLA queries return, so an answer
    # from a mix of the two generations, or from a half-swapped one, cannot pass for either
    assert (new != old and expected[new][0] != expected[old][0]
            and expected[new][2] != expected[old][2])
    assert report["reingest"]["exit_code"] == 0 and report["reingest"]["generation"] == new
    assert report["failed"] == 0 and report["queries"] > 40
    assert set(report["generations"]) == {old, new}
    for a in report["answers"]:
        assert a.digest == expected[a.generation][a.query], (a, "not one complete generation")
    # after the publish, new queries see the new generation without a restart
    assert report["reingest"]["stale_after_publish"] == 0
    assert report["reingest"]["clients_switched"] == 4
    for client in range(4):
        gens = [a.generation for a in sorted(report["answers"], key=lambda a: a.start)
                if a.client == client]
        assert gens == sorted(gens) and gens[-1] == new  # never back to the old one


def test_stress_command_json(sample_index, capsys, monkeypatch):
    monkeypatch.setattr("finrag.measure.stress.REAL_EMBEDDER", "conftest:FakeEmbedder")  # no torch
    code = finrag_main(["stress", "--clients", "2", "--seconds", "2", "--json",
                        "--data-dir", str(sample_index)])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert {"queries", "failed", "p50_ms", "p95_ms", "p99_ms", "generations"} <= set(out)
    assert out["failed"] == 0 and out["queries"] >= 2 and out["reingest"] is None
    assert out["generations"] == {current_generation(sample_index): out["queries"]}
    # every query answered, and the same question always got the same fused list
    assert out["empty"] == 0 and out["inconsistent"] == 0 and out["errors"] == {}
    assert out["distinct_queries"] == len(default_queries())


def test_stress_without_an_index_says_so_in_one_line(tmp_path, capsys):
    assert finrag_main(["stress", "--seconds", "1", "--data-dir", str(tmp_path / "none")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no index in" in err and "ingest build" in err


def _replay(data, steps) -> dict[str, dict[int, str]]:
    """Each generation the steps publish -> its queries' expected digests, from a copy of the
    index the same steps are applied to one by one (generation names come out the same)."""
    from finrag.ingest.cli import main as ingest_main

    expected = {current_generation(data): _expected(data)}
    for argv in steps:
        ingest_main([*argv, "--data-dir", str(data), "--json"])
        expected[current_generation(data)] = _expected(data)
    return expected


def test_four_query_processes_across_in_place_updates(sample_index, tmp_path):
    """TSLA removed, added back, replaced by a changed copy, re-ingested unchanged: every
    answer is one published state's, never a mix of a filing's old and new chunks, and removing
    then re-adding a filing gives back exactly the answers it gave before."""
    tsla = sample_index / "sample-filings" / "sec-edgar-filings" / SAMPLE_SUBSET[1]
    changed = tmp_path / "TSLA" / "10-K" / tsla.name
    shutil.copytree(tsla, changed)
    doc = changed / "primary-document.html"
    doc.write_text(doc.read_text().replace("Gigafactory", "Megafactory"))
    steps = [["remove", str(tsla)], ["build", str(tsla)], ["build", str(changed)],
             ["build", str(changed)]]
    replay = tmp_path / "replay"
    shutil.copytree(sample_index, replay)
    expected = _replay(replay, steps)
    data = tmp_path / "data"
    shutil.copytree(sample_index, data)
    report = run_stress(data, clients=4, seconds=4, steps=steps, queries=QUERIES,
                        embedder="conftest:FakeEmbedder", reingest_after=0.5, keep_answers=True)
    runs = report["reingest"]["steps"]
    assert [r["exit_code"] for r in runs] == [0, 0, 0, 0]
    assert [r["published"] for r in runs] == [True, True, True, False]
    assert [r["generation"] for r in runs] == list(expected)[1:] + [list(expected)[-1]]
    gens = list(expected)
    assert expected[gens[2]] == expected[gens[0]]  # removed and added back: the same answers
    assert expected[gens[1]][2] != expected[gens[0]][2]  # TSLA's question sees the removal
    assert report["failed"] == 0 and report["inconsistent"] == 0
    for a in report["answers"]:
        assert a.digest == expected[a.generation][a.query], (a, "not one published state")
    assert report["reingest"]["stale_after_publish"] == 0
    assert report["reingest"]["clients_switched"] == 4
