"""The fact stage of ingest: one filing (and its chunks) -> its statement facts.

A filing with inline XBRL gives its exact `ix:nonFraction` facts (`finrag.ingest.xbrl`); any other
filing (older HTML, SGML, PDF, text) gives the cells of its statement tables, read from the
row label, the column's period and the table's unit line (`finrag.ingest.tables`). Each fact is tied
to the chunk that prints it (same filing, same page, its label and number in the chunk text),
so an answer can cite the chunk's page and page label. Same filing in, same facts out.
"""

from __future__ import annotations

from pathlib import Path

from finrag.facts import Fact
from finrag.ingest.chunk import filing_key
from finrag.ingest.fiscal import period_fiscal_year
from finrag.ingest.statements import table_statements
from finrag.ingest.tables import table_facts
from finrag.ingest.xbrl import has_inline_xbrl, read_xbrl_facts
from finrag.models import Chunk, Filing

HTML_SUFFIXES = {".htm", ".html", ".txt"}


def extract_facts(filing: Filing, chunks: list[Chunk]) -> list[Fact]:
    """All facts of one filing, in document order, without duplicates, each tied to the
    chunk that prints it."""
    return attach(read_facts(filing), chunks)


def read_facts(filing: Filing) -> list[Fact]:
    """The facts of one filing, not yet tied to chunks (what `finrag.ingest.factcache` keeps)."""
    source = Path(filing.source)
    if source.suffix.lower() in HTML_SUFFIXES and has_inline_xbrl(source):
        return _unique(_xbrl(filing, source))
    return _unique(table_facts(filing))


def attach(facts: list[Fact], chunks: list[Chunk]) -> list[Fact]:
    """Copies of the facts, each with the chunk that prints it (its id and page label)."""
    facts = [f.model_copy() for f in facts]
    _attach(facts, chunks)
    return facts


def _xbrl(filing: Filing, source: Path) -> list[Fact]:
    found, blocks = read_xbrl_facts(source)
    statements = table_statements(blocks)
    key = filing_key(filing)
    facts = []
    for f in found:
        facts.append(Fact(
            ticker=filing.ticker, fiscal_year=filing.fiscal_year, filing_key=key,
            source="xbrl", concept=f.concept, dims=f.dims, line_label=f.label,
            statement=statements.get(f.block, "other") if f.row else "other",
            period_start=f.period_start, period_end=f.period_end,
            period_fiscal_year=period_fiscal_year(f.period_end, filing.period_end,
                                                  filing.fiscal_year),
            value=f.value, unit=f.unit, page=f.page, printed=f.printed, decimals=f.decimals,
        ))
    return facts


def _attach(facts: list[Fact], chunks: list[Chunk]) -> None:
    """Each fact's chunk: on its page, holding its number, its label too where one does."""
    by_page: dict[int, list[Chunk]] = {}
    for chunk in chunks:
        if chunk.page is not None:
            by_page.setdefault(chunk.page, []).append(chunk)
    for fact in facts:
        here = by_page.get(fact.page or -1, [])
        number = (fact.printed or "").strip("$() ")
        holding = [c for c in here if number and number in c.text]
        labelled = [c for c in holding if fact.line_label and fact.line_label in c.text]
        best = (labelled or holding or [None])[0]
        if best is not None:
            fact.chunk_id = best.chunk_id
            fact.page_label = getattr(best, "page_label", None)


def _unique(facts: list[Fact]) -> list[Fact]:
    """One fact per (concept, period, dims, value, unit, page, label): a number printed twice
    on one page in one row wording is one fact."""
    seen: set[tuple] = set()
    out = []
    for f in facts:
        key = (f.concept, f.period_start, f.period_end, f.period_fiscal_year, tuple(f.dims),
               f.value, f.unit, f.page,
               f.line_label, f.statement)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out
