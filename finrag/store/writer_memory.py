"""The writer's memory setting and the engine segment size it gives (docs/scale.md, "The
writer's memory").

A whole write seals the engine's appendable segment every `segment_points` points and optimizes
it alone (`finrag.store.edge.EdgeStore`), so what it holds (the appendable segment's in-RAM
indexes, the pages of its files, the graph and int8 copy being built) grows with a segment, not
with the corpus. The setting is in GB, own memory and mapped files together."""

from __future__ import annotations

import os

# A segment's points per GB of the setting: writing and optimizing one 1M-point segment peaked
# at 11.7 GB (own + mapped files; the 1M bench, 2026-12-06), ~12 KB a point; `WRITER_BASE_GB`
# is the writer before any point (the Python process, the embedding model in a build).
WRITER_MEMORY_ENV = "FINRAG_WRITER_MEMORY_GB"
WRITER_MEMORY_GB = 4.0  # the default: a laptop's share for one build
WRITER_BASE_GB = 1.0
POINT_BYTES = 12 * 1024
MIN_SEGMENT_POINTS = 1_000


def writer_memory_gb(value: float | str | None = None) -> float:
    """The writer's memory setting in GB: `value` (a CLI's --writer-memory), else
    $FINRAG_WRITER_MEMORY_GB, else `WRITER_MEMORY_GB`."""
    raw = value if value is not None else (os.environ.get(WRITER_MEMORY_ENV)
                                           or WRITER_MEMORY_GB)
    try:
        gb = float(raw)
    except (TypeError, ValueError):
        gb = float("nan")
    if not 0 < gb < float("inf"):
        raise ValueError(f"the writer's memory must be a number of GB above 0 "
                         f"(--writer-memory or {WRITER_MEMORY_ENV}), got {raw!r}")
    return gb


def segment_points(memory_gb: float) -> int:
    """The points of one engine segment that a writer allowed `memory_gb` writes and
    optimizes at a time (`POINT_BYTES` each over `WRITER_BASE_GB`), at least
    `MIN_SEGMENT_POINTS`."""
    return max(MIN_SEGMENT_POINTS, int((memory_gb - WRITER_BASE_GB) * 2**30 / POINT_BYTES))
