"""Which line of a statement is the largest, the smallest, or above a share: "Which cash flow
activity brought in the most cash in 2024?", "Which segment had the highest revenue?", "Are
there any product categories that represent more than 20% of revenue?".

The lines ranked are ones a rule picks from the filing, never a guess:
- cash flow activities: the net cash of operating, investing and financing activities;
- the parts of revenue (segments, products, categories): the revenue figures of one XBRL axis
  (segments, or products and services) that add up to total revenue, or else the rows of one
  statement table that add up to the total revenue printed in it (to the rounding of the print:
  half a unit a part). Parts that do not add up to the total are no answer: a list missing a
  part, or holding another line, would rank wrongly.
"""

from __future__ import annotations

from dataclasses import dataclass

from finrag.book import SCALE, Book, Figure, Missing, convert, words_of
from finrag.citing import fmt, label
from finrag.facts import Fact
from finrag.lineitems import ITEMS, label_matches
from finrag.question import Question, Ranking

ROUNDING = 0.5  # each printed part may be off the exact figure by half a unit of its print
ACTIVITIES = ("cfo", "cfi", "cff")
_SET_NAMES = {"activities": "cash flow activities", "segments": "segments",
              "products": "product and service lines"}
_AXES = {"segments": ("SegmentsAxis", "ProductOrServiceAxis"),
         "products": ("ProductOrServiceAxis", "SegmentsAxis")}


@dataclass
class Ranked:
    verdict: str | None  # for a yes / no question: "yes" | "no"
    text: str
    figures: list[Figure]  # in rank order
    total: Figure | None


def rank(q: Question, book: Book, company: str) -> Ranked:
    r = q.ranking
    year = q.year
    if r.scope == "activities":
        figures = [book.get(k, year) for k in ACTIVITIES]
        total = None
    else:
        total = book.get("revenue", year)
        figures = _parts(book, total, r.scope, year)
    if r.order == "share":
        return _share(q, r, figures, total, company)
    reverse = r.order == "max"
    ordered = sorted(figures, key=lambda f: _usd(f), reverse=reverse)
    top = ordered[0]
    word = {"max": "the largest", "min": "the smallest"}[r.order]
    shown = "; ".join(f"{_label(f)} {fmt(f.value, f.unit)}{_pct(f, total)}" for f in ordered)
    text = (f"{_label(top)} — {company}, {word} of {len(ordered)} {_SET_NAMES[r.scope]} in "
            f"fiscal {year}: "
            f"{shown}")
    return Ranked(None, text, ordered, total)


def _share(q: Question, r: Ranking, figures: list[Figure], total: Figure | None, company: str
           ) -> Ranked:
    if total is None:
        raise Missing("a total to take shares of")
    above = [f for f in figures if _usd(f) / _usd(total) * 100 > r.share]
    above.sort(key=_usd, reverse=True)
    shown = "; ".join(f"{_label(f)} {fmt(f.value, f.unit)}{_pct(f, total)}"
                      for f in sorted(figures, key=_usd, reverse=True))
    lead = (", ".join(_label(f) for f in above) + f" above {r.share:g}%") if above else (
        f"none above {r.share:g}%")
    text = (f"{'Yes' if above else 'No'} — {company}, fiscal {q.year}: {lead} of "
            f"{fmt(total.value, total.unit)} {label(total.fact.line_label).lower()}; {shown}")
    return Ranked("yes" if above else "no", text, above or figures, total)


def _usd(f: Figure) -> float:
    return convert(f.value, f.unit, "USD") if f.unit in SCALE else f.value


def _pct(f: Figure, total: Figure | None) -> str:
    return f" ({_usd(f) / _usd(total) * 100:.1f}%)" if total is not None and _usd(total) else ""


def _label(f: Figure) -> str:
    """The line as printed ('Net cash provided by (used in) financing activities')."""
    return label(f.fact.line_label) or f.name


def _parts(book: Book, total: Figure, scope: str, year: int) -> list[Figure]:
    """The figures that add up to total revenue: an XBRL axis's members, else a table's rows."""
    by_axis: dict[str, list[Fact]] = {}
    for f in book.facts:
        if (len(f.dims) == 1 and f.concept in ITEMS["revenue"].concepts
                and f.period_fiscal_year == year and f.period_start is not None
                and f.fiscal_year == total.fact.fiscal_year):
            by_axis.setdefault(f.dims[0].split("=")[0], []).append(f)
    for suffix in _AXES.get(scope, _AXES["segments"]):
        for axis, facts in sorted(by_axis.items()):
            if axis.endswith(suffix) and _adds_up(facts, total):
                return [_figure(f, year) for f in _one_each(facts)]
    for chunk, facts in sorted(_table_rows(book, total, year).items()):
        if _adds_up(facts, total):
            return [_figure(f, year) for f in facts]
    raise Missing(f"the parts of {total.fact.line_label} for fiscal {year} ({book.ticker}): no "
                  "segment, product or table rows that add up to it")


def _one_each(facts: list[Fact]) -> list[Fact]:
    seen: dict[str, Fact] = {}
    for f in facts:
        seen.setdefault(f.dims[0], f)
    return list(seen.values())


def _table_rows(book: Book, total: Figure, year: int) -> dict[str, list[Fact]]:
    """Per table holding the total revenue row: its other rows of that period."""
    t = total.fact
    chunks = {f.chunk_id for f in book.facts if f.chunk_id and f.source == "table"
              and f.period_end == t.period_end and label_matches(ITEMS["revenue"], f.line_label)
              and abs(_value(f, t.unit) - t.value) <= ROUNDING}
    rows: dict[str, list[Fact]] = {}
    for f in book.facts:
        if (f.chunk_id in chunks and f.source == "table" and f.period_end == t.period_end
                and not f.dims and f.unit in SCALE and f.value > 0
                and not label_matches(ITEMS["revenue"], f.line_label)
                and "total" not in words_of(f.line_label)):
            rows.setdefault(f.chunk_id, []).append(f)
    return rows


def _value(f: Fact, unit: str) -> float:
    return convert(f.value, f.unit, unit) if f.unit in SCALE and unit in SCALE else f.value


def _adds_up(facts: list[Fact], total: Figure) -> bool:
    parts = _one_each(facts) if facts and facts[0].dims else facts
    if len(parts) < 2:
        return False
    labels = [f.line_label for f in parts]
    if len(set(labels)) != len(labels):
        return False  # a label twice: two measures of each part in one table
    s = sum(_value(f, total.unit) for f in parts)
    return abs(s - total.value) <= ROUNDING * len(parts)  # rounding only, in the total's unit


def _figure(f: Fact, year: int) -> Figure:
    name = f.line_label
    if f.dims and (not name or len(name) > 60):
        name = f.dims[0].split("=")[-1].split(":")[-1].removesuffix("Member")
    return Figure(name, year, f.value, f.unit, f)
