"""Read and chunk filings in worker processes, results in the order the filings were given.

Each worker opens the data dir's read cache and fact cache itself (sqlite allows several
writers, one at a time) and runs the same per-filing step as the serial path
(`finrag.ingest.read_step.read_one`), so a filing gives the same report, chunks and facts either
way, and a bad filing still gives its one-line error while the others are read. One worker, one
filing, or a token counter that cannot be pickled, reads in this process, with no pool at all.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from finrag.faults import crash_point
from finrag.ingest.factcache import FactCache
from finrag.ingest.read_step import read_one
from finrag.ingest.readcache import ReadCache

READS, FACTS = "reads.sqlite", "facts-cache.sqlite"
# Filings read ahead of the caller, per worker: the workers stay busy while the caller embeds or
# compares one, and a slow caller (a first build embedding on a CPU) does not pile up every
# filing read in memory.
AHEAD = 2
_worker: dict = {}  # this worker process's counter and caches (set by _start)


def default_workers() -> int:
    """One reading process per CPU core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def read_filings(jobs: list[tuple[Path, str | None, int | None]], counter, data_dir: Path,
                 workers: int | None = None, progress=None) -> list[tuple]:
    """(report, chunks, facts) for every (unit, ticker, fiscal_year) job, in the jobs' order."""
    return list(iter_filings(jobs, counter, data_dir, workers, progress))


def iter_filings(jobs: list[tuple[Path, str | None, int | None]], counter, data_dir: Path,
                 workers: int | None = None, progress=None):
    """`read_filings` one filing at a time, as each is read (in the jobs' order), so a caller
    that lets a filing go (an update comparing it with the index) holds one, not all."""
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    workers = min(workers or default_workers(), len(jobs))
    if workers <= 1 or not _picklable(counter):
        yield from _serial(jobs, counter, data_dir, progress)
        return
    # spawn, not fork: the parent may hold threads (torch, a web server) that fork would copy
    # in whatever state they are in
    context = multiprocessing.get_context("spawn")
    done = 0
    try:
        with ProcessPoolExecutor(workers, mp_context=context, initializer=_start,
                                 initargs=(counter, data_dir)) as pool:
            ahead: deque = deque()
            try:
                for job in jobs:
                    ahead.append(pool.submit(_read_job, job))
                    if len(ahead) < AHEAD * workers:
                        continue
                    yield _arrived(jobs[done][0], ahead.popleft().result(), progress)
                    done += 1
                while ahead:
                    yield _arrived(jobs[done][0], ahead.popleft().result(), progress)
                    done += 1
            finally:  # a caller that stops early does not wait for the filings it will not use
                pool.shutdown(cancel_futures=True)
    except BrokenProcessPool:  # a worker was killed (out of memory, say): read the rest here
        yield from _serial(jobs[done:], counter, data_dir, progress)


def _picklable(counter) -> bool:
    """Whether `counter` can travel to a worker process (a test's local stand-in cannot: it
    is then used here, serially). Something defined in the parent's `__main__` pickles by
    reference but cannot be found in a spawned worker (a `python -c` script, a notebook)."""
    try:
        data = pickle.dumps(counter)
    except Exception:  # noqa: BLE001 - pickling raises several types
        return False
    return b"__main__" not in data


def _serial(jobs, counter, data_dir: Path, progress):
    cache, facts = ReadCache(data_dir / READS), FactCache(data_dir / FACTS)
    try:
        for unit, ticker, year in jobs:
            yield _arrived(unit, read_one(unit, counter, ticker, year, cache, facts), progress)
    finally:
        cache.close()
        facts.close()


def _arrived(unit: Path, result: tuple, progress) -> tuple:
    if progress:
        progress.reading(unit, len(result[1]))
    crash_point("read")
    return result


def _start(counter, data_dir: Path) -> None:
    _worker.update(counter=counter, cache=ReadCache(data_dir / READS),
                   facts=FactCache(data_dir / FACTS))


def _read_job(job: tuple[Path, str | None, int | None]) -> tuple:
    unit, ticker, year = job
    return read_one(unit, _worker["counter"], ticker, year, _worker["cache"], _worker["facts"])
