"""`finrag bench` at a small size: the report has every figure the README quotes."""

import pytest

from finrag.measure.bench import print_report, run_bench

PHASES = {"embed", "dense", "bm25", "fused"}


@pytest.mark.slow
def test_bench_reports_every_figure_for_both_stacks(sample_index, tmp_path):
    report = run_bench(1500, queries=5, work_dir=tmp_path, source_dir=sample_index,
                       naive_queries=3)
    assert report["chunks"] == 1500
    # every query answered under every filter; the query-vector cache changes no answer
    assert report["answered"] == {"ticker_year": 5, "ticker": 5, "none": 5}
    assert report["cached_same_results"] is True
    # the statement facts are indexed with the chunks, and `ask` answers figure questions there
    assert report["facts"] > 1000 and report["ask_ms"]["questions"] == 8
    assert report["ask_ms"]["answered"] >= 4
    # why questions timed end to end (their quotes are checked in tests/test_ask_cli.py: a
    # 1,500-chunk sample need not hold the MD&A page that answers)
    narrative = report["ask_ms"]["narrative"]
    assert narrative["asked"] == 6 and narrative["total"]["p50"] > 0
    for key in ("build_s", "open_s", "rss_mb", "disk_mb", "speedup_fused_p50"):
        assert report[key] > 0
    # resident memory split into the process's own and the mapped index files' pages
    assert 0 < report["rss_anon_mb"] < report["rss_mb"]
    assert 0 < report["rss_file_mb"] < report["rss_mb"]
    for stack in (report["query_ms"], report["naive"]["query_ms"]):
        assert set(stack) == {"ticker_year", "ticker", "none"}
        for phases in stack.values():
            assert set(phases) == PHASES
    assert set(report["query_ms_cached"]) == {"ticker_year"}
    cached = report["query_ms_cached"]["ticker_year"]
    assert cached["embed"]["p50"] < report["query_ms"]["ticker_year"]["embed"]["p50"]
    assert report["embed_paths"]["speedup_p50"] > 0 and len(report["load"]) == 2
    assert report["query_runtime"] in ("onnxruntime", "torchscript", "eager")
    assert report["optimize_s"] >= 0 and report["indexed_vectors"] >= 0
    # one real filing added in place, re-ingested unchanged, removed, with queries meanwhile
    u = report["in_place"]
    assert u["filing_chunks"] > 100
    assert [u[s]["published"] for s in ("add", "unchanged", "remove")] == [True, False, True]
    assert all(u[s]["ingest_s"] > 0 and u[s]["exit_code"] == 0
               for s in ("add", "unchanged", "remove"))
    assert u["failed"] == 0 and u["stale_after_publish"] == 0 and u["queries"] > 0
    # the removal took out the filing added, not every copy of its source filing
    assert u["chunks_after"] == report["indexed_chunks"]
    # and where each step's time went, alone and beside the queries
    assert "upsert points" in u["add"]["steps"] and "upsert points" in u["alone"]["add"]["steps"]
    assert [u["alone"][s]["published"] for s in ("add", "unchanged", "remove")] == \
        [True, False, True]
    assert "in place at 1,500 chunks, TSLA FY2024" in print_report(report)


# At bench sizes the edge shard has an HNSW graph (tests/store's 400 points stay below the
# indexing threshold): filtered queries must still equal brute force there, and unfiltered ones
# (approximate by design) must find nearly all of the true top-k. The engine's thresholds are
# KB of vectors (10,000: a graph from ~6,600 points of 384 floats); lowered to 500 KB here, a
# shard of 1,500 points is in that regime (graph built, unfiltered queries walk it) and is
# built in a fraction of the 8,000 points' time.
N_HNSW, DIM, THRESHOLD_KB = 1500, 384, 500


def test_optimized_edge_shard_filtered_queries_stay_exact(tmp_path, monkeypatch):
    import numpy as np
    import qdrant_edge as qe
    from conftest import as_points

    import finrag.store.edge
    from finrag.models import Filters
    from finrag.store.edge import EdgeStore

    config = qe.EdgeConfig
    monkeypatch.setitem(finrag.store.edge.HNSW, "full_scan_threshold", THRESHOLD_KB)
    monkeypatch.setattr(qe, "EdgeConfig", lambda **kw: config(
        **kw, optimizers=qe.EdgeOptimizersConfig(indexing_threshold=THRESHOLD_KB)))

    rng = np.random.default_rng(7)
    centres = rng.normal(size=(40, DIM))
    vectors = (centres[rng.integers(0, 40, N_HNSW)] + 0.5 * rng.normal(size=(N_HNSW, DIM)))
    vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    ids = [f"{i:032x}" for i in range(N_HNSW)]
    payloads = [{"ticker": ["AAPL", "MSFT", "NVDA"][i % 3], "fiscal_year": 2015 + i % 10,
                 "chunk_type": "table" if i % 5 == 0 else "narrative"} for i in range(N_HNSW)]
    store = EdgeStore.create(tmp_path / "vectors", DIM)
    store.upsert(as_points(ids, vectors, payloads))
    built = store.finish()
    assert built["indexed_vectors"] == N_HNSW  # the graph exists: this is the HNSW regime
    queries = vectors[rng.integers(0, N_HNSW, 10)] + 0.05 * rng.normal(size=(10, DIM))
    recalls = []
    for filters in (Filters(tickers=["AAPL"]), Filters(tickers=["MSFT"], fiscal_years=[2016]),
                    Filters(chunk_types=["narrative"]), Filters()):
        keep = np.array([filters.matches(p) for p in payloads])
        for q in queries.astype(np.float32):
            got = store.search(q, filters, 20)
            scores = np.where(keep, vectors @ q, -np.inf)
            want = [ids[i] for i in np.argsort(-scores, kind="stable")[:20]]
            if filters.is_empty():
                recalls.append(len(set(want) & {g for g, _ in got}) / 20)
            else:
                assert [g for g, _ in got] == want
    assert np.mean(recalls) >= 0.95, recalls
    store.close()


def _source():
    """Two companies' filings as a source index gives them: AAPL's two 10-Ks and TSLA's."""
    import numpy as np

    from finrag.facts import Fact
    from finrag.models import Chunk

    chunks, facts = [], []
    for key, ticker, year, size in (("A23", "AAPL", 2023, 3), ("A24", "AAPL", 2024, 4),
                                    ("T24", "TSLA", 2024, 5)):
        chunks += [Chunk(chunk_id=f"{key}{i}".ljust(32, "0"), ticker=ticker, fiscal_year=year,
                         company={"AAPL": "Apple Inc.", "TSLA": "Tesla, Inc."}[ticker],
                         chunk_type="narrative", text=f"{ticker} {year} {i}", filing_key=key,
                         source=f"/filings/{key}/10-k.htm")
                   for i in range(size)]
        facts.append(Fact(ticker=ticker, fiscal_year=year, filing_key=key, source="xbrl",
                          line_label="Revenue", statement="income", period_fiscal_year=year - 1,
                          value=1.0, unit="USD millions"))
    vectors = np.arange(len(chunks), dtype=np.float32).reshape(-1, 1)
    return chunks, vectors, facts


def test_the_company_shape_gives_each_company_year_one_filing():
    from finrag.measure.bench import TICKERS, YEARS, company_filings

    chunks, vectors, facts = _source()
    texts = [c.text for c in chunks]  # a source chunk's vector is its position here
    filings = list(company_filings(chunks, vectors, facts, 60))
    written = [c for cs, _, _ in filings for c in cs]
    assert len(written) == 60 and len({c.chunk_id for c in written}) == 60
    keys = [cs[0].filing_key for cs, _, _ in filings]
    assert len(set(keys)) == len(keys)  # one filing per company and year
    assert keys[:len(YEARS)] == [f"AAPL:{y}" for y in YEARS]  # ten years a company
    assert keys[len(YEARS)] == f"{TICKERS[1]}:{YEARS[0]}"
    aapl = [cs for cs, _, _ in filings[:len(YEARS)]]
    assert {c.text.split()[0] for cs in aapl for c in cs} == {"AAPL"}  # Apple copies Apple
    # each company its own name: "Apple" names AAPL alone, not every company copying Apple
    names = {cs[0].ticker: cs[0].company for cs, _, _ in filings}
    assert names["AAPL"] == "Apple Inc." and names[TICKERS[1]] == f"Company {TICKERS[1]}"
    for cs, vs, fs in filings:  # vectors and facts travel with their chunks
        assert [int(v[0]) for v in vs] == [texts.index(c.text) for c in cs]
        assert all(f.filing_key == cs[0].filing_key and f.ticker == cs[0].ticker for f in fs)
        assert all(f.period_fiscal_year == cs[0].fiscal_year - 1 for f in fs)


def test_a_copy_is_not_read_from_its_source_filing():
    """`ingest remove` of the source filing's folder (the in-place phase's last step) must
    take out the filing added from it, not every copy of it: each copy names its own source."""
    from pathlib import Path

    from finrag.ingest.build import _within
    from finrag.measure.bench import company_filings, replicated_filings

    chunks, vectors, facts = _source()
    folders = {Path(c.source).parent for c in chunks}
    for shape in (company_filings, replicated_filings):
        written = [c for cs, _, _ in shape(chunks, vectors, facts, 60) for c in cs]
        assert not any(_within(Path(c.source).resolve(), f) for c in written for f in folders)
        assert len({c.source for c in written}) == len({c.filing_key for c in written})
