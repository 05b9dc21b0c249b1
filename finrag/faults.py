"""Fault injection for the kill-point tests: a named point of the write path where a build can
be made to SIGKILL itself."""

from __future__ import annotations

import os
import signal

CRASH_ENV = "FINRAG_CRASH_AT"
_crash_hits: dict[str, int] = {}


def crash_point(point: str) -> None:
    """Fault injection for the kill-point tests: with FINRAG_CRASH_AT=<point>:<n> set, the n-th
    time the write path reaches `point` the process SIGKILLs itself (no cleanup, no flush, as
    `kill -9` leaves it). Points: read, embed, copied (an update), chunks, vectors, flush,
    manifest, renamed, publish, published, and on a server retired (an update's old points
    marked), stated (the generation published to readers by name), aliased (the alias moved),
    superseded (an update's old points deleted); gc. Unset
    (always, outside those tests) it costs one environment lookup."""
    spec = os.environ.get(CRASH_ENV)
    if not spec or spec.partition(":")[0] != point:
        return
    _crash_hits[point] = _crash_hits.get(point, 0) + 1
    if _crash_hits[point] == int(spec.partition(":")[2] or 1):
        os.kill(os.getpid(), signal.SIGKILL)
