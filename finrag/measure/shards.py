"""`python -m finrag.measure.shards`: what per-shard idf does to the BM25 leg on a cluster.

A Qdrant collection split into S shards computes each sparse query's idf per shard, from that
shard's own document counts, and merges the shards' top-k by score. This splits an index's
points over S embedded engine shards by a hash of the point id (uniform placement, as Qdrant's
default hash sharding is), runs each question's BM25 query on every shard with the same filter,
merges by score, and compares with one shard holding everything: how much of the top 10 is the
same, and how often the first hit is. No server is needed, and the comparison isolates the idf
effect (both sides score the same points with the same term weights).

`--in-flight` measures the other place where idf counts points a reader does not see: while an
in-place update of a server collection is in flight, the replaced filing's new points sit beside
its old ones (each generation's readers filter the other's out, idf counts both). For each
filing in turn it adds a second copy of the filing's points, filtered out of every query, and
compares with the index alone.

Questions: FinanceBench's (`--questions`, `--pdfs`, `--doc-index`, with their own ticker as the
filter and with none), else the bench's queries without a filter.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import zlib
from pathlib import Path

import numpy as np

from finrag.config import Settings
from finrag.models import Filters


def run(data_dir: Path | None, shards: list[int], queries: list[tuple[str, Filters]],
        k: int = 10) -> dict:
    from finrag.store.edge import EdgeStore

    chunks, point = _corpus(data_dir)
    points = [point(c) for c in chunks]
    asked = _asked(queries)
    work = Path(tempfile.mkdtemp(prefix="finrag-shards-"))
    try:
        lists = {n: _lists(work / f"s{n}", n, points, asked, k, EdgeStore) for n in [1, *shards]}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {"chunks": len(chunks), "queries": len(queries), "k": k,
            "by_shards": {n: {"chunks_per_shard": len(chunks) // n,
                              **_compare(list(zip(lists[1], lists[n])))} for n in shards}}


PENDING = "pending"  # the chunk type of the copies `in_flight` adds: every query filters them out


def in_flight(data_dir: Path | None, queries: list[tuple[str, Filters]], k: int = 10,
              filings: int = 0) -> dict:
    """BM25 top-k with each filing's points twice (the copy filtered out of every query, as an
    update's new points are for the old generation's readers) against the index alone."""
    from finrag.store.edge import EdgeStore

    chunks, point = _corpus(data_dir)
    kinds = sorted({c.chunk_type for c in chunks})
    asked = [(terms, f if f.chunk_types else f.model_copy(update={"chunk_types": kinds}))
             for terms, f in _asked(queries)]
    points = [point(c) for c in chunks]
    all_keys = sorted({c.filing_key for c in chunks})
    keys = all_keys[:filings] if filings else all_keys
    work = Path(tempfile.mkdtemp(prefix="finrag-in-flight-"))
    pairs = []
    try:
        alone = _lists(work / "alone", 1, points, asked, k, EdgeStore)
        for i, key in enumerate(keys):
            copy = [point(c, "@new", PENDING) for c in chunks if c.filing_key == key]
            pairs += zip(alone, _lists(work / f"f{i}", 1, points + copy, asked, k, EdgeStore))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {"chunks": len(chunks), "filings": len(keys), "queries": len(queries), "k": k,
            "chunks_per_filing": round(len(chunks) / max(1, len(all_keys))), **_compare(pairs)}


def _corpus(data_dir: Path | None):
    """The index's chunks, and a function making a chunk's BM25-only point (`suffix` on its id
    and another chunk type for a copy)."""
    from finrag.index import Index
    from finrag.lexical import document_vector
    from finrag.store.base import StorePoint
    from finrag.views import bm25_terms

    index = Index.open(Settings.from_env(data_dir), tables_only=True)
    try:
        chunks = index.all_chunks()
        avgdl = index.manifest["bm25"]["avgdl"]
    finally:
        index.close()
    zero = np.zeros(4, dtype=np.float32)

    def point(c, suffix: str = "", kind: str | None = None) -> StorePoint:
        return StorePoint(c.chunk_id + suffix, zero, document_vector(bm25_terms(c), avgdl),
                          {"ticker": c.ticker, "fiscal_year": c.fiscal_year,
                           "chunk_type": kind or c.chunk_type, "filing_key": c.filing_key})

    return chunks, point


def _asked(queries: list[tuple[str, Filters]]) -> list[tuple]:
    """Each query's BM25 terms (as search makes them), with its filter."""
    from finrag.lexical import query_vector
    from finrag.search import bm25_tokens
    from finrag.vocabulary import expand

    return [(query_vector(bm25_tokens(text, expand(text))), f) for text, f in queries]


def _compare(pairs: list[tuple[list[str], list[str]]]) -> dict:
    """How alike each (reference, other) pair of top-k lists is, averaged."""
    overlap = [len(set(a) & set(b)) / max(1, len(a)) for a, b in pairs]
    return {"top_k_overlap_mean": round(float(np.mean(overlap)), 3),
            "top_k_overlap_min": round(float(np.min(overlap)), 3),
            "same_first_hit": round(float(np.mean([bool(a) and bool(b) and a[0] == b[0]
                                                    for a, b in pairs])), 3),
            "identical_lists": round(float(np.mean([a == b for a, b in pairs])), 3)}


def _lists(folder: Path, n: int, points, asked, k: int, store_type) -> list[list[str]]:
    """Each query's top-k over `n` shards, merged by score (ties by chunk id)."""
    stores = [store_type.create(folder / f"shard{i}", 4) for i in range(n)]
    try:
        parts: list[list] = [[] for _ in range(n)]
        for p in points:
            parts[zlib.crc32(p.chunk_id.encode()) % n].append(p)
        for store, part in zip(stores, parts):
            store.upsert(part)
            store.finish(optimize=False)
        out = []
        for terms, filters in asked:
            hits = [h for store in stores for h in store.search_terms(terms, filters, k)]
            hits.sort(key=lambda h: (-round(h[1], 6), h[0]))
            out.append([cid for cid, _ in hits[:k]])
        return out
    finally:
        for store in stores:
            store.close()


def _queries(args) -> list[tuple[str, Filters]]:
    if args.questions:
        from finrag.measure.financebench import load

        questions, _ = load(args.questions, args.pdfs, args.doc_index)
        return ([(q.question, Filters()) for q in questions]
                + [(q.question, Filters(tickers=[q.document.ticker])) for q in questions])
    from finrag.measure.bench import QUERIES

    return [(q, Filters()) for q in QUERIES]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m finrag.measure.shards", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data-dir", type=Path, help="the index to split (default: ./data)")
    p.add_argument("--shards", default="2,3,6", help="shard counts to compare with one")
    p.add_argument("--questions", type=Path, help="FinanceBench questions .jsonl")
    p.add_argument("--pdfs", type=Path)
    p.add_argument("--doc-index", type=Path)
    p.add_argument("--in-flight", action="store_true",
                   help="measure an in-place update's doubled filing instead of shards")
    p.add_argument("--filings", type=int, default=0,
                   help="with --in-flight: double only the first N filings (default: each)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.in_flight:
        report = in_flight(args.data_dir, _queries(args), filings=args.filings)
        if args.json:
            print(json.dumps(report, indent=2))
            return 0
        print(f"{report['chunks']:,} chunks (~{report['chunks_per_filing']:,} per filing), "
              f"{report['queries']} BM25 queries, top {report['k']}, each of {report['filings']} "
              "filings doubled in turn (the copy filtered out) against the index alone: "
              f"overlap mean {report['top_k_overlap_mean']:.3f} (min "
              f"{report['top_k_overlap_min']:.3f}), same first hit {report['same_first_hit']:.3f},"
              f" identical lists {report['identical_lists']:.3f}")
        return 0
    try:
        shards = [int(s) for s in args.shards.split(",")]
        if any(s < 2 for s in shards):
            raise ValueError
    except ValueError:
        print(f"error: --shards {args.shards!r}: give shard counts of 2 or more, e.g. 2,3,6",
              file=sys.stderr)
        return 1
    report = run(args.data_dir, shards, _queries(args))
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{report['chunks']:,} chunks, {report['queries']} BM25 queries, top {report['k']}: "
          "S shards (per-shard idf, merged by score) against one")
    for n, r in report["by_shards"].items():
        print(f"  {n} shards (~{r['chunks_per_shard']:,} chunks each): top-{report['k']} overlap "
              f"mean {r['top_k_overlap_mean']:.3f} (min {r['top_k_overlap_min']:.3f}), same "
              f"first hit {r['same_first_hit']:.3f}, identical lists {r['identical_lists']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
