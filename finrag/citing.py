"""How an answer writes a figure and where it is printed: "$1,577 million", "'Purchases of
property, plant and equipment', cash flow statement, p. 48"."""

from __future__ import annotations

import re

from finrag.book import Figure
from finrag.present import page_words

STATEMENT_NAMES = {"income": "income statement", "balance": "balance sheet",
                   "cash_flow": "cash flow statement", "equity": "statement of equity",
                   "other": "notes / MD&A"}


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


_FOOTNOTE = re.compile(r"\s*(?:\(\s*\d{1,2}\s*\)|\*+|[\u2020\u2021])(?=\s|$|:)")


def label(text: str) -> str:
    """A row label as an answer quotes it: without its footnote marks ('iPhone (1)' ->
    'iPhone', 'Net sales*' -> 'Net sales')."""
    return " ".join(_FOOTNOTE.sub("", text or "").split()) or (text or "")


def cite(fig: Figure) -> str:
    f = fig.fact
    where = STATEMENT_NAMES.get(f.statement, f.statement)
    page = page_words(f.page_label, f.page)
    parts = [f"'{label(f.line_label)}'", where, page, fig.note]
    return ", ".join(p for p in parts if p)


def term(fig: Figure) -> str:
    return f"{label(fig.fact.line_label)} FY{fig.fiscal_year} ({fmt(fig.value, fig.unit)})"

