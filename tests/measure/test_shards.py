"""The per-shard idf measurement: the same points split over S shards, compared with one."""

from __future__ import annotations

import pytest
from conftest import SAMPLE_SUBSET, FakeEmbedder, word_count

from finrag.config import Settings
from finrag.ingest.build import build
from finrag.ingest.sample import unpack_sample
from finrag.measure.shards import main, run
from finrag.models import Filters


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("shards")
    root = unpack_sample(tmp / "src") / "sec-edgar-filings"
    build([root / p for p in SAMPLE_SUBSET], Settings(data_dir=tmp / "data", qdrant_url=None),
          FakeEmbedder(), word_count)
    return tmp / "data"


@pytest.mark.slow  # measured on an index of two whole real filings
def test_per_shard_idf_changes_little_on_hashed_shards_of_real_filings(data):
    queries = [("research and development expense", Filters()),
               ("supply chain risk", Filters(tickers=["TSLA"])),
               ("total net sales", Filters(tickers=["AAPL"])), ("gross margin", Filters())]
    report = run(data, [2, 40], queries)
    assert report["queries"] == 4 and report["chunks"] > 800
    two, many = report["by_shards"][2], report["by_shards"][40]
    # ~400 chunks a shard: the shards' idf are close, the lists nearly the same
    assert two["top_k_overlap_mean"] >= 0.8
    # ~20 chunks a shard: idf from a handful of documents reorders the lists
    assert many["top_k_overlap_mean"] < two["top_k_overlap_mean"]
    assert many["identical_lists"] < 1.0


def test_shard_counts_below_two_are_refused_in_one_line(capsys):
    assert main(["--shards", "1"]) == 1
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.slow  # measured on an index of two whole real filings
def test_a_filing_doubled_in_flight_reorders_bm25_a_little(data):
    """While an update is in flight a filing's new points sit beside its old ones: filtered
    out of the queries, counted by idf. On a two-filing index doubling one is half the
    corpus again: the lists move, and stay mostly the same."""
    from finrag.measure.shards import in_flight

    queries = [("research and development expense", Filters()),
               ("supply chain risk", Filters(tickers=["TSLA"])),
               ("total net sales", Filters(tickers=["AAPL"])), ("gross margin", Filters())]
    report = in_flight(data, queries)
    assert report["filings"] == len(SAMPLE_SUBSET) and report["queries"] == 4
    assert 0.5 <= report["top_k_overlap_mean"] < 1.0
    assert report["identical_lists"] < 1.0
