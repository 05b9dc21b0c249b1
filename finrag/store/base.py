"""The interface every store backend implements (embedded engine, Qdrant server): both retrieval
legs of every chunk, filtered inside the engine."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from finrag.models import Filters

POINT_NAMESPACE = uuid.UUID("6f1c1b9e-3f0a-4d1e-9a55-0b8d1f2c7e41")
FILTER_FIELDS = {"tickers": "ticker", "fiscal_years": "fiscal_year", "chunk_types": "chunk_type"}
# Payload fields with an index: the filters' fields, and the filing a point belongs to (what an
# in-place update deletes by).
PAYLOAD_INDEXES = {"ticker": "keyword", "chunk_type": "keyword", "fiscal_year": "integer",
                   "filing_key": "keyword"}
DENSE, SPARSE = "dense", "bm25"  # the two named vectors of every point


@dataclass(frozen=True)
class StorePoint:
    """One chunk as the engine keeps it: both legs' vectors and the payload filtered on."""

    chunk_id: str
    dense: np.ndarray
    terms: tuple[list[int], list[float]]  # BM25 (finrag.lexical.document_vector)
    payload: dict


class StoreError(RuntimeError):
    """The vector store failed or holds what this index did not write; the message, one line,
    names the store and what to do."""


def point_id(chunk_id: str, born: int | None = None) -> str:
    """Qdrant wants integer or UUID ids; a uuid5 of the chunk id is stable everywhere. A point
    written by an in-place update of a server collection (`born`: the generation's number)
    has an id of its own, so the chunk's earlier point stays beside it for older readers."""
    return str(uuid.uuid5(POINT_NAMESPACE, chunk_id if born is None else f"{chunk_id}@{born}"))


def filter_conditions(filters: Filters) -> list[tuple[str, list]]:
    """(payload field, allowed values) pairs, ANDed; an empty list means 'any'."""
    return [(field, getattr(filters, name)) for name, field in FILTER_FIELDS.items()
            if getattr(filters, name)]


def ranked(pairs: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """Best score first, ties by chunk id, so both backends order ties alike."""
    return sorted(pairs, key=lambda p: (-round(p[1], 6), p[0]))


class VectorStore(Protocol):
    def upsert(self, points: list[StorePoint]) -> None: ...

    def search(self, vector: np.ndarray, filters: Filters, limit: int) -> list[tuple[str, float]]:
        ...

    def search_terms(self, terms: tuple[list[int], list[float]], filters: Filters,
                     limit: int) -> list[tuple[str, float]]: ...

    def count(self) -> int: ...

    def finish(self) -> None: ...

    def close(self) -> None: ...
