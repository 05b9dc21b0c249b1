"""Results to take away: the question, its filters, the answer and the three lists, as CSV and
Markdown that stand alone.

Each export says what was asked and with which filters, then the answer (its text, its value as
a number, its unit and formula, and the citation of each figure it uses), then the fused, dense
and BM25 lists, one row (CSV) or one item (Markdown) per hit with a copy-ready citation
("Tesla, Inc. · TSLA · FY2024 · Item 7 ... · p. 35 · <EDGAR link>") and the filing's own text
in full: a passage whole, a table whole (all its parts, as the app shows it) under its unit
line. Nothing is generated and nothing is cut.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping

from finrag.models import Hit, SearchResult
from finrag.present import citation, edgar_url, explain, page_words
from finrag.tablegrid import TableView, table_view

LISTS = (("fused", "Fused (RRF)"), ("dense", "Dense"), ("bm25", "BM25"))
FIELDS = ("question", "filters", "list", "rank", "ticker", "fiscal_year", "section", "page",
          "chunk_type", "why", "value", "unit", "formula", "citation", "url", "text")


def hit_citation(hit: Hit) -> str:
    """The citation an analyst pastes into a note: where it is printed, and the EDGAR link."""
    url = edgar_url(hit.chunk)
    return citation(hit.chunk) + (f" · {url}" if url else "")


def answer_citation(c: dict) -> str:
    page = page_words(c.get("page_label"), c.get("page"))
    out = f"{c['ticker']} FY{c['fiscal_year']} · '{c['line_label']}' · {c['statement']} · {page}"
    return out + (f" · {c['url']}" if c.get("url") else "")


def table_csv(view: TableView) -> str:
    """A table as CSV that carries its unit: the unit line first ("Unit: in millions"), then
    the column labels and every row."""
    out = io.StringIO()
    writer = csv.writer(out)
    if view.unit:
        writer.writerow([f"Unit: {view.unit}"])
    writer.writerow(view.columns)
    writer.writerows(view.rows)
    return out.getvalue()


def hit_view(hit: Hit, tables: Mapping[str, TableView] | None = None) -> TableView | None:
    """The table a hit shows (the whole one where `tables` has it), None for a passage."""
    c = hit.chunk
    if c.chunk_type != "table" or not c.table:
        return None
    return (tables or {}).get(hit.chunk_id) or table_view(c.table, c.text)


def hit_text(hit: Hit, tables: Mapping[str, TableView] | None = None) -> str:
    """The hit's text in full: a passage as written; a table as its unit line, its column
    labels and its rows, one line each ("label | 2024 | 2023")."""
    view = hit_view(hit, tables)
    if view is None:
        return hit.chunk.text.strip()
    lines = [f"Unit: {view.unit}"] if view.unit else []
    lines.append(" | ".join(c.strip() for c in view.columns))
    lines += [" | ".join(r) for r in view.rows]
    return "\n".join(lines)


def rows(result: SearchResult, answer=None, answer_citations=(), filters: str = "",
         tables: Mapping[str, TableView] | None = None) -> list[dict]:
    """One dict per CSV row: the answer's (one per cited figure), then every hit's."""
    base = {"question": result.query, "filters": filters or "none"}
    out = []
    if answer is not None:
        for i, c in enumerate(answer_citations or [{}], 1):
            out.append({**base, "list": "answer", "rank": i, "ticker": c.get("ticker", ""),
                        "fiscal_year": c.get("fiscal_year", answer.fiscal_year),
                        "section": c.get("statement", ""),
                        "page": c.get("page_label") or c.get("page") or "", "chunk_type": "",
                        "why": "", "value": "" if answer.value is None else answer.value,
                        "unit": answer.unit, "formula": answer.formula or "",
                        "citation": answer_citation(c) if c else "",
                        "url": c.get("url") or "", "text": answer.text})
    for key, _ in LISTS:
        for hit in getattr(result, key):
            c = hit.chunk
            why = explain(hit, result.dense, result.bm25, result.routed) if key == "fused" else ""
            view = hit_view(hit, tables)
            out.append({**base, "list": key, "rank": hit.rank, "ticker": c.ticker,
                        "fiscal_year": c.fiscal_year, "section": c.section,
                        "page": c.page_label or c.page or "", "chunk_type": c.chunk_type,
                        "why": why, "value": "", "unit": view.unit if view else "",
                        "formula": "", "citation": hit_citation(hit),
                        "url": edgar_url(c) or "", "text": hit_text(hit, tables)})
    return out


def to_csv(result: SearchResult, answer=None, answer_citations=(), filters: str = "",
           tables: Mapping[str, TableView] | None = None) -> str:
    """Every row names the question and its filters, so a row pasted alone still says them."""
    out = io.StringIO()
    writer = csv.DictWriter(out, FIELDS)
    writer.writeheader()
    writer.writerows(rows(result, answer, answer_citations, filters, tables))
    return out.getvalue()


def to_markdown(result: SearchResult, answer=None, answer_citations=(), filters: str = "",
                tables: Mapping[str, TableView] | None = None) -> str:
    """The question, its filters, the answer (value, unit, formula, citations) and the three
    lists, each hit cited and quoted whole (a table as a Markdown table under its unit line)."""
    lines = [f"# {_md(result.query)}", "", f"Filters: {_md(filters or 'none')}", ""]
    if answer is not None:
        lines += ["## Answer", "", _md(answer.text), ""]
        if answer.value is not None:
            lines.append(f"- Value: {_number(answer.value)}" + (f" ({_md(answer.unit)})"
                                                                if answer.unit else ""))
        if answer.formula:
            lines.append(f"- Formula: {_md(answer.formula)}")
        lines += [f"- Cited: {_md(answer_citation(c))}" for c in answer_citations] + [""]
    for key, label in LISTS:
        lines += [f"## {label}", ""]
        hits = getattr(result, key)
        if not hits:
            lines += ["No results.", ""]
        for hit in hits:
            why = (f" ({explain(hit, result.dense, result.bm25, result.routed)})"
                   if key == "fused" else "")
            lines.append(f"{hit.rank}. {_md(citation(hit.chunk))}{why}")
            url = edgar_url(hit.chunk)
            if url:
                lines.append(f"   <{url}>")
            lines += [""] + _quoted(hit, tables) + [""]
    return "\n".join(lines)


def _quoted(hit: Hit, tables: Mapping[str, TableView] | None) -> list[str]:
    view = hit_view(hit, tables)
    if view is None:
        return [f"   > {_md(hit.chunk.text)}"]
    out = [f"   Unit: {_md(view.unit)}", ""] if view.unit else []
    width = len(view.columns)
    out.append("   | " + " | ".join(_md(c) or " " for c in view.columns) + " |")
    out.append("   |" + "---|" + "--:|" * (width - 1))
    out += ["   | " + " | ".join(_md(c) for c in (r + [""] * width)[:width]) + " |"
            for r in view.rows]
    return out


def _number(value: float) -> str:
    """4540.0 -> "4,540"; 9.1934 -> "9.1934": the value as a number, never in e-notation."""
    return f"{value:,.4f}".rstrip("0").rstrip(".")


def _md(text: str) -> str:
    """Filing text kept as text in Markdown: the characters that would start markup escaped."""
    return "".join("\\" + ch if ch in "\\`*_[]<>|#" else ch for ch in " ".join(text.split()))
