"""Choosing a company's figures from its statement facts: the fact that is a line item of a
fiscal year (or a narrower line the question names), most trusted first.

Order of trust: inline XBRL over a table cell read from text, the concept analysts mean (in
`finrag.lineitems` order), the consolidated figure (no dimensions), the statement the item
belongs to, and the filing of the year asked (a comparative column of a later filing next). Two
different figures where one was expected is a `Missing`, never a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from finrag.facts import Fact
from finrag.lineitems import ITEMS, LineItem, label_matches, normalize, unit_fits

SCALE = {"USD": 1.0, "USD thousands": 1e3, "USD millions": 1e6, "USD billions": 1e9}


class Missing(Exception):
    """A figure the answer needs was not found; the message says which and where it looked."""


@dataclass
class Figure:
    """One cited figure: an item of one fiscal year, read from one fact."""

    name: str  # the item, as the answer names it
    fiscal_year: int
    value: float
    unit: str
    fact: Fact
    note: str = ""

    def in_unit(self, unit: str) -> float:
        return convert(self.value, self.unit, unit)



def convert(value: float, unit: str, to: str) -> float:
    if unit == to:
        return value
    if unit in SCALE and to in SCALE:
        return value * SCALE[unit] / SCALE[to]
    raise Missing(f"a figure in {unit} cannot be given in {to}")



def _days(start: str | None, end: str | None) -> int | None:
    try:
        return (date.fromisoformat(end) - date.fromisoformat(start)).days
    except (TypeError, ValueError):
        return None


def _period_ok(f: Fact, instant: bool, year: int, on: str | None) -> bool:
    """The fact's period is the fiscal year asked (a whole year for a flow, a year end for a
    balance), or ends on the date asked."""
    if instant != (f.period_start is None) and not (f.source == "table" and not instant):
        return False
    if not instant and f.period_start is not None:
        days = _days(f.period_start, f.period_end)
        if days is None or not 340 <= days <= 380:
            return False
    if on is not None:
        return f.period_end == on
    return f.period_fiscal_year == year


def _is_item(f: Fact, item: LineItem) -> int | None:
    """How well the fact is the item (0 best), or None: its concept, else its printed label."""
    if f.concept in item.concepts:
        return item.concepts.index(f.concept)
    if label_matches(item, f.line_label):
        return len(item.concepts)
    return None


class Book:
    """The facts of one company, asked for items by fiscal year."""

    def __init__(self, facts: list[Fact], ticker: str, asked_year: int | None) -> None:
        self.facts = [f for f in facts if f.ticker == ticker]
        self.ticker = ticker
        self.asked_year = asked_year
        self._memo: dict = {}
        self._vocabulary: set[str] | None = None

    def filing_rank(self, f: Fact, year: int) -> tuple:
        """The filing of the year asked first, then later filings (comparatives), then older."""
        anchor = max(self.asked_year or year, year)
        gap = f.fiscal_year - anchor
        return (0, 0) if gap == 0 else ((1, gap) if gap > 0 else (2, -gap))

    def get(self, key: str, year: int, on: str | None = None) -> Figure:
        memo = (key, year, on)
        if memo not in self._memo:
            self._memo[memo] = self._get(ITEMS[key], year, on)
        found = self._memo[memo]
        if isinstance(found, Missing):
            raise found
        return found

    def _get(self, item: LineItem, year: int, on: str | None):
        ranked = []
        net = "net" in words_of(item.name)
        for f in self.facts:
            if f.dims or not unit_fits(item, f.unit) or not _period_ok(f, item.instant, year, on):
                continue
            how = _is_item(f, item)
            if how is None or (f.statement != item.statement and (
                    f.source == "table" or not label_matches(item, f.line_label))):
                continue  # off its statement only an XBRL row printed under the item's name
            if net and self._gross(f):
                continue
            ranked.append(((f.source != "xbrl", f.statement != item.statement, how,
                            self.filing_rank(f, year)), f))
        when = f"at {on}" if on else f"fiscal {year}"
        if not ranked:
            return Missing(f"{item.name} for {when} ({self.ticker}): not found in the indexed "
                           f"facts")
        return self._one(ranked, item.name, year, item.outflow, when, "net" if net else "")

    def _gross(self, f: Fact) -> bool:
        """A line printed before its accumulated depreciation (or labelled gross) is the gross
        amount: "Property, plant and equipment 20,000 / Less accumulated depreciation (8,000)"."""
        label = words_of(f.line_label)
        if "gross" in label:
            return True
        if "net" in label or f.source == "xbrl":
            return False
        return any(f2.filing_key == f.filing_key and f2.page == f.page
                   and f2.period_end == f.period_end and "accumulated" in words_of(f2.line_label)
                   and "depreciation" in words_of(f2.line_label) for f2 in self.facts)

    def _one(self, ranked, name: str, year: int, outflow: bool, when: str, prefer: str = ""):
        ranked.sort(key=lambda r: (r[0], r[1].page or 0))
        best_key = ranked[0][0]
        group = [f for k, f in ranked if k == best_key]
        values = {round(abs(f.value) if outflow else f.value, 6) for f in group}
        if len(values) > 1 and prefer and any(prefer in words_of(f.line_label) for f in group):
            group = [f for f in group if prefer in words_of(f.line_label)]  # "net" for a net item
            values = {round(abs(f.value) if outflow else f.value, 6) for f in group}
        if len(values) > 1:
            shortest = min(len(normalize(f.line_label)) for f in group)
            group = [f for f in group if len(normalize(f.line_label)) == shortest]
            values = {round(abs(f.value) if outflow else f.value, 6) for f in group}
        if len(values) > 1 and all(f.source == "table" for f in group) and len(
                {f.filing_key for f in group}) == 1:
            first = min(f.page or 0 for f in group)  # the statement itself precedes the notes'
            group = [f for f in group if (f.page or 0) == first]  # condensed ones
            values = {round(abs(f.value) if outflow else f.value, 6) for f in group}
        if len(values) > 1:
            shown = "; ".join(sorted({f"'{f.line_label}' {abs(f.value) if outflow else f.value:,g}"
                                      for f in group}))
            return Missing(f"{name} for {when} ({self.ticker}): the filing prints different "
                           f"figures ({shown}) where one was expected")
        f = group[0]
        value = abs(f.value) if outflow else f.value
        note = ""
        if f.fiscal_year != year and f.period_fiscal_year is not None:
            note = f"from the fiscal {f.fiscal_year} filing"
        return Figure(name, year, value, f.unit, f, note)

    def named_line(self, words: tuple[str, ...], item: LineItem | None, year: int,
                   on: str | None) -> Figure:
        """A line narrower than a known item, named by the question's own words ('iPhone' net
        sales, 'unearned' revenue): a fact whose printed label holds every such word and no
        other word than the item's."""
        allowed = set(words) | {"total", "net", "of", "and"}
        if item is not None:
            allowed |= words_of(item.name) | set(stem(re.findall(r"[a-z&]+", item.asked)))
        asked = set(words) | (words_of(item.name) if item is not None else set())
        ranked = []
        for f in self.facts:
            tokens = words_of(f.line_label)
            if not tokens or not set(words) <= tokens or not tokens <= allowed:
                continue
            if item is not None and (not unit_fits(item, f.unit) or (
                    f.source == "xbrl" and f.concept not in item.concepts)):
                continue
            instant = f.period_start is None and f.source == "xbrl"
            if not _period_ok(f, instant, year, on):
                continue
            ranked.append(((-len(tokens & asked), f.source != "xbrl", len(f.dims),
                            f.statement != (item.statement if item else None),
                            self.filing_rank(f, year)), f))
        label = " ".join(words)
        when = f"at {on}" if on else f"fiscal {year}"
        if not ranked:
            return _raise(Missing(f"a line '{label}' for {when} ({self.ticker}): no printed "
                                  "line of that name among the indexed facts"))
        found = self._one(ranked, label, year, bool(item and item.outflow), when)
        return _raise(found) if isinstance(found, Missing) else found

    def prints(self, key: str) -> bool:
        """Whether any of the company's facts, of any year, is the item."""
        item = ITEMS[key]
        return any(not f.dims and unit_fits(item, f.unit) and _is_item(f, item) is not None
                   for f in self.facts)

    def mentions(self, key: str) -> bool:
        """Whether any label of the item's statement, of any year, holds the first word of the
        item's name ('cost' for cost of goods sold, 'operating' for operating income)."""
        item = ITEMS[key]
        first = next(iter(words_of(item.name.split()[0])), "")
        return any(f.statement == item.statement and first in words_of(f.line_label)
                   for f in self.facts)

    def lines(self, statement: str, year: int) -> list[str]:
        """The labels the company's `statement` prints for fiscal `year`, in page order."""
        rows = sorted((f.page or 0, f.line_label) for f in self.facts
                      if f.statement == statement and not f.dims and f.period_fiscal_year == year
                      and f.fiscal_year == (self.asked_year or year))
        return list(dict.fromkeys(label for _, label in rows))

    def vocabulary(self) -> set[str]:
        if self._vocabulary is None:
            self._vocabulary = {w for f in self.facts for w in words_of(f.line_label)}
        return self._vocabulary


def _raise(x):
    if isinstance(x, Exception):
        raise x
    return x


@lru_cache(maxsize=65536)
def words_of(label: str) -> frozenset[str]:
    return frozenset({w[:-1] if w.endswith("s") and len(w) > 3 else w
            for w in re.findall(r"[a-z][a-z&]*", normalize(label))})


def stem(words) -> tuple[str, ...]:
    return tuple(w[:-1] if w.endswith("s") and len(w) > 3 else w for w in words)

