"""Writing one index generation: the chunk and fact tables, BM25, the vector store and the
manifest, under a temporary name renamed into place when complete, then published by an atomic
swap of CURRENT (the layout is in finrag.index)."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import numpy as np

from finrag import config
from finrag.config import EMBED_DIM, Settings
from finrag.facts import Fact
from finrag.faults import crash_point
from finrag.index import CURRENT, FORMAT_VERSION, GENERATIONS
from finrag.lexical import BM25Index
from finrag.models import Chunk
from finrag.pagevectors import page_context_vectors
from finrag.store.clients import client_for
from finrag.tokens import TOKENIZER_VERSION
from finrag.views import bm25_terms, text_signature
from finrag.vocabulary import PHRASES_FINGERPRINT


def write_generation(
    settings: Settings, name: str, chunks: list[Chunk], vectors: np.ndarray, model_name: str,
    facts: list[Fact] | None = None,
) -> Path:
    """Write a complete generation under a temporary name, then rename it into place."""
    root = settings.data_dir / GENERATIONS
    tmp = root / f".tmp-{name}"
    tmp.mkdir(parents=True)
    _write_chunks(tmp / "chunks.sqlite", chunks)
    _write_facts(tmp / "chunks.sqlite", facts or [])
    bm25 = BM25Index.build([bm25_terms(c) for c in chunks])
    bm25.save(tmp / "bm25")
    crash_point("bm25")
    stored = page_context_vectors(chunks, vectors, config.PAGE_CONTEXT)
    backend = _write_vectors(settings, tmp, name, chunks, stored)
    manifest = {
        "format": FORMAT_VERSION,
        "generation": name,
        "model": model_name,
        "dim": int(vectors.shape[1]) if len(vectors) else EMBED_DIM,
        "tokenizer": TOKENIZER_VERSION,
        "phrases": PHRASES_FINGERPRINT,
        "page_context": config.PAGE_CONTEXT,
        "bm25": {"k1": bm25.k1, "b": bm25.b, "idf": bm25.idf_variant},
        "backend": backend,
        "chunks": len(chunks),
        "facts": len(facts or []),
    }
    _write_json(tmp / "manifest.json", manifest)
    _fsync_tree(tmp)  # every file on disk before the name that makes it a generation
    crash_point("manifest")
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


def _write_chunks(path: Path, chunks: list[Chunk]) -> None:
    con = sqlite3.connect(path)
    con.execute(
        "CREATE TABLE chunks (row INTEGER PRIMARY KEY, chunk_id TEXT UNIQUE, ticker TEXT,"
        " company TEXT, fiscal_year INTEGER, chunk_type TEXT, filing_key TEXT, signature TEXT,"
        " page INTEGER, payload TEXT)"
    )
    con.executemany(
        "INSERT INTO chunks VALUES (?,?,?,?,?,?,?,?,?,?)",
        (
            (i, c.chunk_id, c.ticker, c.company, c.fiscal_year, c.chunk_type, c.filing_key,
             text_signature(c.text), c.page, c.model_dump_json())
            for i, c in enumerate(chunks)
        ),
    )
    crash_point("chunks")  # rows written, not committed
    con.commit()
    con.close()


FACT_COLUMNS = ("ticker", "fiscal_year", "period_fiscal_year", "filing_key", "concept",
                "statement", "source")


def _write_facts(path: Path, facts: list[Fact]) -> None:
    """The facts table: one row per fact, its filter columns beside its JSON record, indexed
    for the lookups an answer makes (a company's facts for some fiscal years)."""
    con = sqlite3.connect(path)
    con.execute(f"CREATE TABLE facts (row INTEGER PRIMARY KEY, {', '.join(FACT_COLUMNS)}, "
                "payload TEXT)")
    con.execute("CREATE INDEX facts_by_year ON facts (ticker, fiscal_year)")
    con.execute("CREATE INDEX facts_by_period ON facts (ticker, period_fiscal_year)")
    con.executemany(
        f"INSERT INTO facts VALUES ({', '.join('?' * (len(FACT_COLUMNS) + 2))})",
        ((i, *(getattr(f, c) for c in FACT_COLUMNS), f.model_dump_json())
         for i, f in enumerate(facts)),
    )
    con.commit()
    con.close()


def _write_vectors(settings, directory, name, chunks, vectors) -> dict:
    ids = [c.chunk_id for c in chunks]
    payloads = [_vector_payload(c) for c in chunks]
    dim = int(vectors.shape[1]) if len(vectors) else EMBED_DIM
    if settings.qdrant_url:
        from finrag.store.names import collection_name, data_dir_id
        from finrag.store.server import ServerStore

        owner = data_dir_id(settings.data_dir, create=True)
        collection = collection_name(owner, name)
        store = ServerStore.create(client_for(settings), collection, dim)
        kind = {"kind": "server", "collection": collection, "data_dir_id": owner}
    else:
        from finrag.store.edge import EdgeStore

        store = EdgeStore.create(directory / "vectors", dim)
        kind = {"kind": "edge"}
    for start in range(0, len(ids), 1024):
        end = start + 1024
        store.upsert(ids[start:end], vectors[start:end], payloads[start:end])
        crash_point("vectors")
    kind.update(store.finish() or {})  # edge: HNSW build (optimize) + flush; its figures
    crash_point("flush")
    store.close()
    return kind


def _vector_payload(chunk: Chunk) -> dict:
    """The vector store keeps the filter fields; full payloads live in chunks.sqlite."""
    return {
        "chunk_id": chunk.chunk_id,
        "ticker": chunk.ticker,
        "fiscal_year": chunk.fiscal_year,
        "chunk_type": chunk.chunk_type,
    }


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
