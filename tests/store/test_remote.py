"""A reader that has only the Qdrant server's URL and the index's name (FINRAG_QDRANT_URL,
FINRAG_QDRANT_INDEX), no data directory: it answers exactly as a reader of the data directory
the build wrote, follows each published generation, and says in one line what is wrong. The
server is qdrant-client's in-process `:memory:` mode (the API a server speaks)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FakeEmbedder, word_count
from qdrant_client import QdrantClient, models

import finrag.ingest.write
import finrag.remote
import finrag.store.clients
import finrag.store.server
from finrag.ask import ask, ask_json
from finrag.config import Settings
from finrag.index import Index, IndexUnavailable, current_generation
from finrag.ingest.build import build, remove
from finrag.ingest.sample import unpack_sample
from finrag.models import Filters
from finrag.published import open_index
from finrag.remote import RemoteIndex
from finrag.search import HybridSearcher
from finrag.store.names import data_dir_id, index_alias
from finrag.store.server import aliased

FILINGS = ("AAPL/10-K/0000320193-24-000123", "TSLA/10-K/tsla-20241231")
QUERIES = ["research and development expense", "total net sales", "supply chain risk",
           "cash and cash equivalents", "Item 7 liquidity and capital resources"]
FILTERS = [Filters(), Filters(tickers=["TSLA"]), Filters(tickers=["AAPL"], fiscal_years=[2024]),
           Filters(chunk_types=["table"]), Filters(tickers=["AAPL"], chunk_types=["narrative"]),
           Filters(fiscal_years=[2019])]
QUESTIONS = [("What was Tesla's research and development expense in fiscal 2024?", Filters()),
             ("Apple total net sales 2024", Filters(tickers=["AAPL"])),
             ("Apple gross margin 2024", Filters()),
             # read from the cover page (finrag.cover) by the filing's key and pages
             ("Which debt securities are registered under Apple's name?", Filters())]


class Died(Exception):
    pass


@pytest.fixture(scope="module")
def built(small_sample, tmp_path_factory):
    """Two sample filings, cut to ~45 chunks each (conftest's `small_sample`: each search and
    answer on the in-process server is ~10x cheaper), built on an in-process 'server';
    (server, writer's settings, the settings of a reader that has only the URL and the
    index's name, the filings' root)."""
    yield from _on_a_server(tmp_path_factory, small_sample)


@pytest.fixture(scope="module")
def built_whole(tmp_path_factory):
    """`built` of the whole filings (TSLA's ~1,400 facts)."""
    root = tmp_path_factory.mktemp("whole")
    yield from _on_a_server(tmp_path_factory, unpack_sample(root) / "sec-edgar-filings")


def _on_a_server(tmp_path_factory, sample: Path):
    server = QdrantClient(location=":memory:")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(finrag.store.clients, "_MEMORY_CLIENT", server)
        root = tmp_path_factory.mktemp("remote")
        writer = Settings(data_dir=root / "data", qdrant_url=":memory:")
        report = build([sample / f for f in FILINGS], writer, FakeEmbedder(), word_count)
        assert report.totals()["failed"] == 0
        reader = Settings(data_dir=root / "no-data-dir-here", qdrant_url=":memory:",
                          qdrant_index=index_alias(data_dir_id(writer.data_dir)))
        yield server, writer, reader, sample


@pytest.fixture
def fresh(small_sample, tmp_path, monkeypatch):
    """An empty in-process 'server' of this test's own, a writer's settings for it and the two
    sample filings' paths (nothing built), cut to ~45 chunks each (conftest's `small_sample`:
    what is published and served shows at any size, at a tenth of the cost)."""
    server = QdrantClient(location=":memory:")
    monkeypatch.setattr(finrag.store.clients, "_MEMORY_CLIENT", server)
    writer = Settings(data_dir=tmp_path / "data", qdrant_url=":memory:")
    return server, writer, [small_sample / f for f in FILINGS]


def _answers(settings: Settings) -> dict:
    searcher = HybridSearcher(settings, FakeEmbedder())
    try:
        out = {}
        for query in QUERIES:
            for filters in FILTERS:
                result = searcher.search(query, filters, 10)
                out[query, filters.model_dump_json()] = [
                    [(h.chunk_id, h.dense_rank, h.bm25_rank, h.chunk.model_dump_json())
                     for h in result.fused], [h.chunk_id for h in result.dense],
                    [h.chunk_id for h in result.bm25]]
        for question, filters in QUESTIONS:
            asked = ask(searcher, question, filters)
            out[question] = json.dumps(ask_json(asked, []), sort_keys=True, default=str)
        out["facets"] = searcher.index.facets()
        return out
    finally:
        searcher.close()


def test_a_reader_with_only_the_url_answers_as_the_data_dir_does(built):
    server, writer, reader, _ = built
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(finrag.store.clients, "_MEMORY_CLIENT", server)
        local, remote = _answers(writer), _answers(reader)
    assert remote == local
    lists = [v for k, v in local.items() if isinstance(k, tuple)]
    assert sum(bool(fused) for fused, _, _ in lists) == len(QUERIES) * (len(FILTERS) - 1)
    answered = [json.loads(local[q])["answer"] for q, _ in QUESTIONS]
    notes = answered.pop()["sentences"]
    assert len(notes) == 8 and notes[0]["text"].startswith("0.000% Notes due 2025")
    # the figures, read from the server's facts: each question's own, in its unit
    assert [(round(a["value"], 1), a["unit"]) for a in answered] == [
        (4540.0, "USD millions"), (391035.0, "USD millions"), (46.2, "percent")]
    assert not reader.data_dir.exists()  # nothing local was read or made


def test_a_filings_pages_read_from_the_server_are_in_the_documents_order(built):
    """A whole build writes a filing's points grouped by kind; its pages still come back as the
    data directory gives them: text and tables in the order printed."""
    server, writer, reader, _ = built
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(finrag.store.clients, "_MEMORY_CLIENT", server)
        local, remote = Index.open(writer), RemoteIndex.open(reader)
        try:
            for key in local.filings():
                pages = range(1, 200)
                mine = [c.chunk_id for c in local.page_chunks(key, pages)]
                kinds = {c.chunk_type for c in local.page_chunks(key, pages)}
                assert [c.chunk_id for c in remote.page_chunks(key, pages)] == mine
                assert kinds == {"narrative", "table"}
        finally:
            local.close()
            remote.close()


@pytest.mark.slow  # builds the whole filings on the server (it counts TSLA's facts)
def test_the_facts_a_reader_asks_for_come_back_in_document_order(built_whole):
    server, writer, reader, _ = built_whole
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(finrag.store.clients, "_MEMORY_CLIENT", server)
        local, remote = Index.open(writer), RemoteIndex.open(reader)
        try:
            assert len(remote) == len(local)
            for args in ({"tickers": ["TSLA"]}, {"tickers": ["aapl"], "fiscal_years": [2024]},
                         {"tickers": ["AAPL"], "period_fiscal_years": [2023]},
                         {"tickers": ["AAPL"], "statements": ["income"]}, {}):
                assert remote.facts(**args) == local.facts(**args), args
            assert len(remote.facts(tickers=["TSLA"])) > 500
        finally:
            local.close()
            remote.close()


def test_a_data_dir_given_explicitly_is_read_not_the_server_index(monkeypatch, tmp_path):
    monkeypatch.setenv("FINRAG_QDRANT_URL", ":memory:")
    monkeypatch.setenv("FINRAG_QDRANT_INDEX", "finrag-abc")
    assert Settings.from_env().qdrant_index == "finrag-abc"
    assert Settings.from_env(tmp_path).qdrant_index is None  # a CLI's --data-dir
    assert Settings(data_dir=tmp_path).qdrant_index is None  # the bench's, the evals' own dirs


def test_an_unreachable_server_is_one_line_naming_its_address():
    reader = Settings(data_dir=Path("/nonexistent"), qdrant_url="http://127.0.0.1:9",
                      qdrant_index="finrag-abc")
    with pytest.raises(ValueError, match="cannot reach Qdrant at http://127.0.0.1:9") as caught:
        open_index(reader)
    assert "\n" not in str(caught.value)


def test_a_server_that_fails_the_generation_check_keeps_the_open_generation_served(
        built, monkeypatch):
    from finrag.store.server import ServerStore

    server, _, reader, _ = built
    monkeypatch.setattr(finrag.store.clients, "_MEMORY_CLIENT", server)
    searcher = HybridSearcher(reader, FakeEmbedder())
    try:
        assert searcher.search("net sales", Filters(), 5).fused
        real = ServerStore.state

        def down(self, fields=True):
            if self.collection == reader.qdrant_index:  # asked through the alias
                raise ConnectionError("connection refused")
            return real(self, fields)

        monkeypatch.setattr(ServerStore, "state", down)
        assert searcher.index.facets()["companies"].keys() == {"AAPL", "TSLA"}
        assert searcher.search("net sales", Filters(), 5).fused
    finally:
        searcher.close()


def test_a_failed_alias_move_is_one_line_and_the_next_run_finishes_it(fresh, tmp_path,
                                                                      monkeypatch):
    from finrag.store.base import StoreError

    server, writer, paths = fresh
    build(paths[:1], writer, FakeEmbedder(), word_count)
    alias = index_alias(data_dir_id(writer.data_dir))
    first = aliased(server, alias)

    def refused(client, alias, collection):
        raise StoreError("Qdrant collection 'x': publishing failed (timed out)")

    monkeypatch.setattr(finrag.store.server, "point_alias", refused)
    with pytest.raises(StoreError) as caught:  # a whole build: a new collection, the alias moves
        build(paths, writer, FakeEmbedder(), word_count, rebuild=True)
    message = str(caught.value)
    assert "gen-000002 is published" in message and "run the build again" in message
    assert "\n" not in message and aliased(server, alias) == first
    monkeypatch.undo()
    monkeypatch.setattr(finrag.store.clients, "_MEMORY_CLIENT", server)
    build(paths, writer, FakeEmbedder(), word_count)  # unchanged: only the alias moves
    assert aliased(server, alias) not in (None, first)
    assert open_index(Settings(data_dir=tmp_path / "none", qdrant_url=":memory:",
                               qdrant_index=alias)).name == "gen-000002"


def test_a_server_generation_without_payloads_gets_no_alias(fresh):
    """An index written before readers by name (points without payloads) is not offered to
    them: no alias, no name printed."""
    from finrag.ingest.cli import server_index

    server, writer, paths = fresh
    build(paths[1:], writer, FakeEmbedder(), word_count)
    alias = index_alias(data_dir_id(writer.data_dir))
    assert server_index(writer) == alias
    manifest = writer.data_dir / "generations" / "gen-000001" / "manifest.json"
    old = json.loads(manifest.read_text())
    del old["backend"]["payloads"]
    manifest.write_text(json.dumps(old))
    server.update_collection_aliases(change_aliases_operations=[models.DeleteAliasOperation(
        delete_alias=models.DeleteAlias(alias_name=alias))])
    build(paths[1:], writer, FakeEmbedder(), word_count)
    assert aliased(server, alias) is None and server_index(writer) is None


def test_an_unknown_index_name_is_one_line_that_says_what_to_set(built):
    server, _, reader, _ = built
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(finrag.store.clients, "_MEMORY_CLIENT", server)
        wrong = Settings(data_dir=reader.data_dir, qdrant_url=":memory:",
                         qdrant_index="finrag-nosuchindex")
        with pytest.raises(IndexUnavailable) as caught:
            open_index(wrong)
    message = str(caught.value)
    assert "'finrag-nosuchindex'" in message and "FINRAG_QDRANT_INDEX" in message
    assert "\n" not in message
    without_url = Settings(data_dir=reader.data_dir, qdrant_url=None, qdrant_index="finrag-x")
    with pytest.raises(IndexUnavailable, match="set FINRAG_QDRANT_URL"):
        open_index(without_url)


def test_the_reader_follows_each_published_generation(fresh, tmp_path):
    _, writer, paths = fresh
    build(paths, writer, FakeEmbedder(), word_count)
    reader = Settings(data_dir=tmp_path / "none", qdrant_url=":memory:",
                      qdrant_index=index_alias(data_dir_id(writer.data_dir)))
    searcher = HybridSearcher(reader, FakeEmbedder())
    try:
        before = searcher.search("research and development", Filters(), 10)
        assert {h.chunk.ticker for h in before.fused} == {"AAPL", "TSLA"}
        assert before.generation == "gen-000001"
        removed = remove(paths[1:], writer)
        assert removed.published and not removed.errors
        after = searcher.search("research and development", Filters(), 10)
        assert after.generation == current_generation(writer.data_dir) == "gen-000002"
        assert {h.chunk.ticker for h in after.fused} == {"AAPL"}
        assert searcher.index.facets()["companies"].keys() == {"AAPL"}
    finally:
        searcher.close()


def test_a_build_killed_before_the_alias_moved_serves_the_old_index_until_the_next_run(
        fresh, tmp_path, monkeypatch):
    """A whole build (a new collection) killed after CURRENT names the new generation and
    before the alias does: URL readers keep the old generation, whole; the next run, even one
    that changes nothing, moves it. (Updates in place: tests/store/test_server_updates.py.)"""
    server, writer, paths = fresh
    build(paths[:1], writer, FakeEmbedder(), word_count)
    alias = index_alias(data_dir_id(writer.data_dir))
    first = aliased(server, alias)

    def crash(at: str) -> None:
        if at == "published":
            raise Died(at)

    monkeypatch.setattr(finrag.ingest.write, "crash_point", crash)
    with pytest.raises(Died):
        build(paths, writer, FakeEmbedder(), word_count, rebuild=True)
    monkeypatch.undo()
    monkeypatch.setattr(finrag.store.clients, "_MEMORY_CLIENT", server)
    assert current_generation(writer.data_dir) == "gen-000002"
    assert aliased(server, alias) == first
    reader = Settings(data_dir=tmp_path / "none", qdrant_url=":memory:", qdrant_index=alias)
    index = open_index(reader)
    try:
        assert index.name == "gen-000001" and index.facets()["companies"].keys() == {"AAPL"}
    finally:
        index.close()
    report = build(paths, writer, FakeEmbedder(), word_count)  # nothing to write
    assert report.generation == "gen-000002"
    assert aliased(server, alias) != first
    index = open_index(reader)
    try:
        assert index.name == "gen-000002"
        assert index.facets()["companies"].keys() == {"AAPL", "TSLA"}
    finally:
        index.close()


def test_the_clis_name_the_server_index_and_answer_from_it_alone(tmp_path, monkeypatch, capsys):
    """`ingest build` prints the name to give readers; `finrag search` and `finrag ask` with
    that name and the URL answer with no data directory."""
    import finrag.embed
    from finrag.cli import main as finrag_main
    from finrag.ingest.cli import main as ingest_main

    class Model(FakeEmbedder):
        def count_tokens(self, texts):
            return word_count(texts)

    monkeypatch.setattr(finrag.embed, "Embedder", Model)
    monkeypatch.setattr(finrag.store.clients, "_MEMORY_CLIENT", QdrantClient(location=":memory:"))
    monkeypatch.setenv("FINRAG_QDRANT_URL", ":memory:")
    monkeypatch.delenv("FINRAG_QDRANT_INDEX", raising=False)
    sample = unpack_sample(tmp_path / "sample") / "sec-edgar-filings"
    assert ingest_main(["build", str(sample / FILINGS[1]), "--data-dir",
                        str(tmp_path / "data")]) == 0
    out = capsys.readouterr().out
    (line,) = [x for x in out.splitlines() if "FINRAG_QDRANT_INDEX=" in x]
    alias = line.rsplit("FINRAG_QDRANT_INDEX=", 1)[1].strip()
    assert alias == index_alias(data_dir_id(tmp_path / "data"))
    monkeypatch.setenv("FINRAG_QDRANT_INDEX", alias)
    monkeypatch.setenv("FINRAG_DATA_DIR", str(tmp_path / "elsewhere"))
    assert finrag_main(["search", "research and development expense", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert hits["fused"] and {h["ticker"] for h in hits["fused"]} == {"TSLA"}
    assert finrag_main(["ask", "Tesla research and development expense fiscal 2024",
                        "--json"]) == 0
    answered = json.loads(capsys.readouterr().out)
    assert answered["answer"] and answered["answer"]["citations"]
    assert ingest_main(["status", "--json"]) == 0  # what the replica serves
    served = json.loads(capsys.readouterr().out)
    assert (served["server_index"], served["generation"]) == (alias, "gen-000001")
    assert [(f["ticker"], f["fiscal_year"]) for f in served["filings"]] == [("TSLA", 2024)]
    assert served["chunks"] == sum(f.get("narrative", 0) + f.get("table", 0)
                                   for f in served["filings"]) > 500
    assert ingest_main(["status"]) == 0
    assert f"index {alias} on :memory:: gen-000001" in capsys.readouterr().out
    assert not (tmp_path / "elsewhere").exists()


def test_the_app_runs_on_a_server_index_with_no_data_dir(built, monkeypatch):
    """An app replica started with the URL and the index's name only: coverage, the three
    columns and the answer panel (its figure read from the server's facts). The app queries
    with the fake embedder the index was written with (FINRAG_APP_EMBEDDER, app.py)."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    server, _, reader, _ = built
    monkeypatch.setattr(finrag.store.clients, "_MEMORY_CLIENT", server)
    monkeypatch.setenv("FINRAG_APP_EMBEDDER", "conftest:AppEmbedder")
    monkeypatch.setenv("FINRAG_QDRANT_URL", ":memory:")
    monkeypatch.setenv("FINRAG_QDRANT_INDEX", reader.qdrant_index)
    monkeypatch.setenv("FINRAG_DATA_DIR", str(reader.data_dir))
    st.cache_resource.clear()
    try:
        at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app.py"),
                               default_timeout=120)
        at.run()
        assert not at.exception, at.exception
        at.text_input(key="q").input("Tesla R&D expense 2024").run()
        assert not at.exception and not at.error, (at.exception, at.error)
        panel = at.get_by_key("answer-figure")
        shown = " ".join(m.value for m in panel if getattr(m, "type", None) == "markdown")
        assert "$4,540 million" in shown.replace("\\", "")
        for key in ("col-dense", "col-bm25", "col-fused"):
            assert any(getattr(m, "type", None) == "markdown" for m in at.get_by_key(key))
        assert not reader.data_dir.exists()
    finally:
        st.cache_resource.clear()
