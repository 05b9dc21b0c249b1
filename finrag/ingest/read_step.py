"""The read step of one filing, the same in this process and in a worker (finrag.ingest.parallel):
read (through the read cache) -> sections -> chunks -> facts (through the fact cache), and its
report. A filing that cannot be read gives a failed report and no chunks, never an exception."""

from __future__ import annotations

import time
from pathlib import Path

from finrag.facts import Fact
from finrag.ingest.chunk import chunk_filing
from finrag.ingest.factcache import FactCache
from finrag.ingest.facts import attach, read_facts
from finrag.ingest.read import ReadError, read_filing
from finrag.ingest.readcache import ReadCache
from finrag.ingest.report import FilingReport
from finrag.ingest.sections import split_sections
from finrag.models import Chunk


def job(unit: Path, per_unit: dict, ticker, fiscal_year) -> tuple[Path, str | None, int | None]:
    """(unit, ticker, fiscal year) with the unit's own overrides applied."""
    own = per_unit.get(unit.resolve(), {})
    return unit, own.get("ticker", ticker), own.get("fiscal_year", fiscal_year)


def read_one(unit: Path, counter, ticker, fiscal_year, cache: ReadCache | None = None,
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
