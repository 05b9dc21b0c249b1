"""Filings added, replaced and removed in place on a Qdrant server: an update writes the changed
filings' points only, into the published collection, under versioned visibility; readers (by
the index's name, or of the data directory) see one generation at every step of it; a build
that dies at any step is completed by the next run and leaves no trace in the collection.
The server is qdrant-client's in-process `:memory:` mode (the API a server speaks)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import UntiedEmbedder, word_count
from qdrant_client import QdrantClient, models

import finrag.generation
import finrag.ingest.generations
import finrag.ingest.server_publish
import finrag.ingest.write
import finrag.store.clients
from finrag.config import Settings
from finrag.index import Index, current_generation
from finrag.ingest.build import build, remove
from finrag.models import Filters
from finrag.search import HybridSearcher
from finrag.store.names import data_dir_id, index_alias
from finrag.store.server import FACTS_SUFFIX, STATE_ID, aliased

AAPL, TSLA = "AAPL/10-K/0000320193-24-000123", "TSLA/10-K/tsla-20241231"
QUERIES = ["research and development expense", "total net sales", "Gigafactory Megafactory",
           "supply chain risk"]
FILTERS = [Filters(), Filters(tickers=["TSLA"]), Filters(tickers=["AAPL"], fiscal_years=[2024]),
           Filters(chunk_types=["table"])]


class Died(Exception):
    """What the simulated kill raises: the writer stops there, the server keeps what it has."""


@pytest.fixture(scope="module")
def files(small_sample, tmp_path_factory) -> dict:
    """The filings: AAPL, TSLA and a changed copy of TSLA ("Gigafactory" -> "Megafactory"), cut
    to ~45 chunks each (conftest's `small_sample`): what an update writes and a reader sees
    shows at any size, and every build and comparison here is ~10x cheaper than on the whole
    filings."""
    root = tmp_path_factory.mktemp("src")
    sample = small_sample
    tsla = root / "TSLA" / "10-K" / "tsla-20241231"
    shutil.copytree(sample / TSLA, tsla)
    changed = root / "changed" / "TSLA" / "10-K" / "tsla-20241231"
    shutil.copytree(sample / TSLA, changed)
    doc = changed / "primary-document.html"
    doc.write_text(doc.read_text().replace("Gigafactory", "Megafactory"))
    return {"aapl": sample / AAPL, "tsla": tsla, "changed": changed}


@pytest.fixture(scope="module")
def reference(files, tmp_path_factory) -> dict:
    """What readers by name see before and after TSLA is replaced by its changed copy in an
    index of AAPL and TSLA, by an update that never died (on a server of its own)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(finrag.store.clients, "_MEMORY_CLIENT", QdrantClient(location=":memory:"))
        patch.setattr(finrag.ingest.server_publish, "SUPERSEDED_GRACE_S", 0.0)
        writer = Settings(data_dir=tmp_path_factory.mktemp("reference"), qdrant_url=":memory:")
        _build(writer, files["aapl"], files["tsla"])
        before, ids_before = _answers(_by_name(writer)), _chunk_ids(writer)
        _build(writer, files["changed"])
        return {"before": before, "after": _answers(_by_name(writer)),
                "ids_before": ids_before, "ids_after": _chunk_ids(writer)}


@pytest.fixture
def world(files, tmp_path, monkeypatch):
    """An empty in-process server of this test's own, and the filings (no grace wait before
    superseded points are deleted: conftest; a test asks for it where it matters)."""
    server = QdrantClient(location=":memory:")
    monkeypatch.setattr(finrag.store.clients, "_MEMORY_CLIENT", server)
    return {"server": server, "root": tmp_path, **files}


def _writer(world, name: str = "data", url: str | None = ":memory:") -> Settings:
    return Settings(data_dir=world["root"] / name, qdrant_url=url)


def _by_name(writer: Settings) -> Settings:
    return Settings(data_dir=writer.data_dir.parent / "no-data-dir", qdrant_url=":memory:",
                    qdrant_index=index_alias(data_dir_id(writer.data_dir)))


def _build(writer: Settings, *paths: Path):
    report = build(list(paths), writer, UntiedEmbedder(), word_count)
    assert report.totals()["failed"] == 0
    return report


def _answers(settings: Settings) -> dict:
    """What a reader sees: fused lists (ids and both legs' ranks) and dense lists, TSLA's
    facts, the facets."""
    searcher = HybridSearcher(settings, UntiedEmbedder())
    try:
        out = {(q, f.model_dump_json()): _lists(searcher.search(q, f, 10))
               for q in QUERIES for f in FILTERS}
        out["facts"] = [f.model_dump_json() for f in searcher.index.facts(tickers=["TSLA"])]
        out["facets"] = searcher.index.facets()
        return out
    finally:
        searcher.close()


def _lists(result) -> dict:
    return {"fused": [(h.chunk_id, h.dense_rank, h.bm25_rank) for h in result.fused],
            "dense": [h.chunk_id for h in result.dense]}


def _chunk_ids(writer: Settings) -> set[str]:
    index = Index.open(writer)
    try:
        return set(index.chunk_ids())
    finally:
        index.close()


def _one_generation(seen: dict, state: dict, ids: set[str], other: set[str]) -> int:
    """`seen` is what a reader of generation `state` (its chunk ids `ids`) saw while an update
    was in flight: its dense lists, facts and facets exactly, and fused lists of its own chunks
    only, none of the other generation's (`other`). BM25's idf counts every point of the
    collection, the other generation's too, so the fused order may differ from `state`'s:
    returns how many fused lists differ."""
    differ = 0
    for key, value in state.items():
        if isinstance(key, tuple):
            assert seen[key]["dense"] == value["dense"], key
            shown = {cid for cid, *_ in seen[key]["fused"]}
            assert shown <= ids and not shown & (other - ids), key
            differ += seen[key]["fused"] != value["fused"]
        else:
            assert seen[key] == value, key
    return differ


def _points(server: QdrantClient, collection: str) -> list:
    records, offset = [], None
    while True:
        page, offset = server.scroll(collection, limit=1000, offset=offset, with_payload=True)
        records += page
        if offset is None:
            return records


def _tidy(server: QdrantClient, writer: Settings) -> None:
    """The collection holds the published generation and nothing else: no point or fact of a
    build that died, none marked as ended, each chunk once, beside the one state point."""
    index = Index.open(writer)
    try:
        collection = index.manifest["backend"]["collection"]
        points = _points(server, collection)
        facts = _points(server, collection + FACTS_SUFFIX)
        chunks = [p for p in points if p.id != STATE_ID]
        assert sorted(p.payload["chunk_id"] for p in chunks) == index.chunk_ids()
        assert not any("until" in p.payload for p in chunks + facts)
        version = index.manifest["backend"]["version"]
        assert all(p.payload.get("born", 0) <= version for p in chunks + facts)
        assert len(facts) == len(index.all_facts())
        state = next(p for p in points if p.id == STATE_ID).payload
        assert state["generation"] == index.name
    finally:
        index.close()


def test_adding_replacing_and_removing_write_only_those_filings_points(world):
    server, writer = world["server"], _writer(world)
    written: dict[str, int] = {}
    real_upsert = server.upsert

    def counting(collection_name, points, **kwargs):
        written[collection_name] = written.get(collection_name, 0) + len(points)
        return real_upsert(collection_name, points=points, **kwargs)

    _build(writer, world["aapl"])
    alias = index_alias(data_dir_id(writer.data_dir))
    collection = aliased(server, alias)
    server.upsert = counting
    added = _build(writer, world["tsla"])
    assert written[collection] == added.filings[0].chunks + 1  # TSLA's points and the state
    assert written[collection + FACTS_SUFFIX] == added.filings[0].facts > 0
    written.clear()
    assert _build(writer, world["aapl"], world["tsla"]).filings[0].status == "skipped"
    assert written == {}  # unchanged: nothing written
    replaced = _build(writer, world["changed"])
    assert written[collection] == replaced.filings[0].chunks + 1
    written.clear()
    removed = remove([world["aapl"]], writer)
    assert removed.published and written == {collection: 1}  # the state point only
    assert aliased(server, alias) == collection  # the same collection throughout
    _tidy(server, writer)
    assert _answers(_by_name(writer)) == _answers(writer)
    assert set(_answers(writer)["facets"]["companies"]) == {"TSLA"}


@pytest.mark.slow  # two engines through five updates, 16 searches each (~7 s); the fast loop
# compares the engines after one build (tests/test_search.py, test_server_backend_gives_...)
def test_a_server_index_grown_in_place_ranks_as_the_embedded_one_grown_alike(world):
    """The same builds and removal on both engines: the same fused lists, facts and facets
    after every step (the updates keep the first build's avgdl on both)."""
    steps = [[world["aapl"]], [world["tsla"]], [world["changed"]], "remove aapl",
             [world["aapl"]]]
    edge, server = _writer(world, "edge", None), _writer(world, "server")
    for step in steps:
        for settings in (edge, server):
            if step == "remove aapl":
                assert remove([world["aapl"]], settings).published
            else:
                _build(settings, *step)
        assert _answers(server) == _answers(edge), step
        assert _answers(_by_name(server)) == _answers(edge), step
    answered = _answers(edge)  # the lists compared are whole: 10 fused and 10 dense hits each
    lists = [v for k, v in answered.items() if isinstance(k, tuple)]
    assert [(len(v["fused"]), len(v["dense"])) for v in lists] == [(10, 10)] * 16
    assert sorted(answered["facets"]["companies"]) == ["AAPL", "TSLA"]


def _recording(world, writer: Settings, steps: list):
    """A crash point that records, at each point an update's write path reaches, what a reader
    by name (opened then, and one held open since before), and one of the data dir, see."""
    held = HybridSearcher(_by_name(writer), UntiedEmbedder())
    held.search("net sales", Filters(), 5)

    def observe(point: str) -> None:
        if point in ("read", "embed"):  # before anything is written
            return
        seen = _answers(_by_name(writer))
        held_now = {(q, f.model_dump_json()): _lists(held.search(q, f, 10))
                    for q in QUERIES for f in FILTERS}
        agrees = held_now == {k: v for k, v in seen.items() if isinstance(k, tuple)}
        steps.append((point, seen, agrees, _answers(writer)))
    return held, observe


@pytest.mark.slow  # 16 searches by three readers at each of ~12 points of the update (~13 s)
def test_readers_see_only_one_generations_chunks_at_every_step_of_a_server_update(
        world, monkeypatch):
    """A reader by name sees the old generation's chunks, and only those, until the state
    point moves, then the new one's; one that opened before follows; a reader of the data dir
    switches at CURRENT. Checked at every point of the update's write path, and inside the
    grace wait before the replaced filing's old points are deleted. Before the first new point
    is written and after the old ones are deleted the answers are exactly a whole state's."""
    writer = _writer(world)
    _build(writer, world["aapl"], world["tsla"])
    before, ids_before = _answers(_by_name(writer)), _chunk_ids(writer)
    steps: list = []
    held, observe = _recording(world, writer, steps)
    monkeypatch.setattr(finrag.generation, "crash_point", observe)
    monkeypatch.setattr(finrag.ingest.write, "crash_point", observe)
    monkeypatch.setattr(finrag.ingest.generations, "crash_point", observe)
    monkeypatch.setattr(finrag.ingest.server_publish, "crash_point", observe)

    class Clock:
        @staticmethod
        def sleep(seconds: float) -> None:
            assert seconds == finrag.ingest.server_publish.SUPERSEDED_GRACE_S
            observe("grace")

        perf_counter = staticmethod(__import__("time").perf_counter)

    monkeypatch.setattr(finrag.ingest.server_publish, "time", Clock)
    monkeypatch.setattr(finrag.ingest.server_publish, "SUPERSEDED_GRACE_S", 5.0)
    try:
        _build(writer, world["changed"])
    finally:
        held.close()
    monkeypatch.undo()
    monkeypatch.setattr(finrag.store.clients, "_MEMORY_CLIENT", world["server"])
    after, ids_after = _answers(_by_name(writer)), _chunk_ids(writer)
    assert ids_after - ids_before and ids_before - ids_after  # texts replaced
    points = [p for p, *_ in steps]
    assert {"copied", "retired", "vectors", "publish", "stated", "grace",
            "superseded"} <= set(points)
    switched, published = points.index("stated"), points.index("publish")
    first_write, cleaned = points.index("vectors"), points.index("superseded")
    reordered = []
    for i, (point, seen, held_agrees, local) in enumerate(steps):
        assert held_agrees, point
        state, ids, other = ((before, ids_before, ids_after) if i < switched
                             else (after, ids_after, ids_before))
        reordered.append(_one_generation(seen, state, ids, other))
        if i < first_write or i >= cleaned:
            assert seen == state, point
        local_state = ((before, ids_before, ids_after) if i <= published
                       else (after, ids_after, ids_before))
        _one_generation(local, *local_state)
    print("fused lists reordered by the update's idf, per step:", dict(zip(points, reordered)))
    _tidy(world["server"], writer)


KILL_POINTS = ["copied", "chunks", "retired", "vectors", "flush", "manifest", "renamed",
               "publish", "published", "stated", "aliased", "superseded"]
# In the fast loop: the last point before the first new point is written, the last before the
# state point moves, the move itself, and the end (each branch of the check below); every
# point in the whole suite.
FAST_KILL_POINTS = {"retired", "published", "stated", "superseded"}


@pytest.mark.parametrize("point", [p if p in FAST_KILL_POINTS else
                                   pytest.param(p, marks=pytest.mark.slow)
                                   for p in KILL_POINTS])
def test_a_server_update_killed_at_any_point_is_completed_by_the_next_run(world, reference,
                                                                          monkeypatch, point):
    """Killed at `point` while replacing a filing: readers by name see the old generation or
    the new one, whole; the next run leaves what an update that never died leaves."""
    before, after = reference["before"], reference["after"]
    writer = _writer(world)
    _build(writer, world["aapl"], world["tsla"])

    def kill(at: str) -> None:
        if at == point:
            raise Died(at)

    monkeypatch.setattr(finrag.generation, "crash_point", kill)
    monkeypatch.setattr(finrag.ingest.write, "crash_point", kill)
    monkeypatch.setattr(finrag.ingest.generations, "crash_point", kill)
    monkeypatch.setattr(finrag.ingest.server_publish, "crash_point", kill)
    with pytest.raises(Died):
        build([world["changed"]], writer, UntiedEmbedder(), word_count)
    monkeypatch.setattr(finrag.generation, "crash_point", lambda at: None)
    monkeypatch.setattr(finrag.ingest.write, "crash_point", lambda at: None)
    monkeypatch.setattr(finrag.ingest.generations, "crash_point", lambda at: None)
    monkeypatch.setattr(finrag.ingest.server_publish, "crash_point", lambda at: None)
    seen, at = _answers(_by_name(writer)), KILL_POINTS.index(point)
    if at < KILL_POINTS.index("vectors") or point == "superseded":  # nothing new, or all done
        assert seen == (after if point == "superseded" else before)
    elif at < KILL_POINTS.index("stated"):
        _one_generation(seen, before, reference["ids_before"], reference["ids_after"])
    else:
        _one_generation(seen, after, reference["ids_after"], reference["ids_before"])
    _build(writer, world["changed"])
    assert _answers(_by_name(writer)) == _answers(writer) == after
    assert current_generation(writer.data_dir) == "gen-000002"
    _tidy(world["server"], writer)


def test_a_failed_publish_of_an_update_is_one_line_and_the_next_run_finishes_it(world,
                                                                                monkeypatch):
    from finrag.store.base import StoreError
    from finrag.store.server import ServerStore

    writer = _writer(world)
    _build(writer, world["aapl"])
    before, ids = _answers(_by_name(writer)), _chunk_ids(writer)

    def refused(self, manifest):
        raise StoreError("Qdrant collection 'x': publishing failed (timed out)")

    real_publish = ServerStore.publish_state
    monkeypatch.setattr(ServerStore, "publish_state", refused)
    with pytest.raises(StoreError) as caught:
        build([world["tsla"]], writer, UntiedEmbedder(), word_count)
    message = str(caught.value)
    assert "gen-000002 is published" in message and "run the build again" in message
    assert "\n" not in message
    _one_generation(_answers(_by_name(writer)), before, ids, _chunk_ids(writer))
    monkeypatch.setattr(ServerStore, "publish_state", real_publish)
    assert _build(writer, world["tsla"]).filings[0].status == "skipped"
    assert set(_answers(_by_name(writer))["facets"]["companies"]) == {"AAPL", "TSLA"}
    _tidy(world["server"], writer)


def test_a_rebuild_writes_a_new_collection_and_updates_continue_there(world):
    """`--rebuild` on a server writes a whole new collection behind the alias; the old
    collection goes once no kept generation reads it; later updates change the new one."""
    server, writer = world["server"], _writer(world)
    _build(writer, world["aapl"])
    _build(writer, world["tsla"])  # an update of the first collection
    alias = index_alias(data_dir_id(writer.data_dir))
    first = aliased(server, alias)
    build([world["aapl"], world["tsla"]], writer, UntiedEmbedder(), word_count, rebuild=True)
    second = aliased(server, alias)
    assert second != first
    names = {c.name for c in server.get_collections().collections}
    assert first in names  # the generation before is kept: a reader may still hold it
    remove([world["aapl"]], writer)  # an update of the second collection
    names = {c.name for c in server.get_collections().collections}
    assert aliased(server, alias) == second and first not in names
    assert set(_answers(_by_name(writer))["facets"]["companies"]) == {"TSLA"}
    _tidy(server, writer)


def test_a_server_index_from_before_versions_is_rewritten_whole_then_updated_in_place(world):
    """A generation written before versions (no state point, no `version`) is not changed in
    place: the next change writes a whole new collection, and updates go on from there."""
    server, writer = world["server"], _writer(world)
    _build(writer, world["aapl"])
    manifest_path = writer.data_dir / "generations" / "gen-000001" / "manifest.json"
    old = json.loads(manifest_path.read_text())
    for key in ("versioned", "version"):
        del old["backend"][key]
    manifest_path.write_text(json.dumps(old))
    server.delete(old["backend"]["collection"],
                  points_selector=models.PointIdsList(points=[STATE_ID]))
    _build(writer, world["tsla"])
    index = Index.open(writer)
    try:
        assert index.manifest["backend"]["collection"] != old["backend"]["collection"]
        assert "updated_from" not in index.manifest
    finally:
        index.close()
    remove([world["aapl"]], writer)
    assert set(_answers(_by_name(writer))["facets"]["companies"]) == {"TSLA"}
    _tidy(server, writer)


def test_a_killed_update_rerun_with_nothing_changed_leaves_no_trace(world, monkeypatch):
    """Killed after writing some new points, then re-run with the files as indexed (nothing
    to write): the dead build's points go anyway (idf would count them)."""
    writer = _writer(world)
    _build(writer, world["aapl"], world["tsla"])
    before = _answers(_by_name(writer))

    def kill(at: str) -> None:
        if at == "vectors":
            raise Died(at)

    monkeypatch.setattr(finrag.generation, "crash_point", kill)
    with pytest.raises(Died):
        build([world["changed"]], writer, UntiedEmbedder(), word_count)
    monkeypatch.setattr(finrag.generation, "crash_point", lambda at: None)
    report = _build(writer, world["aapl"], world["tsla"])
    assert not report.published and {f.status for f in report.filings} == {"skipped"}
    assert _answers(_by_name(writer)) == before
    _tidy(world["server"], writer)


def test_asking_by_name_sees_the_companies_and_facts_of_each_generation(world):
    """`ask` keeps companies and facts per generation: an update in place (same collection)
    must not leave a reader on the old generation's."""
    from finrag.ask import companies_of

    writer = _writer(world)
    _build(writer, world["aapl"])
    searcher = HybridSearcher(_by_name(writer), UntiedEmbedder())
    try:
        searcher.search("net sales", Filters(), 5)
        assert set(companies_of(searcher.index)[0]) == {"AAPL"}
        _build(writer, world["tsla"])
        searcher.search("net sales", Filters(), 5)  # follows the new generation
        assert set(companies_of(searcher.index)[0]) == {"AAPL", "TSLA"}
        assert searcher.index.facts(tickers=["TSLA"])
    finally:
        searcher.close()


def test_an_index_of_the_day_before_state_points_is_read_by_name_then_upgraded(world):
    """A server index of 2026-12-05 kept its manifest in the collection's metadata and had no
    versions: readers by name still open it, and its next build, even one that changes
    nothing, gives it a state point."""
    server, writer = world["server"], _writer(world)
    _build(writer, world["aapl"])
    path = writer.data_dir / "generations" / "gen-000001" / "manifest.json"
    manifest = json.loads(path.read_text())
    facets = manifest.pop("facets")
    for key in ("versioned", "version"):
        del manifest["backend"][key]
    path.write_text(json.dumps(manifest))
    collection = manifest["backend"]["collection"]
    server.update_collection(collection, metadata={"finrag": {**manifest, "facets": facets}})
    server.delete(collection, points_selector=models.PointIdsList(points=[STATE_ID]))
    before = _answers(_by_name(writer))
    assert set(before["facets"]["companies"]) == {"AAPL"}
    assert not _build(writer, world["aapl"]).published  # nothing changed
    state = server.retrieve(collection, ids=[STATE_ID])[0].payload
    assert state["generation"] == "gen-000001" and state["facets"] == facets
    assert _answers(_by_name(writer)) == before
