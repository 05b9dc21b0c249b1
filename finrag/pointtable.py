"""The table of a series, peers or ranking answer as analysts read it: fiscal years (a series),
companies (peers in one year) or ranks as columns or rows, numbers right-aligned, the unit on a
line of its own, and marks for points read from a later 10-K or restated there.

`grid(answer)` gives the header and rows (strings), `lines(answer)` the plain-text table the
CLI prints. Both read `answer.points` only, so any surface can draw the same table.
"""

from __future__ import annotations

COMPARATIVE = "c"  # read from a later 10-K's comparative column
RESTATED = "r"  # a later 10-K prints another value


def cell(value: float, unit: str) -> str:
    """A number as a table prints it under a unit line: 391,035 / 31.5 / 1.07."""
    if unit == "percent":
        return f"{value:,.1f}"
    if unit in ("ratio", "days", "USD per share"):
        return f"{value:,.2f}"
    return f"{value:,.0f}" if value == int(value) else f"{value:,.2f}"


def unit_line(unit: str) -> str:
    return {"percent": "(percent)", "ratio": "(ratio)", "days": "(days)",
            "USD per share": "(USD per share)"}.get(unit, f"({unit})")


def _mark(p: dict) -> str:
    marks = (COMPARATIVE if p["filing_fiscal_year"] != p["fiscal_year"] else "") + (
        RESTATED if "restated_value" in p else "")
    return f" {marks}" if marks else ""


def grid(a) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of the answer's points: a series has its years as columns; peers of one
    year the companies; peers over several years a row per company; a ranking a row per rank."""
    pts = a.points or []
    years = sorted({p["fiscal_year"] for p in pts})
    if a.kind == "ranking":
        header = ["rank", "company", "fiscal year end", a.unit]
        return header, [[str(i), f"{p['company']} ({p['ticker']})", p["period_end"] or "",
                         cell(p["value"], p["unit"]) + _mark(p)] for i, p in enumerate(pts, 1)]
    if a.kind == "peers" and len(years) == 1:
        header = [""] + [f"{p['ticker']} FY{p['fiscal_year']}" for p in pts]
        return header, [[_subject(a)] + [cell(p["value"], p["unit"]) + _mark(p) for p in pts]]
    tickers = list(dict.fromkeys(p["ticker"] for p in pts))
    at = {(p["ticker"], p["fiscal_year"]): p for p in pts}
    rows = []
    for t in tickers:
        rows.append([t] + [cell(at[t, y]["value"], at[t, y]["unit"]) + _mark(at[t, y])
                           if (t, y) in at else "-" for y in years])
        grown = {g["to"]: g for g in a.growth or [] if g["ticker"] == t and g["kind"] == "yoy"}
        if grown and a.kind == "series":
            rows.append(["growth"] + [_growth_cell(grown[y]) if y in grown else ""
                                      for y in years])
    return [""] + [f"FY{y}" for y in years], rows


def _growth_cell(g: dict) -> str:
    return f"{g['value']:+.1f}" + ("%" if g["unit"] == "percent" else " pp")


def _subject(a) -> str:
    return (a.text.split(":", 1)[0] if a.text else "")[:30]


def lines(a) -> list[str]:
    """The plain-text table: the unit line, the columns right-aligned, then the marks' key."""
    header, rows = grid(a)
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    left = 2 if a.kind == "ranking" else 1  # label columns, left-aligned

    def row(cells):
        return "  ".join(c.ljust(w) if i < left else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths)))

    out = [unit_line(a.unit), row(header)] + [row(r) for r in rows]
    pts = a.points or []
    if any(p["filing_fiscal_year"] != p["fiscal_year"] for p in pts):
        out.append(f"{COMPARATIVE}: from a later 10-K's comparative column")
    for p in pts:
        if "restated_value" in p:
            out.append(f"{RESTATED}: {p['ticker']} FY{p['fiscal_year']} restated to "
                       f"{cell(p['restated_value'], p['unit'])} in the fiscal "
                       f"{p['restated_in']} 10-K")
    for g in a.growth or []:
        if g["kind"] == "cagr":
            out.append(f"CAGR {g['ticker']} FY{g['from']}-FY{g['to']}: {g['value']:.1f}% "
                       f"({g['formula']})")
    for m in a.missing or []:
        out.append(f"no figure: {m['ticker']}" + (f" FY{m['fiscal_year']}" if m["fiscal_year"]
                                                  else "") + f" ({m['reason']})")
    return out
