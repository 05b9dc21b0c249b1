"""Writing one index generation: the chunk and fact tables, the engine's points (both legs) and
the manifest, under a temporary name renamed into place when complete, then published by an
atomic swap of CURRENT (the layout is in finrag.index).

A generation is written whole (`write_filings`: every chunk, taken a batch of filings at a
time; `write_generation` for a corpus in one piece) or as an update of the published one
(`write_update`: a copy of it with some filings' chunks and facts taken out and others put in;
nothing else is rewritten or re-embedded). Either way readers see the old
generation until the new one is complete and published."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from finrag import config
from finrag.config import EMBED_DIM, Settings
from finrag.facts import Fact
from finrag.faults import crash_point
from finrag.index import (
    BASE,
    CURRENT,
    GENERATIONS,
    TABLE,
    Index,
    generation_number,
    has_base,
    open_table,
    table_facets,
)
from finrag.lexical import K1, B, average_length, document_vector, term_counts, weigh
from finrag.manifest import FORMAT_VERSION
from finrag.models import Chunk
from finrag.pagevectors import page_context_vectors
from finrag.steps import step
from finrag.store.base import StoreError, StorePoint
from finrag.store.clients import client_for
from finrag.store.writer_memory import segment_points, writer_memory_gb
from finrag.tokens import TOKENIZER_VERSION
from finrag.views import bm25_terms, text_signature
from finrag.vocabulary import PHRASES_FINGERPRINT

POINT_BATCH = 1024
SCRATCH = "vectors.scratch"  # a whole write's page-context vectors, until its points are written
TERMS_SCRATCH = "terms.scratch"  # and its chunks' BM25 term counts (SQLite, attached as scratch)


def write_generation(
    settings: Settings, name: str, chunks: list[Chunk], vectors: np.ndarray, model_name: str,
    facts: list[Fact] | None = None,
) -> Path:
    """A complete generation of `chunks` (`vectors` in their order) and `facts`, written as one
    batch (`write_filings`)."""
    dim = int(vectors.shape[1]) if len(vectors) else EMBED_DIM
    return write_filings(settings, name, [(chunks, vectors, facts or [])], model_name, dim)


def write_filings(
    settings: Settings, name: str, filings: Iterable[tuple[list[Chunk], np.ndarray, list[Fact]]],
    model_name: str, dim: int = EMBED_DIM, *, replace: bool = False,
    writer_memory: float | None = None,
) -> Path:
    """Write a complete generation under a temporary name, then rename it into place.

    `filings` yields batches of whole filings (chunks, their embeddings, facts), each used
    once: its rows go into the tables, its terms' count into BM25's average length, and its
    page-context vectors into a scratch file beside them. The engine's points are then
    written from the table and that file, a batch of rows at a time. So the writer holds one
    batch, never the corpus, and nothing of the input while the engine builds its graph: a
    caller that lets each batch go (the build, the bench) writes a million chunks in the
    memory of the engine's optimize (docs/scale.md, "The writer's memory"). `replace`: a batch
    holding a filing an earlier batch held replaces it (a build that met one filing twice);
    otherwise batches only add. `writer_memory` (GB; default $FINRAG_WRITER_MEMORY_GB, else
    4): what the engine's part may hold, which bounds its segments (`segment_points`): the
    points go in by company and year and each segment is optimized alone once full, so the
    write's memory does not grow with the corpus (the manifest's backend says how many
    segments it sealed)."""
    memory_gb = writer_memory_gb(writer_memory)
    tmp = _start(settings, name)
    con = _create_tables(tmp / TABLE)
    con.execute("ATTACH DATABASE ? AS scratch", (str(tmp / TERMS_SCRATCH),))
    counts, numbered, avgdl = _fill_tables(con, filings, tmp / SCRATCH, dim, replace)
    store, backend = _create_store(settings, tmp, name, dim, memory_gb)
    _write_points(store, _table_points(con, tmp / SCRATCH, dim, numbered, avgdl))
    if store.keeps_payloads:
        _write_table_facts(store, con)
    con.close()
    (tmp / SCRATCH).unlink()
    (tmp / TERMS_SCRATCH).unlink()
    backend.update(store.finish() or {})  # edge: HNSW build (optimize) + flush; its figures
    crash_point("flush")
    manifest = {
        "format": FORMAT_VERSION,
        "generation": name,
        "model": model_name,
        "dim": dim,
        "tokenizer": TOKENIZER_VERSION,
        "phrases": PHRASES_FINGERPRINT,
        "page_context": config.PAGE_CONTEXT,
        "bm25": {"k1": K1, "b": B, "idf": "lucene", "avgdl": avgdl},
        "backend": backend,
        **counts,
    }
    if store.keeps_payloads:  # published on the server too, for readers with only its URL
        manifest["facets"] = table_facets_at(tmp)
    store.close()
    return _finish(settings, tmp, name, manifest)


def _fill_tables(con: sqlite3.Connection, filings, scratch: Path, dim: int,
                 replace: bool) -> tuple[dict, int, float]:
    """Pass one of `write_filings`: every batch's rows, in one transaction, its page-context
    vectors appended to `scratch` in row order and its chunks' BM25 term counts into the
    attached scratch database, each chunk tokenized once (with `replace`, a batch holding a
    filing written before replaces it: its rows go, its vectors and terms stay unread);
    returns the row counts, the rows numbered and BM25's average length."""
    written: set[str] = set()  # filings written so far
    rows = {"chunks": 0, "facts": 0}
    con.execute("PRAGMA scratch.journal_mode = OFF")  # a leftover, never read after a crash
    con.execute("CREATE TABLE scratch.terms (row INTEGER PRIMARY KEY, length INTEGER,"
                " counts BLOB)")
    with open(scratch, "wb") as out:
        for chunks, vectors, facts in filings:
            if len(vectors) != len(chunks) or (len(chunks) and vectors.shape[1] != dim):
                raise ValueError(f"{len(chunks)} chunks came with vectors of shape "
                                 f"{np.shape(vectors)}, not ({len(chunks)}, {dim})")
            again = list({c.filing_key for c in chunks} & written) if replace else []
            if again:  # a filing written before: this batch replaces it
                marks = ",".join("?" * len(again))
                for table in ("chunks", "facts"):
                    con.execute(f"DELETE FROM {table} WHERE filing_key IN ({marks})", again)
            written.update(c.filing_key for c in chunks)
            _insert_chunks(con, chunks, rows["chunks"])  # a row is its vector's place in
            _insert_facts(con, facts, rows["facts"])  # the scratch file
            _insert_terms(con, chunks, rows["chunks"])
            rows["chunks"] += len(chunks)
            rows["facts"] += len(facts)
            stored = _stored_vectors(chunks, vectors)
            out.write(np.ascontiguousarray(stored, dtype=np.float32).tobytes())
    crash_point("chunks")  # rows written, not committed
    con.commit()
    counts = {t: con.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in rows}
    lengths = con.execute("SELECT t.length FROM chunks JOIN scratch.terms t USING (row)")
    return counts, rows["chunks"], average_length(n for (n,) in lengths)


def _insert_terms(con: sqlite3.Connection, chunks: list[Chunk], first_row: int) -> None:
    """Each chunk's BM25 length and term counts (`term_counts`, as uint32 pairs) by row."""
    for i, c in enumerate(chunks):
        terms = bm25_terms(c)
        pairs = np.array(term_counts(terms), dtype=np.uint32).reshape(-1, 2)
        con.execute("INSERT INTO scratch.terms VALUES (?,?,?)",
                    (first_row + i, len(terms), pairs.tobytes()))


# The order the engine's points are written in: by company, fiscal year and chunk type (the
# filter index's order, so SQLite reads it without sorting; a filing's rows are contiguous, so
# it reads runs of rows). Segments fill in this order, so a filtered query finds its points in
# one or two segments and the others answer from their payload index that they hold none.
POINT_ORDER = "ORDER BY ticker, fiscal_year, chunk_type, company, row"


def _table_points(con: sqlite3.Connection, scratch: Path, dim: int, n: int, avgdl: float):
    """(chunk, stored vector, BM25 vector, row) for every row of the chunk table, in
    `POINT_ORDER`, read back a batch at a time (pass two of `write_filings`); `n`: the rows
    numbered, the scratch file's vectors. The vectors are read, not mapped: mapped, every page
    read would stay in the writer's resident memory to the end (1.5 GB a million chunks)."""
    if not n:
        return
    size = dim * 4
    cursor = con.execute("SELECT row, payload, t.length, t.counts FROM chunks JOIN scratch.terms"
                         f" t USING (row) {POINT_ORDER}")
    with open(scratch, "rb", buffering=0) as fh:
        while batch := cursor.fetchmany(POINT_BATCH):
            for row, payload, length, counts in batch:
                vector = np.frombuffer(os.pread(fh.fileno(), size, row * size), np.float32)
                pairs = np.frombuffer(counts, np.uint32).reshape(-1, 2).tolist()
                yield (Chunk.model_validate_json(payload), vector,
                       weigh(pairs, length, avgdl), row)


def _write_table_facts(store, con: sqlite3.Connection) -> None:
    """Every row of the facts table as a server keeps it (`_fact_payloads`), a batch at a time."""
    cursor = con.execute(f"SELECT {', '.join(FACT_COLUMNS)}, row, payload FROM facts ORDER BY row")
    keys = (*FACT_COLUMNS, "row", "fact")
    while batch := cursor.fetchmany(POINT_BATCH):
        store.write_facts([dict(zip(keys, values)) for values in batch])


def write_update(
    settings: Settings, base: Index, name: str, drop: list[str], chunks: list[Chunk],
    vectors: np.ndarray, facts: list[Fact],
) -> Path:
    """A generation that is `base` with the filings `drop` (filing keys) taken out and `chunks`
    and `facts` (of other or the same filings) put in; unchanged chunks are neither rewritten
    nor re-embedded. The chunk table is written as a delta over the last table written whole
    (`_start_tables`). The embedded engine's shard is copied, sharing its sealed files, and
    changed there. A server collection is shared by its
    readers, so it is changed in place under versioned visibility (`ServerStore`): the
    dropped filings' points are marked as ending at this generation and the new ones as
    starting there, which readers of `base` do not see."""
    tmp = _start(settings, name)
    table = tmp / TABLE
    with step("copy tables"):
        _start_tables(base.path, tmp)
    crash_point("copied")
    with step("write tables"):
        counts, first_fact_row = _update_tables(table, drop, chunks, facts)
    manifest = dict(base.manifest)
    avgdl = manifest["bm25"]["avgdl"]
    if manifest["backend"]["kind"] == "server":
        from finrag.store.server import ServerStore

        version = generation_number(name)
        store = ServerStore.open(client_for(settings), manifest["backend"]["collection"])
        store.roll_back(manifest["backend"]["version"])  # what a build that died left
        store.retire(drop, version)
        crash_point("retired")
        _write_points(store, _points(chunks, vectors, avgdl), born=version)
        store.write_facts(_fact_payloads(facts, first_fact_row, born=version))
        backend = {**manifest["backend"], "version": version}
        manifest["facets"] = table_facets_at(tmp)
    else:
        from finrag.store.edge import EdgeStore

        with step("copy shard"):
            store = EdgeStore.open_for_update(base.path / "vectors", tmp / "vectors")
        with step("count points"):
            held = store.count()  # a copy that does not hold the published points is not
        if held != len(base):  # built on
            store.close()
            raise StoreError(f"the copy of {base.path / 'vectors'} holds {held:,} points, the "
                             f"index {len(base):,} chunks; the index is unchanged; run the "
                             "build again, and if this repeats rebuild it with --rebuild")
        with step("delete points"):
            store.delete_filings(drop)
        with step("upsert points"):
            _write_points(store, _points(chunks, vectors, avgdl))
        with step("flush shard"):
            backend = {**manifest["backend"], **store.finish(optimize=False)}
        # points deleted since the shard was written whole: the engine keeps them in BM25's
        # document counts (idf) until a rebuild (docs/scale.md); `ingest status` says how many
        manifest["deleted_points"] = (manifest.get("deleted_points", 0) + len(base)
                                      + len(chunks) - counts["chunks"])
    crash_point("flush")
    with step("flush shard"):
        store.close()
    manifest.update(generation=name, backend=backend, updated_from=base.name,
                    format=FORMAT_VERSION, tables="delta" if (tmp / BASE).exists() else "whole",
                    **counts)
    with step("finish generation"):
        return _finish(settings, tmp, name, manifest)


def _start(settings: Settings, name: str) -> Path:
    tmp = settings.data_dir / GENERATIONS / f".tmp-{name}"
    tmp.mkdir(parents=True)
    return tmp


def _finish(settings: Settings, tmp: Path, name: str, manifest: dict) -> Path:
    """Write the manifest, then rename the generation into place, everything on disk first."""
    _write_json(tmp / "manifest.json", manifest)
    _fsync_tree(tmp)  # every file on disk before the name that makes it a generation
    crash_point("manifest")
    root = settings.data_dir / GENERATIONS
    final = root / name
    os.replace(tmp, final)
    _fsync_dir(root)
    crash_point("renamed")
    return final


def publish(data_dir: Path, name: str) -> None:
    """Point CURRENT at a finished generation, atomically."""
    tmp = data_dir / f".{CURRENT}.tmp"
    with open(tmp, "w") as fh:
        fh.write(name + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    crash_point("publish")
    os.replace(tmp, data_dir / CURRENT)
    _fsync_dir(data_dir)


# The coverage facets (companies x fiscal years x chunk types, with counts) are read from this
# covering index alone, not from the table's rows.
FILTER_INDEX = "CREATE INDEX chunks_by_filter ON chunks (ticker, fiscal_year, chunk_type, company)"


def _create_tables(path: Path, *, delta: bool = False) -> sqlite3.Connection:
    """The empty chunk and fact tables at `path`, open; a `delta` (`_start_tables`) also has
    the list of its base's filings it takes out. The facts are indexed for the lookups an
    answer makes (a company's facts for some fiscal years)."""
    con = sqlite3.connect(path)
    con.execute(
        "CREATE TABLE chunks (row INTEGER PRIMARY KEY, chunk_id TEXT UNIQUE, ticker TEXT,"
        " company TEXT, fiscal_year INTEGER, chunk_type TEXT, filing_key TEXT, signature TEXT,"
        " page INTEGER, payload TEXT)"
    )
    con.execute("CREATE INDEX chunks_by_filing ON chunks (filing_key)")
    con.execute(FILTER_INDEX)
    if delta:
        con.execute("CREATE TABLE dropped (filing_key TEXT PRIMARY KEY)")
    con.execute(f"CREATE TABLE facts (row INTEGER PRIMARY KEY, {', '.join(FACT_COLUMNS)}, "
                "payload TEXT)")
    con.execute("CREATE INDEX facts_by_year ON facts (ticker, fiscal_year)")
    con.execute("CREATE INDEX facts_by_period ON facts (ticker, period_fiscal_year)")
    con.execute("CREATE INDEX facts_by_filing ON facts (filing_key)")
    return con


def _insert_chunks(con: sqlite3.Connection, chunks: list[Chunk], first_row: int) -> None:
    con.executemany(
        "INSERT INTO chunks VALUES (?,?,?,?,?,?,?,?,?,?)",
        (
            (first_row + i, c.chunk_id, c.ticker, c.company, c.fiscal_year, c.chunk_type,
             c.filing_key, text_signature(c.text), c.page, c.model_dump_json())
            for i, c in enumerate(chunks)
        ),
    )


def _update_tables(path: Path, drop: list[str], chunks: list[Chunk],
                   facts: list[Fact]) -> tuple[dict, int]:
    """Take the filings `drop` out of the update's tables (`_start_tables`) and put `chunks`
    and `facts` in, in one transaction; returns the new counts for the manifest and the first
    new fact's row. Over a base, a dropped filing's rows in the delta are deleted and the
    filing is listed in `dropped`, which hides its rows in the base."""
    con = sqlite3.connect(f"file:{path}", uri=True)
    base = (path.parent / BASE).exists()
    if base:
        con.execute("ATTACH DATABASE ? AS base", (f"file:{path.parent / BASE}?mode=ro",))
    else:
        con.execute(FILTER_INDEX.replace("INDEX", "INDEX IF NOT EXISTS"))  # tables before it
    marks = ",".join("?" * len(drop))
    for table in ("chunks", "facts"):
        con.execute(f"DELETE FROM main.{table} WHERE filing_key IN ({marks})", drop)
    if base:  # those of them the base holds
        for table in ("chunks", "facts"):
            con.execute(f"INSERT OR IGNORE INTO dropped SELECT DISTINCT filing_key FROM"
                        f" base.{table} WHERE filing_key IN ({marks})", drop)
    _insert_chunks(con, chunks, _next_row(con, "chunks"))
    first_fact_row = _next_row(con, "facts")
    _insert_facts(con, facts, first_fact_row)
    crash_point("chunks")  # rows written, not committed
    con.commit()
    counts = {table: _count(con, table, base) for table in ("chunks", "facts")}
    con.close()
    return counts, first_fact_row


def _count(con: sqlite3.Connection, table: str, base: bool) -> int:
    """Rows of `table`; over a base, its rows (a count SQLite reads from its smallest index)
    less those of its dropped filings (read by filing) plus the delta's."""
    n = con.execute(f"SELECT COUNT(*) FROM main.{table}").fetchone()[0]
    if base:
        n += con.execute(f"SELECT COUNT(*) FROM base.{table}").fetchone()[0]
        n -= con.execute(f"SELECT COUNT(*) FROM base.{table} WHERE filing_key IN"
                         " (SELECT filing_key FROM main.dropped)").fetchone()[0]
    return n


def _next_row(con: sqlite3.Connection, table: str) -> int:
    """After every row of `table`, the base's included: rows number document order."""
    tables = [table] + ([f"base.{table}"] if has_base(con) else [])
    return max(con.execute(f"SELECT COALESCE(MAX(row), -1) + 1 FROM {t}").fetchone()[0]
               for t in tables)


# An update writes its chunk and fact tables as a delta over the last ones written whole (the
# base), until the delta's rows and the base rows it hides hold more than this share of the
# base's chunks: then it writes them whole again, so a delta's copy stays small, a lookup reads
# two tables at most, and removed filings' rows do not stay on disk for ever.
DELTA_SHARE = 0.125


def update_copies(source: Path) -> int:
    """Bytes an update of generation directory `source` copies: of the tables (`_start_tables`)
    none where they can be shared whole, the delta's, or, where the update merges them, the
    base's and the delta's; and the shard's files it does not share."""
    mode = _table_start(source)
    files = {"share": [], "delta": [source / TABLE], "merge": [source / BASE, source / TABLE],
             "copy": [source / TABLE]}[mode]
    shard = 0
    if (source / "vectors").is_dir():  # the embedded engine's shard: its unshared files
        from finrag.store.edge import EdgeStore

        shard = EdgeStore.update_copies(source / "vectors")
    return sum(f.stat().st_size for f in files) + shard


def _table_start(source: Path) -> str:
    """How an update starts its tables from generation directory `source`: "share" its whole
    tables as the base, copy its "delta" over its base, "merge" the two (the delta has grown
    past `DELTA_SHARE`), or "copy" a whole table written before its filter index (so the copy
    gets it, and the facets never scan a base)."""
    if not (source / BASE).exists():
        con = sqlite3.connect(f"file:{source / TABLE}?mode=ro", uri=True)
        try:
            indexed = con.execute("SELECT 1 FROM sqlite_master WHERE name = 'chunks_by_filter'"
                                  ).fetchone()
        finally:
            con.close()
        return "share" if indexed else "copy"
    con = open_table(source)
    try:
        delta, whole = (con.execute(f"SELECT COUNT(*) FROM {db}.chunks").fetchone()[0]
                        for db in ("main", "base"))
        hidden = con.execute("SELECT COUNT(*) FROM base.chunks WHERE filing_key IN"
                             " (SELECT filing_key FROM main.dropped)").fetchone()[0]
    finally:
        con.close()
    return "delta" if delta + hidden <= DELTA_SHARE * whole else "merge"


def _start_tables(source: Path, tmp: Path) -> None:
    """The tables of an update of generation directory `source`, in `tmp` (`_table_start`): a
    generation written whole lends its tables as the base (a hard link to a file no one writes
    again) under an empty delta; a delta's base is shared the same way and the delta copied;
    a delta grown past `DELTA_SHARE` is merged with its base into tables written whole."""
    mode = _table_start(source)
    if mode == "share":
        _share(source / TABLE, tmp / BASE)
        con = _create_tables(tmp / TABLE, delta=True)
        con.commit()
        con.close()
    elif mode == "copy":
        shutil.copyfile(source / TABLE, tmp / TABLE)
    elif mode == "delta":
        _share(source / BASE, tmp / BASE)
        shutil.copyfile(source / TABLE, tmp / TABLE)
    else:
        shutil.copyfile(source / BASE, tmp / TABLE)  # the base less its dropped filings
        con = sqlite3.connect(f"file:{tmp / TABLE}", uri=True)  # plus the delta's rows
        con.execute("ATTACH DATABASE ? AS delta", (f"file:{source / TABLE}?mode=ro",))
        for name in ("chunks", "facts"):
            con.execute(f"DELETE FROM {name} WHERE filing_key IN"
                        " (SELECT filing_key FROM delta.dropped)")
            con.execute(f"INSERT INTO {name} SELECT * FROM delta.{name}")
        con.commit()
        con.close()


def _share(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError:  # no hard links on this filesystem: a copy reads the same
        shutil.copyfile(source, target)


FACT_COLUMNS = ("ticker", "fiscal_year", "period_fiscal_year", "filing_key", "concept",
                "statement", "source")


def _insert_facts(con: sqlite3.Connection, facts: list[Fact], first_row: int) -> None:
    con.executemany(
        f"INSERT INTO facts VALUES ({', '.join('?' * (len(FACT_COLUMNS) + 2))})",
        ((first_row + i, *(getattr(f, c) for c in FACT_COLUMNS), f.model_dump_json())
         for i, f in enumerate(facts)),
    )


def _create_store(settings, directory, name, dim, memory_gb: float):
    """A new, empty store for generation `name`, and what the manifest says of it; the
    embedded engine's segments are bounded by `memory_gb` (a server optimizes its own)."""
    if settings.qdrant_url:
        from finrag.store.names import collection_name, data_dir_id
        from finrag.store.server import ServerStore

        owner = data_dir_id(settings.data_dir, create=True)
        collection = collection_name(owner, name)
        store = ServerStore.create(client_for(settings), collection, dim)
        # payloads: the points carry the chunks and facts and manifest are on the server too
        # (finrag.remote); versioned: updates change this collection in place (ServerStore),
        # and `version` is the generation its readers see. Generations written before
        # 2026-12-05 lack both flags, those of 2026-12-05 the second.
        kind = {"kind": "server", "collection": collection, "data_dir_id": owner,
                "payloads": True, "versioned": True, "version": generation_number(name)}
    else:
        from finrag.store.edge import EdgeStore

        store = EdgeStore.create(directory / "vectors", dim, segment_points(memory_gb))
        kind = {"kind": "edge", "writer_memory_gb": memory_gb}
    return store, kind


def _write_points(store, points: Iterable[tuple[Chunk, np.ndarray, tuple]],
                  born: int | None = None) -> None:
    """Each (chunk, stored vector, BM25 vector)'s point, both legs, in batches. `born`: the
    generation an update of a server collection writes them for."""
    batch: list[StorePoint] = []
    written: dict[str, int] = {}  # chunks of each filing so far: the next one's place in it
    for chunk, vector, terms, row in points:
        # its place in the filing: the chunk table's row (document order within a filing; a
        # whole build writes the points grouped by kind), else the order given (an update)
        order = written[chunk.filing_key] = (row if row is not None
                                             else written.get(chunk.filing_key, -1) + 1)
        batch.append(StorePoint(chunk.chunk_id, vector, terms,
                                _payload(chunk, whole=store.keeps_payloads, born=born,
                                         order=order)))
        if len(batch) == POINT_BATCH:
            store.upsert(batch)
            crash_point("vectors")
            batch = []
    if batch:
        store.upsert(batch)
        crash_point("vectors")


def _points(chunks: list[Chunk], vectors: np.ndarray, avgdl: float):
    """(chunk, stored vector, BM25 vector, None) of these chunks (whole filings, in order). The
    dense leg keeps page-context vectors (`page_context_vectors`, computed per page of a filing,
    so a filing's vectors do not depend on which other filings are indexed)."""
    for chunk, vector in zip(chunks, _stored_vectors(chunks, vectors)):
        yield chunk, vector, document_vector(bm25_terms(chunk), avgdl), None


def _stored_vectors(chunks: list[Chunk], vectors: np.ndarray) -> np.ndarray:
    """What the dense leg keeps for these chunks (whole filings): their page-context vectors."""
    return page_context_vectors(chunks, vectors, config.PAGE_CONTEXT)


def _payload(chunk: Chunk, *, whole: bool, born: int | None = None, order: int = 0) -> dict:
    """The engine keeps the filter fields and the filing (what an update deletes by). The
    embedded engine's chunk payloads live in chunks.sqlite beside it; a server's points carry
    them too (`whole`: the chunk, its text signature, page and `order`, its place in its
    filing), so that a reader needs nothing but the server (finrag.remote)."""
    payload = {
        "chunk_id": chunk.chunk_id,
        "ticker": chunk.ticker,
        "fiscal_year": chunk.fiscal_year,
        "chunk_type": chunk.chunk_type,
        "filing_key": chunk.filing_key,
    }
    if whole:
        payload.update(chunk=chunk.model_dump_json(), signature=text_signature(chunk.text),
                       page=chunk.page, order=order)
    if born is not None:
        payload["born"] = born
    return payload


def _fact_payloads(facts: list[Fact], first_row: int = 0,
                   born: int | None = None) -> list[dict]:
    """Each fact as a server keeps it: its filter fields, its place in document order (its row
    in the facts table) and the whole record; `born` as for `_write_points`."""
    return [{**{c: getattr(f, c) for c in FACT_COLUMNS}, "row": first_row + i,
             "fact": f.model_dump_json(), **({} if born is None else {"born": born})}
            for i, f in enumerate(facts)]


def table_facets_at(directory: Path) -> dict:
    """The coverage facets of a generation's chunk table, as `Index.facets` reads them."""
    con = open_table(directory)
    try:
        return table_facets(con)
    finally:
        con.close()


def _write_json(path: Path, data: dict) -> None:
    with open(path, "w") as fh:
        json.dump(data, fh, indent=2, sort_keys=True)
        fh.flush()
        os.fsync(fh.fileno())


def _fsync_tree(root: Path) -> None:
    for path in sorted(root.rglob("*"), reverse=True):  # files before the folders naming them
        if path.is_file():
            with open(path, "rb") as fh:
                os.fsync(fh.fileno())
        else:
            _fsync_dir(path)
    _fsync_dir(root)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
