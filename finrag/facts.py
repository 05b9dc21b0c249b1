"""Statement facts: the figures a filing prints, as typed records an answer can cite.

A `Fact` is one number of one filing: an inline-XBRL `ix:nonFraction` (exact: concept, context
period, dimensions, scale, sign) or a cell of a statement table read from its row label, its
column's period and the table's unit line (HTML without XBRL, PDF, text). Ingest extracts them
next to the chunks (a stage of its own, idempotent on re-ingest) and stores them with the index
generation; answers look them up by company, fiscal year and line item.

Contract shared by the extraction stage (ingest) and the answer code (finrag.answer):
- `value` is the number in `unit` as the filing prints it, sign applied ("(1,577)" in a table
  "in millions" -> -1577.0 with unit "USD millions"; an XBRL fact with scale 6 -> millions).
- `fiscal_year` is the filing's fiscal year; `period_fiscal_year` is the company's own fiscal
  year of the period the number belongs to (a comparative column of a 2024 10-K is 2023).
- `dims` is empty for a consolidated total; a segment or product figure names its axis=member.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

FactSource = Literal["xbrl", "table"]
# The statement a figure is printed on; "other" for notes and MD&A tables.
Statement = Literal["income", "balance", "cash_flow", "equity", "other"]


class Fact(BaseModel):
    ticker: str
    fiscal_year: int  # the filing's fiscal year
    filing_key: str  # the filing it was read from (same key as its chunks)
    source: FactSource
    concept: str | None = None  # e.g. "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment"
    dims: list[str] = Field(default_factory=list)  # ["srt:ProductOrServiceAxis=aapl:IPhoneMember"]
    line_label: str  # the row label as printed ("Purchases of property, plant and equipment")
    statement: Statement = "other"
    period_start: str | None = None  # ISO date; None for an instant (balance sheet) figure
    period_end: str | None = None  # ISO date
    period_fiscal_year: int | None = None  # the company's fiscal year of that period
    value: float
    unit: str  # "USD millions" | "USD thousands" | "USD billions" | "USD" | "USD per share" | ...
    page: int | None = None  # 1-based page index in the document
    page_label: str | None = None  # the page number printed on that page, where it prints one
    chunk_id: str | None = None  # the chunk the figure is printed in, where known
    printed: str | None = None  # the number as printed ("(23,783)", "$14.91"), where known
    decimals: str | None = None  # XBRL `decimals` ("-6", "2", "INF"); None for table facts
