"""Several data directories on one Qdrant server: each keeps its own vectors, its builds and
garbage collection never touch another's collections, and a store error reaching a CLI is one
line. The server is qdrant-client's in-process `:memory:` mode (the API a server speaks), one
fresh client per test, shared by every data dir of the test as one server would be."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import FIXTURES, FakeEmbedder, word_count
from qdrant_client import QdrantClient, models

import finrag.generation
import finrag.store.clients
from finrag.cli import main as finrag_main
from finrag.config import Settings
from finrag.index import Index, current_generation
from finrag.ingest.build import build
from finrag.ingest.cli import main as ingest_main
from finrag.models import Filters
from finrag.search import HybridSearcher
from finrag.store.server import FACTS_SUFFIX

# Two real 10-Ks of different companies: team A indexes one, team B the other.
MEDICIS = "ingest/other/0000950153-99-001234/primary-document.html.gz"
APPLE_1995 = ("ingest/sec-edgar-filings/AAPL/10-K/0000320193-95-000016/"
              "full-submission.tagstripped.txt.gz")
FILINGS = {"a": (MEDICIS, {"ticker": "MRX", "fiscal_year": 1999}), "b": (APPLE_1995, {})}


@pytest.fixture
def server(monkeypatch) -> QdrantClient:
    """A fresh in-process 'server' that every data dir with FINRAG_QDRANT_URL=:memory: uses."""
    client = QdrantClient(location=":memory:")
    monkeypatch.setattr(finrag.store.clients, "_MEMORY_CLIENT", client)
    return client


def _unpack(tmp_path: Path, rel: str) -> Path:
    target = tmp_path / "src" / rel.removesuffix(".gz")
    target.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(FIXTURES / rel, "rb") as fh:
        target.write_bytes(fh.read())
    return target if target.suffix == ".html" else target.parent


def _build(tmp_path: Path, team: str, *, rebuild: bool = False):
    rel, meta = FILINGS[team]
    settings = Settings(data_dir=tmp_path / team, qdrant_url=":memory:")
    report = build([_unpack(tmp_path, rel)], settings, FakeEmbedder(), word_count,
                   rebuild=rebuild, **meta)
    assert report.totals()["failed"] == 0 and report.totals()["chunks"] > 100
    return settings


def _search(settings: Settings, query: str):
    searcher = HybridSearcher(settings, FakeEmbedder())
    try:
        return searcher.search(query, Filters(), 5)
    finally:
        searcher.close()


def _collections(server: QdrantClient) -> set[str]:
    return {c.name for c in server.get_collections().collections}


def _own_collections(settings: Settings, *, facts: bool = True) -> set[str]:
    """The collections the manifests of a data dir's generations name (their points), and with
    `facts` the facts collection beside each."""
    root = settings.data_dir / "generations"
    points = {json.loads((g / "manifest.json").read_text())["backend"]["collection"]
              for g in root.glob("gen-*")}
    return points | {p + FACTS_SUFFIX for p in points} if facts else points


def test_two_data_dirs_on_one_server_keep_their_own_vectors(server, tmp_path):
    a = _build(tmp_path, "a")
    b = _build(tmp_path, "b")  # its first generation has the same number as a's
    for settings, ticker in ((a, "MRX"), (b, "AAPL")):
        result = _search(settings, "net sales revenue products")
        assert result.dense and result.fused
        assert {h.chunk.ticker for h in result.dense + result.fused} == {ticker}
        index = Index.open(settings)
        try:
            assert index.vectors.count() == len(index)  # every chunk still has its vector
        finally:
            index.close()
    assert not _own_collections(a) & _own_collections(b)


def test_garbage_collection_drops_only_this_data_dirs_collections(server, tmp_path):
    b = _build(tmp_path, "b")
    b_collections = _own_collections(b)
    for _ in range(4):  # a's generations 1-4; its garbage collection keeps two
        a = _build(tmp_path, "a", rebuild=True)
    assert current_generation(a.data_dir) == "gen-000004"
    assert b_collections <= _collections(server)
    assert _collections(server) == b_collections | _own_collections(a)
    assert len(_own_collections(a)) == 2 * 2  # two generations, each points and facts
    result = _search(b, "Macintosh computers net sales")
    assert result.dense and {h.chunk.ticker for h in result.dense} == {"AAPL"}


def test_a_build_never_overwrites_a_collection_it_did_not_create(server, tmp_path):
    """A collection of the name this data dir would create already exists (a copy of the data
    dir built too, say): the build refuses in one line and leaves that collection as it was."""
    a = _build(tmp_path, "a")
    taken = min(_own_collections(a)).replace("gen-000001", "gen-000002")  # the points'

    server.create_collection(taken, vectors_config=models.VectorParams(
        size=384, distance=models.Distance.COSINE))
    server.upsert(taken, points=[models.PointStruct(id=1, vector=np.ones(384).tolist(),
                                                    payload={"chunk_id": "theirs"})])
    with pytest.raises(RuntimeError, match=taken) as caught:
        _build(tmp_path, "a", rebuild=True)
    assert "\n" not in str(caught.value)
    assert server.count(taken).count == 1
    assert current_generation(a.data_dir) == "gen-000001"
    assert _search(a, "net sales").dense  # the published index still answers


def _one_line_error(capsys, code: int) -> str:
    _, err = capsys.readouterr()
    assert code == 1 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    return err


def test_a_collection_overwritten_by_another_writer_is_a_one_line_cli_error(
        server, tmp_path, monkeypatch, capsys, fake_model):
    """An older finrag (or anything else) on the server replaced this index's collection with
    other points: search and canary say so in one line, exit 1 (it was a KeyError traceback)."""
    monkeypatch.setenv("FINRAG_QDRANT_URL", ":memory:")
    a = _build(tmp_path, "a")
    (collection,) = _own_collections(a, facts=False)
    server.delete_collection(collection)
    server.create_collection(collection, vectors_config=models.VectorParams(
        size=384, distance=models.Distance.COSINE))
    server.upsert(collection, points=[models.PointStruct(
        id=1, vector=FakeEmbedder().encode(["net sales"])[0].tolist(),
        payload={"chunk_id": "f" * 32, "ticker": "MRX", "fiscal_year": 1999,
                 "chunk_type": "narrative"})])
    err = _one_line_error(capsys,
                          finrag_main(["search", "net sales", "--data-dir", str(a.data_dir)]))
    assert collection in err and "rebuild" in err
    canaries = tmp_path / "c.toml"
    canaries.write_text('[[canary]]\nname = "sales"\nquery = "net sales"\n'
                        'expect = { ticker = "MRX" }\n')
    err = _one_line_error(capsys, finrag_main(["canary", "--file", str(canaries),
                                               "--data-dir", str(a.data_dir)]))
    assert collection in err


def test_a_collection_deleted_on_the_server_is_a_one_line_cli_error(
        server, tmp_path, monkeypatch, capsys, fake_model):
    monkeypatch.setenv("FINRAG_QDRANT_URL", ":memory:")
    a = _build(tmp_path, "a")
    (collection,) = _own_collections(a, facts=False)
    searcher = HybridSearcher(a, FakeEmbedder())
    assert searcher.search("net sales").dense  # opened while the collection was there
    server.delete_collection(collection)
    with pytest.raises(RuntimeError, match=collection) as caught:
        searcher.search("net sales")
    assert "\n" not in str(caught.value)
    searcher.close()
    for main, argv in ((finrag_main, ["search", "net sales"]), (ingest_main, ["status"])):
        err = _one_line_error(capsys, main(argv + ["--data-dir", str(a.data_dir)]))
        assert collection in err


def test_a_refused_build_from_the_cli_is_one_line(server, tmp_path, monkeypatch, capsys,
                                                  fake_model):
    monkeypatch.setenv("FINRAG_QDRANT_URL", ":memory:")
    a = _build(tmp_path, "a")
    taken = min(_own_collections(a)).replace("gen-000001", "gen-000002")  # the points'

    server.create_collection(taken, vectors_config=models.VectorParams(
        size=384, distance=models.Distance.COSINE))
    src = _unpack(tmp_path, MEDICIS)
    err = _one_line_error(capsys, ingest_main(["build", str(src), "--ticker", "MRX",
                                               "--fiscal-year", "1999", "--rebuild",
                                               "--data-dir", str(a.data_dir)]))
    assert taken in err


def test_the_data_dir_id_is_kept_across_generations_and_copies_get_their_own(server, tmp_path):
    """Every generation of one data dir lives in its namespace; a copy of the data dir that
    builds takes a namespace of its own, so the copy's garbage collection cannot drop the
    collections the original still serves."""
    a = _build(tmp_path, "a")
    _build(tmp_path, "a", rebuild=True)
    prefixes = {name.rsplit("-gen-", 1)[0] for name in _own_collections(a)}
    assert len(prefixes) == 1 and len(_own_collections(a, facts=False)) == 2
    original = set(_own_collections(a))
    copy = Settings(data_dir=tmp_path / "copy", qdrant_url=":memory:")
    shutil.copytree(a.data_dir, copy.data_dir)
    for _ in range(3):
        report = build([_unpack(tmp_path, MEDICIS)], copy, FakeEmbedder(), word_count,
                       rebuild=True, ticker="MRX", fiscal_year=1999)
        assert report.totals()["failed"] == 0
    assert original <= _collections(server)
    assert _search(a, "net sales").dense
    assert _search(copy, "net sales").dense


class Died(Exception):
    """Stands in for a build killed at a crash point (the kill tests SIGKILL; a killed process
    takes the in-process server with it, so here the build raises instead)."""


@pytest.mark.parametrize("point", ["vectors", "flush", "renamed", "publish"])
def test_a_build_that_died_after_creating_its_collection_does_not_block_the_next(
        server, tmp_path, monkeypatch, point):
    a = _build(tmp_path, "a")

    def crash(at: str) -> None:
        if at == point:
            raise Died(at)

    monkeypatch.setattr(finrag.generation, "crash_point", crash)
    with pytest.raises(Died):
        _build(tmp_path, "a", rebuild=True)
    assert current_generation(a.data_dir) == "gen-000001"
    assert len(_collections(server)) == 2 * 2  # the dead build's collections are on the server
    monkeypatch.undo()
    monkeypatch.setattr(finrag.store.clients, "_MEMORY_CLIENT", server)
    _build(tmp_path, "a", rebuild=True)
    assert current_generation(a.data_dir) == "gen-000002"
    assert _collections(server) == _own_collections(a)
    assert len(_collections(server)) == 2 * 2 and _search(a, "net sales").dense


def test_a_collection_the_server_could_not_drop_is_dropped_by_a_later_build(
        server, tmp_path, monkeypatch):
    from finrag.store.base import StoreError
    from finrag.store.server import ServerStore

    a = _build(tmp_path, "a")
    _build(tmp_path, "a", rebuild=True)
    first = {c for c in _own_collections(a) if c.endswith("gen-000001")}

    def unreachable(cls, client, collection):
        raise StoreError("server down")

    monkeypatch.setattr(ServerStore, "drop_if_exists", classmethod(unreachable))
    _build(tmp_path, "a", rebuild=True)  # its garbage collection cannot reach the server
    assert first <= _collections(server) and first <= _own_collections(a)
    monkeypatch.undo()
    monkeypatch.setattr(finrag.store.clients, "_MEMORY_CLIENT", server)
    _build(tmp_path, "a", rebuild=True)
    assert current_generation(a.data_dir) == "gen-000004"
    assert _collections(server) == _own_collections(a) and len(_collections(server)) == 2 * 2


def test_the_app_says_in_one_line_that_the_server_lost_the_collection(server, tmp_path,
                                                                        monkeypatch):
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    a = _build(tmp_path, "a")
    (collection,) = _own_collections(a, facts=False)
    server.delete_collection(collection)
    monkeypatch.setenv("FINRAG_APP_EMBEDDER", "conftest:AppEmbedder")  # as the index was built
    monkeypatch.setenv("FINRAG_DATA_DIR", str(a.data_dir))
    monkeypatch.setenv("FINRAG_QDRANT_URL", ":memory:")
    st.cache_resource.clear()
    try:
        at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app.py"),
                               default_timeout=120)
        at.run()
        assert not at.exception, at.exception
        errors = [e.value for e in at.error]
        assert len(errors) == 1 and collection in errors[0] and "\n" not in errors[0]
    finally:
        st.cache_resource.clear()
