"""The collection layout finrag asks a server for, and the server path ranking like the embedded
engine: the same filings built once on qdrant-edge and once through qdrant-client (its
in-process `:memory:` mode, the API a server or cluster speaks) give the same fused lists."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from conftest import FIXTURES, UntiedEmbedder, word_count
from qdrant_client import QdrantClient

import finrag.store.clients
from finrag.config import Settings
from finrag.ingest.build import build
from finrag.models import Filters
from finrag.search import HybridSearcher
from finrag.store.server import Layout, ServerStore

MEDICIS = "ingest/other/0000950153-99-001234/primary-document.html.gz"
APPLE_1995 = ("ingest/sec-edgar-filings/AAPL/10-K/0000320193-95-000016/"
              "full-submission.tagstripped.txt.gz")
QUERIES = ["net sales", "research and development expense", "risk factors competition",
           "cash and cash equivalents at end of year", "Item 7 liquidity and capital resources",
           "dermatology products", "Macintosh"]
FILTERS = [Filters(), Filters(tickers=["AAPL"]), Filters(tickers=["MRX"]),
           Filters(chunk_types=["table"]), Filters(tickers=["AAPL"], chunk_types=["narrative"]),
           Filters(fiscal_years=[1999]), Filters(tickers=["NONE"])]


class RecordingClient(QdrantClient):
    """An in-process client that remembers what each collection was created with."""

    created: dict = {}

    def create_collection(self, collection_name, **kwargs):
        self.created[collection_name] = kwargs
        return super().create_collection(collection_name, **kwargs)


def test_a_collection_is_created_with_the_layout_from_the_environment(monkeypatch):
    monkeypatch.setenv("FINRAG_QDRANT_SHARDS", "6")
    monkeypatch.setenv("FINRAG_QDRANT_REPLICATION_FACTOR", "2")
    monkeypatch.setenv("FINRAG_QDRANT_WRITE_CONSISTENCY", "1")
    client = RecordingClient(location=":memory:")
    ServerStore.create(client, "finrag-test", 8)
    asked = client.created["finrag-test"]
    assert (asked["shard_number"], asked["replication_factor"],
            asked["write_consistency_factor"]) == (6, 2, 1)


def test_without_settings_a_collection_gets_one_shard_one_replica(monkeypatch):
    for variable in Layout.ENV.values():
        monkeypatch.delenv(variable, raising=False)
    client = RecordingClient(location=":memory:")
    ServerStore.create(client, "finrag-plain", 8)
    asked = client.created["finrag-plain"]
    assert (asked["shard_number"], asked["replication_factor"],
            asked["write_consistency_factor"]) == (1, 1, 1)


WHOLE = "must be a whole number of 1 or more, got"


@pytest.mark.parametrize(("variable", "value", "message"), [
    ("FINRAG_QDRANT_SHARDS", "two", f"FINRAG_QDRANT_SHARDS {WHOLE} 'two'"),
    ("FINRAG_QDRANT_REPLICATION_FACTOR", "0", f"FINRAG_QDRANT_REPLICATION_FACTOR {WHOLE} 0"),
    ("FINRAG_QDRANT_WRITE_CONSISTENCY", "3",
     "FINRAG_QDRANT_WRITE_CONSISTENCY (3) cannot exceed FINRAG_QDRANT_REPLICATION_FACTOR (1)"),
])
def test_a_bad_layout_setting_is_refused_before_anything_is_created(monkeypatch, variable, value,
                                                                    message):
    monkeypatch.setenv(variable, value)
    client = RecordingClient(location=":memory:")
    with pytest.raises(ValueError) as caught:
        ServerStore.create(client, "finrag-bad", 8)
    assert str(caught.value).startswith(message) and "\n" not in str(caught.value)
    assert not client.collection_exists("finrag-bad")


def _unpack(tmp_path: Path, rel: str) -> Path:
    target = tmp_path / "src" / rel.removesuffix(".gz")
    target.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(FIXTURES / rel, "rb") as fh:
        target.write_bytes(fh.read())
    return target if target.suffix == ".html" else target.parent


def _fused(settings: Settings) -> dict:
    searcher = HybridSearcher(settings, UntiedEmbedder())
    try:
        out = {}
        for query in QUERIES:
            for filters in FILTERS:
                result = searcher.search(query, filters, 10)
                out[query, filters.model_dump_json()] = [
                    [(h.chunk_id, h.dense_rank, h.bm25_rank) for h in result.fused],
                    [h.chunk_id for h in result.dense]]
        return out
    finally:
        searcher.close()


@pytest.mark.slow  # two real builds; tests/test_search.py compares the engines in the fast loop
def test_the_server_path_gives_the_embedded_engines_fused_lists(tmp_path, monkeypatch):
    monkeypatch.setattr(finrag.store.clients, "_MEMORY_CLIENT", QdrantClient(location=":memory:"))
    medicis, apple = _unpack(tmp_path, MEDICIS), _unpack(tmp_path, APPLE_1995)
    results = {}
    for name, url in (("edge", None), ("server", ":memory:")):
        settings = Settings(data_dir=tmp_path / name, qdrant_url=url)
        report = build([medicis, apple], settings, UntiedEmbedder(), word_count,
                       overrides={medicis: {"ticker": "MRX", "fiscal_year": 1999}})
        assert report.totals()["failed"] == 0 and report.totals()["chunks"] > 200
        results[name] = _fused(settings)
    answered = [k for k, (fused, _) in results["edge"].items() if fused]
    assert len(answered) >= len(QUERIES) * (len(FILTERS) - 1)  # only the unknown ticker is empty
    assert results["server"] == results["edge"]
