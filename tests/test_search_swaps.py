"""A query in flight keeps the generation it started on, however many are published meanwhile,
and a retired generation is closed once no query holds it (the app shares one searcher between
browser tabs)."""

from __future__ import annotations

import threading

import pytest
from conftest import FakeEmbedder

from finrag.config import Settings
from finrag.generation import publish, write_generation
from finrag.index import Index
from finrag.models import Chunk

TEXTS = ["Services net sales increased due to higher advertising and cloud services revenue.",
         "Research and development expense increased as we expanded AI training compute.",
         "Supply chain disruptions could adversely affect our ability to stock stores."]
SLOW_WORD = "waitforme"  # a query holding it blocks in the embedder until released


class SlowEmbedder(FakeEmbedder):
    """The fake embedder; a query naming SLOW_WORD signals `entered` and waits for `release`."""

    def __init__(self) -> None:
        self.entered, self.release = threading.Event(), threading.Event()

    def encode(self, texts):
        if any(SLOW_WORD in t for t in texts):
            self.entered.set()
            assert self.release.wait(30), "the test never released the slow query"
        return super().encode(texts)


def _publish(settings: Settings, number: int) -> set[str]:
    """Generation `number`: the same texts under chunk ids of its own."""
    chunks = [Chunk(chunk_id=f"{number:02d}{i:030x}", ticker="AAPL", company="Apple Inc.",
                    fiscal_year=2023 + number, chunk_type="narrative", section="Item 7",
                    text=text, filing_key=f"AAPL{number}")
              for i, text in enumerate(TEXTS)]
    name = f"gen-{number:06d}"
    write_generation(settings, name, chunks, FakeEmbedder().encode(TEXTS), FakeEmbedder.name)
    publish(settings.data_dir, name)
    return {c.chunk_id for c in chunks}


@pytest.fixture
def closed(monkeypatch) -> list[str]:
    """Names of the generations closed, in order."""
    names: list[str] = []
    original = Index.close

    def close(self):
        names.append(self.name)
        original(self)

    monkeypatch.setattr(Index, "close", close)
    return names


@pytest.mark.parametrize("overlap", [False, True])
def test_a_query_in_flight_finishes_on_its_generation_across_two_swaps(data_dir, closed,
                                                                       overlap):
    from finrag.search import HybridSearcher

    settings = Settings(data_dir=data_dir, qdrant_url=None)
    first = _publish(settings, 1)
    embedder = SlowEmbedder()
    searcher = HybridSearcher(settings, embedder, overlap=overlap)
    outcome: dict = {}

    def slow_query():
        try:
            outcome["result"] = searcher.search(f"services revenue advertising {SLOW_WORD}")
        except Exception as exc:  # noqa: BLE001 - reported by the assertions below
            outcome["error"] = exc

    worker = threading.Thread(target=slow_query)
    worker.start()
    assert embedder.entered.wait(30)
    for number in (2, 3):  # two generations published, each picked up by another tab's query
        ids = _publish(settings, number)
        other = searcher.search("services revenue")
        assert other.generation == f"gen-{number:06d}"
        assert {h.chunk_id for h in other.fused} <= ids
    embedder.release.set()
    worker.join(30)
    assert "error" not in outcome, repr(outcome.get("error"))
    result = outcome["result"]
    assert result.generation == "gen-000001"
    assert result.dense and result.bm25 and result.fused
    assert {h.chunk_id for h in result.dense + result.bm25 + result.fused} <= first
    assert closed.count("gen-000001") == 1  # closed once its last query ended, not leaked
    assert "gen-000003" not in closed
    searcher.close()
    assert sorted(closed) == ["gen-000001", "gen-000002", "gen-000003"]  # each closed once


def test_a_retired_generation_no_query_holds_is_closed_at_the_next_swap(data_dir, closed):
    from finrag.search import HybridSearcher

    settings = Settings(data_dir=data_dir, qdrant_url=None)
    _publish(settings, 1)
    searcher = HybridSearcher(settings, FakeEmbedder())
    assert searcher.search("services").generation == "gen-000001"
    for number in (2, 3, 4):
        _publish(settings, number)
        assert searcher.search("services").generation == f"gen-{number:06d}"
    # gen 3 stays open one swap longer for callers of `searcher.index` (the app's facets)
    assert closed == ["gen-000001", "gen-000002"]
    searcher.close()
    assert sorted(closed) == ["gen-000001", "gen-000002", "gen-000003", "gen-000004"]
