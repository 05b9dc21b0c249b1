"""Copy a folder of sparse files keeping their holes, sharing the files that will not change.

Qdrant's engine preallocates its memory-mapped files (a 600-chunk shard is ~130 MB long and
~3 MB on disk). A plain copy (`shutil.copytree`) reads the holes as zeros and writes them out,
so every in-place update would cost the shard's full apparent size on disk and in time. This
copies only the data extents (found with SEEK_DATA / SEEK_HOLE, copied with copy_file_range,
which a filesystem with reflinks may share instead of copying) and leaves the rest as holes.
Where the platform has neither, it falls back to a plain copy.

A file the caller knows no writer of the copy will change (`share`) is a hard link to the
original instead: no bytes are copied, and both folders name the same file. Where the
filesystem has no hard links (or `dst` is on another one) it is copied like the rest.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

CHUNK = 8 << 20


def copy_tree(src: Path, dst: Path, share: Callable[[Path], bool] | None = None) -> None:
    """Copy folder `src` to the new folder `dst`, files keeping their holes; a file for which
    `share(its path under src)` is true is hard-linked instead."""

    def copy(source: str, target: str) -> str:
        if share is not None and share(Path(source)):
            try:
                os.link(source, target)
                return target
            except OSError:  # no hard links here, or another filesystem: copy it
                pass
        return copy_file(source, target)

    shutil.copytree(src, dst, copy_function=copy)


def copy_file(src: str, dst: str) -> str:
    if not hasattr(os, "SEEK_DATA"):
        return shutil.copy2(src, dst)
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        size = os.fstat(fin.fileno()).st_size
        for start, end in _extents(fin.fileno(), size):
            _copy_range(fin, fout, start, end)
        fout.truncate(size)
    shutil.copystat(src, dst)
    return dst


def _extents(fd: int, size: int):
    """(start, end) of each data region of the file."""
    pos = 0
    while pos < size:
        try:
            start = os.lseek(fd, pos, os.SEEK_DATA)
        except OSError:  # ENXIO: no data after pos
            return
        end = os.lseek(fd, start, os.SEEK_HOLE)
        yield start, end
        pos = end


def _copy_range(fin, fout, start: int, end: int) -> None:
    pos = start
    if hasattr(os, "copy_file_range"):
        try:
            while pos < end:
                n = os.copy_file_range(fin.fileno(), fout.fileno(), end - pos, pos, pos)
                if n == 0:
                    break
                pos += n
            if pos == end:
                return
        except OSError:
            pass  # another filesystem or kernel: copy the rest by hand
    fin.seek(pos)
    fout.seek(pos)
    while pos < end:
        data = fin.read(min(CHUNK, end - pos))
        if not data:
            break
        fout.write(data)
        pos += len(data)
