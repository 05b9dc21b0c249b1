"""Qdrant's embedded engine (qdrant-edge-py 0.9.0, beta API): the default store of both legs.

One shard holds, per chunk, its dense vector ("dense", cosine), its BM25 terms as a sparse
vector ("bm25", the engine multiplying in idf: finrag.lexical) and the filter fields, with a
payload index on each. Both legs apply the filters inside the engine, before their top-k.

One shard directory per index generation, written by a build and then only read. A build that
changes a few filings copies the published shard into its new generation and applies only
those filings' deletions and upserts there (`open_for_update`); readers of the published one
never see a write. The copy shares, as hard links, the big files of the shard's sealed
segments (those `optimize()` wrote) that an update never writes: the vectors, their int8 copy,
the graph, the sparse index, the stored sparse vectors and payloads, the id mapping and the
payload indexes' maps (`SEALED_SHARED`). An update writes a deleted point's marks (the
segments' trackers, bitmasks and flags, copied) and puts new points in the appendable segment
(copied): at 1M chunks the copy is tens of MB instead of 3 GB.
`tests/store/test_edge_sharing.py` checks on a sealed shard that replacing, adding and removing
filings leaves every file of the source byte for byte and unwritten, and `finish()` and
`close()` check that no shared file was written since before the copy (`StoreError` if one
was). Shards
are created without a write-ahead log: a generation becomes visible only after `finish()` has
flushed it and the build has published it, so a WAL buys nothing, and without one several
reader processes (the app, `finrag search`) can open the same finished shard at once (with a
WAL the second open fails on its lock).

A whole write bounds its memory by a segment size (`create(segment_points=...)`,
finrag.store.writer_memory): each time the appendable segment holds that many points it is
optimized alone into a sealed segment. `finish()` runs the shard's optimizers (`optimize()`)
on what is left; they build an HNSW graph for segments above the optimizer's indexing
threshold (a 400-point shard stays below it, 8,000 points are indexed), so an unfiltered
query walks a graph instead of scanning every vector. It holds the
GIL while it runs (4.5 s at 10k points, ~180 s at 100k on these 2 cores with other work
running), which is a build-time cost only. A query with a filter is always exact
(`SearchParams(exact=True)`: a scan of the points that pass, found through the payload indexes),
so filtered results equal brute force at any size; an unfiltered one is approximate (recall
figures in the README's benchmark).

Memory: of the sealed segments (those `optimize()` wrote; an index under ~6,600 chunks has
none, and points added in place go to the appendable one), a reader reads into RAM at open
mainly the id tracker, the graph's links and the payload indexes of the ticker and fiscal
year (the filters analysts set on nearly every query; the others are read on demand,
`_index_params`). The dense vectors
stay in their file, mapped and read on demand (`Memory.Cold`), and so do their int8 copy (a
quarter of the size, `QUANTIZED`), which only the unfiltered graph walk reads, its candidates
rescored with the full vectors (`OVERSAMPLING`), and the sparse (BM25) inverted index
(`SPARSE_MEMORY`). A filtered query ignores the int8 copy and scores the full vectors, so it
stays exact. The appendable segment is small and is read whole. What a query reads stays in
the page cache, which reader processes share and the kernel can take back; a process maps a
page on first touch. docs/scale.md has open time and memory at 1M chunks for each layout (the
engine's load at 1M: 2.0-3.3 s with the int8 copy and the sparse index read into RAM, 0.5-0.65 s
mapped). A shard keeps the layout it was written with, through in-place updates too, until
`--rebuild`.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np
import qdrant_edge as qe

from finrag.models import Filters
from finrag.sparsecopy import copy_tree
from finrag.store.base import (
    DENSE,
    PAYLOAD_INDEXES,
    SPARSE,
    StoreError,
    StorePoint,
    filter_conditions,
    point_id,
    ranked,
)

BATCH = 1024
# Qdrant's defaults, stated so the manifest records what built the graph. full_scan_threshold is
# in KB of vectors: a search over fewer vectors than that is a scan, not a graph walk.
HNSW = {"m": 16, "ef_construct": 100, "full_scan_threshold": 10_000}
HNSW_EF = 128  # candidates an unfiltered query keeps while walking the graph (limit is 50)
QUANTIZED = qe.ScalarQuantizationConfig(type=qe.ScalarType.Int8, quantile=0.99,
                                        memory=qe.Memory.Cold)
SPARSE_MEMORY = qe.Memory.Cold  # the sealed segments' inverted index: mapped, not read at open
# The graph walk over int8 vectors keeps twice the limit, rescored with the full vectors. On 100k
# real chunk vectors (the bench's) its recall@50 against brute force, by score, is .961, the walk
# over full vectors' .966, and .728 without oversampling; FinanceBench's no-filter rows are
# identical to the third decimal.
OVERSAMPLING = 2.0
IN_RAM = {"ticker", "fiscal_year"}  # payload indexes read into RAM at open (`_index_params`)
TENANT = "ticker"  # almost every query names a company: its points are stored together
# Files of a sealed segment that deleting points and upserting others never write (qdrant-edge
# 0.9.0, checked by tests/store/test_edge_sharing.py): an in-place update hard-links them.
SEALED_SHARED = {"matrix.dat", "quantized.data", "links.bin", "links_compressed.bin",
                 "inverted_index.dat", "id_tracker.mappings", "point_to_values.bin",
                 "values_to_points.bin"}
INDEXING_THRESHOLD_KB = 10_000  # Qdrant's default: a smaller segment gets no graph
EXACT = qe.SearchParams(exact=True, quantization=qe.QuantizationSearchParams(ignore=True))
WALK = qe.SearchParams(hnsw_ef=HNSW_EF, quantization=qe.QuantizationSearchParams(
    rescore=True, oversampling=OVERSAMPLING))


class EdgeStore:
    keeps_payloads = False  # the chunk table beside the shard keeps them (finrag.generation)

    def __init__(self, shard: qe.EdgeShard, path: Path, segment_points: int | None = None) -> None:
        self._shard = shard
        self.path = path
        self._shared: dict[Path, tuple[int, int, int]] = {}  # hard-linked file -> its stat
        self._segment_points = segment_points  # seal the appendable segment at this size
        self._unsealed = 0  # points upserted since the last seal
        self._optimize_s = 0.0

    @classmethod
    def create(cls, path: Path, dim: int, segment_points: int | None = None) -> EdgeStore:
        """A new, empty shard. `segment_points`: a whole write's bound on what it holds
        (`segment_points()`): the appendable segment is sealed and optimized alone each time
        it holds that many points, and the optimizer never merges segments past ~that size;
        None leaves Qdrant's defaults (one segment optimized at `finish`)."""
        config = qe.EdgeConfig(
            vectors={DENSE: qe.EdgeVectorParams(size=dim, distance=qe.Distance.Cosine,
                                                memory=qe.Memory.Cold,
                                                quantization_config=QUANTIZED)},
            sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf,
                                                              memory=SPARSE_MEMORY)},
            hnsw_config=qe.HnswIndexConfig(**HNSW),
            wal_enabled=False,
            **({} if segment_points is None else {"optimizers": _optimizers(segment_points, dim)}),
        )
        shard = qe.EdgeShard.create(str(path), config)
        for field, kind in PAYLOAD_INDEXES.items():
            shard.update(qe.UpdateOperation.create_field_index(field,
                                                               _index_params(field, kind)))
        return cls(shard, path, segment_points)

    @classmethod
    def open_for_update(cls, source: Path, path: Path) -> EdgeStore:
        """A copy of the finished shard at `source`, at `path`, open for this build alone: the
        files an update never writes are shared with `source` (hard links), the rest copied
        keeping the holes of the engine's preallocated files."""
        shared = _shared_files(source)
        stamps = {file.relative_to(source): _stamp(file) for file in shared}
        copy_tree(source, path, share=shared.__contains__)
        store = cls.open(path)
        # the published files' stamps from before the copy: a write while opening counts too
        store._shared = {path / rel: stamp for rel, stamp in stamps.items()
                         if (path / rel).stat().st_ino == stamp[0]}
        return store

    @staticmethod
    def update_copies(source: Path) -> int:
        """Bytes on disk an update of the shard at `source` copies (`open_for_update`)."""
        shared = _shared_files(source)
        return sum(f.stat().st_blocks * 512 for f in source.rglob("*")
                   if f.is_file() and f not in shared)

    @classmethod
    def open(cls, path: Path) -> EdgeStore:
        if not (path / "edge_config.json").exists():
            raise ValueError(f"no vector store at {path}: rebuild the index")
        try:
            return cls(qe.EdgeShard.load(str(path)), path)
        except Exception as exc:  # the engine raises bare runtime errors
            raise ValueError(f"cannot open the vector store at {path}: {exc}") from exc

    def upsert(self, points: list[StorePoint]) -> None:
        for start in range(0, len(points), BATCH):
            self._shard.update(qe.UpdateOperation.upsert_points([
                qe.Point(id=point_id(p.chunk_id),
                         vector={DENSE: p.dense.tolist(),
                                 SPARSE: qe.SparseVector(indices=p.terms[0], values=p.terms[1])},
                         payload={**p.payload, "chunk_id": p.chunk_id})
                for p in points[start:start + BATCH]]))
            self._unsealed += len(points[start:start + BATCH])
            if self._segment_points and self._unsealed >= self._segment_points:
                self._seal()

    def _seal(self) -> None:
        """Optimize the appendable segment alone (graph, int8 copy, sparse index, tenant
        order) into a sealed one; the engine starts a new appendable segment after it."""
        self._shard.flush()
        t0 = time.perf_counter()
        self._shard.optimize()
        self._optimize_s += time.perf_counter() - t0
        self._unsealed = 0

    def delete_filings(self, filing_keys: list[str]) -> None:
        """Take out every point of these filings."""
        if filing_keys:
            self._shard.update(qe.UpdateOperation.delete_points_by_filter(qe.Filter(must=[
                qe.FieldCondition(key="filing_key", match=qe.MatchAny(any=list(filing_keys)))])))

    def search(self, vector: np.ndarray, filters: Filters, limit: int) -> list[tuple[str, float]]:
        """The dense leg: nearest by cosine among the points passing the filters."""
        condition = _filter(filters)
        request = qe.QueryRequest(
            limit=limit, query=qe.Query.Nearest([float(x) for x in vector], using=DENSE),
            filter=condition, with_payload=["chunk_id"],
            with_vector=False,
            params=EXACT if condition else WALK,
        )
        return ranked([(p.payload["chunk_id"], p.score) for p in self._shard.query(request)])

    def search_terms(self, terms: tuple[list[int], list[float]], filters: Filters,
                     limit: int) -> list[tuple[str, float]]:
        """The BM25 leg: the points passing the filters ranked by BM25 (`finrag.lexical`);
        a point sharing no term with the query is never returned."""
        if not terms[0]:
            return []
        request = qe.QueryRequest(
            limit=limit, query=qe.Query.Nearest(qe.SparseVector(indices=terms[0],
                                                                values=terms[1]), using=SPARSE),
            filter=_filter(filters), with_payload=["chunk_id"],
            with_vector=False)
        return ranked([(p.payload["chunk_id"], p.score) for p in self._shard.query(request)
                       if p.score > 0])

    def count(self) -> int:
        return self._shard.count(qe.CountRequest(exact=True))

    def _check_shared(self) -> None:
        written = [file for file, stamp in self._shared.items() if _stamp(file) != stamp]
        if written:
            raise StoreError(f"the vector engine wrote {written[0]}, a file this update shares "
                             "with the published index; rebuild it with --rebuild")

    def finish(self, *, optimize: bool = True) -> dict:
        """Flush, after building the HNSW graph unless `optimize` is False (a few filings added
        to a copied shard land in a small segment that filtered queries scan exactly and an
        unfiltered one scans beside the graph: no hour-long rebuild for one filing); returns
        what was built, for the index manifest."""
        self._shard.flush()
        if optimize:
            self._seal()
        self._shard.flush()
        self._check_shared()
        info = self._shard.info()
        built = {"hnsw": HNSW, "optimize_s": round(self._optimize_s, 2),
                 "indexed_vectors": info.indexed_vectors_count, "segments": info.segments_count}
        if self._segment_points:
            built.update(segment_points=self._segment_points, sealed_segments=sum(
                _sealed(segment) for segment in (self.path / "segments").glob("*")))
        return built

    def close(self) -> None:
        self._shard.close()
        self._check_shared()


def _optimizers(points: int, dim: int) -> qe.EdgeOptimizersConfig:
    """Segments of ~`points` points: Qdrant sizes segments by their vectors' bytes (KB); a
    fifth of headroom lets a short last segment merge into another, never two full ones.
    A segment smaller than Qdrant's indexing threshold is still sealed (a small setting)."""
    kb = max(1, points * dim * 4 // 1024)
    return qe.EdgeOptimizersConfig(max_segment_size=kb + kb // 5,
                                   indexing_threshold=min(INDEXING_THRESHOLD_KB, kb))


def _sealed(segment: Path) -> bool:
    """A segment `optimize()` wrote: its vectors in one mapped file, no longer appendable."""
    try:
        vectors = json.loads((segment / "segment.json").read_text())["config"]["vector_data"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return bool(vectors) and all(v.get("storage_type") == "Mmap" for v in vectors.values())


def _shared_files(source: Path) -> set[Path]:
    """The files of the shard at `source` an update shares rather than copies."""
    sealed = {segment for segment in (source / "segments").glob("*") if _sealed(segment)}
    return {f for f in source.rglob("*") if f.is_file() and _never_written(f, sealed)}


def _never_written(file: Path, sealed: set[Path]) -> bool:
    """A file of a sealed segment that an update does not write: `SEALED_SHARED`, or a data page
    of its stored payloads or sparse vectors (a deletion marks the page's tracker instead)."""
    page = file.name.startswith("page_") and file.suffix == ".dat"
    return (file.name in SEALED_SHARED or page) and any(p in sealed for p in file.parents)


def _stamp(file: Path) -> tuple[int, int, int]:
    st = os.stat(file)
    return st.st_ino, st.st_size, st.st_mtime_ns


def _index_params(field: str, kind: str):
    """A payload index that matches values only (a fiscal year is never asked for as a range)
    and adds no links to the graph (`enable_hnsw=False`): filtered queries scan exactly
    (`EXACT`) and never walk the graph, so the per-value links Qdrant builds for filtered graph
    search would cost build time (at 1M points `optimize()` took 617 s with them, 240 s
    without) and open time for nothing. The indexes of the filters analysts set on nearly
    every query (ticker, fiscal year) are read into RAM at open; the others (chunk type, and
    the filing an update deletes by) stay in their files, read on demand (`Memory.Cold`).
    The ticker is the tenant field (`is_tenant`): the engine stores each company's points
    together, so a filtered scan reads them from a few contiguous pages instead of pages spread
    over the whole file (at 300k points ticker + year dense 5.8-7.9 -> 4.1-4.4 ms, BM25
    4.9-5.9 -> 3.6-3.7 ms, alternating runs)."""
    memory = None if field in IN_RAM else qe.Memory.Cold
    if kind == "integer":
        return qe.IntegerIndexParams(lookup=True, range=False, enable_hnsw=False, memory=memory)
    return qe.KeywordIndexParams(enable_hnsw=False, memory=memory,
                                 is_tenant=True if field == TENANT else None)


def _filter(filters: Filters) -> qe.Filter | None:
    """One value asks for that value (MatchValue), several for any of them (MatchAny): the same
    points either way, but the engine's exact filtered scan is faster with MatchValue (at 100k
    points, ticker + year 1.2 ms against 2.6 ms, ticker alone 3.3 against 4.0)."""
    must = [qe.FieldCondition(key=field, match=qe.MatchValue(values[0]) if len(values) == 1
                              else qe.MatchAny(any=list(values)))
            for field, values in filter_conditions(filters)]
    return qe.Filter(must=must) if must else None
