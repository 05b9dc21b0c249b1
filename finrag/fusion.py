"""Weighted Reciprocal Rank Fusion over ranked id lists (Cormack et al. 2009). Pure.

score(id) = sum over retrievers r of weight_r / (k + rank_r(id)), ranks counted from 1, each
retriever contributing only its first `k_each` ids. An id listed twice in one list counts at its
best rank. A retriever weighted 0 takes no part: its ids are not fused and it has no rank in
any entry; all weights 0 is an error. Ties: higher score first, then the best single rank, then
chunk id ascending, so the same input gives the same order in every process.

With `groups` (id -> group key, e.g. the page a chunk is on) the ids of one group fuse as one
entry: each retriever contributes weight / (k + its best rank of any member), and the entry is
shown by the member with the highest id-level score. Two retrievers that agree on a page, each
through a different chunk of it, then reinforce each other instead of splitting the vote.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from finrag.config import RRF_K


@dataclass(frozen=True)
class Fused:
    chunk_id: str
    score: float
    ranks: dict[str, int | None] = field(default_factory=dict)
    contributions: dict[str, float] = field(default_factory=dict)


def rrf(ranked: dict[str, list[str]], *, k: int = RRF_K, weights: dict[str, float] | None = None,
        k_each: int | None = None, top_k: int | None = None,
        groups: dict[str, str] | None = None) -> list[Fused]:
    weights = _check(ranked, k, weights, k_each)
    ranked = {name: ids for name, ids in ranked.items() if weights[name] > 0}
    ranks: dict[str, dict[str, int]] = {}
    for name, ids in ranked.items():
        for rank, cid in enumerate(ids[:k_each] if k_each else ids, start=1):
            ranks.setdefault(cid, {}).setdefault(name, rank)
    fused = _ordered([_score(cid, mine, ranked, weights, k) for cid, mine in ranks.items()],
                     ranked)
    if groups is not None:
        fused = _ordered(_by_group(fused, groups, ranked, weights, k), ranked)
    return fused[:top_k] if top_k is not None else fused


def _score(cid, mine, ranked, weights, k) -> Fused:
    contrib = {name: weights[name] / (k + r) for name, r in mine.items() if r is not None}
    return Fused(cid, sum(contrib.values()), {name: mine.get(name) for name in ranked}, contrib)


def _ordered(fused: list[Fused], ranked) -> list[Fused]:
    fused.sort(key=lambda f: (-f.score, min(f.ranks[n] or 10**9 for n in ranked), f.chunk_id))
    return fused


def _by_group(fused: list[Fused], groups, ranked, weights, k) -> list[Fused]:
    """One entry per group, shown by its best-scored member (`fused` is in score order)."""
    shown: dict[str, str] = {}
    best: dict[str, dict[str, int]] = {}
    for f in fused:
        key = groups.get(f.chunk_id, f.chunk_id)
        shown.setdefault(key, f.chunk_id)
        mine = best.setdefault(key, {})
        for name, r in f.ranks.items():
            if r is not None and r < mine.get(name, 10**9):
                mine[name] = r
    return [_score(shown[key], mine, ranked, weights, k) for key, mine in best.items()]


def _check(ranked, k, weights, k_each) -> dict[str, float]:
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    if k_each is not None and k_each < 1:
        raise ValueError(f"k_each must be >= 1, got {k_each}")
    weights = dict(weights or {})
    unknown = set(weights) - set(ranked)
    if unknown:
        raise ValueError(f"weights for unknown retrievers: {sorted(unknown)}")
    for name, w in weights.items():
        if w < 0:
            raise ValueError(f"weight of {name!r} must be >= 0, got {w}")
    weights = {name: weights.get(name, 1.0) for name in ranked}
    if ranked and not any(w > 0 for w in weights.values()):
        raise ValueError(f"weights {weights}: every retriever is weighted 0; give one a weight > 0")
    return weights
