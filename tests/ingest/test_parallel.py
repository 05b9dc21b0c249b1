"""Reading in worker processes gives what the serial path gives, in the same order."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import SAMPLE_SUBSET, FakeEmbedder, word_count

from finrag.config import Settings
from finrag.index import Index
from finrag.ingest.build import build
from finrag.ingest.parallel import read_filings
from finrag.ingest.progress import Progress
from finrag.ingest.read import locate
from finrag.ingest.sample import unpack_sample

pytestmark = [pytest.mark.slow,  # worker processes (spawned interpreters)
              pytest.mark.own_parse_cache]  # counts the parses its data dir keeps

FILINGS = Path(__file__).resolve().parents[1] / "fixtures" / "ingest"
PDF = FILINGS / "pdf" / "medicis-10-k-1999-pages-1-8.pdf"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """Two real filings, a real PDF, and a file that is no filing, side by side."""
    root = tmp_path / "in"
    sample = unpack_sample(tmp_path / "sample") / "sec-edgar-filings"
    for sub in SAMPLE_SUBSET:
        shutil.copytree(sample / sub, root / "sec-edgar-filings" / sub)
    shutil.copy(PDF, root / PDF.name)
    (root / "broken.pdf").write_bytes(b"%PDF-1.4 this is not a pdf")
    return root


def _jobs(root: Path):
    """Every unit, the PDF with its ticker and year (its cover page does not say them)."""
    return [(unit, *(("MRX", 1999) if unit.name == PDF.name else (None, None)))
            for unit in locate([root])]


def _dump(read):
    """Everything read but the fact stage's timing."""
    return [({k: v for k, v in vars(r).items() if k != "facts_seconds"},
             [c.model_dump() for c in chunks], [f.model_dump() for f in facts])
            for r, chunks, facts in read]


def test_workers_read_what_the_serial_path_reads_in_the_same_order(corpus, tmp_path):
    jobs = _jobs(corpus)
    serial = read_filings(jobs, word_count, _dir(tmp_path / "a"), workers=1)
    parallel = read_filings(jobs, word_count, _dir(tmp_path / "b"), workers=2)
    assert _dump(parallel) == _dump(serial)
    statuses = [r.status for r, _, _ in parallel]
    assert statuses.count("failed") == 1 and statuses.count("ok") == len(jobs) - 1
    broken = next(r for r, _, _ in parallel if r.status == "failed")
    assert "broken.pdf" in broken.error and "\n" not in broken.error


def test_the_read_cache_serves_a_second_parallel_run(corpus, tmp_path):
    data_dir = _dir(tmp_path / "d")
    jobs = _jobs(corpus)
    first = read_filings(jobs, word_count, data_dir, workers=2)
    assert any(r.path == str(corpus / PDF.name) and r.status == "ok" for r, _, _ in first)
    import sqlite3

    rows = sqlite3.connect(data_dir / "reads.sqlite").execute("SELECT count(*) FROM filings")
    assert rows.fetchone()[0] == 1  # the PDF's parse, written by a worker
    assert _dump(read_filings(jobs, word_count, data_dir, workers=2)) == _dump(first)


def test_a_build_with_workers_publishes_the_serial_build(corpus, tmp_path):
    chunks = {}
    for workers in (1, 2):
        settings = Settings(data_dir=tmp_path / f"w{workers}", qdrant_url=None)
        report = build([corpus], settings, FakeEmbedder(), word_count, workers=workers,
                       overrides={corpus / PDF.name: {"ticker": "MRX", "fiscal_year": 1999}})
        assert report.totals()["failed"] == 1
        index = Index.open(settings)
        try:
            chunks[workers] = ([c.model_dump() for c in index.all_chunks()],
                               [f.model_dump() for f in index.all_facts()])
        finally:
            index.close()
    assert chunks[2] == chunks[1] and chunks[1][0] and chunks[1][1]


def test_workers_must_be_one_or_more(corpus, tmp_path):
    with pytest.raises(ValueError, match="workers must be at least 1, got 0"):
        read_filings(_jobs(corpus), word_count, _dir(tmp_path / "z"), workers=0)


def test_one_bar_counts_the_whole_job_in_chunks():
    with Progress(enabled=True, filings=2) as progress:
        progress.reading(Path("a.htm"), 30)
        bar = progress._bar
        progress.reading(Path("b.htm"), 20)
        assert bar.total == 50 and bar.n == 0
        progress.embedding(todo=40, total=50)  # 10 were cached
        progress.embedded(40)
        assert progress._bar is bar and bar.n == bar.total == 50


def _dir(path: Path) -> Path:
    path.mkdir(parents=True)
    return path


def dies_in_a_worker(texts: list[str]) -> list[int]:
    """A token counter that kills any worker process using it (as the OOM killer would)."""
    import multiprocessing
    import os

    if multiprocessing.parent_process() is not None:
        os._exit(9)
    return word_count(texts)


def test_a_killed_worker_leaves_the_filings_to_the_build_process(corpus, tmp_path):
    jobs = _jobs(corpus)
    serial = read_filings(jobs, word_count, _dir(tmp_path / "a"), workers=1)
    survived = read_filings(jobs, dies_in_a_worker, _dir(tmp_path / "b"), workers=2)
    assert _dump(survived) == _dump(serial)


def test_a_counter_that_cannot_travel_is_used_in_this_process(corpus, tmp_path):
    jobs = _jobs(corpus)
    serial = read_filings(jobs, word_count, _dir(tmp_path / "a"), workers=1)
    local = read_filings(jobs, lambda texts: word_count(texts), _dir(tmp_path / "b"), workers=2)
    assert _dump(local) == _dump(serial)


def test_the_cli_refuses_zero_workers_in_one_line(corpus, tmp_path, capsys, monkeypatch):
    from finrag.ingest.cli import main as ingest_main

    class Model(FakeEmbedder):
        def count_tokens(self, texts):
            return word_count(texts)

    monkeypatch.setattr("finrag.embed.Embedder", Model)
    code = ingest_main(["build", str(corpus), "--workers", "0", "--data-dir", str(tmp_path / "d")])
    err = capsys.readouterr().err
    assert code == 1 and err == "error: workers must be at least 1, got 0\n"


def test_a_counter_from_a_script_reads_in_this_process_without_worker_tracebacks(tmp_path):
    """`python -c` defines its counter in `__main__`: it pickles, but a spawned worker cannot
    find it. The build reads serially instead, and stderr holds only its own lines."""
    import subprocess
    import sys

    from finrag.ingest.sample import unpack_sample

    root = unpack_sample(tmp_path / "data") / "sec-edgar-filings"
    units = [str(root / p) for p in SAMPLE_SUBSET]
    script = ("import sys\n"
              "from finrag.ingest.parallel import read_filings\n"
              "class Count:\n"
              "    def __call__(self, texts):\n"
              "        return [len(t.split()) + 2 for t in texts]\n"
              "jobs = [(__import__('pathlib').Path(u), None, None) for u in sys.argv[2:]]\n"
              "read = read_filings(jobs, Count(), __import__('pathlib').Path(sys.argv[1]), 2)\n"
              "print(len(read))\n")
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "data"), *units],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and done.stdout.split() == ["2"], done.stderr[-2000:]
    assert "Traceback" not in done.stderr


def test_a_build_embedding_as_it_reads_counts_the_whole_job():
    """A first build embeds each filing as it is read: the bar's total is the chunks read so
    far scaled to every filing, so its ETA is the build's, and it ends at the real total."""
    with Progress(enabled=True, filings=4) as progress:
        progress.reading(Path("a.htm"), 30)
        progress.cached(10)
        progress.embedded(20)
        bar = progress._bar
        assert bar.total == 120 and bar.n == 30
        for name, chunks in (("b.htm", 50), ("c.htm", 40), ("d.htm", 40)):
            progress.reading(Path(name), chunks)
            progress.cached(0)
            progress.embedded(chunks)
        assert bar.n == bar.total == 160
