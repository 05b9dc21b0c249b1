"""A whole write holds one filing at a time, and nothing of the corpus while the engine builds
its graph (the writer's memory at 1M chunks: docs/scale.md); what it writes is what writing
the corpus in one piece writes."""

from __future__ import annotations

import gc
import shutil
import sqlite3
import weakref
from pathlib import Path

import numpy as np
import pytest
from conftest import FakeEmbedder

from finrag.config import Settings
from finrag.embed import TokenCounter
from finrag.generation import write_filings, write_generation
from finrag.index import GENERATIONS, TABLE, Index, current_generation
from finrag.ingest.build import build
from finrag.ingest.diskspace import SPARE_BYTES, DiskRoom
from finrag.ingest.read import locate
from finrag.ingest.report import BuildError
from finrag.ingest.sample import unpack_sample
from finrag.models import Chunk, Filters
from finrag.store.edge import EdgeStore

SUBSET = ("AAPL/10-K/0000320193-24-000123", "NVDA/10-K/nvda-20240128",
          "TSLA/10-K/tsla-20241231")
AAPL_2023 = "AAPL/10-K/0000320193-23-000106"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """The chunks and facts of three real 10-Ks, by filing, with fake embeddings."""
    tmp = tmp_path_factory.mktemp("corpus")
    root = unpack_sample(tmp / "src") / "sec-edgar-filings"
    settings = Settings(data_dir=tmp / "data", qdrant_url=None)
    build([root / p for p in SUBSET], settings, FakeEmbedder(), TokenCounter().count)
    index = Index.open(settings, tables_only=True)
    chunks, facts = index.all_chunks(), index.all_facts()
    index.close()
    keys = list(dict.fromkeys(c.filing_key for c in chunks))
    assert len(keys) == 3 and len(facts) > 1000
    vectors = FakeEmbedder().encode([c.text for c in chunks])
    return [([c for c in chunks if c.filing_key == k],
             vectors[[i for i, c in enumerate(chunks) if c.filing_key == k]],
             [f for f in facts if f.filing_key == k]) for k in keys]


@pytest.fixture(scope="module")
def whole_sample(tmp_path_factory) -> Path:
    return unpack_sample(tmp_path_factory.mktemp("whole")) / "sec-edgar-filings"


@pytest.fixture
def small_root(small_sample, whole_sample, tmp_path) -> Path:
    """The sample's folder of five filings, in this test's tmp_path, with its four inline-XBRL
    ones cut to ~45 chunks (conftest's `small_sample`): what a build holds per filing shows at
    any size."""
    root = shutil.copytree(small_sample, tmp_path / "src" / whole_sample.name)
    shutil.copytree(whole_sample / AAPL_2023, root / AAPL_2023)  # tag-stripped text: whole
    return root


def _written(data_dir, name):
    path = data_dir / GENERATIONS / name
    con = sqlite3.connect(path / TABLE)
    tables = {t: con.execute(f"SELECT * FROM {t} ORDER BY row").fetchall()
              for t in ("chunks", "facts")}
    con.close()
    return path, tables


@pytest.mark.slow  # three whole real filings (the corpus: >1,000 facts)
def test_filing_by_filing_writes_what_one_piece_writes(corpus, tmp_path):
    one = Settings(data_dir=tmp_path / "one", qdrant_url=None)
    each = Settings(data_dir=tmp_path / "each", qdrant_url=None)
    chunks = [c for batch in corpus for c in batch[0]]
    write_generation(one, "gen-000001", chunks, np.concatenate([b[1] for b in corpus]),
                     FakeEmbedder.name, [f for b in corpus for f in b[2]])
    write_filings(each, "gen-000001", iter(corpus), FakeEmbedder.name, FakeEmbedder.dim)
    path_one, tables_one = _written(one.data_dir, "gen-000001")
    path_each, tables_each = _written(each.data_dir, "gen-000001")
    assert tables_one == tables_each and len(tables_one["chunks"]) == len(chunks)
    assert not list(path_each.glob("*.scratch"))  # the scratch vectors do not stay
    a, b = EdgeStore.open(path_one / "vectors"), EdgeStore.open(path_each / "vectors")
    try:
        rng = np.random.default_rng(7)
        for _ in range(10):  # exact (filtered) lists: the same points, vectors and terms
            query = rng.standard_normal(FakeEmbedder.dim).astype(np.float32)
            for filters in (Filters(tickers=["AAPL"]), Filters(tickers=["NVDA", "TSLA"])):
                assert a.search(query, filters, 20) == b.search(query, filters, 20)
        terms = ([7, 11, 13], [1.0, 1.0, 1.0])
        assert a.search_terms(terms, Filters(), 20) == b.search_terms(terms, Filters(), 20)
    finally:
        a.close()
        b.close()


@pytest.mark.slow  # three whole real filings (the corpus: >1,000 facts)
def test_each_batch_is_let_go_before_the_engine_optimizes(corpus, tmp_path, monkeypatch):
    refs = []

    def batches():
        for chunks, vectors, facts in corpus:
            copy = vectors.copy()  # a batch only the writer holds
            refs.append(weakref.ref(copy))
            yield chunks, copy, facts

    alive = []
    finish = EdgeStore.finish

    def checked(self, **kwargs):
        gc.collect()
        alive.append(sum(ref() is not None for ref in refs))
        return finish(self, **kwargs)

    monkeypatch.setattr(EdgeStore, "finish", checked)
    write_filings(Settings(data_dir=tmp_path / "d", qdrant_url=None), "gen-000001", batches(),
                  FakeEmbedder.name, FakeEmbedder.dim)
    assert len(refs) == 3 and alive == [0]


@pytest.mark.slow  # builds three whole real filings (>1,000 chunks)
def test_a_whole_build_holds_no_chunk_while_the_engine_optimizes(tmp_path, monkeypatch):
    """At 1M chunks the corpus held during the engine's optimize was 8 GB of a 20 GB peak."""
    root = unpack_sample(tmp_path / "src") / "sec-edgar-filings"
    live = []
    finish = EdgeStore.finish

    def counted(self, **kwargs):
        gc.collect()
        live.append(sum(isinstance(o, Chunk) and str(tmp_path) in (o.source or "")
                        for o in gc.get_objects()))
        return finish(self, **kwargs)

    monkeypatch.setattr(EdgeStore, "finish", counted)
    report = build([root / p for p in SUBSET], Settings(data_dir=tmp_path / "data",
                                                        qdrant_url=None),
                   FakeEmbedder(), TokenCounter().count)
    assert report.totals()["chunks"] > 1000
    assert live == [0]


@pytest.mark.slow  # three whole real filings (the corpus: >1,000 facts)
def test_a_batch_whose_vectors_do_not_match_its_chunks_is_refused(corpus, tmp_path):
    chunks, vectors, facts = corpus[0]
    settings = Settings(data_dir=tmp_path / "data", qdrant_url=None)
    with pytest.raises(ValueError, match=f"{len(chunks)} chunks came with vectors of shape"):
        write_filings(settings, "gen-000001", [(chunks, vectors[:-1], facts)],
                      FakeEmbedder.name, FakeEmbedder.dim)


class _Watch:
    """A build's progress that notes, as each filing arrives, which filings' chunks are alive."""

    filings = 0

    def __init__(self, root) -> None:
        self.root, self.alive = str(root), []

    def reading(self, unit, chunks: int = 0) -> None:
        gc.collect()
        self.alive.append({o.filing_key for o in gc.get_objects()
                           if isinstance(o, Chunk) and self.root in (o.source or "")})

    def embedding(self, todo: int, total: int) -> None:
        pass

    def cached(self, n: int) -> None:
        pass

    def embedded(self, n: int) -> None:
        pass


@pytest.mark.slow  # two builds of five filings, every object in the process counted per filing
def test_reingesting_a_folder_holds_the_filing_read_not_every_one(small_root, tmp_path):
    """A folder re-ingested after a download adds a few filings to thousands: each filing read
    is compared with the index and let go, so the build holds about one filing, not all."""
    root = small_root
    settings = Settings(data_dir=tmp_path / "data", qdrant_url=None)
    build([root], settings, FakeEmbedder(), TokenCounter().count)
    watch = _Watch(tmp_path)
    report = build([root], settings, FakeEmbedder(), TokenCounter().count, progress=watch)
    assert [f.status for f in report.filings] == ["skipped"] * 5 and not report.published
    assert len(watch.alive) == 5 and len(watch.alive[-1]) >= 1
    # the filing arriving, and the one before it while the loop moves on
    assert max(map(len, watch.alive)) <= 2, watch.alive


@pytest.mark.slow  # five filings built, every object in the process counted per filing
def test_a_first_build_holds_the_filing_read_not_every_one(small_root, tmp_path):
    """A first build (or --rebuild) writes each filing as it is read: it never holds the
    corpus, whatever its size."""
    root = small_root
    watch = _Watch(tmp_path)
    report = build([root], Settings(data_dir=tmp_path / "data", qdrant_url=None),
                   FakeEmbedder(), TokenCounter().count, progress=watch)
    assert report.published and report.totals()["filings"] == len(watch.alive) == 5
    assert max(map(len, watch.alive)) <= 2, watch.alive


def test_a_filing_read_twice_in_a_first_build_is_indexed_once_from_the_last_read(small_root,
                                                                                   tmp_path):
    root = small_root
    first = root / SUBSET[0]
    again = shutil.copytree(first, tmp_path / "copy" / first.name)
    one = Settings(data_dir=tmp_path / "one", qdrant_url=None)
    two = Settings(data_dir=tmp_path / "two", qdrant_url=None)
    build([first], one, FakeEmbedder(), TokenCounter().count)
    build([first, again, root / SUBSET[1]], two, FakeEmbedder(), TokenCounter().count)
    alone, both = Index.open(one, tables_only=True), Index.open(two, tables_only=True)
    try:
        (key, filing), = alone.filings().items()
        assert both.filings()[key]["chunks"] == filing["chunks"]
        last = [u for u in locate([first, again]) if u.is_relative_to(first)
                or u.is_relative_to(again)][-1]  # the order the build reads them in
        assert Path(both.filings()[key]["source"]).is_relative_to(last)
        assert set(alone.chunk_ids()) < set(both.chunk_ids())
    finally:
        alone.close()
        both.close()


@pytest.mark.slow  # builds whole real filings (their sizes are the test)
def test_a_first_build_the_disk_cannot_hold_stops_in_one_line_and_leaves_nothing(
        tmp_path, monkeypatch):
    """The room is measured before anything is written and checked before each filing; the
    engine's files, which a full disk would kill the writer on (SIGBUS), come last."""
    root = unpack_sample(tmp_path / "src") / "sec-edgar-filings"
    settings = Settings(data_dir=tmp_path / "data", qdrant_url=None)
    measure = DiskRoom.__init__

    def small(self, s):
        measure(self, s)
        self.free = int(500 * self.per_chunk) + SPARE_BYTES  # one filing's room, not three

    monkeypatch.setattr(DiskRoom, "__init__", small)
    with pytest.raises(BuildError, match="not enough disk space") as error:
        build([root / p for p in SUBSET], settings, FakeEmbedder(), TokenCounter().count)
    assert "\n" not in str(error.value) and "unchanged" in str(error.value)
    assert current_generation(settings.data_dir) is None
    assert not list((settings.data_dir / GENERATIONS).iterdir())


@pytest.mark.slow  # three whole real filings (the corpus: >1,000 facts)
def test_the_bench_writes_every_copy_even_when_filing_keys_come_round_again(corpus, tmp_path):
    """The bench has 10 tickers x 10 years: copy 100 shares copy 0's filing key. A writer that
    replaced filings met again would index 200 of these 300 chunks and time the wrong size."""
    from finrag.measure.bench import build_index, replicated_filings

    chunks, vectors, facts = corpus[0]
    report = build_index(tmp_path, replicated_filings(chunks[:2], vectors[:2], facts[:3], 300))
    assert report["indexed_chunks"] == 300 and report["facts"] == 150 * 3


@pytest.mark.slow  # builds whole real filings (their sizes are the test)
def test_a_rebuild_that_reads_no_filing_leaves_the_index_as_it_was(tmp_path):
    """--rebuild writes the index from the given paths only; when none of them can be read
    there is nothing to write it from, and the published index is not replaced by an empty one."""
    root = unpack_sample(tmp_path / "src") / "sec-edgar-filings"
    settings = Settings(data_dir=tmp_path / "data", qdrant_url=None)
    build([root / SUBSET[2]], settings, FakeEmbedder(), TokenCounter().count)
    before = current_generation(settings.data_dir)
    bad = tmp_path / "bad" / "10-K.htm"
    bad.parent.mkdir()
    bad.write_text("<html><body>not a filing</body></html>")
    report = build([bad], settings, FakeEmbedder(), TokenCounter().count, rebuild=True)
    assert report.totals()["failed"] == 1 and not report.published
    assert report.generation == before == current_generation(settings.data_dir)
    index = Index.open(settings, tables_only=True)
    try:
        assert len(index) > 300
    finally:
        index.close()
