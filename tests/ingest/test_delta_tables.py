"""An in-place update writes its chunk and fact tables as a delta over the last ones written
whole, which it shares (a hard link) instead of copying: the update writes only the changed
filings' rows, the published generation's files are never written, and every read a search,
an answer or a build makes gives what a whole build of the same filings gives; a delta grown
past its share of the base is merged into tables written whole."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from conftest import FakeEmbedder, word_count

import finrag.generation
import finrag.index as index_module
from finrag.config import Settings
from finrag.index import BASE, GENERATIONS, TABLE, Index, current_generation, open_table
from finrag.ingest.build import build, remove
from finrag.models import Filters
from finrag.search import HybridSearcher

AAPL, TSLA, HD = ("AAPL/10-K/0000320193-24-000123", "TSLA/10-K/tsla-20241231",
                  "HD/10-K/0000354950-25-000085")
NVDA = "NVDA/10-K/nvda-20240128"


@pytest.fixture(scope="module")
def root(small_sample) -> Path:
    """The sample's filings cut to ~45 chunks each (conftest's `small_sample`): how tables are
    shared, written as deltas and merged shows at any size, at a tenth of the cost."""
    return small_sample


def _settings(data: Path) -> Settings:
    return Settings(data_dir=data, qdrant_url=None)


def _build(data: Path, paths):
    return build(list(paths), _settings(data), FakeEmbedder(), word_count)


def _published(data: Path) -> Path:
    return data / GENERATIONS / current_generation(data)


def _digests(directory: Path) -> dict[str, str]:
    return {p.name: hashlib.blake2b(p.read_bytes()).hexdigest()
            for p in directory.glob("*.sqlite")}


def _reads(data: Path) -> dict:
    """What the index answers, filing by filing (row numbers, which follow the order filings
    were added in, left out)."""
    index = Index.open(_settings(data))
    try:
        filings = index.filings()
        payloads = index.filing_payloads(filings)
        ids = sorted(cid for chunks in payloads.values() for cid in chunks)
        return {
            "filings": filings,
            "payloads": payloads,
            "facts": {k: [f.model_dump() for f in v]
                      for k, v in index.filing_facts(filings).items()},
            "facets": index.facets(),
            "count": (index.count(), len(index)),
            "chunk_ids": index.chunk_ids(),
            "lookup": index.lookup(ids[::7]),
            "chunks": {k: c.model_dump() for k, c in index.chunks(ids[::11]).items()},
            "known": index.known(ids[::5] + ["no-such-chunk"]),
            "tesla_facts": [f.model_dump() for f in index.facts(tickers=["TSLA"],
                                                                 fiscal_years=[2024])],
        }
    finally:
        index.close()


def test_updates_share_the_whole_table_and_read_as_a_whole_build(root, tmp_path, monkeypatch):
    # three 10-Ks: a delta of one is past the share at which tables are merged; not here
    monkeypatch.setattr(finrag.generation, "DELTA_SHARE", 10.0)
    data = tmp_path / "data"
    _build(data, [root / AAPL, root / HD])
    whole_dir = _published(data)
    whole_table = (os.stat(whole_dir / TABLE).st_ino, _digests(whole_dir)[TABLE])
    tsla = tmp_path / "TSLA" / "10-K" / "tsla-20241231"
    shutil.copytree(root / TSLA, tsla)

    added = _build(data, [tsla])  # 1: add a filing
    first = _published(data)
    assert os.stat(first / BASE).st_ino == whole_table[0]  # shared, not copied
    con = sqlite3.connect(first / TABLE)
    assert con.execute("SELECT COUNT(*) FROM chunks").fetchone()[0] == added.filings[0].chunks
    assert con.execute("SELECT COUNT(*) FROM dropped").fetchone()[0] == 0
    con.close()
    assert _reads(data) == _reads(_whole(tmp_path / "w1", [root / AAPL, root / HD, tsla]))

    doc = tsla / "primary-document.html"  # 2: replace it (changed text), and 3: remove HD
    doc.write_text(doc.read_text().replace("Gigafactory", "Megafactory"))
    first_digests = _digests(first)
    assert _build(data, [tsla]).published
    assert _digests(first) == first_digests  # a published generation's tables are not written
    assert remove([root / HD], _settings(data)).published
    expected = _reads(_whole(tmp_path / "w2", [root / AAPL, tsla]))
    assert _reads(data) == expected
    last = _published(data)  # (the first two generations are garbage by now)
    assert (os.stat(last / BASE).st_ino, _digests(last)[BASE]) == whole_table

    searcher = HybridSearcher(_settings(data), FakeEmbedder())  # and a search reads them
    try:
        hits = searcher.search("Gigafactory Megafactory", Filters(tickers=["TSLA"])).bm25
        assert hits and all("gigafactory" not in h.chunk.text.lower() for h in hits)
        assert not searcher.search("home improvement", Filters(tickers=["HD"])).fused
    finally:
        searcher.close()


def _whole(data: Path, paths) -> Path:
    _build(data, paths)
    assert not (_published(data) / BASE).exists()
    return data


def test_a_delta_past_its_share_is_merged_into_tables_written_whole(root, tmp_path,
                                                                    monkeypatch):
    data = tmp_path / "data"
    _build(data, [root / AAPL])
    _build(data, [root / TSLA])
    assert (_published(data) / BASE).exists()
    monkeypatch.setattr(finrag.generation, "DELTA_SHARE", 0.0)
    _build(data, [root / HD])  # the delta (TSLA) now exceeds its share: merged
    merged = _published(data)
    assert not (merged / BASE).exists()
    assert _reads(data) == _reads(_whole(tmp_path / "w", [root / AAPL, root / TSLA, root / HD]))
    monkeypatch.undo()
    remove([root / AAPL], _settings(data))  # and the next update starts a delta over it
    assert os.stat(_published(data) / BASE).st_ino == os.stat(merged / TABLE).st_ino
    assert _reads(data) == _reads(_whole(tmp_path / "w2", [root / TSLA, root / HD]))


def test_reads_of_a_delta_generation_go_through_indexes(root, tmp_path, monkeypatch,
                                                         request):
    """A search, the facets and an answer's facts read both tables through their indexes (by
    chunk id, filing or filter), never by scanning every row of the base."""
    monkeypatch.setattr(finrag.generation, "DELTA_SHARE", 10.0)
    data = tmp_path / "data"
    _build(data, [root / AAPL, root / HD])
    _build(data, [root / TSLA])
    remove([root / HD], _settings(data))
    assert (_published(data) / BASE).exists()
    statements = request.getfixturevalue("index_sql")  # traced from here on
    searcher = HybridSearcher(_settings(data), FakeEmbedder())
    try:
        assert searcher.search("vehicle deliveries", Filters(tickers=["TSLA"])).fused
        searcher.index.facets()
        assert searcher.index.facts(tickers=["TSLA"], fiscal_years=[2024])
        assert len(searcher.index.filings()) == 2  # what `remove` matches paths against
    finally:
        searcher.close()
    monkeypatch.undo()
    con = open_table(_published(data))
    plans = [row[-1] for sql in statements if sql.lstrip().upper().startswith("SELECT")
             for row in con.execute("EXPLAIN QUERY PLAN " + sql)]
    con.close()
    assert any("base.chunks" in p for p in plans), plans
    assert all("SCAN" not in p or "INDEX" in p for p in plans if "chunks" in p), plans


def test_a_format_7_index_is_still_read_and_updated(root, tmp_path):
    """Indexes written before deltas (format 7: tables always whole) are read as they are, and
    their next update starts a delta over their tables; a finrag of format 7 refuses what it
    cannot read (format 8)."""
    data = tmp_path / "data"
    _build(data, [root / AAPL])
    manifest = _published(data) / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"format": 8', '"format": 7'))
    assert Index.open(_settings(data)).count() > 0
    assert _build(data, [root / TSLA]).published
    assert (_published(data) / BASE).exists()
    assert '"format": 8' in (_published(data) / "manifest.json").read_text()
    assert _reads(data) == _reads(_whole(tmp_path / "w", [root / AAPL, root / TSLA]))


def test_removed_filings_count_toward_the_merge(root, tmp_path):
    """The base rows a delta hides count like its own: removing a third of the index merges,
    so removed filings' rows do not stay on disk under a delta for ever."""
    data = tmp_path / "data"
    _build(data, [root / AAPL, root / TSLA, root / HD])
    assert finrag.generation.update_copies(_published(data)) < os.stat(
        _published(data) / TABLE).st_size  # the next update shares the table
    remove([root / HD], _settings(data))
    assert (_published(data) / BASE).exists()  # HD hidden under an (empty) delta
    _build(data, [root / NVDA])  # the next update: HD's rows are past the share of the base
    assert not (_published(data) / BASE).exists()
    assert _reads(data) == _reads(_whole(tmp_path / "w", [root / AAPL, root / TSLA, root / NVDA]))


def test_the_disk_check_counts_a_merge(root, tmp_path, monkeypatch):
    monkeypatch.setattr(finrag.generation, "DELTA_SHARE", 10.0)
    data = tmp_path / "data"
    _build(data, [root / AAPL])
    _build(data, [root / TSLA])
    gen = _published(data)
    delta = finrag.generation.update_copies(gen)
    monkeypatch.setattr(finrag.generation, "DELTA_SHARE", 0.0)
    merge = finrag.generation.update_copies(gen)
    assert merge - delta == os.stat(gen / BASE).st_size  # a merge copies the base too


def test_a_table_written_before_its_filter_index_is_copied_not_shared(root, tmp_path):
    data = tmp_path / "data"
    _build(data, [root / AAPL])
    con = sqlite3.connect(_published(data) / TABLE)
    con.execute("DROP INDEX chunks_by_filter")  # as tables written before 2026-12-05 are
    con.commit()
    con.close()
    _build(data, [root / TSLA])
    gen = _published(data)
    assert not (gen / BASE).exists()  # copied whole, and given the index
    con = sqlite3.connect(gen / TABLE)
    assert con.execute("SELECT 1 FROM sqlite_master WHERE name = 'chunks_by_filter'").fetchone()
    con.close()
    assert _reads(data) == _reads(_whole(tmp_path / "w", [root / AAPL, root / TSLA]))


def test_a_delta_whose_base_is_missing_is_refused_in_one_line(root, tmp_path):
    data = tmp_path / "data"
    _build(data, [root / AAPL])
    _build(data, [root / TSLA])
    (_published(data) / BASE).unlink()
    with pytest.raises(index_module.IndexUnavailable, match="base.sqlite is missing") as err:
        Index.open(_settings(data))
    assert "\n" not in str(err.value)
