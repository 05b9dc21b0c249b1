"""Both vector store backends: filtered search equals brute force; edge and server agree."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import as_points
from qdrant_client import QdrantClient

from finrag.models import Filters
from finrag.store.edge import EdgeStore
from finrag.store.server import ServerStore

N, DIM = 400, 384
FILTERS = [
    Filters(),
    Filters(tickers=["AAPL"]),
    Filters(tickers=["AAPL"], fiscal_years=[2023]),
    Filters(chunk_types=["table"]),
    Filters(tickers=["MSFT", "NVDA"], fiscal_years=[2021, 2024], chunk_types=["narrative"]),
    Filters(tickers=["ZZZZ"]),
]


@pytest.fixture(scope="module")
def points():
    rng = np.random.default_rng(42)
    vectors = rng.normal(size=(N, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ids = [f"{i:032x}" for i in range(N)]
    payloads = [{"ticker": ["AAPL", "MSFT", "NVDA"][i % 3], "fiscal_year": 2021 + i % 4,
                 "chunk_type": "table" if i % 5 == 0 else "narrative"} for i in range(N)]
    queries = rng.normal(size=(5, DIM)).astype(np.float32)
    return ids, vectors, payloads, queries / np.linalg.norm(queries, axis=1, keepdims=True)


@pytest.fixture(scope="module")
def edge(points, tmp_path_factory):
    ids, vectors, payloads, _ = points
    store = EdgeStore.create(tmp_path_factory.mktemp("edge") / "vectors", DIM)
    store.upsert(as_points(ids, vectors, payloads))
    store.finish()
    yield store
    store.close()


@pytest.fixture(scope="module")
def server(points):
    ids, vectors, payloads, _ = points
    store = ServerStore.create(QdrantClient(location=":memory:"), "test", DIM)
    store.upsert(as_points(ids, vectors, payloads))
    return store


def _brute(points, query, filters, limit):
    ids, vectors, payloads, _ = points
    scores = vectors @ query
    keep = [i for i in range(N)
            if filters.matches({**payloads[i], "chunk_type": payloads[i]["chunk_type"]})]
    keep.sort(key=lambda i: (-scores[i], ids[i]))
    return [(ids[i], float(scores[i])) for i in keep[:limit]]


@pytest.mark.parametrize("backend", ["edge", "server"])
@pytest.mark.parametrize("filters", FILTERS, ids=lambda f: str(f.model_dump()))
def test_filtered_search_equals_brute_force(request, points, backend, filters):
    store = request.getfixturevalue(backend)
    for query in points[3]:
        got = store.search(query, filters, 20)
        want = _brute(points, query, filters, 20)
        assert [g[0] for g in got] == [w[0] for w in want]
        assert np.allclose([g[1] for g in got], [w[1] for w in want], atol=1e-5)


def test_limit_larger_than_the_matching_set(edge, points):
    f = Filters(tickers=["AAPL"], fiscal_years=[2021], chunk_types=["table"])
    expected = sum(f.matches(p) for p in points[2])
    assert len(edge.search(points[3][0], f, 1000)) == expected > 0


def test_edge_and_server_rank_identically(edge, server, points):
    for filters in FILTERS:
        for query in points[3]:
            assert [i for i, _ in edge.search(query, filters, 50)] == \
                   [i for i, _ in server.search(query, filters, 50)]


def test_edge_reopens_and_upserts_are_idempotent(points, tmp_path):
    ids, vectors, payloads, queries = points
    store = EdgeStore.create(tmp_path / "v", DIM)
    store.upsert(as_points(ids, vectors, payloads))
    store.upsert(as_points(ids[:50], vectors[:50], payloads[:50]))
    store.finish()
    before = store.search(queries[0], Filters(tickers=["NVDA"]), 10)
    store.close()
    reopened = EdgeStore.open(tmp_path / "v")
    assert reopened.count() == N
    assert reopened.search(queries[0], Filters(tickers=["NVDA"]), 10) == before
    second = EdgeStore.open(tmp_path / "v")  # a finished shard serves several readers
    assert second.count() == N
    second.close()
    reopened.close()


def test_missing_store_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match=str(tmp_path / "nope")):
        EdgeStore.open(tmp_path / "nope")
    with pytest.raises(ValueError, match="'missing'"):
        ServerStore.open(QdrantClient(location=":memory:"), "missing")


def test_unreachable_server_is_one_line():
    client = QdrantClient(url="http://127.0.0.1:9", timeout=1)
    with pytest.raises(ValueError, match="cannot reach Qdrant"):
        ServerStore.open(client, "x")


@pytest.fixture(scope="module")
def graphed(tmp_path_factory):
    """A shard large enough for the engine to build its graph and int8 copy, with its points kept
    for brute force. Like real chunk embeddings the vectors share one direction (cosines between
    unrelated chunks are far above 0) and cluster by topic, which is where int8 scores alone
    lose the order of close neighbours."""
    rng = np.random.default_rng(7)
    n = 9_000
    common = rng.normal(size=DIM)
    centres = common + 0.5 * rng.normal(size=(60, DIM))
    vectors = centres[rng.integers(0, 60, n)] + 0.35 * rng.normal(size=(n, DIM))
    vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    ids = [f"{i:032x}" for i in range(n)]
    payloads = [{"ticker": ["AAPL", "MSFT", "NVDA"][i % 3], "fiscal_year": 2021 + i % 4,
                 "chunk_type": "table" if i % 5 == 0 else "narrative"} for i in range(n)]
    queries = centres[:12] + 0.35 * rng.normal(size=(12, DIM))
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    store = EdgeStore.create(tmp_path_factory.mktemp("graphed") / "vectors", DIM)
    store.upsert(as_points(ids, vectors, payloads))
    built = store.finish()
    store.close()
    return store.path, built, (ids, vectors, payloads, queries.astype(np.float32))


def _brute_n(points, query, filters, limit):
    """The best `limit` (id, score) pairs by exact cosine among the points passing `filters`."""
    ids, vectors, payloads, _ = points
    scores = vectors @ query
    keep = [i for i in range(len(ids)) if filters.matches(payloads[i])]
    keep.sort(key=lambda i: (-scores[i], ids[i]))
    return [(ids[i], float(scores[i])) for i in keep[:limit]]


@pytest.mark.slow  # a 9,000-point shard with its HNSW graph
def test_filtered_search_on_a_graphed_shard_scores_the_full_vectors(graphed):
    """The int8 copy serves the graph walk only: a filtered query still equals brute force."""
    path, built, points = graphed
    assert built["indexed_vectors"] == len(points[0])  # the graph and the int8 copy exist
    store = EdgeStore.open(path)
    for filters in (Filters(chunk_types=["narrative"]), Filters(tickers=["AAPL"]),
                    Filters(tickers=["MSFT"], fiscal_years=[2022])):
        for query in points[3]:
            got, want = store.search(query, filters, 50), _brute_n(points, query, filters, 50)
            # rank by rank the exact scores (ids may swap only where two scores tie in float32)
            assert np.allclose([s for _, s in got], [s for _, s in want], atol=1e-6)
            assert len({i for i, _ in got} ^ {i for i, _ in want}) <= 2
    store.close()


@pytest.mark.slow  # a 9,000-point shard with its HNSW graph
def test_a_graphed_shard_keeps_its_int8_copy_and_sparse_index_in_their_files(graphed):
    """Opening a shard maps the int8 copy and the BM25 inverted index of its sealed segments
    instead of reading them into RAM (at 1M chunks that read was 0.7 GB and most of a 2-3 s
    open). The engine's load follows each segment's own files: the int8 copy's placement is in
    `quantized.config.json`, the sparse index's in `sparse_index_config.json`."""
    path, _, _ = graphed
    configs = {d: json.loads((d / "segment.json").read_text())["config"]
               for d in path.glob("segments/*")}
    sealed = {d: c for d, c in configs.items()
              if c["vector_data"]["dense"]["index"]["type"] == "hnsw"}
    assert sealed, "no segment has its graph: the shard is too small to test the layout"
    for segment, config in sealed.items():
        assert config["vector_data"]["dense"]["storage_type"] == "Mmap"
        quantized = json.loads((segment / "vector_storage-dense/quantized.config.json")
                               .read_text())["quantization_config"]
        assert quantized["scalar"]["memory"] == "cold"
        sparse = json.loads((segment / "vector_index-bm25/sparse_index_config.json").read_text())
        assert (sparse["index_type"], sparse["memory"]) == ("Mmap", "cold")
        assert config["sparse_vector_data"]["bm25"]["index"]["memory"] == "cold"


@pytest.mark.slow  # a 9,000-point shard with its HNSW graph
def test_an_unfiltered_query_on_a_graphed_shard_finds_what_brute_force_finds(graphed):
    """The graph walk over the int8 copy, rescored with the full vectors, keeps recall."""
    path, _, points = graphed
    store = EdgeStore.open(path)
    recall = [len({i for i, _ in store.search(q, Filters(), 50)} &
                  {i for i, _ in _brute_n(points, q, Filters(), 50)}) / 50 for q in points[3]]
    store.close()
    assert np.mean(recall) >= 0.95, recall
