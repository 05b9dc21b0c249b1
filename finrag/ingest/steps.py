"""Where a build's or a removal's time goes, step by step (`ingest build --json`'s "steps"):
reading and comparing filings, embedding, and each part of writing a generation (copying the
tables and the shard, counting, deleting, upserting, flushing, publishing). One run per
process, so the CLI resets it and reports it at the end; the bench reads it from the JSON.
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
