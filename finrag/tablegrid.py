"""A table chunk's grid as an analyst reads it: header rows, columns labelled by period, unit line.

`header_rows(rows)` is the rule ingest uses to carry a table's heading rows (the periods) to every
part of a split table; `table_view(chunk)` turns a stored grid into a `TableView` for display
and CSV. A column is labelled by its period only when the heading rows label exactly the columns
that hold figures; otherwise the heading rows stay rows of the grid, as printed, so no figure is
ever shown under a period it does not belong to.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass

MAX_HEADER_ROWS = 3
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
_FOOTNOTE = re.compile(r"\(\d{1,2}\)|\*")
_DAY = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b",
                  re.IGNORECASE)
_UNIT = re.compile(r"\b(?:in|dollars in|amounts in|\$ in)\s+(?:millions|thousands|billions)\b|"
                   r"\((?:in |dollars in |amounts in )?(?:millions|thousands|billions)\b[^)]*\)",
                   re.IGNORECASE)
_NUMBER = re.compile(r"^[\s$€£(]*[-–—]?\$?\s*\(?\d[\d,]*(?:\.\d+)?\)?\s*%?\)?\s*$"
                     r"|^\s*[-–—]\s*$")


def has_figure(cell: str) -> bool:
    """A number that is not a year or a footnote marker ('2024 (2)' is a heading)."""
    rest = _FOOTNOTE.sub(" ", _YEAR.sub(" ", _DAY.sub(" ", cell)))
    return any(ch.isdigit() for ch in rest)


def _is_period(cell: str) -> bool:
    return bool(_YEAR.search(cell)) and not has_figure(cell)


def header_rows(rows: list[list[str]]) -> int:
    """How many leading rows are headings (periods, unit line): rows without a figure that are
    not a section label alone on its row, up to 3, leaving at least one row of figures."""
    n = 0
    while n < min(MAX_HEADER_ROWS, len(rows) - 1):
        row = rows[n]
        filled = [c for c in row if c.strip()]
        if any(has_figure(c) for c in row) or (row[0].strip() and len(filled) < 2):
            break
        n += 1
    return n


@dataclass(frozen=True)
class TableView:
    columns: list[str]  # one label per column; the first is the line item's
    rows: list[list[str]]  # body rows (heading rows too where the columns are not labelled)
    unit: str  # the unit line ("dollars in millions", "(In millions, except per share)") or ""
    labelled: bool  # columns carry their period labels

    def csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(self.columns)
        writer.writerows(self.rows)
        return out.getvalue()

    def numeric_columns(self) -> list[str]:
        """Columns whose filled cells are all figures (shown right-aligned)."""
        out = []
        for j, name in enumerate(self.columns):
            cells = [r[j] for r in self.rows if j < len(r) and r[j].strip()]
            if j and cells and all(_NUMBER.match(c) for c in cells):
                out.append(name)
        return out


def table_view(grid: list[list[str]], text: str = "") -> TableView:
    """The grid of a table chunk for display; `text` (the chunk's text) may hold the unit line."""
    rows = [list(r) for r in grid if any(c.strip() for c in r)]
    width = max((len(r) for r in rows), default=0)
    rows = [r + [""] * (width - len(r)) for r in rows]
    n = header_rows(rows)
    head, body = rows[:n], rows[n:]
    unit = _unit_line(head, text)
    head = [_aligned(r) for r in head if not _only_unit(r)]
    keep = [j for j in range(width) if any(r[j].strip() for r in head + body)]
    head = [[r[j] for j in keep] for r in head]
    body = [[r[j] for j in keep] for r in body]
    labels = [" ".join(r[j].strip() for r in head if r[j].strip()) for j in range(len(keep))]
    data_cols = {j for r in body for j in range(1, len(keep)) if r[j].strip()}
    named = {j for j in range(1, len(keep)) if labels[j]}
    if head and named == data_cols:
        return TableView(_unique(["Line item"] + labels[1:]), body, unit, True)
    columns = _unique(["Line item"] + [""] * (len(keep) - 1))
    return TableView(columns, head + body, unit, False)


def _unit_line(head: list[list[str]], text: str) -> str:
    for row in head:
        for cell in row:
            if _UNIT.search(cell):
                return cell.strip()
    for line in text.splitlines()[:3]:
        m = _UNIT.search(line)
        if m:
            return m.group(0).strip()
    return ""


def _only_unit(row: list[str]) -> bool:
    """A heading row that says only the unit ('dollars in millions' and per-column '$')."""
    filled = [c.strip() for c in row if c.strip()]
    return bool(filled) and bool(_UNIT.search(filled[0])) and all(
        not _YEAR.search(c) for c in filled)


def _aligned(row: list[str]) -> list[str]:
    """A heading row whose first cell is a period lost its empty label cell: shift it right."""
    if row[0].strip() and _is_period(row[0]) and not row[-1].strip():
        filled = [c for c in row if c.strip()]
        return [""] + filled + [""] * (len(row) - 1 - len(filled))
    if row[0].strip() and _UNIT.search(row[0]):
        return [""] + row[1:]
    return row


def _unique(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for i, name in enumerate(names):
        if not name:
            out.append(" " * (i + 1))  # blank, but distinct
            continue
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return out
