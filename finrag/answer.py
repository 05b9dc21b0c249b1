"""The answer to a question: a figure stated from the filing, a metric computed from cited
figures, or a change over fiscal years; or no answer and the reason.

`answer(question, facts)` is pure: it reads a parsed `Question` (finrag.question) and the
`Fact`s of the company's filings (finrag.facts) and returns an `Answer` or a reason. It answers
only when every figure it needs is found with its fiscal year and unit; where it cannot, the
reason says what it looked for and what was missing. Which fact is a figure is
`finrag.book`'s job, the formulas `finrag.metrics`', the wording `finrag.citing`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from finrag import definition, ranking, verdict
from finrag.book import SCALE, Book, Figure, Missing, convert, stem
from finrag.citing import cite, fmt, label, term
from finrag.facts import Fact
from finrag.lineitems import ITEMS, LineItem
from finrag.metrics import USES, Step, metric_year
from finrag.question import Question

Formula = definition.Formula

__all__ = ["SCALE", "Answer", "Outcome", "answer", "convert"]


@dataclass
class Answer:
    kind: str  # "stated" | "computed" | "change" | "verdict" | "ranking" | "series" | "peers"
    # | "passage" | "generated"
    value: float | None  # None for a verdict of "not applicable"
    unit: str
    text: str
    fiscal_year: int
    formula: str | None = None
    values: dict[str, float] | None = None
    change_pct: float | None = None
    figures: list[Figure] = field(default_factory=list)
    verdict: str | None = None  # "yes" | "no" | "not applicable", for kind "verdict"
    # kinds "series" | "peers" | "ranking" (across companies; finrag.series): one dict per
    # company and fiscal year, the growth between them, and the points with no figure
    points: list[dict] | None = None
    # kinds "passage" | "generated" (finrag.narrate): the sentences that answer, each
    # {text, citation: {ticker, company, fiscal_year, section, page, page_label, url, ...}}
    sentences: list[dict] | None = None
    growth: list[dict] | None = None
    missing: list[dict] | None = None
    # kind "stated": the filing's sentences giving the item another total in its own words
    # (finrag.other_totals), each {text, value, unit, citation}
    other_totals: list[dict] | None = None


@dataclass
class Outcome:
    answer: Answer | None
    reason: str | None


# --- answering -------------------------------------------------------------------------------

def answer(q: Question, facts: list[Fact], company: str = "") -> Outcome:
    """The answer to `q` from `facts`, or why there is none."""
    if not q.asks_for_something and not (q.line_words and len(q.tickers) == 1):
        return Outcome(None, NOTHING_ASKED)
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
        if q.basis:
            raise Missing(f"a figure on the basis the question asks ('{q.basis}'): the "
                          "statements' facts give the reported, consolidated figure only")
        if not q.asks_for_something:  # no known item: a line the filing prints by that name?
            return Outcome(_printed_line(q, book, company or ticker), None)
        return Outcome(_answer(q, book, company or ticker), None)
    except Missing as exc:
        if not q.asks_for_something:
            return Outcome(None, f"{NOTHING_ASKED} Looked for {exc}.")
        return Outcome(None, f"Looked for {exc}.")


NOTHING_ASKED = ("The question asks for no figure finrag knows (a line item such as revenue or "
                 "capex, or a metric such as a margin or ratio); see the passages.")


def _printed_line(q: Question, book: Book, company: str) -> Answer:
    """A line outside the known items, by the words its printed label uses ("medical costs"):
    every word of the question's and no other, one figure or none."""
    if q.yes_no:
        raise Missing("a verdict: the question asks yes or no about a line finrag has no "
                      "test for")
    year = q.year or _year_of(q.date)
    fig = book.named_line(tuple(dict.fromkeys(stem(q.line_words))), None, year, q.date)
    return _stated(q, fig, company)


def _with_years(q: Question, years: tuple[int, ...]) -> Question:
    return replace(q, years=years)


def _answer(q: Question, book: Book, company: str) -> Answer:
    formula = _formula(q)
    if q.ranking is not None and formula is None:
        return _ranked(q, book, company)
    if q.judgement is not None:
        return _verdict(q, book, company, formula)
    if q.yes_no:
        raise Missing("a verdict: the question asks yes or no, and finrag settles only a "
                      "metric's sign, direction, stability, capital intensity, liquidity, "
                      "growth or dividends paid")
    if q.unknown_metric and formula is None:
        raise Missing(f"the {q.unknown_metric}: a metric finrag does not know and the question "
                      "does not define (define it in the question, e.g. '... is defined as "
                      "A / B')")
    if q.metric or formula is not None:
        return _computed(q, book, company, formula)
    items = [i for i in q.items]
    if len(items) != 1:
        raise Missing(f"one figure, but the question names {len(items)} line items "
                      f"({', '.join(i.name for i in items)}) and no metric built from them")
    item = items[0]
    if q.change and len(q.years) >= 1:
        return _change(q, book, item, company)
    year = q.year or _year_of(q.date)
    fig = stated_figure(q, book, item, year)
    return _stated(q, fig, company)


def _year_of(on: str | None) -> int:
    return int(on[:4]) if on else 0


def _narrower(q: Question, book: Book) -> tuple[str, ...]:
    """The question's words that name a line narrower than its item ('iPhone' net sales). A
    word that no printed line of the company uses cannot be found: no answer, rather than the
    item's total for a product or segment the facts do not hold."""
    words = tuple(dict.fromkeys(stem(q.rest)))
    vocabulary = book.vocabulary()
    unknown = [w for w in words if w not in vocabulary]
    if unknown:
        raise Missing(f"a line for '{' '.join(unknown)}': no printed line of {book.ticker} "
                      "uses that word")
    return words


def stated_figure(q: Question, book: Book, item: LineItem, year: int) -> Figure:
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
        text = (f"{fmt(pct, 'percent', q.decimals)} — {company}, {label(a.fact.line_label)} fiscal "
                f"{earlier} to {later}: {fmt(va, unit)} -> {fmt(vb, unit)}")
        return Answer("computed", value, "percent", text, later,
                      formula=f"({term(b)} - {term(a)}) / {term(a)} x 100",
                      values={str(earlier): va, str(later): vb}, change_pct=round(pct, 2),
                      figures=[a, b])
    diff = vb - va
    word = "up" if diff >= 0 else "down"
    text = (f"{word} {fmt(abs(diff), unit)} ({pct:+.1f}%) — {company}, "
            f"'{label(b.fact.line_label)}' fiscal {earlier} {fmt(va, unit)} -> fiscal {later} "
            f"{fmt(vb, unit)}")
    return Answer("change", round(diff, 6), unit, text, later,
                  formula=f"{term(b)} - {term(a)}", values={str(earlier): va, str(later): vb},
                  change_pct=round(pct, 2), figures=[a, b])


def _check_definition(q: Question) -> None:
    if not q.definition_items or q.metric not in USES:
        return
    used = USES[q.metric] | ({"revenue"} if q.metric == "item_margin" else set())
    other = [ITEMS[k].name for k in q.definition_items if k not in used]
    if other:
        raise Missing(f"{q.metric.replace('_', ' ')} as the question defines it: its definition "
                      f"uses {', '.join(other)}, which finrag's formula does not")


def _formula(q: Question) -> Formula | None:
    """The question's own formula where it must be followed: a definition of a metric finrag
    does not know (or of one it knows, using other lines), or operators joining figures in the
    question itself ("EBITDA less capex"). None where finrag's own formula is the one asked."""
    known = q.metric in USES and not q.unknown_metric
    if q.formula_text:
        if known and set(q.definition_items) <= _uses(q):
            return None  # the textbook formula the question spells out
        try:
            formula = definition.read(q.formula_text)
        except definition.Unplaced as exc:
            raise Missing(f"the question's own definition ('{q.formula_text}'), but could not "
                          f"place {exc} in it") from None
        if known:  # a known metric defined with other lines: a definition of a part of it?
            _check_definition(q)
        return formula
    try:
        formula = definition.read_in(q.head)
    except definition.Unplaced as exc:
        raise Missing(f"a formula in the question, but could not place {exc}") from None
    if formula is None or (q.metric == "item_margin" and formula.op == "%" and len(
            formula.operands()) == 2):
        return None  # "capex as a % of revenue": finrag's item margin
    if q.metric in USES and formula.keys() <= _uses(q):
        return None  # "operating income + D&A (EBITDA)": the metric asked, spelled out
    return formula


def _uses(q: Question) -> set[str]:
    return USES.get(q.metric, set()) | ({"revenue"} if q.metric == "item_margin" else set())


def _formula_step(q: Question, book: Book, formula: Formula, year: int) -> Step:
    """The question's formula for one fiscal year, in the unit the question asks."""
    def metric_of(key: str, y: int) -> definition.Value:
        s = metric_year(replace(q, metric=key, definition_items=()), book, y)
        return definition.Value(s.value, s.unit, f"{key.replace('_', ' ')} FY{y} "
                                f"({s.formula})", s.figures)

    v = definition.evaluate(formula, book.get, metric_of, year, q.year or year)
    value, unit, text = v.value, ("ratio" if v.unit == "number" else v.unit), v.text
    if unit == "ratio" and q.unit == "percent":
        value, unit, text = value * 100, "percent", f"{text} x 100"
    return Step(value, unit, text, v.figures)


def _stepper(q: Question, book: Book, formula: Formula | None):
    if formula is None:
        return lambda y: metric_year(q, book, y)
    return lambda y: _formula_step(q, book, formula, y)


def _verdict(q: Question, book: Book, company: str, formula: Formula | None) -> Answer:
    if formula is not None:
        subject = q.unknown_metric or "the question's formula"
        steps = _stepper(q, book, formula)
        step_of = lambda _, y: steps(y)  # noqa: E731
    else:
        subject = verdict.subject(q)
        step_of = lambda key, y: _subject_step(q, book, key, y)  # noqa: E731
    settled = verdict.settle(q, book, subject, step_of, company)
    years = sorted(settled.steps)
    last = settled.steps[years[-1]] if years else None
    return Answer("verdict", last.value if last else None, last.unit if last else "",
                  settled.text, q.year or 0,
                  formula="; ".join(f"FY{y}: {settled.steps[y].formula}" for y in years) or None,
                  values={str(y): settled.steps[y].value for y in years} or None,
                  figures=[f for y in years for f in settled.steps[y].figures],
                  verdict=settled.verdict)


def _ranked(q: Question, book: Book, company: str) -> Answer:
    r = ranking.rank(q, book, company)
    top = r.figures[0]
    kind = "verdict" if r.verdict is not None else "ranking"
    return Answer(kind, top.value, top.unit, r.text, q.year or 0,
                  values={f.name: f.value for f in r.figures}, verdict=r.verdict,
                  figures=r.figures + ([r.total] if r.total is not None else []))


def _subject_step(q: Question, book: Book, key: str, year: int) -> Step:
    if key in ITEMS:
        fig = book.get(key, year)
        return Step(fig.value, fig.unit, term(fig), [fig])
    return metric_year(replace(q, metric=key, definition_items=()), book, year)


def _computed(q: Question, book: Book, company: str, own: Formula | None = None) -> Answer:
    """The metric, or the question's `own` formula, for the year(s) asked."""
    if own is None:
        _check_definition(q)
    if own is None and (q.metric == "cagr" or (q.change and q.metric is None)):
        return _growth(q, book, company)
    year = q.year or _year_of(q.date)
    years = list(q.years) if q.average else [year]
    if q.average and len(years) < 2:
        raise Missing("an average over fiscal years, but the question names one year")
    step_of = _stepper(q, book, own)
    name = (q.unknown_metric or "the question's formula") if own is not None else \
        _metric_name(q)
    steps = [step_of(y) for y in years]
    unit = steps[0].unit
    if q.unit in SCALE and unit in SCALE:
        for s in steps:
            s.value, s.unit = convert(s.value, s.unit, q.unit), q.unit
        unit = q.unit
    if q.change and len(years) == 1 and len(q.years) > 1:
        first = step_of(q.years[0])
        return _metric_change(q, first, steps[0], company, name)
    value = sum(s.value for s in steps) / len(steps)
    figures = [f for s in steps for f in s.figures]
    if len(steps) > 1:
        formula = (f"average of {len(steps)} years: "
                   + "; ".join(f"FY{y}: {s.formula} = {fmt(s.value, unit)}"
                               for y, s in zip(years, steps)))
        values = {str(y): round(s.value, 6) for y, s in zip(years, steps)}
    else:
        formula, values = steps[0].formula, None
    span = f"fiscal {years[0]}-{years[-1]} average" if len(years) > 1 else f"fiscal {year}"
    text = f"{fmt(value, unit, q.decimals)} — {company}, {name}, {span}; {formula}"
    return Answer("computed", _round(value, q.decimals), unit, text, year, formula=formula,
                  values=values, figures=figures)


def _metric_change(q: Question, first: Step, last: Step, company: str, name: str) -> Answer:
    diff = last.value - first.value
    a, b = q.years[0], q.years[-1]
    moved = (f"{diff:+.{1 if q.decimals is None else q.decimals}f} percentage points"
             if last.unit == "percent" else fmt(diff, last.unit))
    text = (f"{moved} — "
            f"{company}, {name} fiscal {a} {fmt(first.value, first.unit)} -> "
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
        formula = f"(({term(fb)} / {term(fa)}) ^ (1/{n}) - 1) x 100"
        name = f"{n}-year CAGR of {item.name}"
    else:
        value = (vb - va) / va * 100
        formula = f"({term(fb)} - {term(fa)}) / {term(fa)} x 100"
        name = f"change in {item.name}"
    text = f"{fmt(value, 'percent', q.decimals)} — {company}, {name}, fiscal {a} to {b}; {formula}"
    return Answer("computed", _round(value, q.decimals), "percent", text, b, formula=formula,
                  values={str(a): va, str(b): vb}, change_pct=round((vb - va) / va * 100, 4),
                  figures=[fa, fb])
