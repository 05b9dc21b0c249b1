"""The CLIs on a real index (real model): output shapes, exit codes, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from finrag.cli import main as finrag_main
from finrag.ingest.cli import main as ingest_main


def _run(main, argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_search_json_has_three_lists_with_provenance(sample_index, capsys):
    code, out, _ = _run(finrag_main, ["search", "Tesla R&D expense", "--ticker", "TSLA",
                                      "--k", "5", "--json", "--data-dir", str(sample_index)],
                        capsys)
    data = json.loads(out)
    assert code == 0 and data["query"] == "Tesla R&D expense"
    assert data["filters"]["tickers"] == ["TSLA"]
    for method in ("dense", "bm25", "fused"):
        assert 1 <= len(data[method]) <= 5
        assert all(h["ticker"] == "TSLA" and h["fiscal_year"] == 2024 for h in data[method])
        assert set(data[method][0]) >= {"chunk_id", "rank", "score", "ticker", "fiscal_year",
                                        "chunk_type", "section", "page", "page_label", "url",
                                        "url_kind", "url_reason", "text"}
    assert all("dense_rank" in h and "bm25_rank" in h for h in data["fused"])
    assert any("research and development" in h["text"].lower() for h in data["fused"][:3])


def test_search_prints_three_columns(sample_index, capsys):
    code, out, _ = _run(finrag_main, ["search", "services net sales", "--data-dir",
                                      str(sample_index)], capsys)
    assert code == 0
    assert "DENSE" in out and "BM25" in out and "FUSED (RRF)" in out and "AAPL FY2024" in out


@pytest.mark.parametrize("argv, message", [
    (["search", "x", "--year", "abc"], "--year 'abc'"),
    (["search", "   "], "empty"),
    (["search", "x", "--weights", "1"], "--weights"),
])
def test_bad_input_is_one_line_and_exit_1(sample_index, capsys, argv, message):
    code, out, err = _run(finrag_main, argv + ["--data-dir", str(sample_index)], capsys)
    assert code == 1 and message in err and len(err.strip().splitlines()) == 1


def test_no_index_is_one_line_naming_the_command(tmp_path, capsys):
    code, _, err = _run(finrag_main, ["search", "x", "--data-dir", str(tmp_path)], capsys)
    assert code == 1 and "ingest build --sample" in err and len(err.strip().splitlines()) == 1


def test_unknown_ticker_gives_a_note_and_empty_lists(sample_index, capsys):
    code, out, err = _run(finrag_main, ["search", "revenue", "--ticker", "ZZZZ", "--json",
                                        "--data-dir", str(sample_index)], capsys)
    data = json.loads(out)
    assert code == 0 and data["fused"] == [] and "not indexed" in err and data["message"]


def test_canary_passes_and_a_failing_canary_exits_1(sample_index, tmp_path, capsys):
    good = tmp_path / "good.toml"
    good.write_text('[[canary]]\nname = "rnd"\nquery = "Tesla research and development expense"\n'
                    'tickers = ["TSLA"]\nexpect = { ticker = "TSLA", contains = ["research"] }\n')
    code, out, _ = _run(finrag_main, ["canary", "--file", str(good), "--json", "--data-dir",
                                      str(sample_index)], capsys)
    data = json.loads(out)
    assert code == 0 and data["passed"] == 1 and data["canaries"][0]["fused"]
    bad = tmp_path / "bad.toml"
    bad.write_text('[[canary]]\nname = "wrong-year"\nquery = "research and development"\n'
                   'expect = { fiscal_year = 1999 }\n')
    code, out, _ = _run(finrag_main, ["canary", "--file", str(bad), "--data-dir",
                                      str(sample_index)], capsys)
    assert code == 1 and "FAIL  wrong-year" in out and "reason:" in out


def test_ingest_status_json(sample_index, capsys):
    code, out, _ = _run(ingest_main, ["status", "--json", "--data-dir", str(sample_index)], capsys)
    data = json.loads(out)
    assert code == 0 and data["chunks"] > 500 and len(data["chunk_ids_sha256"]) == 64
    assert {(f["ticker"], f["fiscal_year"]) for f in data["filings"]} == {("AAPL", 2024),
                                                                          ("TSLA", 2024)}
    # where each filing was read from, the path `ingest remove` takes
    assert [(s["ticker"], Path(s["source"]).exists()) for s in data["sources"]] == [
        ("AAPL", True), ("TSLA", True)]
    assert sum(s["chunks"] for s in data["sources"]) == data["chunks"]
    code, out, _ = _run(ingest_main, ["status", "--data-dir", str(sample_index)], capsys)
    assert code == 0 and f"from {data['sources'][1]['source']}" in out


def test_ingest_build_reports_failures_with_exit_2(sample_index, tmp_path, capsys):
    bad = tmp_path / "broken.htm"
    bad.write_bytes(b"\x00\x01\x02 binary junk" * 100)
    data_dir = tmp_path / "data"
    import shutil

    shutil.copytree(sample_index, data_dir)
    good = data_dir / "sample-filings" / "sec-edgar-filings" / "TSLA"
    code, out, _ = _run(ingest_main, ["build", str(good), str(bad), "--json", "--data-dir",
                                      str(data_dir)], capsys)
    report = json.loads(out)
    assert code == 2
    assert report["totals"]["failed"] == 1 and report["totals"]["new_chunks"] == 0
    statuses = {f["status"] for f in report["filings"]}
    assert statuses == {"failed", "skipped"}


def test_ingest_build_without_paths_is_a_usage_error(tmp_path, capsys):
    code, _, err = _run(ingest_main, ["build", "--data-dir", str(tmp_path)], capsys)
    assert code == 1 and "--sample" in err


def test_search_json_hits_carry_page_index_printed_label_and_edgar_link(tmp_path, fake_embedder):
    """Tesla FY2024 (sample, fake embedder): each hit says its page's position in the file,
    the number printed on it, and the EDGAR link its filing allows (no accession: the
    company's 10-K list, and why)."""
    from conftest import word_count

    from finrag.commands.query import search_json
    from finrag.config import Settings
    from finrag.ingest.build import build
    from finrag.ingest.sample import unpack_sample
    from finrag.models import Filters
    from finrag.search import HybridSearcher

    settings = Settings(data_dir=tmp_path / "data", qdrant_url=None)
    root = unpack_sample(tmp_path / "data") / "sec-edgar-filings"
    build([root / "TSLA/10-K/tsla-20241231"], settings, fake_embedder, word_count)
    searcher = HybridSearcher(settings, fake_embedder)
    try:
        data = search_json(searcher.search("Gross margin for energy generation and storage",
                                           Filters(), 5))
    finally:
        searcher.close()
    hits = data["dense"] + data["bm25"] + data["fused"]
    assert hits and all(isinstance(h["page"], int) for h in hits)
    assert all(h["page_label"] == str(int(h["page_label"])) for h in hits)  # printed numbers
    assert all(h["page"] - int(h["page_label"]) == 3 for h in hits)  # 3 unnumbered pages first
    assert {h["url"] for h in hits} == {("https://www.sec.gov/cgi-bin/browse-edgar?action="
                                         "getcompany&CIK=0001318605&type=10-K&dateb=&owner="
                                         "include&count=40")}
    assert {(h["url_kind"], h["url_reason"]) for h in hits} == {
        ("company 10-K list", "no accession number in the filing or its folder name")}
    assert json.loads(json.dumps(data)) == data


def test_both_weights_zero_is_one_line_and_exit_1(tmp_path, capsys):
    code, _, err = _run(finrag_main, ["search", "revenue", "--weights", "0,0", "--data-dir",
                                      str(tmp_path)], capsys)
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert "--weights '0,0': both are 0" in err


def test_the_company_the_question_names_filters_the_search_unless_turned_off(sample_index, capsys):
    argv = ["search", "Tesla research and development expense", "--k", "10", "--json",
            "--data-dir", str(sample_index)]
    code, out, err = _run(finrag_main, argv, capsys)
    data = json.loads(out)
    assert code == 0 and data["filters"]["tickers"] == ["TSLA"]
    assert "filters from the question: TSLA" in err
    assert {h["ticker"] for m in ("dense", "bm25", "fused") for h in data[m]} == {"TSLA"}
    code, out, err = _run(finrag_main, argv + ["--no-auto-filters"], capsys)
    assert json.loads(out)["filters"]["tickers"] == [] and "filters from" not in err
