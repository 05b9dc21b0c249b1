"""The ingest run on real filings: idempotent re-runs, bad files beside good ones, crash resume."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, FakeEmbedder

from finrag.config import Settings
from finrag.embed import TokenCounter
from finrag.index import Index, current_generation
from finrag.ingest.build import build
from finrag.ingest.sample import unpack_sample
from finrag.manifest import READABLE_FORMATS

COUNT = TokenCounter().count
SUBSET = ("AAPL/10-K/0000320193-24-000123", "NVDA/10-K/nvda-20240128")
SGML_8K = REPO / "tests" / "fixtures" / "ingest" / "sgml"


def _filings(tmp_path: Path) -> list[Path]:
    root = unpack_sample(tmp_path / "src") / "sec-edgar-filings"
    return [root / p for p in SUBSET]


def _state(data_dir: Path) -> tuple[str, int, str]:
    index = Index.open(Settings(data_dir=data_dir, qdrant_url=None))
    try:
        ids = index.chunk_ids()
        assert index.vectors.count() == len(ids)  # both halves of the index agree
        return index.name, len(ids), hashlib.sha256("\n".join(ids).encode()).hexdigest()
    finally:
        index.close()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("built")
    settings = Settings(data_dir=tmp / "data", qdrant_url=None)
    report = build(_filings(tmp), settings, FakeEmbedder(), COUNT)
    return tmp, settings, report


def test_build_indexes_each_filing_with_its_metadata(built):
    _, settings, report = built
    by_ticker = {f.ticker: f for f in report.filings}
    assert set(by_ticker) == {"AAPL", "NVDA"}
    assert by_ticker["AAPL"].fiscal_year == 2024 and by_ticker["NVDA"].fiscal_year == 2024
    assert by_ticker["AAPL"].accession == "0000320193-24-000123"
    for f in report.filings:
        assert f.status == "ok" and f.chunks == f.new_chunks > 100
        assert f.chunk_types["table"] > 10 and f.chunk_types["narrative"] > 50
        assert {"Item 1", "Item 1A", "Item 7", "Item 8"} <= set(f.sections)
    name, n, _ = _state(settings.data_dir)
    assert n == report.totals()["chunks"]


def test_rebuilding_the_same_filings_changes_nothing(built):
    tmp, settings, first = built
    before = _state(settings.data_dir)
    again = build(_filings(tmp), settings, FakeEmbedder(), COUNT)
    assert not again.published and again.embedded == 0
    assert {f.status for f in again.filings} == {"skipped"}
    assert again.totals()["new_chunks"] == 0
    assert _state(settings.data_dir) == before


def test_a_bad_file_is_reported_and_the_good_ones_still_go_in(tmp_path):
    bad_dir = tmp_path / "bad"
    bad_dir.mkdir()
    (bad_dir / "empty.htm").write_text("")
    (bad_dir / "junk.htm").write_bytes(os.urandom(4096))
    eight_k = tmp_path / "8k" / "full-submission.txt"
    eight_k.parent.mkdir()
    eight_k.write_bytes(gzip.decompress((SGML_8K / "0000943374-24-000509.txt.gz").read_bytes()))
    settings = Settings(data_dir=tmp_path / "data", qdrant_url=None)
    report = build([bad_dir, eight_k, _filings(tmp_path)[0]], settings, FakeEmbedder(), COUNT)
    failed = [f for f in report.filings if f.status == "failed"]
    assert len(failed) == 3 and report.totals()["failed"] == 3
    for f in failed:
        assert f.error and "\n" not in f.error and Path(f.path).name in f.error
    ok = [f for f in report.filings if f.status == "ok"]
    assert [f.ticker for f in ok] == ["AAPL"]
    assert _state(settings.data_dir)[1] == ok[0].chunks


def test_a_changed_filing_replaces_its_old_chunks(built, tmp_path):
    src, settings, _ = built
    data = tmp_path / "data"
    subprocess.run(["cp", "-r", str(settings.data_dir), str(data)], check=True)
    moved = Settings(data_dir=data, qdrant_url=None)
    aapl = _filings(src)[0]
    changed = tmp_path / "AAPL" / "10-K" / aapl.name
    changed.parent.mkdir(parents=True)
    subprocess.run(["cp", "-r", str(aapl), str(changed)], check=True)
    doc = changed / "primary-document.html"
    doc.write_text(doc.read_text().replace("Services", "Servicez", 5))
    report = build([changed], moved, FakeEmbedder(), COUNT)
    assert report.published and 0 < report.filings[0].new_chunks < report.filings[0].chunks
    index = Index.open(moved)
    aapl_rows = [c for c in index.all_chunks() if c.ticker == "AAPL"]
    index.close()
    assert len(aapl_rows) == report.filings[0].chunks  # old AAPL chunks are gone, not added to


_SLOW_BUILD = """
import sys, time
sys.path[:0] = [sys.argv[3], sys.argv[4]]
from pathlib import Path
from conftest import FakeEmbedder
from finrag.config import Settings
from finrag.embed import TokenCounter
from finrag.ingest.build import build

class Slow(FakeEmbedder):
    def encode(self, texts):
        time.sleep(0.3)
        return super().encode(texts)

build([Path(sys.argv[2])], Settings(data_dir=Path(sys.argv[1]), qdrant_url=None), Slow(),
      TokenCounter().count)
"""


@pytest.mark.slow  # kills a build subprocess
def test_a_killed_build_leaves_the_old_index_and_the_next_run_finishes(built, tmp_path):
    src, reference, _ = built
    data = tmp_path / "data"
    settings = Settings(data_dir=data, qdrant_url=None)
    first, second = _filings(tmp_path)
    build([first], settings, FakeEmbedder(), COUNT)
    before = _state(data)
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_BUILD, str(data), str(second),
                             str(REPO), str(REPO / "tests")])
    cache = data / "embeddings.sqlite"
    deadline = time.time() + 60
    while time.time() < deadline and _cached(cache) <= before[1]:
        time.sleep(0.2)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert _cached(cache) > before[1], "the kill should land mid-embedding"
    assert _state(data) == before  # readers still see the last complete index
    resumed = build([first, second], settings, FakeEmbedder(), COUNT)
    assert resumed.embedded < resumed.totals()["new_chunks"]  # work done before the kill is kept
    assert not list((data / "generations").glob(".tmp-*"))
    assert _state(data)[1:] == _state(reference.data_dir)[1:]  # equals an uninterrupted build


def _cached(path: Path) -> int:
    import sqlite3

    if not path.exists():
        return 0
    con = sqlite3.connect(path, timeout=5)
    try:
        return con.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        con.close()


def test_if_missing_skips_a_usable_index_and_names_the_fix_for_an_old_one(built, tmp_path, capsys):
    import shutil

    from finrag.ingest.cli import main

    _, settings, _ = built
    copy = tmp_path / "data"
    shutil.copytree(settings.data_dir, copy)
    args = ["build", "--sample", "--if-missing", "--data-dir", str(copy)]
    assert main(args) == 0
    assert "nothing to do" in capsys.readouterr().out

    manifest = copy / "generations" / current_generation(copy) / "manifest.json"
    old = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**old, "format": min(READABLE_FORMATS) - 1}))
    assert main(args) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--rebuild" in err[0] and str(copy) in err[0]


def test_the_model_embeds_each_chunk_under_its_page_title_once():
    from finrag.models import Chunk
    from finrag.views import dense_text

    def chunk(text, heading=""):
        return Chunk(chunk_id="0" * 32, ticker="AAPL", fiscal_year=2024, chunk_type="table",
                     text=text, heading=heading)

    assert dense_text(chunk("Net sales | 391,035")) == "Net sales | 391,035"
    title = "Apple Inc. CONSOLIDATED STATEMENTS OF OPERATIONS (In millions)"
    assert dense_text(chunk("Net sales | 391,035", title)) == f"{title}\nNet sales | 391,035"
    # the page's first chunk holds the title lines itself, one per line: not repeated
    first = "Apple Inc.\nCONSOLIDATED STATEMENTS OF OPERATIONS\n(In millions)\nNet sales | 391,035"
    assert dense_text(chunk(first, title)) == first


def test_the_build_embeds_dense_text_not_the_bare_chunk(built):
    from finrag.cache import EmbeddingCache
    from finrag.views import dense_text

    _, settings, _ = built
    index = Index.open(settings)
    chunks = index.all_chunks()
    index.close()
    titled = [c for c in chunks if dense_text(c) != c.text]
    assert len(titled) > 50  # statement rows, notes pages: every row under its page's title
    embedder = FakeEmbedder()
    cache = EmbeddingCache(settings.data_dir / "embeddings.sqlite", embedder.name, embedder.dim)
    try:
        assert cache.missing([dense_text(c) for c in chunks]) == []
        assert len(cache.missing([c.text for c in titled])) > 0
    finally:
        cache.close()
