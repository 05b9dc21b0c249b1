"""The answer to a question: a figure stated from the filing, a metric computed from cited
figures, or a change over fiscal years; or no answer and the reason.

`answer(question, facts)` is pure: it reads a parsed `Question` (finrag.question) and the
`Fact`s of the company's filings (finrag.facts) and returns an `Answer` or a reason. It answers
only when every figure it needs is found with its fiscal year and unit; where it cannot, the
reason says what it looked for and what was missing. Choosing among facts, most trusted first:
inline XBRL over a table cell read from text, the concept analysts mean (in `finrag.lineitems`
order), the consolidated figure (no dimensions), the statement the item belongs to, and the
filing of the year asked (a comparative column of a later filing next). Two different figures
where one was expected is no answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache

from finrag.facts import Fact
from finrag.lineitems import ITEMS, LineItem, label_matches, normalize, unit_fits
from finrag.present import page_words
from finrag.question import Question

SCALE = {"USD": 1.0, "USD thousands": 1e3, "USD millions": 1e6, "USD billions": 1e9}
STATEMENT_NAMES = {"income": "income statement", "balance": "balance sheet",
                   "cash_flow": "cash flow statement", "equity": "statement of equity",
                   "other": "notes / MD&A"}
# per-year averages: these metrics average a balance over the year's start and end
AVERAGED = ("inventory_turnover", "dio", "dpo", "dso", "receivables_turnover",
            "payables_turnover", "asset_turnover", "fixed_asset_turnover", "roa", "roe")


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


@dataclass
class Answer:
    kind: str  # "stated" | "computed" | "change"
    value: float
    unit: str
    text: str
    fiscal_year: int
    formula: str | None = None
    values: dict[str, float] | None = None
    change_pct: float | None = None
    figures: list[Figure] = field(default_factory=list)


@dataclass
class Outcome:
    answer: Answer | None
    reason: str | None


def convert(value: float, unit: str, to: str) -> float:
    if unit == to:
        return value
    if unit in SCALE and to in SCALE:
        return value * SCALE[unit] / SCALE[to]
    raise Missing(f"a figure in {unit} cannot be given in {to}")


# --- picking facts -------------------------------------------------------------------------

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
        for f in self.facts:
            if f.dims or not unit_fits(item, f.unit) or not _period_ok(f, item.instant, year, on):
                continue
            how = _is_item(f, item)
            if how is None or (f.statement != item.statement and (
                    f.source == "table" or not label_matches(item, f.line_label))):
                continue  # off its statement only an XBRL row printed under the item's name
            ranked.append(((f.source != "xbrl", f.statement != item.statement, how,
                            self.filing_rank(f, year)), f))
        when = f"at {on}" if on else f"fiscal {year}"
        if not ranked:
            return Missing(f"{item.name} for {when} ({self.ticker}): not found in the indexed "
                           f"facts")
        return self._one(ranked, item.name, year, item.outflow, when)

    def _one(self, ranked, name: str, year: int, outflow: bool, when: str):
        ranked.sort(key=lambda r: (r[0], r[1].page or 0))
        best_key = ranked[0][0]
        group = [f for k, f in ranked if k == best_key]
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
            shown = ", ".join(f"{v:,g}" for v in sorted(values))
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
            allowed |= _words(item.name) | set(_stem(re.findall(r"[a-z&]+", item.asked)))
        asked = set(words) | (_words(item.name) if item is not None else set())
        ranked = []
        for f in self.facts:
            tokens = _words(f.line_label)
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

    def vocabulary(self) -> set[str]:
        if self._vocabulary is None:
            self._vocabulary = {w for f in self.facts for w in _words(f.line_label)}
        return self._vocabulary


def _raise(x):
    if isinstance(x, Exception):
        raise x
    return x


@lru_cache(maxsize=65536)
def _words(label: str) -> frozenset[str]:
    return frozenset({w[:-1] if w.endswith("s") and len(w) > 3 else w
            for w in re.findall(r"[a-z][a-z&]*", normalize(label))})


def _stem(words) -> tuple[str, ...]:
    return tuple(w[:-1] if w.endswith("s") and len(w) > 3 else w for w in words)


# --- formatting ------------------------------------------------------------------------------

def fmt(value: float, unit: str, decimals: int | None = None) -> str:
    if unit == "percent":
        return f"{value:,.{1 if decimals is None else decimals}f}%"
    if unit in ("ratio", "days"):
        text = f"{value:,.{2 if decimals is None else decimals}f}"
        return text + (" days" if unit == "days" else "")
    if unit == "USD per share":
        return f"${value:,.2f} per share"
    word = {"USD thousands": " thousand", "USD millions": " million", "USD billions": " billion",
            "USD": ""}.get(unit, f" {unit}")
    digits = decimals if decimals is not None else (0 if value == int(value) else 2)
    sign = "-" if value < 0 else ""
    return f"{sign}${abs(value):,.{digits}f}{word}"


def cite(fig: Figure) -> str:
    f = fig.fact
    where = STATEMENT_NAMES.get(f.statement, f.statement)
    page = page_words(f.page_label, f.page)
    parts = [f"'{f.line_label}'", where, page, fig.note]
    return ", ".join(p for p in parts if p)


def _term(fig: Figure) -> str:
    return f"{fig.fact.line_label} FY{fig.fiscal_year} ({fmt(fig.value, fig.unit)})"


# --- answering -------------------------------------------------------------------------------

def answer(q: Question, facts: list[Fact], company: str = "") -> Outcome:
    """The answer to `q` from `facts`, or why there is none."""
    if not q.asks_for_something:
        return Outcome(None, "The question asks for no figure finrag knows (a line item such "
                             "as revenue or capex, or a metric such as a margin or ratio); "
                             "see the passages.")
    if len(q.tickers) != 1:
        why = ("names no indexed company and no ticker filter is set" if not q.tickers else
               f"names several companies ({', '.join(q.tickers)})")
        return Outcome(None, f"The question {why}: pick one company with the ticker filter.")
    ticker = q.tickers[0]
    if not q.years and not q.date:
        years = sorted({f.fiscal_year for f in facts if f.ticker == ticker})
        if not years:
            return Outcome(None, f"No facts are indexed for {ticker}.")
        q = _with_years(q, (years[-1],))
    book = Book(facts, ticker, q.year)
    try:
        return Outcome(_answer(q, book, company or ticker), None)
    except Missing as exc:
        return Outcome(None, f"Looked for {exc}.")


def _with_years(q: Question, years: tuple[int, ...]) -> Question:
    from dataclasses import replace

    return replace(q, years=years)


def _answer(q: Question, book: Book, company: str) -> Answer:
    if q.metric:
        return _computed(q, book, company)
    items = [i for i in q.items]
    if len(items) != 1:
        raise Missing(f"one figure, but the question names {len(items)} line items "
                      f"({', '.join(i.name for i in items)}) and no metric built from them")
    item = items[0]
    if q.change and len(q.years) >= 1:
        return _change(q, book, item, company)
    year = q.year or _year_of(q.date)
    fig = _stated_figure(q, book, item, year)
    return _stated(q, fig, company)


def _year_of(on: str | None) -> int:
    return int(on[:4]) if on else 0


def _narrower(q: Question, book: Book) -> tuple[str, ...]:
    """The question's words that name a line narrower than its item ('iPhone' net sales). A
    word that no printed line of the company uses cannot be found: no answer, rather than the
    item's total for a product or segment the facts do not hold."""
    words = tuple(dict.fromkeys(_stem(q.rest)))
    vocabulary = book.vocabulary()
    unknown = [w for w in words if w not in vocabulary]
    if unknown:
        raise Missing(f"a line for '{' '.join(unknown)}': no printed line of {book.ticker} "
                      "uses that word")
    return words


def _stated_figure(q: Question, book: Book, item: LineItem, year: int) -> Figure:
    extra = _narrower(q, book)
    if extra:
        return book.named_line(extra, item, year, q.date)
    return book.get(item.key, year, q.date)


def _stated(q: Question, fig: Figure, company: str) -> Answer:
    if q.unit in ("USD per share", "percent") and fig.unit != q.unit:
        raise Missing(f"{fig.name} in {q.unit}: the filing prints it in {fig.unit}")
    unit = q.unit if q.unit in SCALE and fig.unit in SCALE else fig.unit
    value = fig.in_unit(unit)
    text = (f"{fmt(value, unit, q.decimals)} — {company}, fiscal {fig.fiscal_year}, "
            f"{cite(fig)}")
    return Answer("stated", _round(value, q.decimals), unit, text, fig.fiscal_year,
                  figures=[fig])


def _round(value: float, decimals: int | None) -> float:
    return round(value, decimals if decimals is not None else 6)


def _change(q: Question, book: Book, item: LineItem, company: str) -> Answer:
    later = q.years[-1]
    earlier = q.years[0] if len(q.years) > 1 else later - 1
    extra = _narrower(q, book)
    pick = (lambda y: book.named_line(extra, item, y, None)) if extra else (
        lambda y: book.get(item.key, y))
    a, b = pick(earlier), pick(later)
    unit = b.unit
    va, vb = a.in_unit(unit), b.in_unit(unit)
    if va == 0:
        raise Missing(f"{item.name} for fiscal {earlier}: zero, so no percent change")
    pct = (vb - va) / abs(va) * 100
    if q.unit == "percent":
        value = _round(pct, q.decimals)
        text = (f"{fmt(pct, 'percent', q.decimals)} — {company}, {a.fact.line_label} fiscal "
                f"{earlier} to {later}: {fmt(va, unit)} -> {fmt(vb, unit)}")
        return Answer("computed", value, "percent", text, later,
                      formula=f"({_term(b)} - {_term(a)}) / {_term(a)} x 100",
                      values={str(earlier): va, str(later): vb}, change_pct=round(pct, 2),
                      figures=[a, b])
    diff = vb - va
    word = "up" if diff >= 0 else "down"
    text = (f"{word} {fmt(abs(diff), unit)} ({pct:+.1f}%) — {company}, "
            f"'{b.fact.line_label}' fiscal {earlier} {fmt(va, unit)} -> fiscal {later} "
            f"{fmt(vb, unit)}")
    return Answer("change", round(diff, 6), unit, text, later,
                  formula=f"{_term(b)} - {_term(a)}", values={str(earlier): va, str(later): vb},
                  change_pct=round(pct, 2), figures=[a, b])


# --- computed metrics ------------------------------------------------------------------------

@dataclass
class Step:
    value: float
    unit: str
    formula: str
    figures: list[Figure]


def _avg(book: Book, key: str, year: int) -> tuple[float, str, list[Figure]]:
    a, b = book.get(key, year - 1), book.get(key, year)
    unit = b.unit
    return ((a.in_unit(unit) + b.in_unit(unit)) / 2, unit,
            f"average({_term(a)}, {_term(b)})"), [a, b]


def _amount_unit(figs: list[Figure]) -> str:
    units = {f.unit for f in figs}
    return units.pop() if len(units) == 1 else "USD millions"


def _ratio(num: Figure, den: Figure, pct: bool, sym: str = "/") -> Step:
    d = den.in_unit(num.unit)
    if d == 0:
        raise Missing(f"{den.name} for fiscal {den.fiscal_year}: zero, so no ratio")
    value = num.value / d * (100 if pct else 1)
    return Step(value, "percent" if pct else "ratio",
                f"{_term(num)} {sym} {_term(den)}" + (" x 100" if pct else ""), [num, den])


def _sum(figs: list[Figure], signs: list[int], name: str, year: int) -> Figure:
    unit = _amount_unit(figs)
    value = sum(s * f.in_unit(unit) for s, f in zip(signs, figs))
    fake = figs[0].fact.model_copy(update={"line_label": name, "value": value, "unit": unit})
    return Figure(name, year, value, unit, fake)


def _days_or_turn(book: Book, avg_key: str, flow: Figure, year: int, days: bool) -> Step:
    (avg, unit, avg_text), figs = _avg(book, avg_key, year)
    f = flow.in_unit(unit)
    if f == 0 or avg == 0:
        raise Missing(f"a non-zero {flow.name} and average {ITEMS[avg_key].name} for fiscal {year}")
    if days:
        return Step(365 * avg / f, "days", f"365 x {avg_text} / {_term(flow)}", figs + [flow])
    return Step(f / avg, "ratio", f"{_term(flow)} / {avg_text}", [flow] + figs)


def _metric_year(q: Question, book: Book, year: int) -> Step:
    """The metric `q.metric` for one fiscal year."""
    m = q.metric
    def g(key):
        return book.get(key, year)
    if m in ("gross_margin", "operating_margin", "net_margin", "ebitda_margin", "item_margin"):
        num = _margin_numerator(q, book, year)
        return _ratio(num, g("revenue"), pct=True)
    if m == "ebitda":
        s = _sum([g("operating_income"), g("dna")], [1, 1], "EBITDA", year)
        oi, dna = g("operating_income"), g("dna")
        return Step(s.value, s.unit, f"{_term(oi)} + {_term(dna)}", [oi, dna])
    if m == "fcf":
        cfo, capex = g("cfo"), g("capex")
        s = _sum([cfo, capex], [1, -1], "free cash flow", year)
        return Step(s.value, s.unit, f"{_term(cfo)} - {_term(capex)}", [cfo, capex])
    if m == "working_capital":
        ca, cl = g("current_assets"), g("current_liabilities")
        s = _sum([ca, cl], [1, -1], "working capital", year)
        return Step(s.value, s.unit, f"{_term(ca)} - {_term(cl)}", [ca, cl])
    if m == "current_ratio":
        return _ratio(g("current_assets"), g("current_liabilities"), pct=False)
    if m == "quick_ratio":
        parts = [g("cash"), g("short_term_investments"), g("accounts_receivable")]
        s = _sum(parts, [1, 1, 1], "quick assets", year)
        step = _ratio(s, g("current_liabilities"), pct=False)
        step.formula = "(" + " + ".join(_term(p) for p in parts) + ") / " + _term(
            g("current_liabilities"))
        step.figures = parts + [g("current_liabilities")]
        return step
    if m == "interest_coverage":
        return _ratio(g("operating_income"), g("interest_expense"), pct=False)
    if m == "effective_tax_rate":
        return _ratio(g("income_tax"), g("pretax_income"), pct=True)
    if m == "payout_ratio":
        return _ratio(g("dividends_paid"), g("net_income"), pct=True)
    if m in ("inventory_turnover", "dio"):
        return _days_or_turn(book, "inventory", g("cogs"), year, days=m == "dio")
    if m in ("receivables_turnover", "dso"):
        return _days_or_turn(book, "accounts_receivable", g("revenue"), year, days=m == "dso")
    if m == "payables_turnover":
        return _days_or_turn(book, "accounts_payable", g("cogs"), year, days=False)
    if m == "dpo":
        cogs = g("cogs")
        if "inventory" in q.definition_items:  # COGS + change in inventory = purchases
            inv0, inv1 = book.get("inventory", year - 1), g("inventory")
            cogs = _sum([cogs, inv1, inv0], [1, 1, -1], "COGS + change in inventory", year)
            step = _days_or_turn(book, "accounts_payable", cogs, year, days=True)
            step.formula = step.formula.replace(
                _term(cogs), f"({_term(g('cogs'))} + {_term(inv1)} - {_term(inv0)})")
            step.figures = [f for f in step.figures if f is not cogs] + [g("cogs"), inv1, inv0]
            return step
        return _days_or_turn(book, "accounts_payable", cogs, year, days=True)
    if m in ("asset_turnover", "fixed_asset_turnover"):
        key = "total_assets" if m == "asset_turnover" else "ppe_net"
        return _days_or_turn(book, key, g("revenue"), year, days=False)
    if m in ("roa", "roe"):
        key = "total_assets" if m == "roa" else "equity"
        step = _days_or_turn(book, key, g("net_income"), year, days=False)
        step.value, step.unit, step.formula = step.value * 100, "percent", step.formula + " x 100"
        return step
    raise Missing(f"a formula for {m}")


# items each metric's formula uses (to check the question's own definition against)
USES = {
    "gross_margin": {"gross_profit", "revenue", "cogs"},
    "operating_margin": {"operating_income", "revenue"},
    "net_margin": {"net_income", "revenue"},
    "ebitda_margin": {"operating_income", "dna", "revenue"},
    "ebitda": {"operating_income", "dna"}, "fcf": {"cfo", "capex"},
    "working_capital": {"current_assets", "current_liabilities"},
    "current_ratio": {"current_assets", "current_liabilities"},
    "quick_ratio": {"cash", "short_term_investments", "accounts_receivable", "current_liabilities"},
    "interest_coverage": {"operating_income", "interest_expense"},
    "effective_tax_rate": {"income_tax", "pretax_income"},
    "payout_ratio": {"dividends_paid", "net_income"},
    "inventory_turnover": {"inventory", "cogs"}, "dio": {"inventory", "cogs"},
    "receivables_turnover": {"accounts_receivable", "revenue"},
    "dso": {"accounts_receivable", "revenue"}, "payables_turnover": {"accounts_payable", "cogs"},
    "dpo": {"accounts_payable", "cogs", "inventory"},
    "asset_turnover": {"total_assets", "revenue"}, "fixed_asset_turnover": {"ppe_net", "revenue"},
    "roa": {"total_assets", "net_income"}, "roe": {"equity", "net_income"},
}


def _margin_numerator(q: Question, book: Book, year: int) -> Figure:
    m = q.metric
    if m == "gross_margin":
        try:
            return book.get("gross_profit", year)
        except Missing:
            rev, cogs = book.get("revenue", year), book.get("cogs", year)
            return _sum([rev, cogs], [1, -1], "gross profit (revenue - cost of sales)", year)
    if m == "operating_margin":
        return book.get("operating_income", year)
    if m == "net_margin":
        return book.get("net_income", year)
    if m == "ebitda_margin":
        oi, dna = book.get("operating_income", year), book.get("dna", year)
        return _sum([oi, dna], [1, 1], f"EBITDA ({_term(oi)} + {_term(dna)})", year)
    nums = [i for i in q.items if i.key != "revenue"]
    if len(nums) != 1:
        raise Missing("one line item to divide by revenue, but the question names "
                      f"{len(nums)}")
    return book.get(nums[0].key, year)


def _check_definition(q: Question) -> None:
    if not q.definition_items or q.metric not in USES:
        return
    used = USES[q.metric] | ({"revenue"} if q.metric == "item_margin" else set())
    other = [ITEMS[k].name for k in q.definition_items if k not in used]
    if other:
        raise Missing(f"{q.metric.replace('_', ' ')} as the question defines it: its definition "
                      f"uses {', '.join(other)}, which finrag's formula does not")


def _computed(q: Question, book: Book, company: str) -> Answer:
    _check_definition(q)
    if q.metric == "cagr" or (q.change and q.metric is None):
        return _growth(q, book, company)
    year = q.year or _year_of(q.date)
    years = list(q.years) if q.average else [year]
    if q.average and len(years) < 2:
        raise Missing("an average over fiscal years, but the question names one year")
    steps = [_metric_year(q, book, y) for y in years]
    unit = steps[0].unit
    if q.unit in SCALE and unit in SCALE:
        for s in steps:
            s.value, s.unit = convert(s.value, s.unit, q.unit), q.unit
        unit = q.unit
    if q.change and len(years) == 1 and len(q.years) > 1:
        first = _metric_year(q, book, q.years[0])
        return _metric_change(q, first, steps[0], company)
    value = sum(s.value for s in steps) / len(steps)
    figures = [f for s in steps for f in s.figures]
    if len(steps) > 1:
        formula = (f"average of {len(steps)} years: "
                   + "; ".join(f"FY{y}: {s.formula} = {fmt(s.value, unit)}"
                               for y, s in zip(years, steps)))
        values = {str(y): round(s.value, 6) for y, s in zip(years, steps)}
    else:
        formula, values = steps[0].formula, None
    name = _metric_name(q)
    span = f"fiscal {years[0]}-{years[-1]} average" if len(years) > 1 else f"fiscal {year}"
    text = f"{fmt(value, unit, q.decimals)} — {company}, {name}, {span}; {formula}"
    return Answer("computed", _round(value, q.decimals), unit, text, year, formula=formula,
                  values=values, figures=figures)


def _metric_change(q: Question, first: Step, last: Step, company: str) -> Answer:
    diff = last.value - first.value
    a, b = q.years[0], q.years[-1]
    text = (f"{fmt(diff, last.unit)} ({'percentage points' if last.unit == 'percent' else ''}) — "
            f"{company}, {_metric_name(q)} fiscal {a} {fmt(first.value, first.unit)} -> "
            f"fiscal {b} {fmt(last.value, last.unit)}")
    return Answer("change", round(diff, 6), last.unit, text, b,
                  formula=f"FY{b}: {last.formula}; FY{a}: {first.formula}",
                  values={str(a): first.value, str(b): last.value}, change_pct=None,
                  figures=first.figures + last.figures)


def _metric_name(q: Question) -> str:
    if q.metric == "item_margin":
        nums = [i.name for i in q.items if i.key != "revenue"]
        return f"{nums[0] if nums else 'item'} as % of revenue"
    return (q.metric or "").replace("_", " ")


def _growth(q: Question, book: Book, company: str) -> Answer:
    items = [i for i in q.items]
    if len(items) != 1 or len(q.years) < 2:
        raise Missing("growth of one line item between two fiscal years; the question names "
                      f"{len(items)} items and {len(q.years)} years")
    item, a, b = items[0], q.years[0], q.years[-1]
    fa, fb = book.get(item.key, a), book.get(item.key, b)
    va, vb = fa.in_unit(fb.unit), fb.value
    if va <= 0 or vb <= 0:
        raise Missing(f"positive {item.name} in fiscal {a} and {b} for a growth rate")
    n = b - a
    if q.metric == "cagr":
        value = ((vb / va) ** (1 / n) - 1) * 100
        formula = f"(({_term(fb)} / {_term(fa)}) ^ (1/{n}) - 1) x 100"
        name = f"{n}-year CAGR of {item.name}"
    else:
        value = (vb - va) / va * 100
        formula = f"({_term(fb)} - {_term(fa)}) / {_term(fa)} x 100"
        name = f"change in {item.name}"
    text = f"{fmt(value, 'percent', q.decimals)} — {company}, {name}, fiscal {a} to {b}; {formula}"
    return Answer("computed", _round(value, q.decimals), "percent", text, b, formula=formula,
                  values={str(a): va, str(b): vb}, change_pct=round((vb - va) / va * 100, 4),
                  figures=[fa, fb])
