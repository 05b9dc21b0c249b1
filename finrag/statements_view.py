"""A filing's three statements as tables, from its facts: the income statement, the balance
sheet and the cash flow statement, the fiscal years the filing prints as columns, rows in the
order printed, each row with the page it is printed on.

Plain data for any surface: `filing_statements` returns `StatementTable`s (header, rows, unit
line); the app shows them and opens a row's page.

Rules, from the facts alone:
- A statement's facts are those ingest classed on it (`Fact.statement`) on its own pages: the
  pages holding over a quarter as many of its facts as its busiest page (a note that
  repeats a few lines elsewhere stays out), none without a page.
- Columns: the period fiscal years with over a quarter as many facts as the busiest
  (a cash flow statement's opening cash balance of the year before the earliest column is
  no column), latest first, as 10-Ks print them. A row of balances on a flow statement whose
  years run one before the columns (opening cash) moves to the column it is printed under.
- Rows: document order. A row is a line label with its XBRL concept, dimensions and unit; the
  same label printed again (Tesla's "Automotive sales" under revenues and under cost of
  revenues) is a row of its own; figures printed inside a line's label (par value, shares
  authorized) are left out where the line has its amount. The value is the figure as printed
  where known.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from finrag.facts import Fact

STATEMENTS = (("income", "Income statement"), ("balance", "Balance sheet"),
              ("cash_flow", "Cash flow statement"))
SHARE = 0.25  # a page or column with no more than this share of the busiest one's facts: out


@dataclass(frozen=True)
class FilingChoice:
    """An indexed filing, as a picker offers it."""

    key: str
    ticker: str
    fiscal_year: int
    source: str


@dataclass
class StatementRow:
    label: str
    values: list[str]  # one per column, as printed; "" where the filing prints none
    unit: str  # the row's unit ("USD millions", "USD per share", "shares millions")
    page: int | None  # 1-based page position of the row in the document
    page_label: str | None  # the printed page number
    chunk_id: str | None  # the passage the row is printed in

    def mark(self) -> str:
        """The row as the page view marks it: "label | v1 | v2"."""
        return " | ".join([self.label, *(v for v in self.values if v)])


@dataclass
class StatementTable:
    statement: str  # "income" | "balance" | "cash_flow"
    title: str
    columns: list[str]  # "FY2024", or the balance sheet's date ("2024-12-31")
    unit: str  # the unit of most rows; a row in another unit says so
    rows: list[StatementRow] = field(default_factory=list)

    @property
    def pages(self) -> list[tuple[int, str | None]]:
        """(page, printed label) the statement is printed on, in order."""
        labels: dict[int, str | None] = {}
        for r in self.rows:
            if r.page:
                labels[r.page] = labels.get(r.page) or r.page_label
        return sorted(labels.items())

    def header(self) -> list[str]:
        return ["Line", *self.columns]

    def grid(self) -> list[list[str]]:
        """Rows as cells: the label (its unit beside it where it is not the table's), then the
        values."""
        return [[r.label if r.unit == self.unit else f"{r.label} ({r.unit})", *r.values]
                for r in self.rows]


def filing_choices(index) -> dict[str, FilingChoice]:
    """Every indexed filing by its name in a picker ("TSLA FY2024"; a second filing of the
    same company and year, such as a 10-K/A, adds its key), by ticker then fiscal year; none
    for an index read from a Qdrant server alone (it keeps no filing list)."""
    if not hasattr(index, "filings"):
        return {}
    filings = sorted((FilingChoice(key, f["ticker"], int(f["fiscal_year"]), f["source"])
                      for key, f in index.filings().items()),
                     key=lambda c: (c.ticker, c.fiscal_year, c.key))
    out: dict[str, FilingChoice] = {}
    for c in filings:
        name = f"{c.ticker} FY{c.fiscal_year}"
        out[name if name not in out else f"{name} ({c.key})"] = c
    return out


def filing_statements(index, filing_key: str) -> list[StatementTable]:
    """The filing's income statement, balance sheet and cash flow statement (each only where
    its facts are indexed)."""
    facts = index.filing_facts([filing_key]).get(filing_key, [])
    tables = [statement_table(facts, name, title) for name, title in STATEMENTS]
    return [t for t in tables if t.rows]


def statement_table(facts: list[Fact], statement: str, title: str) -> StatementTable:
    own = _own_pages([f for f in facts if f.statement == statement and f.page])
    years = _columns(own)
    if not years:
        return StatementTable(statement, title, [], "")
    flow = statement != "balance"
    rows: dict[tuple, StatementRow] = {}
    order: list[tuple] = []
    filled: dict[tuple, dict[int, str]] = {}
    for f in _shift_openings(own, years, flow):
        year = f.period_fiscal_year
        if year not in years:
            continue
        key = _row_key(f, filled, year, order)
        if key not in rows:
            rows[key] = StatementRow(f.line_label, [""] * len(years), f.unit, f.page,
                                     f.page_label, f.chunk_id)
            order.append(key)
            filled[key] = {}
        filled[key][year] = shown(f)
        rows[key].values[years.index(year)] = shown(f)
    unit = Counter(f.unit for f in own).most_common(1)[0][0]
    columns = [f"FY{y}" for y in years] if flow else [_date_of(own, y) for y in years]
    return StatementTable(statement, title, columns, unit, _lines([rows[k] for k in order], unit))


def _lines(rows: list[StatementRow], unit: str) -> list[StatementRow]:
    """The rows less the figures printed inside another line's label (a balance sheet's
    "Common stock; $0.001 par value; 6,000 shares authorized": its par value and share counts
    are rows in other units under the same label; the line's amount stays)."""
    amounts = {r.label for r in rows if r.unit == unit}
    return [r for r in rows if r.unit == unit or r.label not in amounts]


def _own_pages(facts: list[Fact]) -> list[Fact]:
    counts = Counter(f.page for f in facts)
    if not counts:
        return []
    busiest = max(counts.values())
    return [f for f in facts if counts[f.page] > SHARE * busiest]


def _columns(facts: list[Fact]) -> list[int]:
    counts = Counter(f.period_fiscal_year for f in facts if f.period_fiscal_year)
    if not counts:
        return []
    busiest = max(counts.values())
    return sorted((y for y, n in counts.items() if n > SHARE * busiest), reverse=True)


def _shift_openings(facts: list[Fact], years: list[int], flow: bool) -> list[Fact]:
    """A balance row on a flow statement whose years run one before the columns (the opening
    cash of each year) placed under the year it opens."""
    if not flow:
        return facts
    by_row: dict[tuple, list[Fact]] = {}
    for f in facts:
        if f.period_start is None:
            by_row.setdefault((f.concept, tuple(f.dims), f.line_label), []).append(f)
    out = {id(f): f for f in facts}
    for members in by_row.values():
        held = {f.period_fiscal_year for f in members}
        if not held <= set(years) and {y + 1 for y in held if y} <= set(years):
            for f in members:
                out[id(f)] = f.model_copy(update={"period_fiscal_year": f.period_fiscal_year + 1})
    return list(out.values())


def _row_key(f: Fact, filled: dict, year: int, order: list[tuple]) -> tuple:
    """The row a fact belongs to: its label, concept, dimensions and unit, a new row where that
    row already has this year (the label printed again further down)."""
    base = (f.line_label, f.concept, tuple(f.dims), f.unit)
    repeats = [k for k in order if k[:4] == base]
    if repeats and year in filled[repeats[-1]]:
        return (*base, len(repeats))
    return repeats[-1] if repeats else (*base, 0)


def shown(f: Fact) -> str:
    """The figure as the statement prints it, without its currency sign; formatted from the
    value where the printed text is unknown."""
    if f.printed:
        return f.printed.replace("$", "").strip()
    if f.unit == "USD per share":
        text = f"{abs(f.value):,.2f}"
    else:
        text = f"{abs(f.value):,.0f}" if f.value == int(f.value) else f"{abs(f.value):,.2f}"
    return f"({text})" if f.value < 0 else text


def _date_of(facts: list[Fact], year: int) -> str:
    """The balance sheet date of a column: its facts' most common period end."""
    ends = Counter(f.period_end for f in facts if f.period_fiscal_year == year and f.period_end)
    return ends.most_common(1)[0][0] if ends else f"FY{year}"
