"""Page-level retrieval metrics per method (dense, bm25, fused) over a question set.

A question's answer is on known pages of a known document. A retrieved chunk is a hit when its
place, (document, page), is one of them: page N of another filing (another year's 10-K of the
same company, or another company's) is not the evidence page.
- hit@k: some chunk among the first k is a hit.
- MRR@k: 1 / rank of the first hit chunk (0 if none in the first k).
- nDCG@k: binary gain at each rank whose chunk's place is an evidence place not already credited
  (places count once, in rank order), over the ideal of min(#evidence places, k) hits at the top.
Everything is computed from the ranked places of each list, so the metrics are pure and testable.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

METHODS = ("dense", "bm25", "fused")
CURVE_DEPTH = 20  # hit@1..20 for the plot

Place = tuple[str, int | None]  # (document file name, 1-based page) of a chunk


def place(chunk) -> Place:
    """Where a chunk is: the file name of its document and its page."""
    return (Path(chunk.source).name, chunk.page)


def first_hit(pages: Sequence, evidence: Iterable) -> int | None:
    """1-based rank of the first chunk on an evidence page (or place), or None."""
    wanted = set(evidence)
    for rank, page in enumerate(pages, start=1):
        if page in wanted:
            return rank
    return None


def ndcg(pages: Sequence, evidence: Iterable, k: int) -> float:
    wanted = set(evidence)
    credited: set = set()
    dcg = 0.0
    for rank, page in enumerate(pages[:k], start=1):
        if page in wanted and page not in credited:
            credited.add(page)
            dcg += 1.0 / math.log2(rank + 1)
    ideal = sum(1.0 / math.log2(r + 1) for r in range(1, min(len(wanted), k) + 1))
    return dcg / ideal if ideal else 0.0


@dataclass
class Outcome:
    """One question, one method: the places of its ranked chunks and the query time."""

    pages: list[Place]
    evidence: frozenset[Place]
    ms: float

    @property
    def rank(self) -> int | None:
        return first_hit(self.pages, self.evidence)


@dataclass
class MethodScores:
    outcomes: list[Outcome] = field(default_factory=list)

    def summary(self, k: int) -> dict:
        n = len(self.outcomes) or 1
        ranks = [o.rank for o in self.outcomes]
        out = {f"hit@{c}": _rate(ranks, c, n) for c in sorted({1, 5, k})}
        out[f"mrr@{k}"] = round(sum(1 / r for r in ranks if r and r <= k) / n, 3)
        out[f"ndcg@{k}"] = round(sum(ndcg(o.pages, o.evidence, k) for o in self.outcomes) / n, 3)
        out["median_ms"] = round(statistics.median(o.ms for o in self.outcomes), 1) \
            if self.outcomes else 0.0
        return out

    def curve(self, depth: int = CURVE_DEPTH) -> list[float]:
        n = len(self.outcomes) or 1
        ranks = [o.rank for o in self.outcomes]
        return [_rate(ranks, c, n) for c in range(1, depth + 1)]


def _rate(ranks: list[int | None], cutoff: int, n: int) -> float:
    return round(sum(1 for r in ranks if r and r <= cutoff) / n, 3)


def result_outcomes(result, evidence: frozenset[Place]) -> dict[str, Outcome]:
    """The three ranked lists of one SearchResult as Outcomes (query time per method);
    `evidence`: the (document file name, page) places that hold the answer."""
    t = result.timings_ms
    ms = {
        "dense": t.get("embed", 0.0) + t.get("dense", 0.0),
        "bm25": t.get("bm25", 0.0),
        "fused": sum(t.values()),
    }
    return {
        m: Outcome([place(h.chunk) for h in getattr(result, m)], evidence, ms[m]) for m in METHODS
    }
