"""The disk under a build: a writable data dir, room for what a build will write (refused
before writing), and a full or failing disk mid-build turned into one line with the published
index kept."""

from __future__ import annotations

import errno
import json
import os
import sqlite3
from contextlib import contextmanager, suppress
from pathlib import Path

from finrag.config import Settings
from finrag.index import GENERATIONS, current_generation
from finrag.ingest.generations import remove_leftovers
from finrag.ingest.report import BuildError

# Disk a generation takes per chunk when there is none to measure (2,187 sample chunks: 9.2 MB
# on disk, ~4.2 KB each), what the embedding cache adds per text, and room left to spare.
BYTES_PER_CHUNK, CACHE_BYTES_PER_TEXT, SPARE_BYTES = 6_000, 2_000, 4 << 20


def check_space(settings: Settings, chunks: int, *, copies: int = 0) -> None:
    """Refuse a build the disk cannot hold, before writing anything (`DiskRoom`)."""
    DiskRoom(settings).check(chunks, copies)


class DiskRoom:
    """The disk's room for a build, measured once before it writes: `check` refuses `chunks`
    written and `copies` bytes of tables copied that it cannot hold. Qdrant edge writes through
    memory-mapped files: on a full disk the kernel kills the writer with SIGBUS instead of
    returning an error (the published index survives that too, but nobody is told why). A
    build that writes as it reads checks before each filing; the engine's files come last."""

    def __init__(self, settings: Settings) -> None:
        self.data_dir = settings.data_dir
        self.per_chunk = _bytes_per_chunk(settings) * 1.5 + CACHE_BYTES_PER_TEXT
        st = os.statvfs(settings.data_dir)
        self.free = st.f_bavail * st.f_frsize

    def check(self, chunks: int, copies: int = 0) -> None:
        need = int(chunks * self.per_chunk) + copies + SPARE_BYTES
        if self.free < need:
            raise BuildError(
                f"not enough disk space in {self.data_dir}: the new index needs about "
                f"{need / 1e6:,.0f} MB, {self.free / 1e6:,.0f} MB free; the published index is "
                "unchanged; free some space or choose another --data-dir")


def _bytes_per_chunk(settings: Settings) -> float:
    """Measured on the published generation (blocks in use, not sparse sizes) where there is one."""
    name = current_generation(settings.data_dir)
    path = settings.data_dir / GENERATIONS / (name or "-")
    try:
        chunks = json.loads((path / "manifest.json").read_text())["chunks"]
        used = sum(f.stat().st_blocks * 512 for f in path.rglob("*") if f.is_file())
    except (OSError, ValueError, KeyError):
        return BYTES_PER_CHUNK
    return max(BYTES_PER_CHUNK / 2, used / chunks) if chunks else BYTES_PER_CHUNK


def ensure_writable(data_dir: Path) -> None:
    try:
        (data_dir / GENERATIONS).mkdir(parents=True, exist_ok=True)
        probe = data_dir / ".write-probe"
        probe.write_text("ok")
        probe.unlink()
    except OSError as exc:
        with suppress(OSError):  # a full disk leaves the probe created but empty
            (data_dir / ".write-probe").unlink(missing_ok=True)
        if exc.errno == errno.ENOSPC:
            raise BuildError(f"no disk space left in {data_dir}; the published index is "
                             "unchanged; free some space or choose another --data-dir") from exc
        raise BuildError(f"data dir {data_dir} is not writable ({exc.strerror}); "
                         "choose another with --data-dir or FINRAG_DATA_DIR") from exc


@contextmanager
def storage_faults(settings: Settings):
    """A full or failing disk mid-build: delete what this build wrote (so the space comes back),
    keep the published index, and say so in one line. sqlite reports a full disk as its own
    error ("database or disk is full"), not as an OSError."""
    try:
        yield
    except (OSError, sqlite3.Error) as exc:
        remove_leftovers(settings)
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        kept = current_generation(settings.data_dir)
        state = f"the published index {kept} is unchanged" if kept else "no index was published"
        raise BuildError(f"could not write the index in {settings.data_dir} ({reason}); {state}; "
                         "free some space or choose another --data-dir") from exc
