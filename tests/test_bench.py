"""`finrag bench` at a small size: the report has every figure the README quotes."""

import pytest

from finrag.bench import run_bench

PHASES = {"embed", "dense", "bm25", "fused"}


@pytest.mark.slow
def test_bench_reports_every_figure_for_both_stacks(sample_index, tmp_path):
    report = run_bench(1500, queries=5, work_dir=tmp_path, source_dir=sample_index,
                       naive_queries=3)
    assert report["chunks"] == 1500
    for key in ("build_s", "open_s", "rss_mb", "disk_mb", "speedup_fused_p50"):
        assert report[key] > 0
    for stack in (report["query_ms"], report["naive"]["query_ms"]):
        assert set(stack) == {"ticker_year", "ticker", "none"}
        for phases in stack.values():
            assert set(phases) == PHASES
            assert all(0 < phases[p]["p50"] <= phases[p]["p95"] for p in PHASES)
