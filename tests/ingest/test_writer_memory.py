"""The writer's memory setting: a whole write under a small setting seals the engine's segments
as they fill (each optimized alone) and gives the index the default gives: the same rows, the
same dense and BM25 lists under every filter, through an update too (docs/scale.md, "The
writer's memory")."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from finrag.config import Settings
from finrag.generation import publish, write_filings, write_update
from finrag.index import GENERATIONS, TABLE, Index
from finrag.ingest.cli import writer_segments
from finrag.ingest.report import BuildReport
from finrag.lexical import query_vector
from finrag.models import Chunk, Filters
from finrag.store.writer_memory import (
    MIN_SEGMENT_POINTS,
    WRITER_MEMORY_ENV,
    segment_points,
    writer_memory_gb,
)

TICKERS, YEARS = ("AAA", "BBB", "CCC", "DDD"), (2022, 2023, 2024)
WORDS = ("revenue", "margin", "inventory", "debt", "cash", "lease", "tax", "goodwill",
         "segment", "dividend", "risk", "supply", "customer", "research", "capital", "equity")
PER_FILING = 300  # 12 filings: 3,600 chunks, 3 segments of 1,000 points and a short one
FILTERS = [Filters(), Filters(tickers=["BBB"]), Filters(tickers=["CCC"], fiscal_years=[2023]),
           Filters(fiscal_years=[2024]), Filters(chunk_types=["table"]),
           Filters(tickers=["AAA", "DDD"], fiscal_years=[2022, 2024])]
QUERIES = ["revenue margin", "inventory supply risk", "goodwill tax lease", "cash dividend"]


def _filing(ticker: str, year: int) -> tuple[list[Chunk], np.ndarray, list]:
    """One filing of distinct texts (no two chunks score alike in either leg), random unit
    vectors seeded by the text."""
    key = f"{ticker}:{year}"
    rng = np.random.default_rng(int(hashlib.md5(key.encode()).hexdigest()[:8], 16))
    chunks = []
    for n in range(PER_FILING):
        words = rng.choice(WORDS, size=int(rng.integers(4, 30)))
        chunks.append(Chunk(
            chunk_id=hashlib.sha256(f"{key}/{n}".encode()).hexdigest()[:32], ticker=ticker,
            company=f"{ticker} Inc.", fiscal_year=year, section="Item 7",
            chunk_type="table" if n % 5 == 0 else "narrative", page=n // 10 + 1,
            text=" ".join(words) + f" w{ticker.lower()}{year}x{n}", filing_key=key))
    vectors = rng.normal(size=(PER_FILING, 384)).astype(np.float32)
    return chunks, vectors / np.linalg.norm(vectors, axis=1, keepdims=True), []


def _corpus():
    """Filings in the order the bench writes its copies: the company changes every filing,
    so without the writer's point order every segment would hold every company."""
    return [_filing(t, y) for y in YEARS for t in TICKERS]


def _write(data: Path, memory: float | None) -> Path:
    settings = Settings(data_dir=data, qdrant_url=None)
    path = write_filings(settings, "gen-000001", iter(_corpus()),
                         "sentence-transformers/all-MiniLM-L6-v2", writer_memory=memory)
    publish(data, "gen-000001")
    return path


def _lists(data: Path) -> list:
    """Dense and BM25 lists (ids, scores) of every query under every filter."""
    index = Index.open(Settings(data_dir=data, qdrant_url=None))
    rng = np.random.default_rng(7)
    try:
        out = []
        for q in QUERIES:
            vector = rng.normal(size=384).astype(np.float32)
            for f in FILTERS:
                out.append(index.vectors.search(vector, f, 50))
                out.append(index.vectors.search_terms(query_vector(q.split()), f, 50))
        return out
    finally:
        index.close()


def _same(lists: list, others: list) -> bool:
    """The same ids in the same order and the same scores, but for float32 summation order (a
    BM25 score summed segment by segment differs in its seventh digit) and for which members
    of a tie at the list's end make the cut (as between the two engines: docs/scale.md,
    "Congruence")."""
    return len(lists) == len(others) and all(map(_same_list, lists, others))


def _same_list(a: list, b: list) -> bool:
    scores = np.array([s for _, s in a])
    if len(a) != len(b) or not np.allclose(scores, [s for _, s in b], rtol=1e-5):
        return False
    above = ~np.isclose(scores, scores[-1], rtol=1e-5) if len(a) else scores.astype(bool)
    tail = {cid for (cid, _), cut in zip(a, above) if not cut}
    return ([cid for (cid, _), keep in zip(a, above) if keep]
            == [cid for (cid, _), keep in zip(b, above) if keep]
            and len(tail) == len({cid for (cid, _), cut in zip(b, above) if not cut}))


def _rows(path: Path) -> list:
    con = sqlite3.connect(path / TABLE)
    try:
        return con.execute("SELECT * FROM chunks ORDER BY row").fetchall()
    finally:
        con.close()


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("writer-memory")
    return {memory: (root / str(memory), _write(root / str(memory), memory))
            for memory in (None, 0.001)}


def test_a_small_setting_seals_segments_and_writes_the_default_s_index(built):
    (default, default_path), (small, small_path) = built[None], built[0.001]
    small_backend = Index.open(Settings(data_dir=small, qdrant_url=None)).manifest["backend"]
    assert small_backend["segment_points"] == MIN_SEGMENT_POINTS
    assert small_backend["sealed_segments"] >= 3  # 3,600 points, each segment alone
    default_backend = Index.open(Settings(data_dir=default, qdrant_url=None)).manifest["backend"]
    assert default_backend["segment_points"] > 3_600  # one segment
    assert _rows(small_path) == _rows(default_path)  # same chunk ids, rows and payloads
    lists = _lists(small)
    assert sum(bool(hits) for hits in lists) == len(lists)
    assert _same(lists, _lists(default))


def test_an_update_of_a_segmented_index_answers_as_the_default_s(built, tmp_path):
    """Remove one filing and replace another on both: the same dense lists and points. (BM25
    is left out: a sealed segment keeps an update's deleted points in its idf until a rebuild,
    docs/scale.md, and the default's 3,600 points are below the size Qdrant seals.)"""
    extra = _filing("EEE", 2024)
    new_ccc = _filing("CCC", 2023)
    for data, _ in built.values():
        settings = Settings(data_dir=data, qdrant_url=None)
        base = Index.open(settings, tables_only=True)
        try:
            write_update(settings, base, "gen-000002", ["AAA:2022", "CCC:2023"],
                         extra[0] + new_ccc[0][:100],
                         np.concatenate([extra[1], new_ccc[1][:100]]), [])
        finally:
            base.close()
        publish(data, "gen-000002")
    small, default = (_lists(built[m][0])[::2] for m in (0.001, None))
    assert _same(small, default)
    for data, _ in built.values():
        index = Index.open(Settings(data_dir=data, qdrant_url=None))
        try:
            assert index.vectors.count() == len(index) == 3_600 - 2 * PER_FILING + 400
        finally:
            index.close()


def test_the_build_says_when_the_setting_held_it_back(built):
    for memory, held in ((0.001, True), (None, False)):
        data = built[memory][0]
        report = BuildReport([], "gen-000001", True, 1.0, 0)
        writer = writer_segments(Settings(data_dir=data, qdrant_url=None), report)
        assert writer["held_back"] is held
        if held:
            assert writer["note"].startswith("writer memory 0.001 GB: the engine's 3,600 points "
                                             "were written and optimized as ")


def test_the_setting_is_read_from_the_environment_and_checked(monkeypatch):
    monkeypatch.delenv(WRITER_MEMORY_ENV, raising=False)
    assert writer_memory_gb() == 4.0
    monkeypatch.setenv(WRITER_MEMORY_ENV, "2.5")
    assert writer_memory_gb() == 2.5
    assert writer_memory_gb(8) == 8.0  # a CLI's flag wins
    for bad in ("0", "-1", "lots", "inf"):
        monkeypatch.setenv(WRITER_MEMORY_ENV, bad)
        with pytest.raises(ValueError, match=f"got '{bad}'"):
            writer_memory_gb()
    assert segment_points(0.001) == MIN_SEGMENT_POINTS
    assert segment_points(4) < segment_points(8)


def test_a_bad_setting_stops_a_build_before_anything_is_written(tmp_path):
    settings = Settings(data_dir=tmp_path / "data", qdrant_url=None)
    with pytest.raises(ValueError, match="writer's memory"):
        write_filings(settings, "gen-000001", iter(_corpus()[:1]),
                      "sentence-transformers/all-MiniLM-L6-v2", writer_memory=0)
    assert not (tmp_path / "data" / GENERATIONS).exists()
