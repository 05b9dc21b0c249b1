"""Yes / no questions a metric settles: the verdict first, then the figures of each year, the
rule and definition used, and every input cited.

"Does Corning have positive working capital based on FY2022 data?" -> yes, with working capital
= total current assets - total current liabilities at the fiscal 2022 year end. The tests
(`finrag.question.Judgement`) are textbook ones:

- positive / negative: the sign of the metric for the year asked;
- up / down: the metric of the later year against the earlier (the two years named, else the
  year asked against the one before); better / worse the same, with "better" meaning lower for
  the days ratios (cash ties up for fewer days);
- stable: every year-over-year move over the three fiscal years a 10-K prints within the
  question's own bound, else 2 percentage points for a percent metric and 10% for an amount;
- capital intensive: at least $1 of total assets per $1 of revenue (total assets / revenue);
- liquid: a current (or the quick ratio the question names) of at least 1.0;
- high growth: revenue up at least 10% on the year before;
- paid: a cash dividend paid in the year (the cash-flow line above zero).

Where the metric does not apply, because the company's statements print none of its line
(a card issuer's income statement has no cost of sales, a bank's no operating income), the
verdict is "not applicable", with the lines the statement does print.
"""

from __future__ import annotations

from collections.abc import Callable

from finrag.book import SCALE, Book, Missing, convert
from finrag.citing import STATEMENT_NAMES, fmt
from finrag.lineitems import ITEMS
from finrag.metrics import USES, Step
from finrag.question import Judgement, Question

CAPITAL_INTENSIVE = 1.0  # total assets per dollar of revenue
LIQUID = 1.0  # current (or quick) assets per dollar of current liabilities
HIGH_GROWTH = 10.0  # percent revenue growth on the year before
STABLE_POINTS = 2.0  # percentage points a percent metric may move in a year and stay "stable"
STABLE_PERCENT = 10.0  # percent an amount may move in a year and stay "stable"
LOWER_IS_BETTER = frozenset({"dio", "dso", "dpo"})

# the metric a test reads when the question names none of its own
_DEFAULT_SUBJECT = {"capital_intensive": "capital_intensity", "liquid": "current_ratio",
                    "high_growth": "revenue", "paid": "dividends_paid"}
_RULES = {
    "capital_intensive": f"capital intensive means at least ${CAPITAL_INTENSIVE:g} of total assets "
                         "per $1 of revenue",
    "liquid": f"liquid means current obligations covered at least {LIQUID:g} times",
    "high_growth": f"high growth means revenue up at least {HIGH_GROWTH:g}% on the year before",
}


class Settled:
    """A verdict with its years' values, their formulas and figures."""

    def __init__(self, verdict: str, text: str, steps: dict[int, Step]) -> None:
        self.verdict = verdict  # "yes" | "no" | "not applicable"
        self.text = text
        self.steps = steps


def settle(q: Question, book: Book, subject: str, step_of: Callable[[str, int], Step],
           company: str) -> Settled:
    """The verdict `q.judgement` asks of `subject` (a metric or line item key, or the name of
    the question's own formula); `step_of(subject, year)` computes it for a fiscal year."""
    j = q.judgement
    try:
        return _settle(q, j, subject, step_of, company)
    except Missing:
        absent = _absent_line(book, subject)
        if absent is None:
            raise
        return _not_applicable(q, book, subject, absent, company)


def subject(q: Question) -> str:
    """The metric or line item the judgement is said of."""
    return _subject(q, q.judgement)


def _subject(q: Question, j: Judgement) -> str:
    if j.test == "liquid" and q.metric in ("quick_ratio", "current_ratio"):
        return q.metric
    if j.test in _DEFAULT_SUBJECT:  # a test with its own metric
        return _DEFAULT_SUBJECT[j.test]
    if q.metric:
        return q.metric
    if len(q.items) == 1:
        return q.items[0].key
    raise Missing(f"the metric or line item the question's '{j.words}' is said of")


def _name(subject: str) -> str:
    return ITEMS[subject].name if subject in ITEMS else subject.replace("_", " ")


def _settle(q: Question, j: Judgement, subject: str, step_of, company: str) -> Settled:
    year = q.year
    name = _name(subject)
    if j.test in ("positive", "negative", "capital_intensive", "liquid", "paid"):
        s = step_of(subject, year)
        if j.test == "positive":
            yes, rule = s.value > 0, "positive means above zero"
        elif j.test == "negative":
            yes, rule = s.value < 0, "negative means below zero"
        elif j.test == "paid":
            yes, rule = s.value > 0, "paid means cash dividends paid in the year above zero"
        else:
            bound = CAPITAL_INTENSIVE if j.test == "capital_intensive" else LIQUID
            yes, rule = s.value >= bound, _RULES[j.test]
        text = (f"{_word(yes)} — {company}, {name} fiscal {year}: {fmt(s.value, s.unit)} "
                f"({rule}); {s.formula}")
        return Settled("yes" if yes else "no", text, {year: s})
    if j.test == "stable":
        return _stable(q, j, subject, step_of, company)
    if j.test == "high_growth":
        a, b = _aligned(step_of(subject, year - 1), step_of(subject, year))
        if not a.value:
            raise Missing(f"a non-zero {name} for fiscal {year - 1}")
        growth = (b.value - a.value) / abs(a.value) * 100
        yes = growth >= HIGH_GROWTH
        text = (f"{_word(yes)} — {company}, {name} fiscal {year - 1} {fmt(a.value, a.unit)} -> "
                f"fiscal {year} {fmt(b.value, b.unit)}, {growth:+.1f}% ({_RULES['high_growth']})")
        return Settled("yes" if yes else "no", text, {year - 1: a, year: b})
    first, last = (q.years[0], q.years[-1]) if len(q.years) >= 2 else (year - 1, year)
    a, b = _aligned(step_of(subject, first), step_of(subject, last))
    rising = b.value > a.value
    if j.test in ("better", "worse"):
        better = (b.value < a.value) if subject in LOWER_IS_BETTER else rising
        yes = better if j.test == "better" else (b.value != a.value and not better)
    else:
        yes = rising if j.test == "up" else b.value < a.value
    moved = _move(a, b)
    text = (f"{_word(yes)} — {company}, {name} fiscal {first} {fmt(a.value, a.unit)} -> fiscal "
            f"{last} {fmt(b.value, b.unit)} ({moved}); FY{last}: {b.formula}; FY{first}: "
            f"{a.formula}")
    return Settled("yes" if yes else "no", text, {first: a, last: b})


def _aligned(a: Step, b: Step) -> tuple[Step, Step]:
    """`b` in `a`'s unit where both are amounts (a filing in thousands beside one in millions)."""
    if a.unit != b.unit and a.unit in SCALE and b.unit in SCALE:
        b = Step(convert(b.value, b.unit, a.unit), a.unit, b.formula, b.figures)
    return a, b


def _move(a: Step, b: Step) -> str:
    diff = b.value - a.value
    if a.unit == "percent":
        return f"{diff:+.1f} percentage points"
    if a.value:
        return f"{fmt(diff, a.unit)}, {diff / abs(a.value) * 100:+.1f}%"
    return fmt(diff, a.unit)


def _stable(q: Question, j: Judgement, subject: str, step_of, company: str) -> Settled:
    year = q.year
    steps = {}
    for y in (year - 2, year - 1, year):
        try:
            steps[y] = step_of(subject, y)
        except Missing:
            if y == year:
                raise
    if len(steps) < 2:
        raise Missing(f"{_name(subject)} for two or more fiscal years up to {year}")
    years = sorted(steps)
    for y in years:
        steps[y] = _aligned(steps[years[-1]], steps[y])[1]
    percent = steps[year].unit == "percent"
    limit = j.limit if j.limit is not None else (STABLE_POINTS if percent else STABLE_PERCENT)
    moves = []
    for a, b in zip(years, years[1:]):
        va, vb = steps[a].value, steps[b].value
        moves.append(vb - va if percent else ((vb - va) / abs(va) * 100 if va else float("inf")))
    yes = all(abs(m) <= limit for m in moves)
    unit = "percentage points" if percent else "%"
    shown = ", ".join(f"FY{y} {fmt(steps[y].value, steps[y].unit)}" for y in years)
    moved = ", ".join(f"{m:+.1f}" for m in moves)
    text = (f"{_word(yes)} — {company}, {_name(subject)} {shown}: yearly moves {moved} {unit} "
            f"(stable means within {limit:g} {unit} a year); "
            + "; ".join(f"FY{y}: {steps[y].formula}" for y in years))
    return Settled("yes" if yes else "no", text, steps)


def _absent_line(book: Book, subject: str) -> str | None:
    """The line the metric needs that the company's statement neither prints nor mentions in
    any year (no label with the line's first word: a 'Cost of products' line mentions a cost
    of sales though no total is printed, so gross margin is then missing, not inapplicable)."""
    needs = USES.get(subject, {subject} if subject in ITEMS else set())
    if subject == "gross_margin":  # gross profit, or revenue less cost of sales
        needs = {"revenue", "cogs"} if not book.prints("gross_profit") else set()
        if book.mentions("gross_profit"):
            return None
    absent = [k for k in sorted(needs) if k in ITEMS and not book.prints(k)
              and not book.mentions(k)]
    printed = [k for k in needs if k in ITEMS and book.prints(k)]
    return absent[0] if absent and printed else None


def _not_applicable(q: Question, book: Book, subject: str, absent: str, company: str
                    ) -> Settled:
    item = ITEMS[absent]
    where = STATEMENT_NAMES.get(item.statement, item.statement)
    lines = book.lines(item.statement, q.year)
    shown = "; ".join(lines[:10]) + ("; ..." if len(lines) > 10 else "")
    text = (f"Not applicable — {company}'s {where} prints no {item.name} line in any indexed "
            f"year, so {_name(subject)} is not a measure its statements support"
            + (f" (its lines for fiscal {q.year}: {shown})" if lines else ""))
    return Settled("not applicable", text, {})


def _word(yes: bool) -> str:
    return "Yes" if yes else "No"
