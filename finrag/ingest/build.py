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
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import sqlite3
import time
from contextlib import closing, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from finrag.cache import EmbeddingCache
from finrag.config import Settings
from finrag.facts import Fact
from finrag.faults import crash_point
from finrag.generation import (
    publish,
    table_facets_at,
    update_copies,
    write_filings,
    write_update,
)
from finrag.index import (
    GENERATIONS,
    Index,
    current_generation,
    generation_number,
    read_manifest,
)
from finrag.ingest.chunk import chunk_filing
from finrag.ingest.factcache import FactCache
from finrag.ingest.facts import attach, read_facts
from finrag.ingest.parallel import iter_filings
from finrag.ingest.read import ReadError, locate, read_filing
from finrag.ingest.readcache import ReadCache
from finrag.ingest.sections import split_sections
from finrag.models import Chunk
from finrag.store.names import collection_name, data_dir_id, owns, published_alias
from finrag.views import dense_text

KEEP_GENERATIONS = 2  # the published one and the one before (a reader may still hold it)
# Disk a generation takes per chunk when there is none to measure (2,187 sample chunks: 9.2 MB
# on disk, ~4.2 KB each), what the embedding cache adds per text, and room left to spare.
BYTES_PER_CHUNK, CACHE_BYTES_PER_TEXT, SPARE_BYTES = 6_000, 2_000, 4 << 20


@dataclass
class FilingReport:
    path: str
    status: str  # "ok" | "failed" | "skipped"
    ticker: str = ""
    cik: str = ""
    company: str = ""
    fiscal_year: int | None = None
    period_end: str | None = None
    accession: str = ""
    error: str = ""
    chunks: int = 0
    new_chunks: int = 0
    chunk_types: dict = field(default_factory=dict)
    sections: list = field(default_factory=list)
    facts: int = 0
    facts_seconds: float = 0.0  # time the fact stage took for this filing
    facts_error: str = ""  # the fact stage failed (the filing's chunks are still indexed)


@dataclass
class BuildReport:
    filings: list[FilingReport]
    generation: str | None
    published: bool
    seconds: float
    embedded: int  # texts embedded in this run (cache misses)

    def totals(self) -> dict:
        return {
            "filings": len(self.filings),
            "chunks": sum(f.chunks for f in self.filings),
            "new_chunks": sum(f.new_chunks for f in self.filings),
            "failed": sum(f.status == "failed" for f in self.filings),
        }

    def to_json(self) -> dict:
        return {
            "filings": [vars(f) for f in self.filings],
            "totals": self.totals(),
            "generation": self.generation,
            "published": self.published,
            "seconds": round(self.seconds, 3),
            "embedded": self.embedded,
        }


class BuildError(RuntimeError):
    """A fatal problem with the run itself (not with one input file)."""


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
) -> BuildReport:
    """Index `paths`. `ticker`/`fiscal_year` override every filing's own metadata; `overrides`
    maps one path to its own {"ticker": ..., "fiscal_year": ...} (e.g. PDFs whose cover page
    does not say them), winning over both. `workers`: processes that read and chunk filings
    (1: read in this process; more: `counter` must pickle; None: one per CPU core)."""
    started = time.perf_counter()
    units = locate([Path(p) for p in paths])
    if not units:
        raise BuildError(f"no filings found under {', '.join(map(str, paths))}")
    _ensure_writable(settings.data_dir)
    with _build_lock(settings.data_dir), _storage_faults(settings):
        _remove_leftovers(settings)
        per_unit = {Path(k).resolve(): v for k, v in (overrides or {}).items()}
        jobs = [_job(unit, per_unit, ticker, fiscal_year) for unit in units]
        if progress:
            progress.filings = len(jobs)
        base = None if rebuild else _open_published(settings)
        try:
            # closed on the way out: a build that stops early stops the reading processes too
            with closing(iter_filings(jobs, counter, settings.data_dir, workers,
                                      progress)) as read:
                reports, embedded, name, changed = _index(settings, embedder, base, read,
                                                          progress)
        finally:
            if base is not None:
                base.close()
        _collect_garbage(settings)
    return BuildReport(reports, name, changed, time.perf_counter() - started, embedded)


def _index(settings, embedder, base: Index | None, read, progress):
    """(reports, texts embedded, the generation published, whether it changed) of a build
    reading `read`: an update of `base`, a first build or --rebuild (no `base`), or a whole
    rewrite over an index an update cannot start from."""
    if base is not None and _updatable(base):
        return _update(settings, embedder, base, read, progress)
    if base is None:
        return _write_read(settings, embedder, read, progress)
    return _rewrite(settings, embedder, base, read, progress)


@dataclass
class RemoveReport:
    removed: list[dict]  # {"path", "filing_key", "ticker", "fiscal_year", "chunks"}
    errors: list[str]  # one line per path that names no indexed filing
    generation: str | None
    published: bool
    seconds: float

    def to_json(self) -> dict:
        return {"removed": self.removed, "errors": self.errors, "generation": self.generation,
                "published": self.published, "seconds": round(self.seconds, 3)}


def remove(paths: list[Path], settings: Settings) -> RemoveReport:
    """Take out of the index the filings read from `paths` (files, or folders holding them, as
    given to ingest; relative paths from the current directory). A path that names no indexed
    filing is an error line of its own; the others are still removed."""
    started = time.perf_counter()
    _ensure_writable(settings.data_dir)
    with _build_lock(settings.data_dir), _storage_faults(settings):
        _remove_leftovers(settings)
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
                    name = _write_update(settings, base, sorted(keys), [], [])
                else:
                    model = (base.manifest["model"], base.manifest["dim"])
                    kept = _filings(base.all_chunks(), base.all_facts(), {}, {}, drop=keys)
                    name = _write_whole(settings, model, _with_vectors(settings, kept, model))
                published = True
        finally:
            base.close()
        _collect_garbage(settings)
    return RemoveReport(removed, errors, name, published, time.perf_counter() - started)


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


def _write_read(settings, embedder, read, progress):
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
    room = _DiskRoom(settings)  # measured before anything is written

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
                cache.fill(todo, embedder.encode, on_batch=lambda n: _embedded(progress, n))
                done["embedded"] += len(todo)
                yield kept, cache.get(texts), facts
        finally:
            cache.close()

    batches = _started(filings())
    if batches is None:  # no filing read: the published index, if any, stays
        return reports, 0, current_generation(settings.data_dir), False
    try:
        name = _write_whole(settings, model, batches, replace=True)
    except BuildError:
        _remove_leftovers(settings)  # what the write had started
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


def _rewrite(settings, embedder, base: Index, read, progress):
    """The whole index written anew over a published one an update cannot start from (another
    backend or format): its chunks with every filing read replacing its old self; nothing
    written when that changes nothing. Each filing is let go once written (`_write_whole`)."""
    read = list(read)
    reports = [report for report, _, _ in read]
    filings, changed = _whole(base, read)
    read.clear()
    embedded, name = 0, base.name
    if changed:
        _check_space(settings, sum(len(chunks) for chunks, _ in filings))
        embedded = _embed(settings, embedder, [c for chunks, _ in filings for c in chunks],
                          progress)
        model = (embedder.name, embedder.dim)
        name = _write_whole(settings, model, _with_vectors(settings, filings, model))
    return reports, embedded, name, changed


def _whole(base: Index, read) -> tuple[list, bool]:
    """The filings of the index `_rewrite` writes, and whether it differs from `base`; counts
    each report's new chunks."""
    old, old_facts = base.all_chunks(), base.all_facts()
    fresh = _fresh(read)
    filings = _filings(old, old_facts, fresh, _fresh_facts(read))
    old_ids, old_json = {c.chunk_id for c in old}, _chunk_keys(old)
    _count_new(read, lambda c: c.chunk_id not in old_ids,
               lambda key: _chunk_keys(fresh[key]) <= old_json)
    changed = (_chunk_keys([c for chunks, _ in filings for c in chunks]) != old_json
               or _fact_keys(f for _, facts in filings for f in facts) != _fact_keys(old_facts))
    return filings, changed


def _filings(old: list[Chunk], old_facts: list[Fact], fresh: dict[str, list[Chunk]],
             fresh_facts: dict[str, list[Fact]], drop=()) -> list[tuple[list[Chunk], list[Fact]]]:
    """Each filing's (chunks, facts) of an index written whole: the published filings not
    re-read (nor in `drop`), in their order, then every filing read; a chunk id met before
    stays with the filing that had it first."""
    gone = set(fresh) | set(drop)
    chunks: dict[str, list[Chunk]] = {}
    facts: dict[str, list[Fact]] = {}
    for c in old:
        if c.filing_key not in gone:
            chunks.setdefault(c.filing_key, []).append(c)
    for f in old_facts:
        if f.filing_key not in gone:
            facts.setdefault(f.filing_key, []).append(f)
    chunks.update(fresh)
    facts.update(fresh_facts)
    seen: set[str] = set()
    out = []
    for key in dict.fromkeys([*chunks, *facts]):
        kept = [c for c in chunks.get(key, []) if c.chunk_id not in seen]
        seen.update(c.chunk_id for c in kept)
        out.append((kept, facts.get(key, [])))
    return out


def _update(settings, embedder, base: Index, read, progress):
    """Only the filings whose chunks or facts differ from the published ones are written: their
    old points and rows are taken out of a new generation started from the published one
    (finrag.generation.write_update) and their new ones put in. Each filing read is compared
    with its published self as it arrives and let go if unchanged (it costs a lookup), so
    re-ingesting a folder of thousands of filings, a few of them new, holds those few; nothing
    changed -> nothing written. Returns the reports besides what `_rewrite` returns."""
    reports, fresh, fresh_facts, old_ids = [], {}, {}, {}
    for report, chunks, facts in read:  # a filing read twice: the last read counts
        reports.append(report)
        if not chunks:
            continue
        key = chunks[0].filing_key
        old = base.filing_payloads([key]).get(key, {})
        report.new_chunks = sum(c.chunk_id not in old for c in chunks)
        if ({c.chunk_id: _stored(c) for c in chunks}
                == {cid: _stored(Chunk.model_validate_json(p)) for cid, p in old.items()}
                and _fact_keys(facts) == _fact_keys(base.filing_facts([key]).get(key, []))):
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
    _check_space(settings, len(chunks), copies=update_copies(base.path))
    embedded = _embed(settings, embedder, chunks, progress)
    name = _write_update(settings, base, changed, chunks, facts)
    return reports, embedded, name, True


def _write_whole(settings, model: tuple[str, int], batches, *, replace: bool = False) -> str:
    """A generation of `batches` ((chunks, vectors, facts) of whole filings), published;
    `replace`: a batch holding a filing written before replaces it (`write_filings`)."""
    name = _next_name(settings.data_dir)
    write_filings(settings, name, batches, model[0], model[1], replace=replace)
    publish(settings.data_dir, name)
    crash_point("published")
    return name


def _with_vectors(settings, filings: list, model: tuple[str, int]):
    """Each of `filings` ((chunks, facts)) with its chunks' embeddings (from the cache), taken
    off the list as it is handed on, so that a filing written is a filing let go."""
    cache = EmbeddingCache(settings.data_dir / "embeddings.sqlite", *model)
    try:
        filings.reverse()
        while filings:
            chunks, facts = filings.pop()
            yield chunks, _cached(cache, chunks, model[1]), facts
    finally:
        cache.close()


def _write_update(settings, base: Index, drop: list[str], chunks, facts) -> str:
    vectors = _vectors(settings, chunks, (base.manifest["model"], base.manifest["dim"]))
    name = _next_name(settings.data_dir)
    write_update(settings, base, name, drop, chunks, vectors, facts)
    publish(settings.data_dir, name)
    crash_point("published")
    return name


def _vectors(settings, chunks, model: tuple[str, int]) -> np.ndarray:
    """The chunks' embeddings by `model` (name, dimension), all in the cache (`_embed` ran
    first; a removal's remaining chunks were embedded when they were indexed)."""
    cache = EmbeddingCache(settings.data_dir / "embeddings.sqlite", *model)
    try:
        return _cached(cache, chunks, model[1])
    finally:
        cache.close()


def _cached(cache: EmbeddingCache, chunks, dim: int) -> np.ndarray:
    if not chunks:
        return np.zeros((0, dim), dtype=np.float32)
    return cache.get([dense_text(c) for c in chunks])


def _job(unit: Path, per_unit: dict, ticker, fiscal_year) -> tuple[Path, str | None, int | None]:
    """(unit, ticker, fiscal year) with the unit's own overrides applied."""
    own = per_unit.get(unit.resolve(), {})
    return unit, own.get("ticker", ticker), own.get("fiscal_year", fiscal_year)


def _read_one(unit: Path, counter, ticker, fiscal_year, cache: ReadCache | None = None,
              fact_cache: FactCache | None = None):
    try:
        filing = _read_cached(unit, ticker, fiscal_year, cache)
        sections = split_sections(filing.blocks)
        chunks = chunk_filing(filing, sections, counter)
    except ReadError as exc:
        return FilingReport(path=str(unit), status="failed", error=str(exc)), [], []
    if not chunks:
        return (FilingReport(path=str(unit), status="failed", error=f"{unit}: no text found"),
                [], [])
    types: dict[str, int] = {}
    for c in chunks:
        types[c.chunk_type] = types.get(c.chunk_type, 0) + 1
    report = FilingReport(
        path=str(unit), status="ok", ticker=filing.ticker, cik=filing.cik,
        company=filing.company, fiscal_year=filing.fiscal_year, period_end=filing.period_end,
        accession=filing.accession, chunks=len(chunks), chunk_types=types,
        sections=list(dict.fromkeys(s.item for s in sections)),
    )
    return report, chunks, _facts(filing, chunks, report, fact_cache)


def _facts(filing, chunks: list[Chunk], report: FilingReport,
           cache: FactCache | None = None) -> list[Fact]:
    """The fact stage for one filing (through the fact cache where given); a failure there
    costs the filing its facts only."""
    started = time.perf_counter()
    try:
        key = cache.key(filing) if cache else None
        found = cache.get(key) if key else None
        if found is None:
            found = read_facts(filing)
            if key:
                cache.put(key, found)
        facts = attach(found, chunks)
    except Exception as exc:  # noqa: BLE001 - a fact bug must not drop the filing's chunks
        facts = []
        report.facts_error = f"{report.path}: facts not extracted ({type(exc).__name__}: {exc})"
    report.facts = len(facts)
    report.facts_seconds = round(time.perf_counter() - started, 3)
    return facts


def _read_cached(unit: Path, ticker, fiscal_year, cache: ReadCache | None):
    key = cache.key(unit, ticker, fiscal_year) if cache else None
    filing = cache.get(key, str(unit)) if key else None
    if filing is None:
        filing = read_filing(unit, ticker=ticker, fiscal_year=fiscal_year)
        if key:
            cache.put(key, filing)
    return filing


def _fresh(read) -> dict[str, list[Chunk]]:
    """Chunks by filing; a filing met twice (two files of one accession) keeps the last read."""
    return {chunks[0].filing_key: chunks for _, chunks, _ in read if chunks}


def _fresh_facts(read) -> dict[str, list[Fact]]:
    """Facts by filing, for every filing read (one with no facts replaces its old ones)."""
    return {chunks[0].filing_key: facts for _, chunks, facts in read if chunks}


def _stored(chunk: Chunk) -> str:
    """What a re-read chunk is compared by: everything stored, metadata included (a corrected
    company name changes no chunk id but must still reach the index), except the path it was
    read from (the same filing read from a copied or moved folder is unchanged)."""
    return chunk.model_dump_json(exclude={"source"})


def _chunk_keys(chunks: list[Chunk]) -> set[str]:
    return {_stored(c) for c in chunks}


def _fact_keys(facts: list[Fact]) -> set[str]:
    return {f.model_dump_json() for f in facts}


def _count_new(read, is_new, unchanged) -> None:
    """Each report's new chunks (ids not indexed before); a filing read OK whose chunks and
    facts are all as indexed is "skipped"."""
    for report, chunks, _ in read:
        report.new_chunks = sum(map(is_new, chunks))
        if report.status == "ok" and chunks and unchanged(chunks[0].filing_key):
            report.status = "skipped"  # already indexed, unchanged


def _embed(settings, embedder, chunks, progress) -> int:
    cache = EmbeddingCache(settings.data_dir / "embeddings.sqlite", embedder.name, embedder.dim)
    try:
        todo = cache.missing([dense_text(c) for c in chunks])
        if progress:
            progress.embedding(len(todo), len(chunks))
        cache.fill(todo, embedder.encode, on_batch=lambda n: _embedded(progress, n))
    finally:
        cache.close()
    return len(todo)


def _embedded(progress, n: int) -> None:
    if progress:
        progress.embedded(n)
    crash_point("embed")  # after the batch is committed to the cache


def _next_name(data_dir: Path) -> str:
    """One past every generation there, temporary ones included (one whose collection could not
    be deleted yet is kept, and its name stays taken)."""
    root = data_dir / GENERATIONS
    names = [p.name.removeprefix(".tmp-") for p in root.glob("*gen-*")]
    return f"gen-{max((generation_number(n) for n in names), default=0) + 1:06d}"


def _remove_leftovers(settings: Settings) -> None:
    """What a build that died leaves never became visible; delete it: temporary generations,
    and finished ones it did not live to publish (numbered after the published one). Left in
    place, the next garbage collection would keep such an orphan as "the one before" and delete
    the generation readers were actually serving."""
    data_dir = settings.data_dir
    for tmp in (data_dir / GENERATIONS).glob(".tmp-*"):
        _drop_generation(settings, tmp)
    current = generation_number(current_generation(data_dir) or "gen-000000")
    for gen in (data_dir / GENERATIONS).glob("gen-*"):
        if generation_number(gen.name) > current:
            _drop_generation(settings, gen)


def _collect_garbage(settings: Settings) -> None:
    _publish_server(settings)  # first: what the server serves must never be collected here
    current = current_generation(settings.data_dir)
    root = settings.data_dir / GENERATIONS
    gens = sorted(p for p in root.glob("gen-*") if p.name != current)
    for old in gens[: max(0, len(gens) - (KEEP_GENERATIONS - 1))]:
        _drop_generation(settings, old)
        crash_point("gc")


# Seconds between publishing an in-place update on a server and deleting the points it
# superseded: a reader resolves its generation before each search and a search takes well
# under a second, so one that began just before the switch still finds its points.
SUPERSEDED_GRACE_S = 5.0


def _publish_server(settings: Settings) -> None:
    """Publish the generation CURRENT names to readers that have only the server: its manifest
    as the collection's state point, then the alias (`finrag-<id>`, FINRAG_QDRANT_INDEX) on
    its collection; then delete what an update that died left and, after the grace wait, the
    points this generation superseded. Each step is done only if it is not yet, so a build
    killed after publishing CURRENT is completed by the next run. The generation before stays
    readable on the server for the grace wait only (its directory is kept longer: a reader of
    the data dir may hold it open, but it switches at its next search, as a reader by name
    does)."""
    name = current_generation(settings.data_dir)
    if not settings.qdrant_url or name is None:
        return
    manifest = read_manifest(settings.data_dir, name)
    backend = manifest["backend"]
    alias = published_alias(backend)
    if alias is None:  # the embedded engine, or a server generation from before readers by name
        return
    from finrag.store.base import StoreError
    from finrag.store.clients import client_for
    from finrag.store.server import ServerStore, aliased, point_alias

    client = client_for(settings)
    store = ServerStore(client, backend["collection"])
    try:
        if (store.state(["generation"]) or {}).get("generation") != name:
            if "facets" not in manifest:  # a generation of 2026-12-05 kept them on the server
                manifest = {**manifest, "facets": table_facets_at(
                    settings.data_dir / GENERATIONS / name)}
            store.publish_state(manifest)
            crash_point("stated")
        if store._call("reading aliases", aliased, client, alias) != backend["collection"]:
            point_alias(client, alias, backend["collection"])
        crash_point("aliased")
        if backend.get("versioned"):
            store.roll_back(backend["version"])  # what an update that died left, unpublished
            if store.superseded(backend["version"]):
                time.sleep(SUPERSEDED_GRACE_S)  # readers of the one before may be searching
                store.drop_superseded(backend["version"])
                crash_point("superseded")
    except StoreError as exc:
        raise StoreError(f"{name} is published in {settings.data_dir}, but the server index "
                         f"{alias} could not be pointed at it ({exc}); run the build again "
                         "to finish") from None


def _drop_generation(settings: Settings, path: Path) -> None:
    """Delete a generation, and its Qdrant collection when this data directory created it
    (finrag.store.names): a collection of another data directory, or of one made before
    collections were namespaced, stays on the server. When the server cannot be asked, the
    generation stays too, so the next build retries and its collection is not forgotten."""
    collection = _own_collection(settings, path)
    if collection:
        from finrag.store.base import StoreError
        from finrag.store.clients import client_for
        from finrag.store.server import ServerStore

        try:
            ServerStore.drop_if_exists(client_for(settings), collection)
        except (StoreError, ValueError):
            return
    shutil.rmtree(path, ignore_errors=True)


def _own_collection(settings: Settings, path: Path) -> str | None:
    """The Qdrant collection of generation `path` if this data directory created it and no
    other generation of it reads it (updates share their base's collection), else None. Its
    manifest names it; a generation that died before writing one (`.tmp-gen-...`) had its
    collection named in this data directory's namespace."""
    if not settings.qdrant_url:
        return None
    own = data_dir_id(settings.data_dir)
    collection = _collection_of(path)
    if collection is None and own:
        collection = collection_name(own, path.name.removeprefix(".tmp-"))
    others = {_collection_of(p) for p in (settings.data_dir / GENERATIONS).glob("*gen-*")
              if p != path}
    return collection if owns(own, collection or "") and collection not in others else None


def _collection_of(path: Path) -> str | None:
    """The collection generation `path`'s manifest names (None: no manifest, or no server)."""
    try:
        return json.loads((path / "manifest.json").read_text())["backend"].get("collection")
    except (OSError, ValueError, KeyError, AttributeError):
        return None


def _check_space(settings: Settings, chunks: int, *, copies: int = 0) -> None:
    """Refuse a build the disk cannot hold, before writing anything (`_DiskRoom`)."""
    _DiskRoom(settings).check(chunks, copies)


class _DiskRoom:
    """The disk's room for a build, measured once before it writes: `check` refuses `chunks`
    written and `copies` bytes of tables copied that it cannot hold. Qdrant edge writes through
    memory-mapped files: on a full disk the kernel kills the writer with SIGBUS instead of
    returning an error (the published index survives that too, but nobody is told why). A
    build that writes as it reads checks before each filing; the engine's files come last."""

    def __init__(self, settings: Settings) -> None:
        self.data_dir = settings.data_dir
        self.per_chunk = _bytes_per_chunk(settings) * 1.5 + CACHE_BYTES_PER_TEXT
        st = os.statvfs(settings.data_dir)
        self.free = st.f_bavail * st.f_frsize

    def check(self, chunks: int, copies: int = 0) -> None:
        need = int(chunks * self.per_chunk) + copies + SPARE_BYTES
        if self.free < need:
            raise BuildError(
                f"not enough disk space in {self.data_dir}: the new index needs about "
                f"{need / 1e6:,.0f} MB, {self.free / 1e6:,.0f} MB free; the published index is "
                "unchanged; free some space or choose another --data-dir")


def _bytes_per_chunk(settings: Settings) -> float:
    """Measured on the published generation (blocks in use, not sparse sizes) where there is one."""
    name = current_generation(settings.data_dir)
    path = settings.data_dir / GENERATIONS / (name or "-")
    try:
        chunks = json.loads((path / "manifest.json").read_text())["chunks"]
        used = sum(f.stat().st_blocks * 512 for f in path.rglob("*") if f.is_file())
    except (OSError, ValueError, KeyError):
        return BYTES_PER_CHUNK
    return max(BYTES_PER_CHUNK / 2, used / chunks) if chunks else BYTES_PER_CHUNK


def _ensure_writable(data_dir: Path) -> None:
    try:
        (data_dir / GENERATIONS).mkdir(parents=True, exist_ok=True)
        probe = data_dir / ".write-probe"
        probe.write_text("ok")
        probe.unlink()
    except OSError as exc:
        with suppress(OSError):  # a full disk leaves the probe created but empty
            (data_dir / ".write-probe").unlink(missing_ok=True)
        if exc.errno == errno.ENOSPC:
            raise BuildError(f"no disk space left in {data_dir}; the published index is "
                             "unchanged; free some space or choose another --data-dir") from exc
        raise BuildError(f"data dir {data_dir} is not writable ({exc.strerror}); "
                         "choose another with --data-dir or FINRAG_DATA_DIR") from exc


@contextmanager
def _storage_faults(settings: Settings):
    """A full or failing disk mid-build: delete what this build wrote (so the space comes back),
    keep the published index, and say so in one line. sqlite reports a full disk as its own
    error ("database or disk is full"), not as an OSError."""
    try:
        yield
    except (OSError, sqlite3.Error) as exc:
        _remove_leftovers(settings)
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        kept = current_generation(settings.data_dir)
        state = f"the published index {kept} is unchanged" if kept else "no index was published"
        raise BuildError(f"could not write the index in {settings.data_dir} ({reason}); {state}; "
                         "free some space or choose another --data-dir") from exc


@contextmanager
def _build_lock(data_dir: Path):
    with open(data_dir / "build.lock", "w") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BuildError(f"another build is running on {data_dir}; wait for it to finish")
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
