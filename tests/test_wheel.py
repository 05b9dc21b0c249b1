"""`pip install .` gives a working finrag: the built wheel, installed into a fresh virtual
environment (its dependencies borrowed from this one), indexes a real filing and searches it
through its console scripts, outside the repository."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FILING = REPO / "tests/fixtures/ingest/other/0000950153-99-001234/primary-document.html.gz"


def _run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=900, check=True, **kw)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
          "-w", str(out), str(REPO)], cwd=out)
    (found,) = out.glob("finrag-*.whl")
    return found


@pytest.mark.slow  # builds the wheel with pip in a subprocess
def test_the_wheel_ships_the_package_data_and_no_generic_top_level_module(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.startswith("finrag-")}
    assert tops == {"finrag"}  # no top-level `ingest` in site-packages
    assert "finrag/canaries.toml" in names
    sample = [n for n in names if n.startswith("finrag/ingest/sample_filings/")]
    assert len([n for n in sample if "primary-document" in n or "tagstripped" in n]) == 5
    meta = zipfile.ZipFile(wheel).read(f"{wheel.name.split('-py3')[0]}.dist-info/METADATA")
    assert b"Requires-Dist: qdrant-edge-py==0.9.0" in meta
    entry = [n for n in names if n.endswith("entry_points.txt")][0]
    scripts = zipfile.ZipFile(wheel).read(entry).decode()
    assert "finrag = finrag.cli:main" in scripts
    assert "finrag-ingest = finrag.ingest.cli:main" in scripts


@pytest.mark.slow
def test_installed_wheel_indexes_and_searches_outside_the_repo(wheel, tmp_path):
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    site = next(venv.glob("lib/python*/site-packages"))
    (site / "borrowed.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")  # dependencies
    python = venv / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)])

    work = tmp_path / "elsewhere"
    work.mkdir()
    filing = work / "filing" / "primary-document.html"
    filing.parent.mkdir()
    filing.write_bytes(gzip.decompress(FILING.read_bytes()))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(HF_HUB_OFFLINE="1", FINRAG_CACHE_DIR=str(tmp_path / "cache"))
    where = _run([str(python), "-c", "import finrag; print(finrag.__file__)"], cwd=work, env=env)
    assert where.stdout.startswith(str(venv))  # the installed copy, not the repo's
    _run([str(venv / "bin" / "finrag-ingest"), "build", str(filing.parent), "--ticker", "MDRX",
          "--data-dir", str(work / "data")], cwd=work, env=env)
    found = _run([str(venv / "bin" / "finrag"), "search", "net revenues", "--data-dir",
                  str(work / "data"), "--json"], cwd=work, env=env)
    hits = json.loads(found.stdout)["fused"]
    assert hits and all(h["ticker"] == "MDRX" for h in hits)
    assert any("revenue" in h["text"].lower() for h in hits)
