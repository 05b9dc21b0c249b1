"""BM25 as sparse vectors, so the lexical leg lives in the same Qdrant engine as the dense one.

finrag computes each chunk's term-frequency part of BM25 and the engine multiplies in the
inverse document frequency at query time (`Modifier.Idf`):

    score(q, d) = sum over query terms t (a repeated term counts again) of
                  idf(t) * tf(t, d) * (k1 + 1) / (tf(t, d) + k1 * (1 - b + b * |d| / avgdl))
    idf(t)      = ln(1 + (N - n(t) + 0.5) / (n(t) + 0.5))

The engine's idf is Lucene's, which is never negative, so common words cannot outweigh content
words. N and n(t) are counted by the engine over the points it holds, so adding or removing a
filing changes every score's idf with no work here (on a cluster: per shard, docs/cluster/).

A term's sparse dimension is a 32-bit hash of the term (CRC-32): there is no vocabulary to
store, grow or agree on, so one filing can be added without touching any other. Two terms can
share a dimension: among the 76,621 distinct terms of the FinanceBench corpus (24,696 chunks)
one pair does ("foster", "theextension"); a document or query holding both adds their weights
on that one dimension (`tests/test_lexical.py` checks the engine's scores against the formula
above).

avgdl is fixed when a full build writes the index (its manifest keeps it) and kept when filings
are added in place: a chunk's weights never change after it is written.
"""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Iterable

K1, B = 1.5, 0.75


def term_id(term: str) -> int:
    """The sparse dimension of a term."""
    return zlib.crc32(term.encode())


def average_length(lengths: Iterable[int]) -> float:
    """Mean terms per document, from each document's term count (1.0 for none, so a first
    filing added alone has a length). Takes counts, not term lists: a build streams them, so
    a million chunks' terms are never held at once."""
    total = count = 0
    for n in lengths:
        total, count = total + n, count + 1
    return total / count if total else 1.0


def document_vector(terms: list[str], avgdl: float, *, k1: float = K1,
                    b: float = B) -> tuple[list[int], list[float]]:
    """(dimensions, weights) of one document: the BM25 term-frequency part of each term."""
    return weigh(term_counts(terms), len(terms), avgdl, k1=k1, b=b)


def term_counts(terms: list[str]) -> list[tuple[int, int]]:
    """(dimension, count) of each distinct term of a document, in the order first met: what
    its weights are made of once avgdl is known (`weigh`), so a whole write tokenizes each
    chunk once though avgdl is known only after the last one (finrag.generation)."""
    return [(term_id(term), tf) for term, tf in Counter(terms).items()]


def weigh(counts: list[tuple[int, int]], length: int, avgdl: float, *, k1: float = K1,
          b: float = B) -> tuple[list[int], list[float]]:
    """(dimensions, weights) of a document of `length` terms from its `term_counts`."""
    norm = k1 * (1 - b + b * length / avgdl)
    weights: dict[int, float] = {}
    for dim, tf in counts:
        weights[dim] = weights.get(dim, 0.0) + tf * (k1 + 1) / (tf + norm)
    dims = sorted(weights)
    return dims, [weights[d] for d in dims]


def query_vector(tokens: list[str]) -> tuple[list[int], list[float]]:
    """(dimensions, counts) of a query: each term once, weighted by how often it was asked."""
    counts: dict[int, float] = {}
    for term in tokens:
        dim = term_id(term)
        counts[dim] = counts.get(dim, 0.0) + 1.0
    dims = sorted(counts)
    return dims, [counts[d] for d in dims]
