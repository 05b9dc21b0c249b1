"""One build at a time per data dir: an exclusive, non-blocking lock on its build.lock."""

from __future__ import annotations

import fcntl
from contextlib import contextmanager
from pathlib import Path

from finrag.ingest.report import BuildError


@contextmanager
def build_lock(data_dir: Path):
    with open(data_dir / "build.lock", "w") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BuildError(f"another build is running on {data_dir}; wait for it to finish")
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
