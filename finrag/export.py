"""Results to take away: the answer, the three lists and their citations as CSV and Markdown.

One row (CSV) or one bullet (Markdown) per hit, each with a copy-ready citation ("Tesla, Inc.
· TSLA · FY2024 · Item 7 ... · p. 35 · <EDGAR link>"). The answer, where there is one, comes
first with the citation of each figure it uses. Texts are the filing's own words, cut to a
snippet; nothing is generated.
"""

from __future__ import annotations

import csv
import io

from finrag.models import Hit, SearchResult
from finrag.present import citation, edgar_url, explain, page_words

LISTS = (("fused", "Fused (RRF)"), ("dense", "Dense"), ("bm25", "BM25"))
FIELDS = ("list", "rank", "ticker", "fiscal_year", "section", "page", "chunk_type", "why",
          "citation", "url", "text")
TEXT_CHARS = 400


def hit_citation(hit: Hit) -> str:
    """The citation an analyst pastes into a note: where it is printed, and the EDGAR link."""
    url = edgar_url(hit.chunk)
    return citation(hit.chunk) + (f" · {url}" if url else "")


def answer_citation(c: dict) -> str:
    page = page_words(c.get("page_label"), c.get("page"))
    out = f"{c['ticker']} FY{c['fiscal_year']} · '{c['line_label']}' · {c['statement']} · {page}"
    return out + (f" · {c['url']}" if c.get("url") else "")


def _text(hit: Hit) -> str:
    flat = " ".join(hit.chunk.text.split())
    return flat if len(flat) <= TEXT_CHARS else flat[:TEXT_CHARS].rsplit(" ", 1)[0] + " …"


def rows(result: SearchResult, answer_text: str = "", answer_citations=()) -> list[dict]:
    out = []
    for i, c in enumerate(answer_citations or ([{}] if answer_text else []), 1):
        out.append({"list": "answer", "rank": i, "ticker": c.get("ticker", ""),
                    "fiscal_year": c.get("fiscal_year", ""), "section": c.get("statement", ""),
                    "page": c.get("page_label") or c.get("page") or "", "chunk_type": "",
                    "why": "", "citation": answer_citation(c) if c else "",
                    "url": c.get("url") or "", "text": answer_text})
    for key, _ in LISTS:
        for hit in getattr(result, key):
            c = hit.chunk
            why = explain(hit, result.dense, result.bm25) if key == "fused" else ""
            out.append({"list": key, "rank": hit.rank, "ticker": c.ticker,
                        "fiscal_year": c.fiscal_year, "section": c.section,
                        "page": c.page_label or c.page or "", "chunk_type": c.chunk_type,
                        "why": why, "citation": hit_citation(hit),
                        "url": edgar_url(c) or "", "text": _text(hit)})
    return out


def to_csv(result: SearchResult, answer_text: str = "", answer_citations=()) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, FIELDS)
    writer.writeheader()
    writer.writerows(rows(result, answer_text, answer_citations))
    return out.getvalue()


def to_markdown(result: SearchResult, answer_text: str = "", answer_citations=(),
                filters: str = "") -> str:
    """The question, the answer and the three lists as Markdown, one citation per hit."""
    lines = [f"# {_md(result.query)}", ""]
    if filters:
        lines += [f"Filters: {_md(filters)}", ""]
    if answer_text:
        lines += ["## Answer", "", _md(answer_text), ""]
        lines += [f"- {_md(answer_citation(c))}" for c in answer_citations] + [""]
    for key, label in LISTS:
        lines += [f"## {label}", ""]
        hits = getattr(result, key)
        if not hits:
            lines += ["No results.", ""]
        for hit in hits:
            why = f" ({explain(hit, result.dense, result.bm25)})" if key == "fused" else ""
            lines.append(f"{hit.rank}. {_md(citation(hit.chunk))}{why}")
            url = edgar_url(hit.chunk)
            if url:
                lines.append(f"   <{url}>")
            lines.append(f"   > {_md(_text(hit))}")
        lines.append("")
    return "\n".join(lines)


def _md(text: str) -> str:
    """Filing text kept as text in Markdown: the characters that would start markup escaped."""
    return "".join("\\" + ch if ch in "\\`*_[]<>|#" else ch for ch in " ".join(text.split()))
