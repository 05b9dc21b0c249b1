"""Table cells placed in the columns they are printed in.

An HTML cell's place in its row is the sum of the colspans before it (and of the rowspans above
it), not its rank among the row's filled cells. A 10-K prints a figure as three cells ("$",
"1,577", ")") under a heading cell that spans all three, and a heading such as "Change" spans
both the change in dollars and in percent. Compacting each row on its own puts "Change" over
the second column of figures; placing each cell by position puts it over the first column of
figures it spans.

The columns are those of the rows that hold a figure: the spans of their cells, overlapping
spans joined. Every cell then goes to the first column its span overlaps. Where that cannot be
done without guessing (a cell over no column, two cells of one row in one column) `place`
returns None and the reader keeps each row compacted, as printed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from finrag.ingest.read.common import _NUMBER, _PREFIX, _SUFFIX
from finrag.tablegrid import has_figure

_DASH = re.compile(r"^[-–—]+$")


@dataclass(frozen=True)
class Cell:
    start: int  # the first grid column the cell covers
    end: int  # one past the last
    text: str


def place(rows: list[list[Cell]]) -> list[list[str]] | None:
    """Each row's cells (currency signs and parentheses joined to their number) in the table's
    columns; None where the positions do not place every cell in a column of its own."""
    rows = [merged(row) for row in rows]
    columns = figure_columns(rows)
    if not columns:
        return None
    grid = []
    for row in rows:
        out = [""] * len(columns)
        for cell in row:
            j = next((j for j, (start, end) in enumerate(columns)
                      if start < cell.end and cell.start < end), None)
            if j is None or out[j]:
                return None
            out[j] = cell.text
        grid.append(out)
    return grid


def merged(row: list[Cell]) -> list[Cell]:
    """The filled cells, a "$" or "(" joined to the number after it and a ")" or "%" to the
    number before it ("$" "1,577" ")" -> "$1,577)"), the joined cell covering all of them. A
    sign with no number beside it is a cell of its own: a heading row's "$" and "%" label the
    two columns of a change."""
    out: list[Cell] = []
    prefix: list[Cell] = []
    for cell in (c for c in row if c.text):
        if _PREFIX.match(cell.text):
            prefix.append(cell)
        elif _SUFFIX.match(cell.text) and out and not prefix and _is_amount(out[-1].text):
            out[-1] = _join(out[-1], cell)
        elif _is_amount(cell.text):
            for sign in reversed(prefix):
                cell = _join(sign, cell)  # noqa: PLW2901 (each sign joined in turn)
            out.append(cell)
            prefix = []
        else:
            out += prefix + [cell]
            prefix = []
    return out + prefix


def figure_columns(rows: list[list[Cell]]) -> list[tuple[int, int]]:
    """(start, end) of each column: the spans of the cells of rows holding a figure (not a
    year, a date's day or a footnote marker), where spans overlap joined into one column, left
    to right."""
    spans = sorted((c.start, c.end) for row in rows if any(_is_figure(c.text) for c in row)
                   for c in row)
    out: list[tuple[int, int]] = []
    for start, end in spans:
        if out and start < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _is_figure(text: str) -> bool:
    """A figure, not a year, a date's day or a footnote marker ("(1)")."""
    return bool(_NUMBER.match(text)) and has_figure(text)


def _is_amount(text: str) -> bool:
    """A number a sign belongs to ("1,577", "16", "(1,577" once joined) or a dash for nil."""
    return bool(_NUMBER.match(text) or _DASH.match(text))


def _join(a: Cell, b: Cell) -> Cell:
    return Cell(min(a.start, b.start), max(a.end, b.end), a.text + b.text)
