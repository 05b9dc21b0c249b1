"""Growth between the points of a series: year over year and the compound annual rate over the
span, each with its formula; and the note a comparison across companies needs when their fiscal
years end months apart.

An amount (or a ratio, a per-share figure) grows by a percent; a percent metric (a margin) moves
by percentage points, and has no CAGR. A CAGR needs a positive first and last value. A point a
later 10-K restates grows from its restated figure, so both ends are on one basis.
"""

from __future__ import annotations

from datetime import date
from itertools import groupby

from finrag.citing import fmt

MONTH_APART_DAYS = 28  # fiscal years ending this far apart are said to differ by months


def growth(points, by_ticker: bool = True) -> list[dict]:
    """Each company's year-over-year growth between consecutive fiscal years, then its CAGR."""
    out = []
    ordered = sorted(points, key=lambda p: (p.ticker, p.fiscal_year))
    for _, group in groupby(ordered, key=lambda p: p.ticker if by_ticker else ""):
        pts = list(group)
        for a, b in zip(pts, pts[1:]):
            if b.fiscal_year == a.fiscal_year + 1:
                g = change(a, b)
                if g:
                    out.append(g)
        if len(pts) >= 2:
            g = cagr(pts[0], pts[-1])
            if g:
                out.append(g)
    return out


def latest(p) -> float:
    """The figure growth compares: the restated one where a later 10-K restates the point (a
    stock split, a change of accounting), so that both ends are on one basis."""
    return p.restated[0] if p.restated else p.value


def _term(p) -> str:
    said = f" restated in the fiscal {p.restated[1]} 10-K" if p.restated else ""
    return f"FY{p.fiscal_year} {fmt(latest(p), p.unit)}{said}"


def change(a, b) -> dict | None:
    """b against a: a percent (percentage points for a percent metric); None from zero."""
    va, vb = latest(a), latest(b)
    if a.unit == "percent":
        return _row("yoy", a, b, round(vb - va, 4), "percentage points",
                    f"{_term(b)} - {_term(a)}")
    if va == 0:
        return None
    pct = (vb - va) / abs(va) * 100
    return _row("yoy", a, b, round(pct, 4), "percent",
                f"({_term(b)} - {_term(a)}) / {fmt(abs(va), a.unit)} x 100")


def cagr(a, b) -> dict | None:
    """The compound annual growth rate from a to b; None for a percent metric, a value <= 0 or
    a single year (its growth says it)."""
    n = b.fiscal_year - a.fiscal_year
    va, vb = latest(a), latest(b)
    if a.unit == "percent" or n < 2 or va <= 0 or vb <= 0:
        return None
    value = ((vb / va) ** (1 / n) - 1) * 100
    return _row("cagr", a, b, round(value, 4), "percent",
                f"({_term(b)} / {_term(a)}) ^ (1/{n}) - 1")


def _row(kind, a, b, value, unit, formula) -> dict:
    return {"kind": kind, "ticker": b.ticker, "from": a.fiscal_year, "to": b.fiscal_year,
            "value": value, "unit": unit, "formula": formula}


def period_note(points) -> str:
    """Where companies' same fiscal year ends months apart, say so, with each end date."""
    out = ""
    for year in sorted({p.fiscal_year for p in points}):
        ends: dict[str, list[str]] = {}
        for p in points:
            if p.fiscal_year == year and p.period_end and p.ticker not in ends.get(
                    p.period_end, []):
                ends.setdefault(p.period_end, []).append(p.ticker)
        days = [date.fromisoformat(d) for d in ends]
        if len(days) > 1 and (max(days) - min(days)).days >= MONTH_APART_DAYS:
            out += (f". Fiscal {year} is each company's own and ends months apart: " + "; ".join(
                f"{end} {', '.join(ts)}" for end, ts in sorted(ends.items())))
    return out
