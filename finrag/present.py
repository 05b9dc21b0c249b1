"""Pure helpers for showing results: evidence sentences, highlighting, EDGAR links, pages.

No Streamlit here (finrag never imports it); the app calls these. Every string shown comes from
a filing: evidence is a sentence or table row cut from a hit, never generated text. Markdown
produced here escapes everything that came from a filing, so a filing's `<script>`, `![](...)`,
`[link](javascript:...)` or `$...$` shows as the characters it is, never as markup.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date

from finrag.lineitems import normalize
from finrag.models import Chunk, Filters, Hit
from finrag.tablegrid import TableView, has_figure, header_rows, table_view
from finrag.tokens import tokenize

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>:~$=^&])")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9$(\"'])")
_TOKEN = re.compile(r"(?P<num>\(?\$?\d[\d,]*(?:\.\d+)?\)?%?)|[^\W\d][\w&'-]*")


@dataclass(frozen=True)
class Evidence:
    text: str  # a sentence or table row, verbatim from the chunk
    hit: Hit
    matched: int  # distinct query terms it contains


EDGAR = "https://www.sec.gov"
_ACCESSION = re.compile(r"\d{10}-\d{2}-\d{6}")
_DOCUMENT = re.compile(r"[\w.\-]+\.html?", re.I)


@dataclass(frozen=True)
class EdgarLink:
    """Where on EDGAR an analyst can check a chunk's filing.

    `kind`: "document" (the 10-K document itself), "filing index" (the accession's index page,
    which lists the document first), "company 10-K list" (the company's 10-K filings, newest
    first: the accession is unknown) or "none" (`url` None). `reason` says why the link is not
    the document itself ("" when it is), in words fit to show."""

    url: str | None
    kind: str
    reason: str


def edgar_link(chunk: Chunk) -> EdgarLink:
    """The best EDGAR link the filing's own identity allows.

    EDGAR's archive path needs the CIK and the accession number:
    /Archives/edgar/data/<cik>/<accession without dashes>/<file>. With the 10-K document's file
    name too, the link opens the document; without it, the accession's index page
    (<accession>-index.htm). Without an accession no archive URL exists (a folder named by the
    document, such as tsla-20241231, states neither it nor the filing date), so the link is
    the company's 10-K list (cgi-bin/browse-edgar?action=getcompany&CIK=..&type=10-K), where
    the filing is found by its period. Nothing at all without a CIK."""
    cik = chunk.cik.lstrip("0")
    if not cik.isdigit():
        return EdgarLink(None, "none", "no CIK in the filing, its header or its folder")
    acc = chunk.accession
    if not _ACCESSION.fullmatch(acc):
        return EdgarLink(f"{EDGAR}/cgi-bin/browse-edgar?action=getcompany&CIK={chunk.cik}"
                         "&type=10-K&dateb=&owner=include&count=40", "company 10-K list",
                         "no accession number in the filing or its folder name")
    folder = f"{EDGAR}/Archives/edgar/data/{cik}/{acc.replace('-', '')}"
    if _DOCUMENT.fullmatch(chunk.document):
        return EdgarLink(f"{folder}/{chunk.document}", "document", "")
    return EdgarLink(f"{folder}/{acc}-index.htm", "filing index",
                     "the 10-K document's file name is not stated in the filing")


def edgar_url(chunk: Chunk) -> str | None:
    """`edgar_link(chunk).url`."""
    return edgar_link(chunk).url


def edgar_md(chunk: Chunk) -> str:
    """The EDGAR link as Markdown for the app, saying what it opens, or why there is none."""
    link = edgar_link(chunk)
    text = {"document": "10-K on EDGAR", "filing index": "filing index on EDGAR",
            "company 10-K list": "company's 10-K list on EDGAR"}.get(link.kind)
    if link.url is None or text is None:
        return escape_md(f"no EDGAR link: {link.reason}")
    note = f" ({escape_md(link.reason)})" if link.reason else ""
    return f"[{text}]({link.url}){note}"


def page_text(chunk: Chunk) -> str:
    """The page of a chunk as an analyst finds it (see `page_words`)."""
    return page_words(chunk.page_label, chunk.page)


def page_words(label: str | None, page: int | None) -> str:
    """The printed number ("p. 35"); where the page prints none, its position in the file, said
    as such ("page 3 of the file, no printed number"); "" when the page is unknown. Every
    citation (hits, answers, exports) says its page this way."""
    if label:
        return f"p. {label}"
    if page:
        return f"page {page} of the file, no printed number"
    return ""


def citation(chunk: Chunk) -> str:
    parts = [chunk.company or chunk.ticker, chunk.ticker, f"FY{chunk.fiscal_year}"]
    if chunk.section:
        parts.append(f"{chunk.section} {chunk.section_title}".strip())
    parts.append(page_text(chunk))
    return " · ".join(p for p in parts if p)


def best_evidence(query: str, hits: list[Hit], top: int = 3, limit: int = 2) -> list[Evidence]:
    """The sentences / rows of the first `top` hits with the most query terms (figures first)."""
    terms = set(tokenize(query))
    found: list[tuple[int, bool, int, int, Evidence]] = []
    for hit in hits[:top]:
        for order, piece in enumerate(_pieces(hit.chunk)):
            matched = len(terms & set(tokenize(piece)))
            if matched:
                figures = not any(ch.isdigit() for ch in piece)  # False sorts first
                found.append((-matched, figures, hit.rank, order, Evidence(piece, hit, matched)))
    found.sort(key=lambda f: f[:4])
    return [f[4] for f in found[:limit]]


def _pieces(chunk: Chunk) -> list[str]:
    if chunk.chunk_type == "table":  # a header row or caption alone is no evidence
        return [line for line in chunk.text.splitlines() if line.strip() and _has_value(line)]
    return [s.strip() for s in _SENTENCE.split(chunk.text.replace("\n", " ")) if s.strip()]


def _has_value(line: str) -> bool:
    """A table line with a figure in a cell after its label (not a year or a date)."""
    return any(has_figure(c) for c in line.split("|")[1:])


def cited_rows(index, answer) -> list[tuple[Chunk, TableView]]:
    """The statement rows an answer's figures are printed on, each with its table's period
    columns and unit line: the evidence that shows the answer (figures without a table chunk,
    such as a number tagged in a sentence, have none)."""
    ids = list(dict.fromkeys(f.fact.chunk_id for f in answer.figures if f.fact.chunk_id))
    chunks = index.chunks(ids) if ids else {}
    out = []
    for chunk_id in ids:
        chunk = chunks.get(chunk_id)
        if chunk is None or chunk.chunk_type != "table" or not chunk.table:
            continue
        view = table_view(chunk.table, chunk.text)
        labels = {normalize(f.fact.line_label) for f in answer.figures
                  if f.fact.chunk_id == chunk_id}
        rows = [r for r in view.rows if r and normalize(r[0]) in labels]
        if rows:
            out.append((chunk, TableView(view.columns, rows, view.unit, True)))
    return out


def whole_table(index, chunk: Chunk) -> TableView:
    """The whole table a table chunk is part of, as one view: ingest cuts a long table into
    consecutive chunks of its page, each repeating the caption and heading rows, and a table
    printed over several pages repeats its heading rows at the top of each. So the parts are
    the run of table chunks around this one on its page with the same caption and heading
    rows, and, where that run ends its page (or starts it), the run that starts the next page
    (or ends the one before) with the same heading rows. The chunk alone where its page
    cannot say."""
    own = table_view(chunk.table or [], chunk.text)
    if not (chunk.table and chunk.filing_key and chunk.page):
        return own
    head = _head(chunk)
    if not head[1]:  # no heading rows: nothing tells the parts of one table apart
        return own
    page = index.page_chunks(chunk.filing_key, [chunk.page])
    at = next((i for i, c in enumerate(page) if c.chunk_id == chunk.chunk_id), None)
    if at is None:
        return own
    parts = _run(page, at, lambda c: _head(c) == head)
    before = _continued(index, parts[0], head, -1) if parts[0] is page[0] else []
    after = _continued(index, parts[-1], head, 1) if parts[-1] is page[-1] else []
    parts = before + parts + after
    views = [table_view(c.table, c.text) for c in parts]
    if any(v.columns != own.columns for v in views):
        return own
    # unlabelled columns show the heading rows as rows: once, at the top
    shown = 0 if own.labelled else len(own.rows) - (_rows(chunk) - len(head[1]))
    rows = own.rows[:shown] + [r for v in views for r in v.rows[shown:]]
    return TableView(own.columns, rows, own.unit, own.labelled)


def _run(page: list[Chunk], at: int, same) -> list[Chunk]:
    """The chunks around page[at] (itself included) for which `same` holds, in page order."""
    first, last = at, at
    while first > 0 and same(page[first - 1]):
        first -= 1
    while last + 1 < len(page) and same(page[last + 1]):
        last += 1
    return page[first:last + 1]


def _continued(index, edge: Chunk, head: tuple[str, list[list[str]]], step: int) -> list[Chunk]:
    """The parts of a table on the pages after `edge` (step 1), the part ending its page, or
    before it (-1), the part starting its page. A table printed over pages repeats its heading
    rows at the top of each, with no title of its own there (none, its first part's, or one
    saying "continued"): going forward, each page that opens with such parts adds them while
    they fill it; going back, each page that ends with parts under the same heading rows adds
    them, up to the first part, which may carry the table's title. A titled table under the
    same years on the next page (the statement that follows) is another table."""
    caption, heading = head
    plain = {caption, " | ".join(c for c in heading[0] if c.strip())}

    def titled(c: Chunk) -> bool:
        own = _head(c)[0]
        return own not in plain and "continued" not in own.lower()

    if step < 0 and titled(edge):
        return []  # this part opens its table
    out: list[Chunk] = []
    number = edge.page + step
    while number > 0:
        page = index.page_chunks(edge.filing_key, [number])
        order = page if step > 0 else page[::-1]  # from the page's edge inwards
        run: list[Chunk] = []
        for c in order:
            if _head(c)[1] != heading or (step > 0 and titled(c)):
                break
            run.append(c)
            if step < 0 and titled(c):
                break  # the table's first part: its title
        if not run:
            break
        out = out + run if step > 0 else run[::-1] + out
        if len(run) < len(page) or (step < 0 and titled(run[-1])):
            break  # the table ends (starts) on this page
        number += step
    return out


def _rows(chunk: Chunk) -> int:
    return sum(1 for r in chunk.table or [] if any(c.strip() for c in r))


def _head(chunk: Chunk) -> tuple[str, list[list[str]]]:
    """A table chunk's caption line and heading rows (what every part of a table repeats)."""
    if chunk.chunk_type != "table" or not chunk.table:
        return ("", [])
    grid = [r for r in chunk.table if any(c.strip() for c in r)]
    head = grid[:header_rows(grid)]
    first = chunk.text.splitlines()[0] if chunk.text else ""
    return (first, head)


def filing_year_ends(index) -> dict[tuple[str, int], str]:
    """(ticker, fiscal year) -> the ISO date the fiscal year ended, as the filing's passages
    state it (those of its first pages, else any of its own); a filing whose passages hold no
    date, or an index that cannot read a filing's passages (a server-only one), is left out."""
    if not hasattr(index, "filings"):
        return {}
    out: dict[tuple[str, int], str] = {}
    for key, filing in index.filings().items():
        end = next((c.period_end for c in index.page_chunks(key, range(1, 6)) if c.period_end),
                   None)
        if end is None:  # no passage on the first pages: any of the filing's own
            payloads = index.filing_payloads([key]).get(key, {})
            end = next((json.loads(p).get("period_end") for p in payloads.values()), None)
        if end:
            out.setdefault((filing["ticker"], int(filing["fiscal_year"])), end)
    return out


def fiscal_year_label(year: int, period_end: str | None) -> str:
    """"FY2025 (Jan 31, 2025)": the fiscal year with the day it ended ("FY2025" alone where
    the date is unknown), so a retailer's FY2025 beside a calendar-year FY2024 reads right."""
    try:
        end = date.fromisoformat((period_end or "")[:10])
    except ValueError:
        return f"FY{year}"
    return f"FY{year} ({end:%b} {end.day}, {end.year})"


def excluding_filters(chosen: Filters, tickers, years) -> dict[str, str]:
    """The filters the user set that exclude what the question names, each ("ticker" /
    "year") with its reason in words: a ticker filter without the company named; a
    fiscal-year filter none of whose 10-Ks prints a year named (a 10-K prints its year and the
    two before it)."""
    out = {}
    if chosen.tickers and (missing := [t for t in tickers if t not in chosen.tickers]):
        out["ticker"] = (f"The ticker filter ({', '.join(chosen.tickers)}) excludes "
                         f"{', '.join(missing)}, which the question names.")
    have = chosen.fiscal_years
    if have and (missing := [y for y in years if not any(y <= f <= y + 2 for f in have)]):
        out["year"] = (f"The fiscal-year filter ({', '.join(map(str, have))}) excludes fiscal "
                       f"{', '.join(map(str, missing))}, which the question names.")
    return out


def escape_md(text: str) -> str:
    """Backslash-escape every Markdown / Streamlit directive character."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def highlight_md(text: str, query: str) -> str:
    """Escaped Markdown of `text` with query terms in bold and figures highlighted."""
    terms = set(tokenize(query))
    flat = " ".join(text.split())
    out, pos = [], 0
    for m in _TOKEN.finditer(flat):
        out.append(escape_md(flat[pos : m.start()]))
        token, safe = m.group(), escape_md(m.group())
        if m.group("num") and is_figure(token, flat[max(0, m.start() - 12) : m.start()]):
            out.append(f":blue-background[{safe}]")
        elif terms & set(tokenize(token)):
            out.append(f"**{safe}**")
        else:
            out.append(safe)
        pos = m.end()
    out.append(escape_md(flat[pos:]))
    return "".join(out)


_YEAR_ONLY = re.compile(r"\(?(?:19|20)\d\d\)?")
_REFERENCE = re.compile(r"\b(?:note|notes|item|items|form|part|section|rule|exhibit|page|level"
                        r"|tier|schedule|article|chapter|no\.|january|february|march|april|may"
                        r"|june|july|august|september|october|november|december)\s*$",
                        re.IGNORECASE)


def is_figure(token: str, before: str = "") -> bool:
    """A number an analyst looks for: an amount or a rate ("$1,577", "(201)", "13.5%", "3,197"),
    not a year ("2024"), a reference ("Note 5", "Item 7", "Form 10-K") or a small count."""
    token = token.rstrip(",.")  # "2024," ends a clause; "2," ends a date's day
    if _YEAR_ONLY.fullmatch(token) or _REFERENCE.search(before):
        return False
    digits = token.strip("()$%")
    return any(ch in token for ch in "$%,.()") or len(digits) >= 3


def snippet(text: str, query: str, width: int = 320) -> str:
    """A window of the text around its first query term, at most `width` characters, cut
    between words."""
    flat = " ".join(text.split())
    terms = set(tokenize(query))
    start = 0
    for m in re.finditer(r"[\w&'-]+", flat):
        if terms & set(tokenize(m.group())):
            start = max(0, m.start() - width // 4)
            break
    if start:
        space = flat.rfind(" ", 0, start + 1)
        start = space + 1 if space >= 0 else 0
    end = start + width
    if end < len(flat):
        space = flat.rfind(" ", start, end + 1)
        end = space if space > start else end
    cut = flat[start:end].strip()
    return ("… " if start else "") + cut + (" …" if end < len(flat) else "")


def explain(hit: Hit, dense: list[Hit], bm25: list[Hit], routed: list[str] = ()) -> str:
    """Why a fused hit is where it is, in words: "ranked #1 by dense and #2 by BM25"; a vote
    given to another passage of the same page says so."""
    parts = []
    for name, rank, shown in (("dense", hit.dense_rank, dense), ("BM25", hit.bm25_rank, bm25)):
        if rank is not None:
            other = rank <= len(shown) and shown[rank - 1].chunk_id != hit.chunk_id
            note = " (another passage on this page)" if other else ""
            parts.append(f"#{rank} by {name}{note}")
    if not parts:
        return "ranked by neither retriever"
    alone = "" if len(parts) == 2 else " only"
    return "ranked " + " and ".join(parts) + alone + lifted(hit, routed)


def lifted(hit: Hit, routed: list[str]) -> str:
    """"; lifted: ..." where the routed place's vote counted for the hit (finrag.routing)."""
    from finrag.routing import why

    reason = why(hit.chunk, routed) if hit.section_contribution else ""
    return f"; lifted: {reason}" if reason else ""


def vote(name: str, rank: int | None, shown: list[Hit], chunk_id: str) -> str:
    """How one retriever voted for a fused hit: "dense #3", or "dense #3 (another chunk of
    this page)" when fusion by page credited a different chunk than the one shown."""
    if rank is None:
        return f"{name} #–"
    other = rank <= len(shown) and shown[rank - 1].chunk_id != chunk_id
    return f"{name} #{rank}" + (" (another chunk of this page)" if other else "")


def short_id(chunk_id: str) -> str:
    return chunk_id[:6]


BADGE_COLORS = ("red", "orange", "green", "blue", "violet", "gray")


def badge_color(chunk_id: str) -> str:
    return BADGE_COLORS[int(chunk_id[:8], 16) % len(BADGE_COLORS)]


def hit_record(hit: Hit, *, fused: bool = False, text_limit: int | None = None) -> dict:
    """One hit as JSON, the one shape every surface prints (`search --json`, canaries, `ask`):
    `page` is the page's position in the file (1-based), `page_label` the number printed on it
    (or null); `url` the EDGAR link (or null), `url_kind` what it opens and `url_reason` why it
    is not the 10-K document itself (null when it is). A fused hit adds where it came from."""
    c = hit.chunk
    link = edgar_link(c)
    out = {"chunk_id": hit.chunk_id, "rank": hit.rank, "score": round(hit.score, 6),
           "ticker": c.ticker, "fiscal_year": c.fiscal_year, "chunk_type": c.chunk_type,
           "section": c.section, "page": c.page, "page_label": c.page_label,
           "url": link.url, "url_kind": link.kind, "url_reason": link.reason or None,
           "text": c.text if text_limit is None else c.text[:text_limit]}
    if fused:
        out.update(dense_rank=hit.dense_rank, bm25_rank=hit.bm25_rank,
                   dense_contribution=round(hit.dense_contribution, 6),
                   bm25_contribution=round(hit.bm25_contribution, 6),
                   section_contribution=round(hit.section_contribution, 6))
    return out
