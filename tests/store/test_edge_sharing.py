"""An in-place update of the embedded engine's shard shares the sealed segments' big files with
the published generation (hard links) instead of copying them: the published shard's files are
never written, byte for byte, whatever the update does; the update answers as a shard built
whole from the same points would (filtered dense lists); and a write into a shared file is
caught. The shard is real (qdrant-edge) and big enough for `optimize()` to seal a segment."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np
import pytest

from finrag.models import Filters
from finrag.store.base import StoreError, StorePoint
from finrag.store.edge import EdgeStore, _sealed

# a shard of 8,000 points with its HNSW graph (the smallest the engine seals a segment at),
# built once per worker and once more whole: ~12 s of the fast loop's 2 cores
pytestmark = pytest.mark.slow

DIM = 384
FILINGS, PER_FILING = 16, 500  # 8,000 points: above the size at which optimize() seals a segment


def _points(filing: int, seed: int, n: int = PER_FILING) -> list[StorePoint]:
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((n, DIM)).astype(np.float32)
    out = []
    for i in range(n):
        terms = sorted({int(t) for t in rng.integers(0, 3000, 20)})
        out.append(StorePoint(f"F{filing}-{i}", vectors[i], (terms, [1.0] * len(terms)),
                              {"ticker": f"T{filing % 4}", "fiscal_year": 2020 + filing % 3,
                               "chunk_type": "narrative", "filing_key": f"F{filing}"}))
    return out


def _files(root: Path) -> dict[str, tuple[str, int]]:
    """Every file under `root`: its content's digest and its modification time."""
    out = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest = hashlib.blake2b(path.read_bytes()).hexdigest()
        out[str(path.relative_to(root))] = (digest, os.stat(path).st_mtime_ns)
    return out


def _disk_bytes(root: Path, *, shared: bool) -> int:
    return sum(p.stat().st_blocks * 512 for p in root.rglob("*")
               if p.is_file() and (p.stat().st_nlink > 1) == shared)


@pytest.fixture(scope="module")
def published(tmp_path_factory) -> tuple[Path, dict[int, list[StorePoint]]]:
    path = tmp_path_factory.mktemp("edge") / "gen-1"
    store = EdgeStore.create(path, DIM)
    points = {f: _points(f, seed=f) for f in range(FILINGS)}
    for filing_points in points.values():
        store.upsert(filing_points)
    store.finish()
    store.close()
    assert any(_sealed(s) for s in (path / "segments").iterdir()), "no sealed segment to share"
    return path, points


QUERY_FILTERS = [Filters(tickers=["T1"]), Filters(fiscal_years=[2021]),
                 Filters(tickers=["T3"], fiscal_years=[2020])]


def _dense_lists(store: EdgeStore, seed: int = 7) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    return [[cid for cid, _ in store.search(rng.standard_normal(DIM).astype(np.float32), f, 10)]
            for _ in range(8) for f in QUERY_FILTERS]


def test_an_update_never_writes_the_published_shard_and_copies_little(published, tmp_path):
    source, points = published
    store = EdgeStore.open(source)
    answers_before = _dense_lists(store)
    store.close()
    before = _files(source)

    update = EdgeStore.open_for_update(source, tmp_path / "gen-2")
    assert _files(source) == before
    # replace a filing (same chunk ids, new vectors), add one, remove half of the rest
    update.delete_filings(["F3"] + [f"F{f}" for f in range(8, 16)])
    replaced = _points(3, seed=1003)
    update.upsert(replaced)
    added = _points(99, seed=99, n=600)
    update.upsert(added)
    update.finish(optimize=False)
    update.close()

    assert _files(source) == before  # not one byte, not one write, of the published shard
    store = EdgeStore.open(source)
    assert store.count() == FILINGS * PER_FILING
    assert _dense_lists(store) == answers_before
    store.close()

    # most of the shard is shared, not copied
    shared = _disk_bytes(tmp_path / "gen-2", shared=True)
    copied = _disk_bytes(tmp_path / "gen-2", shared=False)
    assert shared > 4 * copied, (shared, copied)

    # the update answers as a shard built whole from the same points
    final = [p for f, ps in points.items() if f < 8 and f != 3 for p in ps] + replaced + added
    whole = EdgeStore.create(tmp_path / "whole", DIM)
    whole.upsert(final)
    whole.finish()
    updated = EdgeStore.open(tmp_path / "gen-2")
    assert updated.count() == len(final) == whole.count()
    assert _dense_lists(updated) == _dense_lists(whole)
    assert _dense_lists(updated) != answers_before  # the update did change what is found
    updated.close()
    whole.close()


def test_an_update_of_an_update_leaves_both_earlier_generations(published, tmp_path):
    source, _ = published
    before = _files(source)
    second = EdgeStore.open_for_update(source, tmp_path / "gen-2")
    second.delete_filings(["F5"])
    second.upsert(_points(5, seed=2005))
    second.finish(optimize=False)
    second.close()
    second_files = _files(tmp_path / "gen-2")

    third = EdgeStore.open_for_update(tmp_path / "gen-2", tmp_path / "gen-3")
    third.delete_filings(["F5", "F6"])
    third.upsert(_points(5, seed=3005))
    third.finish(optimize=False)
    third.close()

    assert _files(source) == before
    assert _files(tmp_path / "gen-2") == second_files
    assert EdgeStore.open(tmp_path / "gen-3").count() == (FILINGS - 1) * PER_FILING


def test_readers_of_the_published_shard_meanwhile_write_no_shared_file(published, tmp_path):
    source, _ = published
    update = EdgeStore.open_for_update(source, tmp_path / "gen-2")
    update.delete_filings(["F2"])
    for _ in range(2):  # readers opening and searching the published shard during the update
        reader = EdgeStore.open(source)
        assert len(_dense_lists(reader)[0]) == 10
        reader.close()
    update.upsert(_points(2, seed=4002))
    update.finish(optimize=False)  # raises if a shared file was written by anyone
    update.close()
    assert EdgeStore.open(tmp_path / "gen-2").count() == FILINGS * PER_FILING


def test_a_write_into_a_shared_file_is_caught(published, tmp_path):
    source, _ = published
    update = EdgeStore.open_for_update(source, tmp_path / "gen-2")
    shared = [p for p in (tmp_path / "gen-2").rglob("*") if p.is_file() and p.stat().st_nlink > 1]
    assert shared
    os.utime(shared[0], ns=(0, 0))  # what an engine writing into the file would leave
    with pytest.raises(StoreError, match="shares with the published index.*--rebuild"):
        update.finish(optimize=False)
    with pytest.raises(StoreError):  # and closing says so too
        update.close()
