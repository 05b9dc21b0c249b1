"""A company's points: its figure or metric for each fiscal year asked, each read as
`finrag.answer` reads it (the same `Book` picks the fact, the same `finrag.metrics` formulas), so
a point is right or absent. A point comes from the year's own 10-K first, else a later filing's
comparative column; where the latest later filing that prints it prints another value, the point
keeps its own and carries the restated one. `finrag.series` makes series, peers and rankings of
them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from finrag.answer import stated_figure
from finrag.book import SCALE, Book, Figure, Missing, convert
from finrag.citing import term
from finrag.lineitems import ITEMS
from finrag.metrics import USES, metric_year
from finrag.question import AVERAGED_BALANCE_METRICS, Question


@dataclass
class Point:
    """One company's figure (or metric) for one of its fiscal years, with what it was read from."""

    ticker: str
    fiscal_year: int
    value: float
    unit: str
    formula: str
    figures: list[Figure]
    restated: tuple[float, int] | None = None  # (value, fiscal year of the filing printing it)

    @property
    def own(self) -> list[Figure]:
        """The figures of the point's own year (an average's prior-year balance aside)."""
        return [f for f in self.figures if f.fiscal_year == self.fiscal_year] or self.figures

    @property
    def filing_fiscal_year(self) -> int:
        return max(f.fact.fiscal_year for f in self.own)

    @property
    def period_end(self) -> str | None:
        return max((f.fact.period_end or "" for f in self.own), default="") or None


def point(q: Question, book: Book, year: int) -> Point:
    """The question's figure or metric for one fiscal year of the book's company."""
    if q.metric:
        s = metric_year(q, book, year)
        return Point(book.ticker, year, s.value, s.unit, s.formula, s.figures)
    fig = stated_figure(q, book, q.items[0], year)
    return Point(book.ticker, year, fig.value, fig.unit, term(fig), [fig])


def statements(q: Question) -> tuple[str, ...]:
    """The statements a company's facts are read from: those of the items the figure uses (a
    narrower line, 'iPhone net sales', may be printed in the notes: all)."""
    if q.rest:
        return ()
    keys = USES.get(q.metric, set()) | {i.key for i in q.items} if q.metric else {q.items[0].key}
    return tuple(sorted({ITEMS[k].statement for k in keys | (
        {"revenue"} if q.metric == "item_margin" else set())}))


def periods(q: Question, years) -> tuple[int, ...]:
    """The period years a company's facts are read for: an average balance needs the year before."""
    extra = {y - 1 for y in years} if q.metric in AVERAGED_BALANCE_METRICS or q.change else set()
    return tuple(sorted(set(years) | extra))


def company_points(q: Question, facts: list, ticker: str, years) -> tuple[list[Point], list[dict]]:
    """A company's point for each year (each checked against the later filings that print it),
    and the years with no figure, each with the reason."""
    book = Book(facts, ticker, None)  # no anchor: each year's own filing first
    filings = sorted({f.fiscal_year for f in book.facts}, reverse=True)
    later: dict[int, Book] = {}
    points, missing = [], []
    for y in years:
        try:
            p = point(q, book, y)
        except Missing as exc:
            missing.append({"ticker": ticker, "fiscal_year": y, "reason": str(exc)})
            continue
        _check_restated(q, book.facts, filings, p, later)
        points.append(p)
    return points, missing


def _check_restated(q: Question, facts: list, filings: list[int], p: Point,
                    books: dict) -> None:
    """Where the latest later filing that prints the point's figure prints another value, keep
    it beside the point (an original figure and its restatement are both real)."""
    own = p.filing_fiscal_year
    for g in (g for g in filings if g > own):
        if g not in books:
            books[g] = Book([f for f in facts if f.fiscal_year == g], p.ticker, None)
        try:
            other = point(q, books[g], p.fiscal_year)
        except Missing:
            continue
        if _differs(p, other):
            p.restated = (convert(other.value, other.unit, p.unit), g)
        return


def _differs(a: Point, b: Point) -> bool:
    """Two readings of one figure differ by more than the coarser one's printed rounding."""
    if len(a.figures) == len(b.figures):
        return any(_figure_differs(x, y) for x, y in zip(a.figures, b.figures))
    return abs(a.value - b.value) > 1e-3 * max(abs(a.value), abs(b.value), 1e-9)


def _figure_differs(x: Figure, y: Figure) -> bool:
    if x.unit in SCALE and y.unit in SCALE:
        coarse = max(SCALE[x.unit], SCALE[y.unit])
        return abs(x.value * SCALE[x.unit] - y.value * SCALE[y.unit]) > 0.5 * coarse + 1e-6
    return x.unit != y.unit or abs(x.value - y.value) > 1e-9


def one_unit(points: list[Point], asked: str | None) -> tuple[str, list[Point], list[dict]]:
    """The unit the points are shown in (the question's, else the most common one) with every
    point converted to it; points that cannot be (a per-share figure among amounts) go missing."""
    units = Counter(p.unit for p in points)
    unit = asked if asked in SCALE and all(u in SCALE for u in units) else (
        units.most_common(1)[0][0] if units else "")
    kept, missing = [], []
    for p in points:
        try:
            p.value = convert(p.value, p.unit, unit)
            if p.restated:
                p.restated = (convert(p.restated[0], p.unit, unit), p.restated[1])
            p.unit = unit
            kept.append(p)
        except Missing:
            missing.append({"ticker": p.ticker, "fiscal_year": p.fiscal_year,
                            "reason": f"printed in {p.unit}, not {unit}"})
    return unit, kept, missing


def rounded(points: list[Point], decimals: int | None) -> None:
    for p in points:
        p.value = round(p.value, decimals if decimals is not None else 6)
