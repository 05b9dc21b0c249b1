"""Shared fixtures: a fake embedder for fast unit tests, the real one for the tests that matter,
throwaway data dirs, and where ../shared/data is (CI has it; a bare clone may not)."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
SHARED = Path(os.environ.get("FINRAG_SHARED_DATA", REPO.parent / "shared" / "data"))


def shared_path(*parts: str) -> Path:
    """A path under ../shared/data, or skip the test with the reason."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"needs {path} (the shared data set beside the repo; CI has it)")
    return path


class FakeEmbedder:
    """Deterministic bag-of-words hashing embedder: texts sharing words get similar vectors."""

    name = "sentence-transformers/all-MiniLM-L6-v2"  # poses as the real model for manifests
    dim = 384

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"[a-z0-9]+", text.lower()):
                h = int.from_bytes(hashlib.md5(word.encode()).digest()[:4], "little")
                out[i, h % self.dim] += 1.0
            norm = np.linalg.norm(out[i])
            out[i] = out[i] / norm if norm else out[i]
            if not norm:
                out[i, 0] = 1.0
        return out


class AppEmbedder(FakeEmbedder):
    """The fake with the query entry point the app calls: app.py builds it in place of the
    model under FINRAG_APP_EMBEDDER=conftest:AppEmbedder (tests/test_app.py)."""

    def encode_query(self, text: str) -> np.ndarray:
        return self.encode([text])[0]


class UntiedEmbedder(FakeEmbedder):
    """The fake embedder plus a small direction of the text's own: two different texts never
    score exactly alike, so which chunks make a top-k never rests on how an engine breaks
    ties (with real embeddings exact ties do not occur either)."""

    def encode(self, texts: list[str]) -> np.ndarray:
        words = super().encode(texts)
        own = np.stack([np.random.default_rng(int(hashlib.md5(t.encode()).hexdigest()[:8], 16))
                        .normal(size=self.dim) for t in texts]) if texts else words
        mixed = words + 0.05 * own / np.linalg.norm(own, axis=1, keepdims=True)
        return (mixed / np.linalg.norm(mixed, axis=1, keepdims=True)).astype(np.float32)


def word_count(texts: list[str]) -> list[int]:
    """A token counter for unit tests: about 1.3 word pieces per word, plus [CLS]/[SEP]."""
    return [int(len(t.split()) * 1.3) + 2 for t in texts]


@pytest.fixture(autouse=True)
def no_grace_wait(monkeypatch):
    """A server update waits a few seconds for in-flight readers before deleting the points it
    superseded; tests run no such readers (the one that checks the wait sets it itself)."""
    import finrag.ingest.server_publish

    monkeypatch.setattr(finrag.ingest.server_publish, "SUPERSEDED_GRACE_S", 0.0)


@pytest.fixture(scope="session", autouse=True)
def shared_parse_cache(tmp_path_factory):
    """Builds keep their parse caches (`finrag.ingest.readcache`, `factcache`) in one directory
    for the whole session instead of in each data dir (FINRAG_PARSE_CACHE_DIR), so a filing
    is parsed once per test session however many data dirs are built from it. Tests of the
    caches themselves, or of what a data dir holds, are marked `own_parse_cache` (a module's
    mark covers its module-scoped fixtures too) and keep the caches in their data dirs."""
    from finrag.ingest.readcache import SHARED_DIR_ENV

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(SHARED_DIR_ENV, str(tmp_path_factory.mktemp("parse-cache")))
        yield


@pytest.fixture(scope="module", autouse=True)
def own_parse_cache_module(request):
    yield from _own_parse_cache(request.node)


@pytest.fixture(autouse=True)
def own_parse_cache_test(request):
    yield from _own_parse_cache(request.node)


def _own_parse_cache(node):
    from finrag.ingest.readcache import SHARED_DIR_ENV

    with pytest.MonkeyPatch.context() as patch:
        if node.get_closest_marker("own_parse_cache"):
            patch.delenv(SHARED_DIR_ENV, raising=False)
        yield


@pytest.fixture
def index_sql(monkeypatch) -> list[str]:
    """Every SQL statement the index's connections run from now on (`finrag.index`), in
    order: what the query-plan tests explain."""
    import sqlite3

    import finrag.index

    statements: list[str] = []
    connect = sqlite3.connect

    def traced(*args, **kwargs):
        con = connect(*args, **kwargs)
        con.set_trace_callback(statements.append)
        return con

    monkeypatch.setattr(finrag.index.sqlite3, "connect", traced)
    return statements


@pytest.fixture
def fake_embedder() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture
def fake_model(monkeypatch):
    """The CLIs build their own embedder (`finrag.embed.Embedder`): give them the fake one,
    counting tokens as `word_count` does."""
    import finrag.embed

    class Model(FakeEmbedder):
        def count_tokens(self, texts):
            return word_count(texts)

    monkeypatch.setattr(finrag.embed, "Embedder", Model)


@pytest.fixture(scope="session")
def real_embedder():
    from finrag.embed import Embedder

    return Embedder()


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


SAMPLE_SUBSET = ("AAPL/10-K/0000320193-24-000123", "TSLA/10-K/tsla-20241231")


@pytest.fixture(scope="session")
def sample_index(tmp_path_factory, real_embedder) -> Path:
    """A real index (real model, edge store, BM25) of two bundled sample filings, built once.

    Returns its data dir. Tests must not write to it; copy it if they need to.
    """
    from finrag.config import Settings
    from finrag.ingest.build import build
    from finrag.ingest.sample import unpack_sample

    data_dir = tmp_path_factory.mktemp("sample") / "data"
    root = unpack_sample(data_dir) / "sec-edgar-filings"
    report = build([root / p for p in SAMPLE_SUBSET], Settings(data_dir=data_dir, qdrant_url=None),
                   real_embedder, real_embedder.count_tokens)
    assert report.totals()["failed"] == 0
    return data_dir


def cut_filing(folder: Path, dest: Path, *, business: int = 40, statements: int = 60) -> Path:
    """A copy at `dest` of an inline-XBRL accession folder whose primary document keeps its
    hidden XBRL header, the cover page, the first `business` blocks of Item 1 and the first
    `statements` of Item 8 (the statements): the same company, year and kinds of chunks and
    facts, about a tenth as many."""
    from lxml import etree

    xhtml = "{http://www.w3.org/1999/xhtml}"
    doc = folder / "primary-document.html"
    tree = etree.fromstring(doc.read_bytes(), etree.XMLParser(huge_tree=True, recover=True))
    body = tree.find(xhtml + "body")
    blocks = list(body)
    text = [" ".join(b.itertext()).strip() for b in blocks]
    item1 = next(i for i, t in enumerate(text) if re.match(r"(?i)item\s+1\.\W+business", t))
    item8 = next(i for i, t in enumerate(text) if re.match(r"(?i)item\s+8\.", t))
    keep = set(range(item1 + business)) | set(range(item8, item8 + statements))
    for i, block in enumerate(blocks):
        if i not in keep:
            body.remove(block)
    dest.mkdir(parents=True)
    for file in folder.iterdir():
        if file != doc:
            shutil.copy(file, dest / file.name)
    (dest / doc.name).write_bytes(etree.tostring(tree, xml_declaration=True, encoding="utf-8"))
    return dest


SAMPLE_HTML = (*SAMPLE_SUBSET, "HD/10-K/0000354950-25-000085", "NVDA/10-K/nvda-20240128")


@pytest.fixture(scope="session")
def small_sample(tmp_path_factory) -> Path:
    """The sample's four inline-XBRL filings (SAMPLE_HTML) cut down (`cut_filing`: ~45 chunks
    each instead of 300-550, and AAPL, TSLA and HD keep 130-290 of their 950-1,450 facts), at
    the same paths under the returned root, made once. For tests of how an index is written,
    updated and served, which a whole filing shows no better: each build, search and
    comparison of them is ~10x cheaper. Copy before changing."""
    from finrag.ingest.sample import unpack_sample

    base = tmp_path_factory.mktemp("small-sample")
    whole = unpack_sample(base / "whole") / "sec-edgar-filings"
    root = base / "sec-edgar-filings"
    for rel in SAMPLE_HTML:
        cut_filing(whole / rel, root / rel)
    return root


# Fixtures that load the real model: a test using one (directly or through another fixture) is
# slow whether or not it says so, so `pytest -m "not slow"` stays a fast loop.
REAL_MODEL_FIXTURES = {"real_embedder", "sample_index"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if REAL_MODEL_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


def as_points(ids, vectors, payloads, terms=None):
    """Store points from parallel lists (no BM25 terms unless given), for the store tests."""
    from finrag.store.base import StorePoint

    terms = terms or [([], [])] * len(ids)
    return [StorePoint(i, v, t, p) for i, v, t, p in zip(ids, vectors, terms, payloads)]


def searcher_over(data_dir: Path, embedder, chunks):
    """A HybridSearcher over a published index (embedded engine) of hand-made `chunks`."""
    from finrag.config import Settings
    from finrag.generation import publish, write_generation
    from finrag.search import HybridSearcher

    settings = Settings(data_dir=data_dir, qdrant_url=None)
    write_generation(settings, "gen-000001", chunks, embedder.encode([c.text for c in chunks]),
                     embedder.name)
    publish(data_dir, "gen-000001")
    return HybridSearcher(settings, embedder)
