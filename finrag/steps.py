"""Where an update's or a removal's time goes, step by step (`ingest build --json` and
`ingest remove --json`, "steps"): reading and comparing filings, embedding, and each part of
writing the new generation over the published one on the embedded engine (copy tables, write
tables, copy shard, count points, delete points, upsert points, flush shard: the engine's
finish and close together, finish generation, publish). A whole build or `--rebuild` and a
server collection's update report fewer steps (reading, embedding and publishing). `build()`
and `remove()` reset it when they start; one build at a time per process (the build lock
holds them to one per data dir anyway). The bench reads it from the JSON.
"""

from __future__ import annotations

import time
from contextlib import contextmanager

_taken: dict[str, float] = {}


def reset() -> None:
    _taken.clear()


@contextmanager
def step(name: str):
    """Add the time of the `with` block to the step `name`."""
    started = time.perf_counter()
    try:
        yield
    finally:
        _taken[name] = _taken.get(name, 0.0) + time.perf_counter() - started


def taken() -> dict[str, float]:
    """Seconds per step, in the order the steps first ran."""
    return {name: round(seconds, 3) for name, seconds in _taken.items()}
