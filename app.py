"""finrag's Streamlit app: question, filters, evidence, and the dense / BM25 / fused columns.

Widgets and layout only; everything else is the finrag library. Widget values live in the URL
(bind="query-params"), so a result can be shared by link.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import os
from pathlib import Path

import altair as alt
import pandas as pd
import streamlit as st

from finrag.ask import ask
from finrag.autofilter import auto_filters
from finrag.canary import DEFAULT_FILE, load_canaries, run_canary
from finrag.citing import fmt
from finrag.companies import companies_of
from finrag.config import K_EACH, RRF_K, Settings
from finrag.embed import Embedder
from finrag.export import table_csv, to_csv, to_markdown
from finrag.index import NO_INDEX_HINT, IndexUnavailable
from finrag.ingest.chunk import table_row_text
from finrag.models import Chunk, Filters
from finrag.narrate import cite_words
from finrag.pageview import PageUnavailable, page_view
from finrag.passage import CAUSE, LIST, form
from finrag.pointtable import grid, unit_line
from finrag.present import (
    badge_color,
    best_evidence,
    citation,
    cited_rows,
    edgar_md,
    escape_md,
    excluding_filters,
    explain,
    filing_year_ends,
    fiscal_year_label,
    highlight_md,
    page_text,
    page_words,
    short_id,
    snippet,
    vote,
    whole_table,
)
from finrag.search import MAX_QUERY_CHARS, HybridSearcher, QueryError
from finrag.series import points_json
from finrag.statements_view import StatementTable, filing_choices, filing_statements
from finrag.store.base import StoreError
from finrag.tablegrid import TableView, table_view

st.set_page_config(page_title="finrag · 10-K search", page_icon="📄", layout="wide")
# Readable text (WCAG AA and well above: captions and quoted evidence in dark grey), tables that
# keep their figures on one line with a scrollbar that shows where a table is wider than its
# column (Streamlit's is transparent until hovered), and narrower margins so three columns
# hold at 1024 px.
st.markdown("""<style>
[data-testid="stCaptionContainer"] {opacity: 1 !important;}
[data-testid="stCaptionContainer"], [data-testid="stCaptionContainer"] p {color: #45474f;}
[data-testid="stMarkdownContainer"] blockquote {color: #1f2029; opacity: 1 !important;
  border-left-color: #8a8d96;}
[data-testid="stTable"] td, [data-testid="stTable"] th {white-space: nowrap; padding: 2px 6px;}
[data-testid="stTable"] td:first-child {white-space: normal; min-width: 7rem;}
[data-testid="stTable"], [data-testid="stTable"] > div {overflow-x: auto;}
[data-testid="stTable"] > div {scrollbar-width: auto !important;
  scrollbar-color: #8a8d96 #eceef2 !important; padding-bottom: 2px;}
[data-testid="stTable"] td:not(:first-child), [data-testid="stTable"] th:not(:first-child),
[data-testid="stTable"] td:not(:first-child) p, [data-testid="stTable"] th:not(:first-child) p
{text-align: right !important;}
@media (max-width: 1280px) {
  .block-container {padding-left: 1rem; padding-right: 1rem;}
  section[data-testid="stSidebar"] {width: 15rem !important; min-width: 15rem !important;}
  [class*="st-key-col-"] p {font-size: 0.875rem;}
}
</style>""", unsafe_allow_html=True)
LINKED = ("q", "ticker", "year", "type", "k", "rrf_k", "w_dense", "w_bm25", "k_each")
link = {key: st.query_params.get_all(key) for key in LINKED}  # before the widgets vet them


@st.cache_resource
def get_searcher() -> HybridSearcher:
    embedder = query_embedder()
    embedder.encode_query("warm up")  # the query model loads with the page
    return HybridSearcher(Settings.from_env(), embedder)


def query_embedder():
    """The query model; FINRAG_APP_EMBEDDER="module:name" names a stand-in to build instead (the
    app tests run on a small fake, tests/test_app.py; a few slow ones keep the model)."""
    stand_in = os.environ.get("FINRAG_APP_EMBEDDER")
    if not stand_in:
        return Embedder()
    module, _, name = stand_in.partition(":")
    return getattr(importlib.import_module(module), name)()


@st.cache_data
def get_canaries():
    return load_canaries(DEFAULT_FILE)


def ignored_from_link(link: dict[str, list[str]]) -> list[str]:
    """`key=value` of each link value its widget refused (Streamlit drops those silently)."""
    out = []
    for key, values in link.items():
        value = st.session_state.get(key)
        shown = [str(v) for v in (value if isinstance(value, list) else [value])]
        shown += st.query_params.get_all(key)  # kept in the URL as given (e.g. a ticker's label)
        out += [f"{key}={v[:40]}" for v in values if not any(_same(v, s) for s in shown)]
    return out


def _same(linked: str, shown: str) -> bool:
    try:
        return linked == shown or float(linked) == float(shown)
    except ValueError:
        return False


def run_canary_into_state(canary) -> None:
    """Fill the question and filters from a canary; its verdict shows after the rerun."""
    st.session_state.update(q=canary.query, ticker=canary.tickers, year=canary.fiscal_years,
                            type=(canary.chunk_types or ["all"])[0], canary=canary.name)


searcher = get_searcher()
try:
    facets = searcher.index.facets()
except IndexUnavailable as exc:
    st.title("finrag")
    if searcher.settings.qdrant_index:  # an index named on a server: the message says what to do
        st.error(str(exc))
    else:
        st.info(f"No index yet. {exc}")
        st.code(".venv/bin/python -m ingest build --sample", language="bash")
    st.stop()
except (StoreError, ValueError) as exc:
    # a vector store that cannot be opened (a Qdrant server without the collection, say)
    st.title("finrag")
    st.error(str(exc))
    st.stop()
if not facets["companies"]:
    st.title("finrag")
    st.info(f"The index is empty: {NO_INDEX_HINT}")
    st.stop()

# --- links written by hand: `?ticker=TSLA&year=2024&q=...` ---------------------------------
companies, filed = companies_of(searcher.index)


def ticker_label(t: str) -> str:
    return f"{t} · {companies[t]}" if companies.get(t) else t


def vet_link() -> str:
    """On a session's first run: a ticker given bare or in lower case is chosen in the ticker
    list; a question longer than any search takes is not searched (the box keeps its start,
    up to that length). Returns a warning to show, or ''."""
    by_upper = {t.upper(): t for t in companies}
    given = [by_upper.get(v.strip().upper(), v) for v in st.query_params.get_all("ticker")]
    if any(v in companies for v in given):
        st.session_state["ticker"] = [v for v in given if v in companies]
        link["ticker"] = given  # the rest is named as ignored
    question = st.query_params.get("q", "")
    if len(question) > MAX_QUERY_CHARS:
        link.pop("q", None)
        # the box is bound to the link: cut the link, and run again so the box reads it cut
        st.query_params["q"] = question[:MAX_QUERY_CHARS]
        st.session_state["q-link-cut"] = len(question)
        st.rerun()
    if cut := st.session_state.pop("q-link-cut", None):
        return (f"The question in the link is {cut:,} characters long; questions are "
                f"limited to {MAX_QUERY_CHARS:,}, so it was not searched. The box keeps its first "
                f"{MAX_QUERY_CHARS:,}: shorten it and press Enter.")
    return ""


link_problem = "" if st.session_state.get("link-checked") else vet_link()

# --- sidebar: filters ----------------------------------------------------------------------
with st.sidebar:
    st.header("Filters")
    # Typing matches a label from its start (each label leads with its ticker), and Enter takes
    # the first match, never "Select all matches": "AAPL" offers and selects AAPL alone, where
    # the default fuzzy match also offered "META · Meta Platforms" and Enter took both.
    tickers = st.multiselect("Tickers", sorted(companies), key="ticker", bind="query-params",
                             format_func=ticker_label, filter_mode="prefix", select_all=False,
                             placeholder="Type a ticker, e.g. AAPL",
                             help="Matches tickers from their first letter; a company named "
                                  "in the question is read as a filter (Auto filters)")
    # the year list follows the tickers chosen (a year picked before stays offered)
    offered = {y for t in (tickers or companies) for y in filed.get(t, [])}
    offered |= {int(y) for y in st.session_state.get("year") or [] if str(y).isdigit()}
    years = st.multiselect("Fiscal years", sorted(offered), key="year", bind="query-params",
                           help="The fiscal years the chosen companies have a 10-K for")
    chunk_type = st.selectbox("Chunk type", ["all", "narrative", "table"], key="type",
                              bind="query-params")
    top_k = st.slider("Results per column", 1, 30, 10, key="k", bind="query-params")
    use_auto = st.toggle("Auto filters (company, fiscal year)", True, key="auto",
                         bind="query-params",
                         help="A company (name or ticker) and fiscal year ('FY24', 'fiscal "
                              "2024') you name become filters you can remove")
    explaining = st.toggle("Explain (scores, chunk ids)", False, key="explain",
                           bind="query-params")
    with st.expander("Advanced (fusion)"):
        rrf_k = st.number_input("RRF k", 0, 1000, RRF_K, key="rrf_k", bind="query-params")
        w_dense = st.number_input("Dense weight", 0.0, 10.0, 1.0, 0.1, key="w_dense",
                                  bind="query-params")
        w_bm25 = st.number_input("BM25 weight", 0.0, 10.0, 1.0, 0.1, key="w_bm25",
                                 bind="query-params")
        k_each = st.number_input("Candidates per retriever (k_each)", 1, 500, K_EACH,
                                 key="k_each", bind="query-params")
        fuse_by = st.radio("Fuse by", ["page", "chunk"], key="fuse_by", bind="query-params",
                           horizontal=True,
                           help="page: one fused hit per page, each retriever voting with its "
                                "best chunk on it; chunk: chunk by chunk")
    st.caption(f"{len(searcher.index):,} passages from {len(facets['filings'])} 10-K filings")


@st.cache_data
def year_ends(generation: str) -> dict[tuple[str, int], str]:
    """The day each filing's fiscal year ended, read once per index generation."""
    return filing_year_ends(searcher.index)


def coverage_table(chosen: list[str]) -> pd.DataFrame:
    """One row per 10-K indexed (of the chosen companies, else all), by company then fiscal
    year: the fiscal year with the day it ended ("FY2025 (Jan 31, 2025)", so a retailer's
    FY2025 beside a calendar-year FY2024 reads right), passages and tables indexed."""
    ends = year_ends(str(searcher.index.identity))
    rows = [{"Company": ticker_label(c["ticker"]),
             "Fiscal year": fiscal_year_label(c["fiscal_year"],
                                              ends.get((c["ticker"], c["fiscal_year"]))),
             "Passages": f"{c.get('narrative', 0) + c.get('table', 0):,}",
             "Tables": f"{c.get('table', 0):,}"}
            for c in sorted(facets["filings"], key=lambda c: (c["ticker"], c["fiscal_year"]))
            if not chosen or c["ticker"] in chosen]
    return pd.DataFrame(rows, columns=["Company", "Fiscal year", "Passages", "Tables"])


# --- the page itself: a dialog over whatever asked for it -----------------------------------
# A dialog, not an expander: a page is read and cut from its filing only when asked for (an
# expander per hit would parse a filing for each of 30 hits on every run), and closing it
# leaves the answer and the columns as they were (a `?page=` link would rerun the search).
SCROLL_TO_MARK = ("<script>setTimeout(() => document.querySelector('.st-key-page-view mark')"
                  "?.scrollIntoView({block: 'center'}), 300)</script>")


def open_page(chunk_id: str | None, marks: list[str], filing_key: str = "",
              page: int | None = None) -> None:
    """A button's callback: the page to show after the rerun (one request at a time)."""
    st.session_state["page-request"] = (chunk_id, marks, filing_key, page)


def open_row(key: str, table: StatementTable, filing_key: str) -> None:
    """A statement row selected: its page, the row marked."""
    rows = st.session_state[key].selection.rows
    if rows:
        row = table.rows[rows[0]]
        open_page(row.chunk_id, [row.mark()], filing_key, row.page)


def page_button(key: str, chunk_id: str | None, marks: list[str], filing_key: str = "",
                page: int | None = None, label: str = "View page") -> None:
    st.button(label, key=key, type="tertiary", icon=":material/description:",
              on_click=open_page, args=(chunk_id, marks, filing_key, page),
              help="The filing's own page, offline, the cited row or sentence marked")


def requested_chunk(chunk_id: str | None, filing_key: str, page: int | None) -> Chunk | None:
    """The passage a request names, else any passage of its filing on its page."""
    if chunk_id and (chunk := searcher.index.chunks([chunk_id]).get(chunk_id)):
        return chunk
    payloads = searcher.index.filing_payloads([filing_key]).get(filing_key, {})
    return next((c for c in map(Chunk.model_validate_json, payloads.values())
                 if page and c.page == page), None)


@st.dialog("The filing's page", width="large")
def show_page(chunk_id: str | None, marks: list[str], filing_key: str, page: int | None):
    chunk = requested_chunk(chunk_id, filing_key, page)
    if chunk is None:
        st.warning("That passage is no longer in the index (the filing was re-ingested or "
                   "removed): ask again to get its current citation.")
        return
    where = f" (page {chunk.page} of the file)" if chunk.page_label and chunk.page else ""
    st.markdown(f"**{escape_md(citation(chunk) + where)}** · {edgar_md(chunk)}")
    roots = (Path(searcher.settings.data_dir).resolve().parent, Path.cwd())
    try:
        view = page_view(chunk, marks, roots=roots, index=searcher.index)
    except PageUnavailable as exc:
        st.warning(str(exc), icon="⚠️")
        return
    how = {"html": "The filing's own page", "text": "The page's text as indexed",
           "pdf": "The PDF page's text (not rendered as an image)"}[view.kind]
    found = ("the cited row or sentence marked" if view.marked else
             "the cited text was not found on this page to mark" if marks else "")
    st.caption(f"{how}{', ' + found if found else ''}; links, images and scripts removed.")
    with st.container(key="page-view", height=640):
        st.html(f'<div style="background:#fff;color:#000;padding:8px;overflow-x:auto">'
                f'{view.html}</div>')
    if view.marked:  # our own one line, apart from the page (which stays script-free)
        st.html(SCROLL_TO_MARK, unsafe_allow_javascript=True)


if request := st.session_state.pop("page-request", None):
    show_page(*request)


def show_statements(filing_key: str) -> None:
    """The filing's three statements, a row selected opening its page."""
    tables = filing_statements(searcher.index, filing_key)
    if not tables:
        st.info("No statement figures are indexed for this filing (its statements were not "
                "read as tables or XBRL).")
    for table in tables:
        pages = ", ".join(page_words(label, page) for page, label in table.pages)
        st.markdown(f"**{table.title}**")
        st.caption(f"({escape_md(table.unit)}) · printed on {escape_md(pages)} · select a row "
                   "to open its page with the row marked")
        frame = pd.DataFrame(table.grid(), columns=table.header())
        frame["Page"] = [r.page_label or (f"{r.page} of file" if r.page else "")
                         for r in table.rows]
        key = f"stmt-{table.statement}"
        st.dataframe(frame, hide_index=True, key=key,
                     on_select=functools.partial(open_row, key, table, filing_key),
                     selection_mode="single-row",
                     column_config={c: st.column_config.TextColumn(alignment="right")
                                    for c in table.columns},
                     height=min(36 + 35 * len(frame), 560))
        first = table.pages[0] if table.pages else None
        if first:
            page_button(f"page-{key}", None, [], filing_key, first[0],
                        label=f"View {page_words(first[1], first[0])}")


# --- main: question ------------------------------------------------------------------------
def new_question() -> None:
    """The box's callback: a new question starts with every filter it names (chips removed
    for the last question are forgotten); one over the search's limit is cut to it and not
    searched. The box takes a paste of any length (a browser given `max_chars` drops an
    over-long paste whole, leaving the box empty and saying nothing)."""
    st.query_params.pop("off", None)
    question = st.session_state.get("q") or ""
    if len(question) > MAX_QUERY_CHARS:
        st.session_state["q"] = question[:MAX_QUERY_CHARS]
        st.session_state["q-cut"] = len(question)


st.title("finrag · ask the 10-Ks")
query = st.text_input("Question", key="q", bind="query-params", on_change=new_question,
                      placeholder="e.g. How did Apple's services revenue change in 2023?")
if cut := st.session_state.pop("q-cut", None):
    link_problem = (f"The question is {cut:,} characters long; questions are limited to "
                    f"{MAX_QUERY_CHARS:,}, so it was not searched. The box keeps its first "
                    f"{MAX_QUERY_CHARS:,}: shorten it and press Enter.")
if link_problem:
    st.warning(link_problem, icon="⚠️")
    query = ""  # not searched: the user shortens it first
if not st.session_state.get("link-checked") and (ignored := ignored_from_link(link)):
    st.warning("Ignored from the link, not a value these filters offer: "
               + escape_md(", ".join(ignored)), icon="⚠️")
st.session_state["link-checked"] = True  # a link's values are vetted on the session's first run

with st.expander("What is indexed", expanded=not query.strip()), st.container(key="coverage"):
    st.dataframe(coverage_table(tickers), hide_index=True, width="stretch",
                 column_config={c: st.column_config.TextColumn(alignment="right")
                                for c in ("Passages", "Tables")})

choices = filing_choices(searcher.index)
with st.expander("A filing's statements", expanded=bool(st.query_params.get("filing"))), \
        st.container(key="statements"):
    # the option is its own label, so a link reads `?filing=TSLA+FY2024`
    picked = st.selectbox("Filing", list(choices), index=None, key="filing",
                          bind="query-params", placeholder="Pick a company and fiscal year")
    if picked:
        show_statements(choices[picked].key)
    if not choices:
        st.caption("No filing list in this index (one read from a Qdrant server alone): "
                   "statements need the data directory that built it.")

with st.expander("Canary queries"):
    canaries = get_canaries()
    cols = st.columns(3)
    for i, canary in enumerate(canaries):
        cols[i % 3].button(canary.name, key=f"canary-{canary.name}", help=canary.query,
                           on_click=run_canary_into_state, args=(canary,))
    if st.button("Run all canaries", key="canary-all"):
        rows = [run_canary(searcher, c) for c in canaries]
        st.dataframe(pd.DataFrame([{"canary": r.name, "result": "PASS" if r.passed else "FAIL",
                                    "checked": r.checked, "seen": r.seen,
                                    "reason": "; ".join(r.failures)} for r in rows]),
                     hide_index=True, key="canary-table")

if not query.strip():
    st.caption("Type a question and press Enter. Narrow it with the filters on the left.")
    st.stop()

def chips_changed(key: str, named: list[str]) -> None:
    """A chip removed (or put back): the link says which of the question's filters are off
    (`?off=META`), so a reload or a shared link searches as this page does."""
    off = [v for v in named if v not in (st.session_state.get(key) or [])]
    if off:
        st.query_params["off"] = off
    else:
        st.query_params.pop("off", None)


def clear_filter(key: str) -> None:
    st.session_state[key] = []


chosen = Filters(tickers=tickers, fiscal_years=years,
                 chunk_types=[] if chunk_type == "all" else [chunk_type])
filters = chosen
read = ""  # the filters read from the question that are on, in words
if use_auto:
    auto = auto_filters(query, chosen, companies, filed)
    if auto.added:
        named = [*auto.tickers, *(f"FY{y}" for y in auto.years)]
        pills_key = "auto-" + hashlib.sha1("|".join([query, *named]).encode()).hexdigest()[:10]
        off = st.query_params.get_all("off")
        kept = st.pills("Filters read from what you asked (click one to remove it)", named,
                        selection_mode="multi", default=[v for v in named if v not in off],
                        format_func=lambda v: ticker_label(v) if v in companies else v,
                        key=pills_key, on_change=chips_changed, args=(pills_key, named))
        filters = Filters(tickers=chosen.tickers or [t for t in auto.tickers if t in kept],
                          fiscal_years=chosen.fiscal_years or [y for y in auto.years
                                                               if f"FY{y}" in kept],
                          chunk_types=chosen.chunk_types)
        read = " · ".join(v for v in named if v in kept)
shown_filters = " · ".join([*filters.tickers, *(f"FY{y}" for y in filters.fiscal_years),
                            *filters.chunk_types]) or "none"
# one filter state: the answer, the evidence, the columns and the exports all use this one
st.caption("Answer, evidence and results searched with: " + escape_md(shown_filters)
           + (f" (read from the question: {escape_md(read)})" if read else ""),
           help="The sidebar's filters and those read from the question; the link holds both")
asked_for = auto_filters(query, Filters(), companies, filed)  # what the question names
for key, why in excluding_filters(chosen, asked_for.tickers, asked_for.years).items():
    words = {"ticker": "ticker", "year": "fiscal-year"}[key]
    with st.container(key=f"excluded-{key}"):
        st.warning(escape_md(why), icon="⚠️")
        st.button(f"Clear the {words} filter", key=f"clear-{key}", on_click=clear_filter,
                  args=(key,), icon=":material/filter_alt_off:")
try:
    asked = ask(searcher, query, filters, top_k, k_each=max(int(k_each), top_k),
                rrf_k=int(rrf_k), weights=(float(w_dense), float(w_bm25)), fuse_by=fuse_by)
    result = asked.search
except QueryError as exc:
    st.warning(str(exc))
    st.stop()
except (StoreError, IndexUnavailable) as exc:  # e.g. a Qdrant server that lost the collection
    st.error(str(exc))
    st.stop()

active = st.session_state.pop("canary", None)
if active:
    canary = next(c for c in canaries if c.name == active)
    verdict = run_canary(searcher, canary)
    box = st.success if verdict.passed else st.error
    box(f"Canary {canary.name}: {'PASS' if verdict.passed else 'FAIL'}. Checked: "
        + escape_md(verdict.checked) + ". Seen: " + escape_md(verdict.seen)
        + (". " + escape_md("; ".join(verdict.failures)) if verdict.failures else ""),
        icon="✅" if verdict.passed else "❌")

if result.message:
    have = [f"{t}: " + ", ".join(f"FY{y}" for y in filed.get(t, [])) for t in filters.tickers
            if t in filed]
    st.info(result.message + (" Indexed fiscal years — " + "; ".join(have) if have else ""))
if result.expansions:
    st.caption("Also searched for the statements' wording: "
               + escape_md(" · ".join(result.expansions)),
               help="Words the financial statements use for what you typed, added to the search")

def show_sentences(answer, query: str) -> None:
    """The change a "why" question is about, then each sentence that answers, the question's
    words marked, with its citation; which kind of answer it is, said."""
    lead = answer.text[:answer.text.find("\u201c")].strip().rstrip(".")
    if lead:
        headline, _, rest = lead.partition(" — ")
        st.markdown(f"**{escape_md(headline)}** — {escape_md(rest)}")
    st.caption("Written by a model from the passages; each sentence kept only where its "
               "passage holds its words and numbers" if answer.kind == "generated"
               else "The filing's own words:")
    for i, s in enumerate(answer.sentences):
        st.markdown("> " + highlight_md(s["text"], query))
        c = s["citation"]
        line = escape_md(cite_words(c))
        st.caption(f"{line} · [filing on EDGAR]({c['url']})" if c["url"] else line)
        if c.get("chunk_id"):
            page_button(f"page-sentence-{i}", c["chunk_id"], [s["text"]])


def show_points(answer, citations: list[dict]) -> None:
    """The table (years or companies as columns, the unit line) and beside it a chart (a line
    over years, bars across companies) whose points show their citation on hover."""
    header, rows = grid(answer)
    left, right = st.columns([3, 2])
    with left:
        st.caption(unit_line(answer.unit))
        st.table(pd.DataFrame(rows, columns=header).style.hide(axis="index")
                 .set_properties(subset=header[1:], **{"text-align": "right"}))
    points = points_json(answer, citations) or []
    data = pd.DataFrame([{
        "company": p["ticker"], "fiscal year": str(p["fiscal_year"]), "value": p["value"],
        "cited": f"{p['citation']} · FY{p['filing_fiscal_year']} 10-K"
                 + (f" · {page_words(p['page_label'], p['page'])}" if p.get("page") else ""),
    } for p in points])
    if data.empty:
        return
    tooltip = ["company", "fiscal year", alt.Tooltip("value", format=",.2f"), "cited"]
    if answer.kind == "series":  # one company over years: a line
        chart = alt.Chart(data).mark_line(point=alt.OverlayMarkDef(size=90, filled=True)).encode(
            x="fiscal year:O", y=alt.Y("value:Q", title=answer.unit), color="company:N",
            tooltip=tooltip)
    else:  # companies side by side: bars
        chart = alt.Chart(data).mark_bar().encode(
            x=alt.X("company:N", sort="-y" if answer.kind == "ranking" else None),
            y=alt.Y("value:Q", title=answer.unit), color="fiscal year:N", xOffset="fiscal year:N",
            tooltip=tooltip)
    with right, st.container(key="answer-chart"):
        st.altair_chart(chart, use_container_width=True)


# --- answer panel --------------------------------------------------------------------------
if asked.answer is not None:
    with st.container(border=True, key="answer-figure"):
        st.subheader("Answer")
        headline, _, rest = asked.answer.text.partition(" — ")
        if asked.answer.sentences:  # the filing's own sentences, after the change they explain
            show_sentences(asked.answer, result.query)
        elif asked.answer.points:  # a series, peers or a ranking: the table and its chart
            st.markdown(escape_md(asked.answer.text))
            show_points(asked.answer, asked.citations)
        elif asked.answer.kind == "verdict":  # the verdict first, large, then what settles it
            st.markdown(f"### {escape_md(headline)}")
            st.markdown(escape_md(rest))
        else:
            st.markdown(f"**{escape_md(headline)}** — {escape_md(rest)}")
        if asked.answer.kind in ("verdict", "ranking") and asked.answer.values:
            st.table(pd.DataFrame(
                [[f"FY{k}" if asked.answer.kind == "verdict" else escape_md(str(k)),
                  fmt(v, asked.answer.unit)] for k, v in asked.answer.values.items()],
                columns=["fiscal year" if asked.answer.kind == "verdict" else "line",
                         asked.answer.unit]).style.hide(axis="index"))
        if (asked.answer.formula and asked.answer.formula not in asked.answer.text
                and asked.answer.kind != "verdict"):  # a verdict's text holds its formulas
            st.caption("Formula: " + escape_md(asked.answer.formula))
        for i, (fig, c) in enumerate(zip(asked.answer.figures, asked.citations)):
            page = page_words(c["page_label"], c["page"])
            line = escape_md(f"{c['ticker']} FY{c['fiscal_year']} · '{c['line_label']}' · "
                             f"{c['statement']} · {page}")
            st.caption(f"{line} · [filing on EDGAR]({c['url']})" if c["url"] else line)
            fact = fig.fact
            if fact.page:
                page_button(f"page-answer-{i}", fact.chunk_id,
                            [f"{fact.line_label} | {fact.printed or ''}"], fact.filing_key,
                            fact.page)
        if asked.answer.other_totals:  # the company's own total beside the statement's line
            with st.container(key="other-totals"):
                st.caption("The filing also states another total for it, in its own words "
                           "(its own definition; the figure above is the statement's line):")
                for i, n in enumerate(asked.answer.other_totals):
                    st.markdown("> " + highlight_md(n["text"], result.query))
                    c = n["citation"]
                    line = escape_md(cite_words(c))
                    st.caption(f"{line} · [filing on EDGAR]({c['url']})" if c["url"] else line)
                    page_button(f"page-other-total-{i}", c["chunk_id"], [n["text"]])
elif asked.question.asks_for_something:
    st.info("No figure answer: " + escape_md(asked.outcome.reason or ""), icon="ℹ️")
elif form(result.query) in (CAUSE, LIST):  # asked in words, and no sentence answers
    st.info(escape_md(asked.outcome.reason or ""), icon="ℹ️")


def show_table(view: TableView, key: str | None, name: str,
               whole: TableView | None = None) -> None:
    """A table as a table: periods as column labels, the unit line, figures right-aligned on
    one line, and the CSV of the whole table it is part of (`whole`, else `view`) under its
    unit line (no button where `key` is None)."""
    if view.unit:
        st.caption("Unit: " + escape_md(view.unit))
    # st.table renders cells as Markdown: a filing's text is escaped so it shows as written
    frame = pd.DataFrame([[escape_md(c) for c in r] for r in view.rows],
                         columns=[escape_md(c) if c.strip() else c for c in view.columns])
    st.table(frame.style.hide(axis="index"))  # figures right-aligned by the page's style
    if key is None:
        return
    st.download_button("Table as CSV", table_csv(whole or view), file_name=f"{name}.csv",
                       mime="text/csv", key=key, icon=":material/download:",
                       help="The whole table (every part the filing's page prints) with its "
                            "unit line")


def table_name(c) -> str:
    return f"{c.ticker}-FY{c.fiscal_year}-p{c.page_label or c.page or 0}-{c.chunk_id[:6]}"


# a figure asked of no company the index holds (none named, read from the passages or set in
# the ticker filter): no other company's text as its evidence
unheld = (asked.answer is None and asked.question.wants_facts and not asked.question.tickers
          and not result.filters.tickers)
evidence = [] if unheld else best_evidence(result.query, result.fused)
cited = cited_rows(searcher.index, asked.answer) if asked.answer is not None else []
if evidence or cited:
    with st.container(border=True, key="answer"):
        st.subheader("Best evidence")
        for i, (c, rows) in enumerate(cited):  # the rows the answer's figures are printed on
            show_table(rows, None, table_name(c))
            st.caption(f"{escape_md(citation(c))} · {edgar_md(c)}")
            page_button(f"page-cited-{i}", c.chunk_id, [table_row_text(r) for r in rows.rows])
        for i, ev in enumerate(evidence):
            c = ev.hit.chunk
            view = table_view(c.table, c.text) if c.chunk_type == "table" and c.table else None
            row = [r for r in (view.rows if view else []) if table_row_text(r) == ev.text]
            if view is not None and view.labelled and row:
                show_table(TableView(view.columns, row[:1], view.unit, True), None,
                           table_name(c))
            else:
                st.markdown("> " + highlight_md(ev.text, result.query))
            st.caption(f"{escape_md(citation(c))} · {edgar_md(c)}")
            page_button(f"page-evidence-{i}", c.chunk_id, [ev.text])

# the tables of the hits whole (every part of a split table), for their CSVs and the exports
tables = {h.chunk_id: whole_table(searcher.index, h.chunk)
          for h in {h.chunk_id: h for h in [*result.dense, *result.bm25, *result.fused]}.values()
          if h.chunk.chunk_type == "table" and h.chunk.table}
slug = hashlib.sha1(query.encode()).hexdigest()[:8]
left, right, _ = st.columns([1, 1, 4])
left.download_button("Results as CSV",
                     to_csv(result, asked.answer, asked.citations, shown_filters, tables),
                     file_name=f"finrag-{slug}.csv", mime="text/csv", key="export-csv",
                     icon=":material/download:")
right.download_button("Results as Markdown",
                      to_markdown(result, asked.answer, asked.citations, shown_filters, tables),
                      file_name=f"finrag-{slug}.md", mime="text/markdown", key="export-md",
                      icon=":material/download:")


# --- the three columns ---------------------------------------------------------------------
def show_hit(hit, column: str) -> None:
    c = hit.chunk
    page = f" · {page_text(c)}" if page_text(c) else ""
    meta = escape_md(f"{c.ticker} FY{c.fiscal_year} · {c.section} · {c.chunk_type}{page}")
    if explaining:
        st.markdown(f"**#{hit.rank}** :{badge_color(hit.chunk_id)}-badge[{short_id(hit.chunk_id)}]"
                    f" {meta}  \n:gray[score {hit.score:.4f}]")
    else:
        st.markdown(f"**#{hit.rank}** {meta}")
    if column == "fused":
        st.caption(escape_md(explain(hit, result.dense, result.bm25, result.routed)))
        if explaining:
            d, b = hit.dense_contribution, hit.bm25_contribution
            st.progress(min(1.0, d / (d + b)) if d + b else 0.0,
                        text=f"{vote('dense', hit.dense_rank, result.dense, hit.chunk_id)} "
                             f"{d:.4f} · {vote('BM25', hit.bm25_rank, result.bm25, hit.chunk_id)}"
                             f" {b:.4f}")
    view = table_view(c.table, c.text) if c.chunk_type == "table" and c.table else None
    if view is not None:
        show_table(view, f"csv-{column}-{hit.rank}", table_name(c), tables.get(hit.chunk_id))
    else:
        st.markdown(highlight_md(snippet(c.text, result.query), result.query))
    if c.page:
        page_button(f"page-{column}-{hit.rank}", c.chunk_id,
                    [e.text for e in best_evidence(result.query, [hit], top=1)])
    with st.expander("Full chunk"):
        index = f" (page {c.page} of the file)" if c.page_label and c.page else ""
        st.caption(f"{escape_md(citation(c) + index)} · {edgar_md(c)}")
        if explaining:
            st.caption(f"chunk id {c.chunk_id}")
        st.text(c.text)


columns = st.columns(3)
for col, (name, label, hits) in zip(columns, [("dense", "Dense", result.dense),
                                              ("bm25", "BM25", result.bm25),
                                              ("fused", "Fused (RRF)", result.fused)]):
    with col:
        st.subheader(label)
        with st.container(key=f"col-{name}"):
            if not hits:
                st.caption("No results.")
            for hit in hits:
                with st.container(border=True):
                    show_hit(hit, name)
if explaining:
    timing = " · ".join(f"{k} {v:.0f} ms" for k, v in result.timings_ms.items())
    st.caption(f"Index {result.generation} · {timing}")
