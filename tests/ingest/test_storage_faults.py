"""Storage faults: a read-only data dir and a full disk give a one-line error and exit code 1,
and the published index stays as it was (same status, search still answers).

Where the tests may mount (root with CAP_SYS_ADMIN, as in CI here) the faults are real: a tmpfs
remounted read-only (chmod does not stop root; non-root users get a chmod instead), and a small
ext4 loop image filled up with fallocate (tmpfs is no model of a full disk for memory-mapped
stores: reading a hole of a shared mapping allocates there). Everywhere, ENOSPC and sqlite's
"disk is full" are also injected at each write of a build.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from conftest import REPO, FakeEmbedder, word_count

from finrag.cli import main as finrag_main
from finrag.config import Settings
from finrag.index import GENERATIONS, Index
from finrag.ingest import write as write_module
from finrag.ingest.build import build
from finrag.ingest.cli import main as ingest_main
from finrag.ingest.cli import status_json
from finrag.ingest.sample import unpack_sample
from finrag.search import HybridSearcher

pytestmark = [pytest.mark.slow,  # builds against read-only and full file systems
              pytest.mark.own_parse_cache]  # the caches are files of the data dir under test

FIRST, SECOND = "AAPL/10-K/0000320193-24-000123", "TSLA/10-K/tsla-20241231"


@pytest.fixture(scope="module")
def filings(tmp_path_factory):
    root = unpack_sample(tmp_path_factory.mktemp("faults") / "src") / "sec-edgar-filings"
    return root / FIRST, root / SECOND


@pytest.fixture(scope="module")
def base(filings, tmp_path_factory):
    """A published index of FIRST (fake embedder), with both filings' embeddings and reads
    cached, so a build of FIRST + SECOND only has to write the new generation."""
    data = tmp_path_factory.mktemp("base") / "data"
    warm = data.parent / "warm"
    build(list(filings), Settings(data_dir=warm, qdrant_url=None), FakeEmbedder(), word_count)
    build([filings[0]], Settings(data_dir=data, qdrant_url=None), FakeEmbedder(), word_count)
    for name in ("embeddings.sqlite", "reads.sqlite"):
        shutil.copy(warm / name, data / name)
    return data


def _status(data: Path) -> dict:
    index = Index.open(Settings(data_dir=data, qdrant_url=None))
    try:
        return status_json(index)
    finally:
        index.close()


def _answers(data: Path) -> list[str]:
    searcher = HybridSearcher(Settings(data_dir=data, qdrant_url=None), FakeEmbedder())
    try:
        return [h.chunk_id for h in searcher.search("services net sales").fused]
    finally:
        searcher.close()


def _build_cli(data: Path, paths, capsys, monkeypatch) -> tuple[int, str]:
    """`python -m ingest build` in-process, with the fake embedder and word counter."""
    monkeypatch.setattr("finrag.embed.Embedder", _CliEmbedder)
    code = ingest_main(["build", *map(str, paths), "--data-dir", str(data), "--json"])
    return code, capsys.readouterr().err


class _CliEmbedder(FakeEmbedder):
    def count_tokens(self, texts):
        return word_count(texts)


def _assert_one_line_error(code: int, err: str, *words: str) -> None:
    assert code == 1
    assert err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err, err
    for word in words:
        assert word in err, err


def _leftovers(data: Path) -> list[str]:
    return [p.name for p in (data / GENERATIONS).glob(".tmp-*")]


# --- a real tmpfs where the machine allows one -----------------------------------------------


def _mount(path: Path, options: str) -> bool:
    path.mkdir(parents=True, exist_ok=True)
    if shutil.which("mount") is None or os.geteuid() != 0:
        return False
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)],
                            capture_output=True, check=False)
    return result.returncode == 0


def _remount(path: Path, options: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{options}", str(path)], check=True,
                   capture_output=True)


@pytest.fixture
def tmpfs(tmp_path):
    """A mount point for a small tmpfs; unmounted afterwards."""
    point = tmp_path / f"tmpfs-{uuid.uuid4().hex[:8]}"
    mounted: list[Path] = []

    def mount(size: str) -> Path:
        if not _mount(point, f"size={size},mode=0755"):
            pytest.skip("cannot mount a tmpfs here (needs root with CAP_SYS_ADMIN)")
        mounted.append(point)
        return point

    yield mount
    for p in mounted:
        subprocess.run(["umount", "-l", str(p)], check=False, capture_output=True)


def _copy(src: Path, dst: Path) -> None:
    """Copy a data dir keeping holes: the edge shard's files are mostly sparse (3 MB on disk,
    90 MB apparent), and the tmpfs should hold what the disk would."""
    subprocess.run(["cp", "-a", "--sparse=always", str(src), str(dst)], check=True)


def test_read_only_data_dir(base, filings, tmpfs, tmp_path, capsys, monkeypatch):
    """The build refuses in one line. Qdrant edge 0.9 maps its payload storage read-write, so
    on a read-only data dir the index cannot be opened to search either: that too is one line
    (a known limit), and once writable again the index is exactly as it was."""
    root = tmpfs("256m") if os.geteuid() == 0 else tmp_path
    data = root / "data"
    _copy(base, data)
    before, answers = _status(data), _answers(data)
    _read_only(data, root, True)
    try:
        code, err = _build_cli(data, filings, capsys, monkeypatch)
        _assert_one_line_error(code, err, "not writable", str(data))
        monkeypatch.setattr("finrag.embed.Embedder", _CliEmbedder)
        code = finrag_main(["search", "services", "--data-dir", str(data)])
        _assert_one_line_error(code, capsys.readouterr().err, "vector store")
    finally:
        _read_only(data, root, False)
    assert _status(data) == before and _answers(data) == answers  # untouched


def _read_only(data: Path, root: Path, on: bool) -> None:
    if os.geteuid() == 0:  # chmod does not stop root: remount the tmpfs
        _remount(root, "ro" if on else "rw")
        return
    for p in [data, *data.rglob("*")]:
        p.chmod(p.stat().st_mode & ~0o222 if on else p.stat().st_mode | 0o200)


_DRIVER = """
import sys
sys.path[:0] = [sys.argv[1], sys.argv[1] + "/tests"]
from pathlib import Path
import finrag.embed
from conftest import FakeEmbedder, word_count

class Fake(FakeEmbedder):
    def count_tokens(self, texts):
        return word_count(texts)

finrag.embed.Embedder = Fake
if sys.argv[2] == "answers":
    from finrag.config import Settings
    from finrag.search import HybridSearcher
    s = HybridSearcher(Settings(data_dir=Path(sys.argv[3]), qdrant_url=None), Fake())
    print(" ".join(h.chunk_id for h in s.search("services net sales").fused))
else:
    from finrag.ingest.cli import main
    sys.exit(main(sys.argv[2:]))
"""


def _run(*args: str) -> subprocess.CompletedProcess:
    """The ingest CLI (fake embedder) or a search, in a child: on a full disk a memory-mapped
    write can kill its process with SIGBUS, which must not take pytest with it."""
    return subprocess.run([sys.executable, "-c", _DRIVER, str(REPO), *args], capture_output=True,
                          text=True, timeout=300, check=False)


@pytest.fixture
def ext4(tmp_path):
    """A 64 MB ext4 file system on a loop device (no reserved blocks), unmounted afterwards."""
    image, point = tmp_path / "disk.img", tmp_path / "disk"
    point.mkdir()
    if os.geteuid() != 0 or shutil.which("mkfs.ext4") is None:
        pytest.skip("a real full disk needs root to mount an ext4 loop image")
    subprocess.run(["truncate", "-s", "64M", str(image)], check=True)
    subprocess.run(["mkfs.ext4", "-q", "-F", "-m", "0", str(image)], check=True,
                   capture_output=True)
    if subprocess.run(["mount", "-o", "loop", str(image), str(point)], capture_output=True,
                      check=False).returncode:
        pytest.skip("cannot mount a loop device here")
    yield point
    subprocess.run(["umount", str(point)], check=False, capture_output=True)


def _free(path: Path) -> int:
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def _fill(disk: Path, spare: int) -> None:
    """Leave about `spare` bytes free (a little less: the filler's own metadata)."""
    size = _free(disk) - spare
    while subprocess.run(["fallocate", "-l", str(size), str(disk / "filler")],
                         capture_output=True, check=False).returncode:
        size -= 64 << 10
    assert _free(disk) <= spare + (128 << 10)


@pytest.mark.parametrize("spare_kb", [0, 1200])
def test_full_disk(base, filings, ext4, spare_kb):
    """A disk with this much room left after the index: the build says so in one line and
    exits 1; the index is unchanged, a reader that has it open keeps answering, and new readers
    open it (except on a disk full to the last block: Qdrant edge writes a small file when it
    opens a shard, so opening says "No space left on device" in one line until there is room);
    with room again the next build completes."""
    data = ext4 / "data"
    subprocess.run(["cp", "-a", str(base), str(data)], check=True)
    before, answers = _status(data), _answers(data)
    assert answers
    serving = HybridSearcher(Settings(data_dir=data, qdrant_url=None), FakeEmbedder())
    try:
        assert [h.chunk_id for h in serving.search("services net sales").fused] == answers
        _fill(ext4, spare_kb * 1024)
        built = _run("build", *map(str, filings), "--data-dir", str(data), "--json")
        _assert_one_line_error(built.returncode, built.stderr, "disk space", str(data),
                               "unchanged")
        assert [h.chunk_id for h in serving.search("services net sales").fused] == answers
    finally:
        serving.close()
    fresh = _run("answers", str(data))  # a new reader process
    if spare_kb:
        assert fresh.stdout.split() == answers
    else:
        assert fresh.stdout.split() == answers or "No space left" in fresh.stderr
    assert _leftovers(data) == []
    (ext4 / "filler").unlink()
    assert _status(data) == before
    assert _run("build", *map(str, filings), "--data-dir", str(data)).returncode == 0
    assert _status(data)["chunks"] > before["chunks"]


# --- injected faults: run everywhere ---------------------------------------------------------


def _enospc(*_args, **_kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("where", ["copy", "vectors", "manifest", "publish"])
def test_enospc_injected_at_each_write(base, filings, tmp_path, where, capsys, monkeypatch):
    data = tmp_path / "data"
    shutil.copytree(base, data)
    before = _status(data)
    if where == "copy":  # copying the published shard for the update
        monkeypatch.setattr("finrag.sparsecopy.copy_file", _enospc)
    elif where == "vectors":
        monkeypatch.setattr("finrag.store.edge.EdgeStore.upsert", _enospc)
    elif where == "manifest":
        monkeypatch.setattr("finrag.generation._write_json", _enospc)
    else:
        monkeypatch.setattr("finrag.generation.publish", _enospc)
        monkeypatch.setattr(write_module, "publish", _enospc)
    code, err = _build_cli(data, filings, capsys, monkeypatch)
    _assert_one_line_error(code, err, "No space left on device", "is unchanged")
    assert _status(data) == before and _leftovers(data) == []
    assert {p.name for p in (data / GENERATIONS).glob("gen-*")} == {before["generation"]}


def test_sqlite_disk_full_is_one_line_too(base, filings, tmp_path, capsys, monkeypatch):
    import sqlite3

    def full(*_args, **_kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    data = tmp_path / "data"
    shutil.copytree(base, data)
    (data / "embeddings.sqlite").unlink()  # so the build has to embed, and fill the cache
    before = _status(data)
    monkeypatch.setattr("finrag.cache.EmbeddingCache.fill", full)
    code, err = _build_cli(data, filings, capsys, monkeypatch)
    _assert_one_line_error(code, err, "database or disk is full", "is unchanged")
    assert _status(data) == before
