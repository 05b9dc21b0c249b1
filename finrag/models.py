"""Typed records that flow through finrag: filings, chunks, filters and search results.

Data flows one way: ingest turns a document into a `Filing` made of `Block`s, cuts it into
`Chunk`s, and the index stores each chunk's `payload()`. Search returns `Hit`s (a payload plus
its rank and score) grouped in a `SearchResult`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, field_validator

ChunkType = Literal["narrative", "table"]
CHUNK_TYPES: tuple[str, ...] = ("narrative", "table")


class Block(BaseModel):
    """One paragraph, heading or table of a document, in reading order."""

    kind: Literal["text", "table"]
    text: str = ""
    rows: list[list[str]] | None = None  # a table's grid, cells as text
    page: int | None = None  # 1-based page index where known (PDF, marked HTML page breaks)
    page_label: str | None = None  # the page number printed on that page ("35", "F-7", "iv")


class Filing(BaseModel):
    """A 10-K read from disk: its metadata (from the filing itself) and its blocks."""

    ticker: str
    cik: str = ""
    company: str = ""
    form: str = "10-K"
    fiscal_year: int
    period_end: str | None = None  # ISO date of the period of report
    accession: str = ""
    document: str = ""  # the 10-K document's file name on EDGAR, where the filing states it
    source: str  # path of the document the blocks come from
    blocks: list[Block] = Field(default_factory=list)


class Chunk(BaseModel):
    """One indexed unit: a narrative passage or a (part of a) table, with its provenance."""

    chunk_id: str
    ticker: str
    cik: str = ""
    company: str = ""
    form: str = "10-K"
    fiscal_year: int
    period_end: str | None = None
    accession: str = ""
    document: str = ""  # the 10-K document's file name on EDGAR ("aapl-20240928.htm") or ""
    section: str = ""  # e.g. "Item 7"
    section_title: str = ""  # e.g. "Management's Discussion and Analysis ..."
    chunk_type: ChunkType
    page: int | None = None  # 1-based position of its page in the document
    page_label: str | None = None  # the number printed on that page, None where none is printed
    heading: str = ""  # the title lines its page opens with ("CONSOLIDATED BALANCE SHEETS")
    text: str  # what is shown and indexed; table rows as "label | v1 | v2"
    source: str = ""
    table: list[list[str]] | None = None  # the grid, for display
    filing_key: str = ""  # identifies the filing the chunk belongs to (replace-on-reingest)

    def payload(self) -> dict:
        return self.model_dump()


class Filters(BaseModel):
    """What both retrievers must honour BEFORE they take their top-k. Empty means 'any'."""

    tickers: list[str] = Field(default_factory=list)
    fiscal_years: list[int] = Field(default_factory=list)
    chunk_types: list[ChunkType] = Field(default_factory=list)

    @field_validator("tickers")
    @classmethod
    def _upper(cls, v: list[str]) -> list[str]:
        return sorted({t.strip().upper() for t in v if t.strip()})

    @field_validator("fiscal_years")
    @classmethod
    def _years(cls, v: list[int]) -> list[int]:
        return sorted(set(v))

    def is_empty(self) -> bool:
        return not (self.tickers or self.fiscal_years or self.chunk_types)

    def matches(self, payload: dict) -> bool:
        """The reference semantics of a filter, used by BM25 and by tests."""
        return (
            (not self.tickers or payload["ticker"] in self.tickers)
            and (not self.fiscal_years or payload["fiscal_year"] in self.fiscal_years)
            and (not self.chunk_types or payload["chunk_type"] in self.chunk_types)
        )


class Hit(BaseModel):
    """A chunk in one ranked list. Fused hits also say where they came from."""

    chunk_id: str
    rank: int  # 1-based, in its own list
    score: float
    chunk: Chunk
    dense_rank: int | None = None
    bm25_rank: int | None = None
    dense_contribution: float = 0.0  # weight / (k + dense_rank)
    bm25_contribution: float = 0.0
    section_contribution: float = 0.0  # the vote of its Item where the question is routed


class SearchResult(BaseModel):
    query: str
    filters: Filters
    dense: list[Hit] = Field(default_factory=list)
    bm25: list[Hit] = Field(default_factory=list)
    fused: list[Hit] = Field(default_factory=list)
    message: str = ""  # e.g. "No indexed chunk matches these filters."
    expansions: list[str] = Field(default_factory=list)  # statement wording added to the query
    routed: list[str] = Field(default_factory=list)  # Items given a vote (finrag.routing)
    generation: str = ""  # the index generation that answered
    timings_ms: dict[str, float] = Field(default_factory=dict)  # embed, dense, bm25, fuse
