"""Filings added, replaced and removed in place: a build that changes some filings writes only
theirs (a copy of the published generation, changed), and `ingest remove` takes filings out."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import FakeEmbedder, word_count

from finrag.config import Settings
from finrag.index import GENERATIONS, Index, current_generation, open_table
from finrag.ingest.build import build
from finrag.ingest.cli import main as ingest_main
from finrag.ingest.sample import unpack_sample
from finrag.models import Filters
from finrag.search import HybridSearcher

AAPL, TSLA, HD = ("AAPL/10-K/0000320193-24-000123", "TSLA/10-K/tsla-20241231",
                  "HD/10-K/0000354950-25-000085")


@pytest.fixture(scope="module")
def root(small_sample) -> Path:
    """The sample's filings cut to ~45 chunks each (conftest's `small_sample`): what an update
    writes shows at any size, at a tenth of the cost."""
    return small_sample


@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> Path:
    """The whole sample filings, for the tests that count a filing's chunks."""
    return unpack_sample(tmp_path_factory.mktemp("update-src")) / "sec-edgar-filings"


def _settings(data: Path) -> Settings:
    return Settings(data_dir=data, qdrant_url=None)


def _build(data: Path, paths, **kw):
    return build(list(paths), _settings(data), FakeEmbedder(), word_count, **kw)


def _rows(data: Path, filing_key: str) -> list[tuple]:
    """A filing's chunk rows as stored (row number, id, payload) in the published generation
    (its tables as readers see them: a delta over a base, or written whole)."""
    con = open_table(data / GENERATIONS / current_generation(data))
    try:
        return con.execute("SELECT row, chunk_id, payload FROM chunks WHERE filing_key = ?"
                           " ORDER BY row", (filing_key,)).fetchall()
    finally:
        con.close()


def _manifest(data: Path) -> dict:
    return json.loads((data / GENERATIONS / current_generation(data) / "manifest.json")
                      .read_text())


def _by_filing(data: Path) -> dict[str, set[str]]:
    index = Index.open(_settings(data))
    try:
        keys = {c.filing_key for c in index.all_chunks()}
        assert index.vectors.count() == len(index)  # the engine holds every chunk once
        return index.filing_chunk_ids(keys)
    finally:
        index.close()


@pytest.fixture(scope="module")
def two(root, tmp_path_factory) -> dict:
    """AAPL built whole, then TSLA added in place; and both built whole, for comparison."""
    data = tmp_path_factory.mktemp("two")
    first = _build(data, [root / AAPL])
    aapl_key = first.filings[0].accession
    aapl_rows = _rows(data, aapl_key)
    added = _build(data, [root / TSLA])
    whole = tmp_path_factory.mktemp("whole")
    _build(whole, [root / AAPL, root / TSLA])
    return {"data": data, "first": first, "added": added, "aapl_key": aapl_key,
            "aapl_rows": aapl_rows, "whole": whole}


def test_adding_a_filing_writes_only_that_filing(two):
    data, added = two["data"], two["added"]
    assert added.published and added.filings[0].status == "ok"
    assert added.embedded == added.filings[0].chunks  # AAPL's chunks were not embedded again
    assert _manifest(data)["updated_from"] == two["first"].generation
    assert _rows(data, two["aapl_key"]) == two["aapl_rows"]  # AAPL's rows untouched


def test_an_update_says_where_its_time_went(two, root, tmp_path, capsys):
    steps = two["added"].steps  # the add of TSLA above
    assert {"read", "compare", "embed", "copy tables", "write tables", "copy shard",
            "count points", "delete points", "upsert points", "flush shard",
            "finish generation", "publish"} <= set(steps)
    assert all(s >= 0 for s in steps.values())
    assert sum(steps.values()) <= two["added"].seconds
    data = tmp_path / "data"
    shutil.copytree(two["data"], data)
    assert ingest_main(["remove", str(root / TSLA), "--data-dir", str(data), "--json"]) == 0
    removed = json.loads(capsys.readouterr().out)
    assert "read" not in removed["steps"] and "delete points" in removed["steps"]


def test_an_index_grown_in_place_holds_what_a_whole_build_holds(two):
    assert _by_filing(two["data"]) == _by_filing(two["whole"])
    grown, whole = Index.open(_settings(two["data"])), Index.open(_settings(two["whole"]))
    try:
        assert [f.model_dump() for f in grown.all_facts()] == \
               [f.model_dump() for f in whole.all_facts()]
    finally:
        grown.close()
        whole.close()


def test_both_legs_find_the_added_filing_under_its_filters(two):
    searcher = HybridSearcher(_settings(two["data"]), FakeEmbedder())
    try:
        result = searcher.search("vehicle deliveries automotive revenue",
                                 Filters(tickers=["TSLA"]))
    finally:
        searcher.close()
    assert result.bm25 and result.dense and result.fused
    assert {h.chunk.ticker for h in result.bm25 + result.dense + result.fused} == {"TSLA"}
    assert "automotive" in result.bm25[0].chunk.text.lower()


def test_reingesting_an_unchanged_filing_writes_nothing(root, tmp_path):
    data = tmp_path / "data"
    _build(data, [root / AAPL, root / TSLA])
    name = current_generation(data)
    again = _build(data, [root / TSLA])
    assert (again.published, again.embedded, again.generation) == (False, 0, name)
    assert again.filings[0].status == "skipped"
    assert sorted(p.name for p in (data / GENERATIONS).iterdir()) == [name]


def test_the_same_filing_read_from_a_moved_folder_is_unchanged(root, tmp_path):
    """Copying the filings (a new machine, a moved folder) and ingesting them again writes
    nothing: where a filing was read from is not part of what it says."""
    data = tmp_path / "data"
    _build(data, [root / AAPL, root / TSLA])
    name = current_generation(data)
    moved = tmp_path / "moved" / "TSLA" / "10-K" / "tsla-20241231"
    shutil.copytree(root / TSLA, moved)
    again = _build(data, [moved])
    assert (again.published, again.embedded, again.generation) == (False, 0, name)
    assert again.filings[0].status == "skipped"


@pytest.mark.slow  # builds whole real filings (it counts their chunks)
def test_a_changed_filing_replaces_its_old_chunks_and_nothing_else(whole, tmp_path):
    root = whole
    data = tmp_path / "data"
    tsla = tmp_path / "TSLA" / "10-K" / "tsla-20241231"
    shutil.copytree(root / TSLA, tsla)
    _build(data, [root / AAPL, tsla])
    before = _by_filing(data)
    aapl_key = next(k for k in before if not k.startswith("TSLA"))
    aapl_rows = _rows(data, aapl_key)
    doc = tsla / "primary-document.html"
    doc.write_text(doc.read_text().replace("Gigafactory", "Megafactory"))
    changed = _build(data, [tsla])
    after = _by_filing(data)
    assert changed.published and 0 < changed.filings[0].new_chunks < changed.filings[0].chunks
    # only changed texts are embedded: the new chunks, and a few whose page title changed
    assert changed.filings[0].new_chunks <= changed.embedded < changed.filings[0].chunks / 10
    key = next(k for k in after if k.startswith("TSLA"))
    assert after[key] != before[key] and len(after[key]) == changed.filings[0].chunks
    assert _rows(data, aapl_key) == aapl_rows
    searcher = HybridSearcher(_settings(data), FakeEmbedder())
    try:
        hits = searcher.search("Gigafactory Megafactory", Filters(tickers=["TSLA"])).bm25
    finally:
        searcher.close()
    assert hits and all("gigafactory" not in h.chunk.text.lower() for h in hits)


def test_remove_takes_out_the_filings_read_from_a_path(root, tmp_path, capsys):
    data = tmp_path / "data"
    _build(data, [root / AAPL, root / TSLA, root / HD])
    code = ingest_main(["remove", str(root / TSLA), str(tmp_path / "never-indexed"),
                        "--data-dir", str(data)])
    out, err = capsys.readouterr()
    assert code == 2  # one path named nothing: partial
    assert err.count("\n") == 1 and "never-indexed" in err and "ingest status" in err
    assert "removed TSLA FY2024" in out
    left = _by_filing(data)
    assert not any(k.startswith("TSLA") for k in left) and len(left) == 2
    assert _manifest(data)["updated_from"]
    index = Index.open(_settings(data))
    try:
        assert "TSLA" not in index.facets()["companies"]
        assert not index.facts(tickers=["TSLA"])
    finally:
        index.close()


def test_remove_by_folder_and_then_everything(root, tmp_path, capsys):
    data = tmp_path / "data"
    _build(data, [root / AAPL, root / TSLA])
    assert ingest_main(["remove", str(root), "--data-dir", str(data), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert sorted(r["ticker"] for r in report["removed"]) == ["AAPL", "TSLA"]
    assert report["published"] and _by_filing(data) == {}
    searcher = HybridSearcher(_settings(data), FakeEmbedder())
    try:
        assert searcher.search("revenue").fused == []
    finally:
        searcher.close()
    _build(data, [root / TSLA])  # and it grows again from empty
    assert list(_by_filing(data)) == ["TSLA:2024:10-K"]


def test_remove_on_a_server_collection_changes_it_in_place(root, tmp_path):
    settings = Settings(data_dir=tmp_path / "data", qdrant_url=":memory:")
    build([root / AAPL, root / TSLA], settings, FakeEmbedder(), word_count)
    from finrag.ingest.build import remove

    collection = _manifest(settings.data_dir)["backend"]["collection"]
    report = remove([root / AAPL], settings)
    assert report.published and [r["ticker"] for r in report.removed] == ["AAPL"]
    assert _manifest(settings.data_dir)["backend"]["collection"] == collection
    index = Index.open(settings)
    try:
        assert index.vectors.count() == len(index) > 0
        assert set(index.facets()["companies"]) == {"TSLA"}
    finally:
        index.close()


@pytest.mark.own_parse_cache  # drops its data dir's read cache
def test_a_corrected_company_name_reaches_the_index(root, tmp_path, monkeypatch):
    """A reader fix that changes a filing's metadata but none of its chunk texts (so no chunk
    id) is a change: the filing is rewritten, not skipped as already indexed."""
    data = tmp_path / "data"
    _build(data, [root / AAPL, root / TSLA])
    (data / "reads.sqlite").unlink()  # the fixed reader's output is not cached yet
    import finrag.ingest.read_step as read_step

    real = read_step.read_filing

    def fixed(*args, **kwargs):
        filing = real(*args, **kwargs)
        return filing.model_copy(update={"company": "Tesla, Inc. (corrected)"}) \
            if filing.ticker == "TSLA" else filing

    monkeypatch.setattr(read_step, "read_filing", fixed)
    again = _build(data, [root / AAPL, root / TSLA])
    by_ticker = {f.ticker: f for f in again.filings}
    assert again.published and again.embedded == 0
    assert (by_ticker["TSLA"].status, by_ticker["AAPL"].status) == ("ok", "skipped")
    index = Index.open(_settings(data))
    try:
        assert index.facets()["companies"]["TSLA"] == "Tesla, Inc. (corrected)"
    finally:
        index.close()


def test_an_update_is_not_built_on_a_shard_copy_missing_points(root, tmp_path, capsys,
                                                               fake_model):
    """If the copied shard does not hold the published index's points (a copy torn by a
    concurrent write, a shard changed behind the index's back), the update stops in one line
    and the published index stays as it was. (The CLI's build embeds the new filing before it
    copies the shard: with the fake embedder, not the model.)"""
    from finrag.store.edge import EdgeStore

    data = tmp_path / "data"
    _build(data, [root / AAPL, root / HD])
    index = Index.open(_settings(data))
    hd = next(k for k, f in index.filings().items() if f["ticker"] == "HD")
    index.close()
    shard = EdgeStore.open(data / GENERATIONS / current_generation(data) / "vectors")
    shard.delete_filings([hd])  # behind the index's back
    shard.close()
    published = current_generation(data)
    code = ingest_main(["build", str(root / TSLA), "--data-dir", str(data)])
    err = capsys.readouterr().err.strip()
    assert code == 1 and "\n" not in err and "holds" in err and "--rebuild" in err, err
    assert current_generation(data) == published


@pytest.mark.slow  # builds whole real filings (it counts their chunks)
def test_status_counts_the_chunks_updates_took_out_until_a_rebuild(whole, tmp_path, capsys):
    """The embedded engine keeps points an update deletes in BM25's document counts until
    `--rebuild`: `status` says how many, so an analyst knows when a rebuild is due."""
    root = whole
    data = tmp_path / "data"
    first = {f.ticker: f.chunks for f in _build(data, [root / AAPL, root / HD]).filings}
    hd = tmp_path / "hd" / Path(HD).name
    shutil.copytree(root / HD, hd)
    _build(data, [hd], ticker="HDX")  # HD read again as another company: replaced in place
    removed = _build(data, [root / AAPL])  # unchanged: nothing taken out
    assert not removed.published
    assert ingest_main(["remove", str(root / AAPL), "--data-dir", str(data)]) == 0
    capsys.readouterr()
    assert ingest_main(["status", "--data-dir", str(data), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    taken_out = first["HD"] + first["AAPL"]  # HD's first read, then AAPL
    assert status["deleted_points"] == taken_out and status["chunks"] > 300
    assert ingest_main(["status", "--data-dir", str(data)]) == 0
    assert f"may still include up to {taken_out} chunks" in capsys.readouterr().out
    _build(data, [hd], ticker="HDX", rebuild=True)
    assert ingest_main(["status", "--data-dir", str(data), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["deleted_points"] == 0
