"""A figure across fiscal years and companies: a series (one company over a span of years), peers
(several companies) and a ranking (every indexed company, one fiscal year), every point cited.

`across(q, load, companies, filed, filters)` answers a question `finrag.question.across` reads
as one of those kinds, or returns None. The points are `finrag.points`' (each right or absent:
a year or company with no figure is named, never filled in; comparatives and restatements said
so); growth and CAGR `finrag.growth`'s; the table `finrag.pointtable`'s.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from finrag.answer import Answer, Outcome
from finrag.citing import cite, fmt, label
from finrag.companies import short_name
from finrag.growth import change, growth, period_note
from finrag.points import Point, company_points, one_unit, periods, rounded, statements
from finrag.question import Question
from finrag.question import across as reading

# words of a question that compare or rank, never part of a line's printed label
ACROSS_WORDS = frozenset("""highest lowest largest smallest biggest most least greatest top
compare compared comparison rank ranked ranking trend trends among each every versus vs""".split())


def across(q: Question, load, companies: dict[str, str], filed: dict[str, list[int]],
           filters) -> Outcome | None:
    """The series, peers or ranking the question asks, or None where it asks none of them.
    `load(ticker, period_years, statements)` gives a company's facts; `filed` is ticker ->
    fiscal years of its indexed 10-Ks; a fiscal-year filter in `filters` limits the filings."""
    kind = reading(q)
    if kind is None or (kind == "series" and not q.tickers):
        return None  # a series of no company named: the one-company path says so
    if q.basis:
        return Outcome(None, f"Looked for a figure on the basis the question asks ('{q.basis}'): "
                             "the statements' facts give the reported, consolidated figure only.")
    q = replace(q, rest=tuple(w for w in q.rest if w not in ACROSS_WORDS))
    allowed = {t: [y for y in ys if not filters.fiscal_years or y in filters.fiscal_years]
               for t, ys in filed.items()}
    tickers = list(q.tickers) if kind != "ranking" or len(q.tickers) >= 2 else sorted(companies)
    names = {t: short_name(companies.get(t, "")) or t for t in tickers}
    try:
        if kind == "ranking":
            return _ranking(q, load, tickers, names, allowed)
        return _table(kind, q, load, tickers, names, allowed)
    except (ArithmeticError, ValueError, KeyError, TypeError) as exc:
        return Outcome(None, f"No answer: finrag could not read the facts ({exc}).")


# --- the three kinds -------------------------------------------------------------------------

def span(q: Question, have: list[int]) -> list[int]:
    """The fiscal years asked: those named, or "the last n" / "since Y" to the latest indexed."""
    if (q.last_n or q.since) and not have:
        return []
    if q.last_n:
        return list(range(max(have) - q.last_n + 1, max(have) + 1))
    if q.since:
        return list(range(q.since, max(max(have), q.since) + 1))
    if q.change and len(q.years) == 1:  # "revenue growth in 2024": from the year before
        return [q.years[0] - 1, q.years[0]]
    return list(q.years)


def _table(kind: str, q: Question, load, tickers, names, allowed) -> Outcome:
    """A series (one company) or peers (several): every company over the same fiscal years, or
    each over its latest where the question names none."""
    pooled = sorted({y for t in tickers for y in allowed.get(t, [])})
    points, missing = [], []
    for t in tickers:
        years = span(q, pooled if kind == "peers" else allowed.get(t, []))
        if not years:
            years = allowed.get(t, [])[-1:]
        if not years:
            missing.append({"ticker": t, "fiscal_year": None, "reason": f"no 10-K of {t} is "
                            "indexed" + (" within the fiscal-year filter" if pooled else "")})
            continue
        got, lost = company_points(q, load(t, periods(q, years), statements(q)), t, years)
        points += got
        missing += lost
    unit, points, off = one_unit(points, q.unit)
    missing += off
    if not points:
        return Outcome(None, "Looked for " + "; ".join(m["reason"] for m in missing[:6]) + ".")
    rounded(points, q.decimals)
    grown = growth(points, by_ticker=True) if kind == "series" or q.change or len(
        {p.fiscal_year for p in points}) > 1 else []
    text = (_series_text if kind == "series" else _peers_text)(q, points, grown, missing, names,
                                                              unit)
    last = points[-1]
    return Outcome(_answer(kind, q, points, grown, missing, names, unit, text,
                           last.value if kind == "series" else None, last.fiscal_year), None)


def _ranking(q: Question, load, tickers, names, allowed) -> Outcome:
    """Every company's figure for one fiscal year (each its own fiscal year), largest first (or
    smallest), with the companies that lack it."""
    latest = Counter(ys[-1] for t, ys in allowed.items() if ys and t in tickers)
    year = q.years[-1] if q.years else (latest.most_common(1)[0][0] if latest else None)
    if year is None:
        return Outcome(None, "No 10-K is indexed for the companies asked.")
    points, missing = [], []
    for t in tickers:
        got, lost = (_grown if q.change else _level)(q, load, t, year)
        points += got
        missing += lost
    unit, points, off = one_unit(points, None if q.change else q.unit)
    missing += off
    if not points:
        return Outcome(None, f"Looked for the figure of fiscal {year} of {len(tickers)} "
                             f"companies; none has it ({missing[0]['reason'] if missing else ''}).")
    rounded(points, q.decimals)
    points.sort(key=lambda p: p.value, reverse=q.peer_order != "min")
    top = points[0]
    word = "Lowest" if q.peer_order == "min" else "Highest"
    rest = "; ".join(f"{names[p.ticker]} {_fmt(p.value, unit, q.decimals)}" for p in points[1:4])
    what = f"{subject(q)} growth, fiscal {year - 1} to {year}" if q.change else \
        f"{subject(q)}, fiscal {year}"
    text = (f"{word} {what}: {names[top.ticker]} "
            f"{_fmt(top.value, unit, q.decimals)} ({_where(top)})"
            + (f"; then {rest}" if rest else "") + f" — {len(points)} companies ranked"
            + _lacking(missing, names) + period_note(points))
    return Outcome(_answer("ranking", q, points, [], missing, names, unit, text, top.value, year),
                   None)


def _level(q: Question, load, t: str, year: int):
    return company_points(q, load(t, periods(q, [year]), statements(q)), t, [year])


def _grown(q: Question, load, t: str, year: int):
    """A company's growth over its fiscal year (from the year before), as a point of that year:
    a percent, or percentage points for a percent metric."""
    years = [year - 1, year]
    got, lost = company_points(q, load(t, periods(q, years), statements(q)), t, years)
    if lost:  # one line per company: its growth needs both years
        return [], [{"ticker": t, "fiscal_year": year, "reason": "; ".join(
            m["reason"] for m in lost)}]
    a, b = got
    g = change(a, b) if a.unit == b.unit else None
    if g is None:
        return [], [{"ticker": t, "fiscal_year": year, "reason": f"no growth from fiscal "
                     f"{year - 1}: {fmt(a.value, a.unit)} -> {fmt(b.value, b.unit)}"}]
    return [Point(t, year, g["value"], g["unit"], g["formula"], a.figures + b.figures)], []


def _fmt(value: float, unit: str, decimals: int | None = None) -> str:
    if unit == "percentage points":
        return f"{value:+.{1 if decimals is None else decimals}f} percentage points"
    return fmt(value, unit, decimals)


# --- wording ---------------------------------------------------------------------------------

METRIC_NAMES = {"fcf": "free cash flow", "roa": "return on assets", "roe": "return on equity",
                "dso": "days sales outstanding", "dio": "days inventory outstanding",
                "dpo": "days payables outstanding", "ebitda": "EBITDA",
                "ebitda_margin": "EBITDA margin", "fcf_conversion": "free cash flow conversion"}


def subject(q: Question) -> str:
    """What the points are of: the metric, else the line item (narrowed by the question's own
    words, 'iPhone net sales')."""
    if q.metric == "item_margin":
        nums = [i.name for i in q.items if i.key != "revenue"]
        return f"{nums[0] if nums else 'item'} as % of revenue"
    if q.metric:
        return METRIC_NAMES.get(q.metric, q.metric.replace("_", " "))
    return " ".join([*q.rest, q.items[0].name])


def _where(p: Point) -> str:
    """Where a point is printed: its line and page, or its formula for a metric."""
    if len(p.figures) == 1:
        return cite(p.figures[0])
    return p.formula


def _series_text(q, points, grown, missing, names, unit) -> str:
    t = points[0].ticker
    printed = {label(p.figures[0].fact.line_label) for p in points if len(p.figures) == 1}
    line = f" ('{sorted(printed)[0]}')" if len(printed) == 1 else ""
    cells = "; ".join(f"FY{p.fiscal_year} {fmt(p.value, unit, q.decimals)}" for p in points)
    years = [p.fiscal_year for p in points]
    text = f"{names[t]}, {subject(q)}{line}, fiscal {years[0]}-{years[-1]}: {cells}"
    cagr = next((g for g in grown if g["kind"] == "cagr"), None)
    if cagr:
        text += f"; CAGR {fmt(cagr['value'], 'percent')} ({cagr['formula']})"
    return text + _provenance(points) + _gaps(missing)


def _peers_text(q, points, grown, missing, names, unit) -> str:
    cells = "; ".join(f"{names[p.ticker]} FY{p.fiscal_year} {fmt(p.value, unit, q.decimals)}"
                      for p in points)
    spans = {g["ticker"] for g in grown if g["kind"] == "cagr"}
    changes = "; ".join(f"{names[g['ticker']]} {_fmt(g['value'], g['unit'])} "
                        f"FY{g['from']}-FY{g['to']}" for g in grown
                        if g["kind"] == "cagr" or g["ticker"] not in spans)
    return (f"{subject(q)[:1].upper()}{subject(q)[1:]}: {cells}"
            + (f"; growth {changes}" if changes else "") + _provenance(points)
            + _gaps(missing) + period_note(points))


def _provenance(points: list[Point]) -> str:
    """The points read from a later filing's comparative columns, and those restated later."""
    out = ""
    comp = [p for p in points if p.filing_fiscal_year != p.fiscal_year]
    if comp:
        out += ". From a later 10-K's comparative column: " + ", ".join(
            f"{p.ticker} FY{p.fiscal_year} (fiscal {p.filing_fiscal_year} 10-K)" for p in comp)
    restated = [p for p in points if p.restated]
    if restated:
        out += ". Restated later: " + ", ".join(
            f"{p.ticker} FY{p.fiscal_year} {fmt(p.value, p.unit)} in its own 10-K, "
            f"{fmt(p.restated[0], p.unit)} in the fiscal {p.restated[1]} 10-K" for p in restated)
    return out


def _gaps(missing: list[dict]) -> str:
    if not missing:
        return ""
    return ". No figure for " + ", ".join(
        f"{m['ticker']} FY{m['fiscal_year']}" if m["fiscal_year"] else m["ticker"]
        for m in missing) + " (see missing)"


def _lacking(missing: list[dict], names) -> str:
    if not missing:
        return ""
    return f"; {len(missing)} lack the figure: " + ", ".join(
        names.get(m["ticker"], m["ticker"]) for m in missing)


def _answer(kind, q, points, grown, missing, names, unit, text, value, year) -> Answer:
    figures = [f for p in points for f in p.figures]
    rows, at = [], 0
    for p in points:
        rows.append(point_record(p, names[p.ticker], list(range(at, at + len(p.figures)))))
        at += len(p.figures)
    key = (lambda p: str(p.fiscal_year)) if kind == "series" else (
        lambda p: p.ticker if len({x.fiscal_year for x in points}) == 1
        else f"{p.ticker} FY{p.fiscal_year}")
    cagr = [g for g in grown if g["kind"] == "cagr"]
    return Answer(kind, value, unit, text + ".", year,
                  formula=cagr[0]["formula"] if len(cagr) == 1 else None,
                  values={key(p): p.value for p in points}, figures=figures, points=rows,
                  growth=grown or None, missing=missing or None)


def point_record(p: Point, company: str, cited: list[int]) -> dict:
    """A point as `answer.points` gives it; `cited` indexes the answer's figures / citations."""
    out = {"ticker": p.ticker, "company": company, "fiscal_year": p.fiscal_year,
           "value": p.value, "unit": p.unit, "citation": _where(p) if len(p.figures) == 1
           else f"{p.formula}; " + "; ".join(cite(f) for f in p.figures),
           "filing_fiscal_year": p.filing_fiscal_year, "period_end": p.period_end,
           "formula": p.formula, "cited": cited}
    if p.restated:
        out["restated_value"], out["restated_in"] = p.restated
    return out


def points_json(a: Answer, citations: list[dict]) -> list[dict] | None:
    """`answer.points` for `ask --json`: each with the page and EDGAR link of its first figure."""
    if a.points is None:
        return None
    out = []
    for p in a.points:
        first = citations[p["cited"][0]] if p["cited"] and p["cited"][0] < len(citations) else {}
        out.append(p | {"page": first.get("page"), "page_label": first.get("page_label"),
                        "url": first.get("url")})
    return out
