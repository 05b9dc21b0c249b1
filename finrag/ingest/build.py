"""The ingest run: locate -> read -> sections -> chunks (+ facts) -> embed -> write a generation
-> publish; and its inverse, `remove`.

Each run reads every filing it is given and compares it with the published index: a filing
already indexed is replaced by its new chunks and facts (`finrag.ingest.facts`), an unchanged one
is left alone. Nothing changed -> nothing is written. On the embedded engine the new generation
is the published one with only the changed filings taken out and put back in (an update: no
other chunk is rewritten or re-embedded, the HNSW graph is not rebuilt); the first build,
`--rebuild` and a server collection write every chunk. Embeddings go through a persistent
cache, committed batch by batch, so a killed run resumes where it stopped and a re-run
re-embeds nothing.

The steps live beside it, one job each: read_step.py (one filing, in this process or a worker),
compare.py (unchanged or not), write.py (embed, write, publish a generation), generations.py
(names, leftovers, garbage collection), server_publish.py (the server's state and alias),
diskspace.py (room and a full disk), lock.py (one build at a time), report.py (what it says).
"""

from __future__ import annotations

import time
from contextlib import closing
from pathlib import Path

from finrag import steps
from finrag.cache import EmbeddingCache
from finrag.config import Settings
from finrag.generation import update_copies
from finrag.index import Index, current_generation
from finrag.ingest.compare import (
    chunk_keys,
    chunks_by_filing,
    count_new,
    fact_keys,
    facts_by_filing,
    stored,
    whole_filings,
)
from finrag.ingest.diskspace import DiskRoom, check_space, ensure_writable, storage_faults
from finrag.ingest.generations import collect_garbage, remove_leftovers
from finrag.ingest.lock import build_lock
from finrag.ingest.parallel import iter_filings
from finrag.ingest.read import locate
from finrag.ingest.read_step import job
from finrag.ingest.report import BuildError, BuildReport, FilingReport, RemoveReport
from finrag.ingest.server_publish import publish_server
from finrag.ingest.write import embed, on_embedded, publish_update, publish_whole, with_vectors
from finrag.models import Chunk
from finrag.steps import step
from finrag.store.writer_memory import writer_memory_gb
from finrag.views import dense_text


def build(
    paths: list[Path],
    settings: Settings,
    embedder,
    counter,
    *,
    ticker: str | None = None,
    fiscal_year: int | None = None,
    rebuild: bool = False,
    progress=None,
    overrides: dict[Path, dict] | None = None,
    workers: int = 1,
    writer_memory: float | None = None,
) -> BuildReport:
    """Index `paths`. `ticker`/`fiscal_year` override every filing's own metadata; `overrides`
    maps one path to its own {"ticker": ..., "fiscal_year": ...} (e.g. PDFs whose cover page
    does not say them), winning over both. `workers`: processes that read and chunk filings
    (1: read in this process; more: `counter` must pickle; None: one per CPU core).
    `writer_memory`: GB a whole write may hold (`finrag.store.writer_memory`; default
    $FINRAG_WRITER_MEMORY_GB, else 4), checked before anything is read."""
    started = time.perf_counter()
    steps.reset()
    writer_memory = writer_memory_gb(writer_memory)
    units = locate([Path(p) for p in paths])
    if not units:
        raise BuildError(f"no filings found under {', '.join(map(str, paths))}")
    ensure_writable(settings.data_dir)
    with build_lock(settings.data_dir), storage_faults(settings):
        remove_leftovers(settings)
        per_unit = {Path(k).resolve(): v for k, v in (overrides or {}).items()}
        jobs = [job(unit, per_unit, ticker, fiscal_year) for unit in units]
        if progress:
            progress.filings = len(jobs)
        base = None if rebuild else _open_published(settings)
        try:
            # closed on the way out: a build that stops early stops the reading processes too
            with closing(iter_filings(jobs, counter, settings.data_dir, workers,
                                      progress)) as read:
                reports, embedded, name, changed = _index(settings, embedder, base, read,
                                                          progress, writer_memory)
        finally:
            if base is not None:
                base.close()
        _finish(settings)
    return BuildReport(reports, name, changed, time.perf_counter() - started, embedded,
                       steps.taken())


def _index(settings, embedder, base: Index | None, read, progress, writer_memory: float):
    """(reports, texts embedded, the generation published, whether it changed) of a build
    reading `read`: an update of `base`, a first build or --rebuild (no `base`), or a whole
    rewrite over an index an update cannot start from."""
    if base is not None and _updatable(base):
        return _update(settings, embedder, base, read, progress)
    if base is None:
        return _write_read(settings, embedder, read, progress, writer_memory)
    return _rewrite(settings, embedder, base, read, progress, writer_memory)


def remove(paths: list[Path], settings: Settings) -> RemoveReport:
    """Take out of the index the filings read from `paths` (files, or folders holding them, as
    given to ingest; relative paths from the current directory). A path that names no indexed
    filing is an error line of its own; the others are still removed."""
    started = time.perf_counter()
    steps.reset()
    ensure_writable(settings.data_dir)
    with build_lock(settings.data_dir), storage_faults(settings):
        remove_leftovers(settings)
        if current_generation(settings.data_dir) is None:
            raise BuildError(f"no index in {settings.data_dir}: nothing to remove")
        base = Index.open(settings, tables_only=True)
        try:
            filings = base.filings()
            wanted = [Path(p).resolve() for p in paths]
            keys: dict[str, str] = {}
            errors = []
            for given, path in zip(paths, wanted):
                found = [k for k, f in filings.items()
                         if _within(Path(f["source"]).resolve(), path) and k not in keys]
                if not found:
                    errors.append(f"{given}: no indexed filing was read from this path; "
                                  "`python -m ingest status` lists where each filing was read "
                                  "from")
                keys.update((k, str(given)) for k in found)
            removed = [{"path": path, "filing_key": key,
                        **{f: filings[key][f] for f in ("ticker", "fiscal_year", "chunks")}}
                       for key, path in keys.items()]
            name, published = base.name, False
            if keys:
                if _updatable(base):
                    name = publish_update(settings, base, sorted(keys), [], [])
                else:
                    model = (base.manifest["model"], base.manifest["dim"])
                    kept = whole_filings(base.all_chunks(), base.all_facts(), {}, {}, drop=keys)
                    name = publish_whole(settings, model, with_vectors(settings, kept, model))
                published = True
        finally:
            base.close()
        _finish(settings)
    return RemoveReport(removed, errors, name, published, time.perf_counter() - started,
                        steps.taken())


def _within(source: Path, path: Path) -> bool:
    return source == path or path in source.parents


def _open_published(settings: Settings) -> Index | None:
    if current_generation(settings.data_dir) is None:
        return None
    return Index.open(settings, tables_only=True)


def _updatable(base: Index) -> bool:
    """A change to a few filings is written as an update of the published generation: on the
    embedded engine its shard is copied, then changed; a server collection is changed in place
    under versioned visibility (one written before versions gets a whole new collection)."""
    backend = base.manifest["backend"]
    return backend["kind"] == "edge" or bool(backend.get("versioned"))


def _write_read(settings, embedder, read, progress, writer_memory: float):
    """A first build or --rebuild: each filing goes into the new generation as it is read
    (embedded first where its texts are not cached) and is let go, so the build holds about
    one filing whatever the corpus's size; `write_filings` writes the engine's points from its
    own table once every filing is in. A filing read twice (two files of one accession): the
    last read replaces the first. A chunk id met before stays with the filing that had it.
    Returns what `_update` returns. When no filing could be read nothing is written: a
    --rebuild of unreadable paths leaves the published index as it was."""
    reports: list[FilingReport] = []
    done = {"embedded": 0}
    model = (embedder.name, embedder.dim)
    room = DiskRoom(settings)  # measured before anything is written

    def filings():
        held: dict[str, list[str]] = {}  # filing -> the chunk ids it holds
        holder: set[str] = set()
        cache = EmbeddingCache(settings.data_dir / "embeddings.sqlite", *model)
        try:
            for report, chunks, facts in read:
                reports.append(report)
                report.new_chunks = len(chunks)
                if not chunks:
                    continue
                key = chunks[0].filing_key
                holder.difference_update(held.pop(key, ()))  # read again: its ids are free
                kept = [c for c in chunks if c.chunk_id not in holder]
                held[key] = [c.chunk_id for c in kept]
                holder.update(held[key])
                room.check(len(holder))  # the engine's files, written last, included
                texts = [dense_text(c) for c in kept]
                todo = cache.missing(texts)
                if progress:
                    progress.cached(len(texts) - len(todo))
                cache.fill(todo, embedder.encode, on_batch=lambda n: on_embedded(progress, n))
                done["embedded"] += len(todo)
                yield kept, cache.get(texts), facts
        finally:
            cache.close()

    batches = _started(filings())
    if batches is None:  # no filing read: the published index, if any, stays
        return reports, 0, current_generation(settings.data_dir), False
    try:
        name = publish_whole(settings, model, batches, replace=True,
                             writer_memory=writer_memory)
    except BuildError:
        remove_leftovers(settings)  # what the write had started
        raise
    return reports, done["embedded"], name, True


def _started(items):
    """`items` from its first item on (read here), or None when it has none. Not
    `itertools.chain`, whose arguments would hold the first item to the end."""
    first = next(items, None)
    return None if first is None else _resumed(first, items)


def _resumed(head, tail):
    yield head
    del head  # handed on: held by nobody here
    yield from tail


def _rewrite(settings, embedder, base: Index, read, progress, writer_memory: float):
    """The whole index written anew over a published one an update cannot start from (another
    backend or format): its chunks with every filing read replacing its old self; nothing
    written when that changes nothing. Each filing is let go once written (`publish_whole`)."""
    read = list(read)
    reports = [report for report, _, _ in read]
    filings, changed = _whole(base, read)
    read.clear()
    embedded, name = 0, base.name
    if changed:
        check_space(settings, sum(len(chunks) for chunks, _ in filings))
        embedded = embed(settings, embedder, [c for chunks, _ in filings for c in chunks],
                          progress)
        model = (embedder.name, embedder.dim)
        name = publish_whole(settings, model, with_vectors(settings, filings, model),
                             writer_memory=writer_memory)
    return reports, embedded, name, changed


def _whole(base: Index, read) -> tuple[list, bool]:
    """The filings of the index `_rewrite` writes, and whether it differs from `base`; counts
    each report's new chunks."""
    old, old_facts = base.all_chunks(), base.all_facts()
    fresh = chunks_by_filing(read)
    filings = whole_filings(old, old_facts, fresh, facts_by_filing(read))
    old_ids, old_json = {c.chunk_id for c in old}, chunk_keys(old)
    count_new(read, lambda c: c.chunk_id not in old_ids,
               lambda key: chunk_keys(fresh[key]) <= old_json)
    changed = (chunk_keys([c for chunks, _ in filings for c in chunks]) != old_json
               or fact_keys(f for _, facts in filings for f in facts) != fact_keys(old_facts))
    return filings, changed


def _update(settings, embedder, base: Index, read, progress):
    """Only the filings whose chunks or facts differ from the published ones are written: their
    old points and rows are taken out of a new generation started from the published one
    (finrag.generation.write_update) and their new ones put in. Each filing read is compared
    with its published self as it arrives and let go if unchanged (it costs a lookup), so
    re-ingesting a folder of thousands of filings, a few of them new, holds those few; nothing
    changed -> nothing written. Returns the reports besides what `_rewrite` returns."""
    reports, fresh, fresh_facts, old_ids = [], {}, {}, {}
    for report, chunks, facts in _timed(read, "read"):  # a filing read twice: the last counts
        reports.append(report)
        if not chunks:
            continue
        key = chunks[0].filing_key
        with step("compare"):
            old = base.filing_payloads([key]).get(key, {})
            report.new_chunks = sum(c.chunk_id not in old for c in chunks)
            same = ({c.chunk_id: stored(c) for c in chunks}
                    == {cid: stored(Chunk.model_validate_json(p)) for cid, p in old.items()}
                    and fact_keys(facts) == fact_keys(base.filing_facts([key]).get(key, [])))
        if same:
            if report.status == "ok":
                report.status = "skipped"  # already indexed, unchanged
            for by_key in (fresh, fresh_facts, old_ids):
                by_key.pop(key, None)
        else:
            fresh[key], fresh_facts[key], old_ids[key] = chunks, facts, set(old)
    if not fresh:
        return reports, 0, base.name, False
    changed = sorted(fresh)
    dropped = set().union(*old_ids.values())
    held = base.known(c.chunk_id for key in changed for c in fresh[key]) - dropped
    seen: set[str] = set()
    chunks = []
    for key in changed:  # a chunk id another indexed filing holds stays with that filing
        for c in fresh[key]:
            if c.chunk_id not in seen and c.chunk_id not in held:
                seen.add(c.chunk_id)
                chunks.append(c)
    facts = [f for key in changed for f in fresh_facts[key]]
    # an update writes the new chunks and copies some tables (`update_copies`); the rest of the
    # published generation it shares
    with step("check disk"):
        check_space(settings, len(chunks), copies=update_copies(base.path))
    with step("embed"):
        embedded = embed(settings, embedder, chunks, progress)
    name = publish_update(settings, base, changed, chunks, facts)
    return reports, embedded, name, True


def _timed(items, name: str):
    """`items`, the time spent producing each (reading a filing) counted to step `name`."""
    it = iter(items)
    while True:
        with step(name):
            try:
                item = next(it)
            except StopIteration:
                return
        yield item


def _finish(settings: Settings) -> None:
    """The server's readers first (what the server serves must never be collected), then the
    old generations."""
    publish_server(settings)
    collect_garbage(settings)
