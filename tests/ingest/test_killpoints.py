"""Crash at any point: kill -9 a build at every named point of its write path (and at a few
seeded random moments), then check that the index is the last complete one, that the next
build finishes, and that the result equals an uninterrupted build with no leftovers.

The named points come from the fault-injection hook `finrag.faults.crash_point`
(FINRAG_CRASH_AT=<point>:<n> makes the build SIGKILL itself the n-th time it gets there).
Builds use the fake embedder and a word counter, so a killed run takes about a second.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, FakeEmbedder, word_count

from finrag.config import Settings
from finrag.faults import CRASH_ENV
from finrag.index import GENERATIONS, Index, current_generation
from finrag.ingest.build import build
from finrag.ingest.cli import main as ingest_main
from finrag.ingest.cli import status_json
from finrag.ingest.generations import KEEP_GENERATIONS
from finrag.ingest.sample import unpack_sample

pytestmark = [pytest.mark.slow,  # builds killed with SIGKILL in subprocesses
              pytest.mark.own_parse_cache]  # warms its data dirs' read caches itself

FIRST, SECOND = "AAPL/10-K/0000320193-24-000123", "TSLA/10-K/tsla-20241231"

# (point, n): where the build dies. Before "publish" completes the old index must survive;
# at "published" / "gc" the new one is already complete and visible. The base holds FIRST, so
# adding SECOND is an update (the published generation copied, then changed); the points marked
# "whole" kill a --rebuild, which writes every chunk.
KILL_POINTS = [
    ("read", 1), ("read", 2),  # after reading one / both filings
    ("embed", 1), ("embed", 2),  # after the first / second committed embedding batch
    ("copied", 1),  # the published chunk table copied for the update
    ("chunks", 1),  # chunk rows written, not committed
    ("vectors", 1),  # points upserted into the Qdrant edge shard, not flushed
    ("flush", 1),  # shard flushed, not closed
    ("manifest", 1),  # generation complete under its temporary name
    ("renamed", 1),  # generation renamed into place, not published
    ("publish", 1),  # CURRENT.tmp written, not renamed
    ("published", 1),  # CURRENT replaced, old generations not yet collected
    ("gc", 1),  # in the middle of dropping old generations
    ("whole-chunks", 1), ("whole-vectors", 1), ("whole-flush", 1), ("whole-manifest", 1),
]
AFTER_PUBLISH = {"published", "gc"}
RANDOM_KILLS = 3

_FORK_SERVER = """
import json, os, sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
from pathlib import Path
from conftest import FakeEmbedder, word_count
from finrag.config import Settings
from finrag.ingest.build import build

for line in sys.stdin:  # one build a line, each in a forked child: imports are paid once
    job = json.loads(line)
    pid = os.fork()
    if pid == 0:
        if job["crash"]:
            os.environ["FINRAG_CRASH_AT"] = job["crash"]
        build([Path(p) for p in job["paths"]], Settings(data_dir=Path(job["data"]),
              qdrant_url=None), FakeEmbedder(), word_count, rebuild=job["rebuild"])
        os._exit(0)
    print(json.dumps({"pid": pid}), flush=True)
    status = os.waitpid(pid, 0)[1]
    code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    print(json.dumps({"code": code}), flush=True)
"""


class _Builds:
    """A process that runs builds in forked children (kill -9 lands on the child only)."""

    def __init__(self) -> None:
        env = {k: v for k, v in os.environ.items() if k != CRASH_ENV}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _FORK_SERVER, str(REPO), str(REPO / "tests")], env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def start(self, data: Path, paths: list[Path], crash: str | None,
              rebuild: bool = False) -> int:
        job = {"data": str(data), "paths": [str(p) for p in paths], "crash": crash,
               "rebuild": rebuild}
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())["pid"]

    def wait(self) -> int:
        """The child's exit code, negative for the signal that killed it."""
        return json.loads(self.proc.stdout.readline())["code"]

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def builds():
    server = _Builds()
    yield server
    server.close()


def _build(data: Path, paths: list[Path]):
    return build(paths, Settings(data_dir=data, qdrant_url=None), FakeEmbedder(), word_count)


def _state(data: Path) -> tuple[str, int, str]:
    """(generation, chunks, chunk_ids_sha256) as `ingest status --json` reports them, after
    checking the generation is whole: the engine holds every chunk exactly once."""
    index = Index.open(Settings(data_dir=data, qdrant_url=None))
    try:
        ids = index.chunk_ids()
        assert len(ids) == len(set(ids)) == index.vectors.count()
        s = status_json(index)
    finally:
        index.close()
    return s["generation"], s["chunks"], s["chunk_ids_sha256"]


def _leftovers(data: Path) -> list[str]:
    gens = data / GENERATIONS
    return sorted(p.name for p in gens.glob(".tmp-*")) + sorted(
        p.name for p in data.glob(".CURRENT.tmp"))


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """The filings, a base index (FIRST only, two generations so that garbage collection has
    something to drop) and the uninterrupted build of FIRST + SECOND from that base."""
    tmp = tmp_path_factory.mktemp("killpoints")
    root = unpack_sample(tmp / "src") / "sec-edgar-filings"
    first, second = root / FIRST, root / SECOND
    reference = tmp / "reference"
    shutil.copytree(_base(tmp / "base", first, second), reference)
    _build(reference, [first, second])
    return tmp, first, second


def _base(base: Path, first: Path, second: Path) -> Path:
    _build(base, [first])
    build([first], Settings(data_dir=base, qdrant_url=None), FakeEmbedder(), word_count,
          rebuild=True)
    warm = base.parent / "warm"  # parsed reads of both filings, so killed runs skip parsing
    _build(warm, [first, second])
    shutil.copy(warm / "reads.sqlite", base / "reads.sqlite")
    return base


def _trial(tmp: Path, name: str, first: Path, second: Path, kill) -> dict:
    """Copy the base, start a build of FIRST + SECOND, let `kill` end it, then check."""
    data = tmp / f"trial-{name}"
    shutil.copytree(tmp / "base", data)
    before = _state(data)
    code = kill(data, [first, second])
    after_kill = _state(data)
    resumed = _build(data, [first, second])
    return {"data": data, "before": before, "after_kill": after_kill, "code": code,
            "resumed": resumed}


def _check_final(world, trial: dict) -> None:
    tmp, *_ = world
    reference = _state(tmp / "reference")
    data = trial["data"]
    assert _state(data)[1:] == reference[1:]  # same chunk ids and count as uninterrupted
    assert trial["resumed"].totals()["failed"] == 0
    assert _leftovers(data) == []
    gens = {p.name for p in (data / GENERATIONS).glob("gen-*")}
    # no growth: the new generation and, beside it, the one readers were served before the
    # build (not an orphan the killed build left unpublished)
    assert len(gens) == KEEP_GENERATIONS
    assert gens == {trial["before"][0], current_generation(data)}


@pytest.mark.parametrize("point,n", KILL_POINTS, ids=[f"{p}:{n}" for p, n in KILL_POINTS])
def test_kill_at_a_named_point(world, builds, point, n):
    tmp, first, second = world

    whole = point.startswith("whole-")
    point = point.removeprefix("whole-")

    def kill(data, paths):
        builds.start(data, paths, f"{point}:{n}", rebuild=whole)
        return builds.wait()

    trial = _trial(tmp, f"{'whole-' if whole else ''}{point}-{n}", first, second, kill)
    assert trial["code"] == -signal.SIGKILL, f"the build never reached {point}:{n}"
    if point in AFTER_PUBLISH:
        assert trial["after_kill"][1:] == _state(tmp / "reference")[1:]
        assert trial["resumed"].published is False  # already complete: nothing to redo
    else:
        assert trial["after_kill"] == trial["before"]  # readers still see the last complete index
        assert trial["resumed"].published
    if point not in AFTER_PUBLISH | {"read"}:  # embeddings committed before the kill stay
        assert trial["resumed"].embedded < trial["resumed"].totals()["new_chunks"]
    _check_final(world, trial)


def test_kill_at_random_moments(world, builds):
    """kill -9 from outside at seeded random delays: the index is always old or new, whole."""
    tmp, first, second = world
    rng = random.Random(6)
    outcomes = []
    for i in range(RANDOM_KILLS):
        delay = rng.uniform(0.05, 0.9)  # an unhurried build of these two takes ~1-2 s

        def kill(data, paths, delay=delay):
            pid = builds.start(data, paths, None)
            time.sleep(delay)
            with contextlib.suppress(ProcessLookupError):  # it may have finished already
                os.kill(pid, signal.SIGKILL)
            return builds.wait()

        trial = _trial(tmp, f"random-{i}", first, second, kill)
        assert trial["after_kill"][1:] in (trial["before"][1:], _state(tmp / "reference")[1:])
        _check_final(world, trial)
        new = trial["after_kill"][1:] != trial["before"][1:]
        outcomes.append((round(delay, 2), trial["code"], "new" if new else "old"))
    print(f"random kills (delay s, exit code, index after): {outcomes}")


def test_status_json_reports_what_the_kill_checks_compare(world, capsys):
    tmp, *_ = world
    assert ingest_main(["status", "--json", "--data-dir", str(tmp / "reference")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["generation"], data["chunks"], data["chunk_ids_sha256"]) == _state(
        tmp / "reference")
