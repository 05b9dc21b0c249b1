"""finrag's Streamlit app: question, filters, evidence, and the dense / BM25 / fused columns.

Widgets and layout only; everything else is the finrag library. Widget values live in the URL
(bind="query-params"), so a result can be shared by link.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from finrag.ask import ask
from finrag.canary import DEFAULT_FILE, load_canaries, run_canary
from finrag.config import K_EACH, RRF_K, Settings
from finrag.embed import Embedder
from finrag.index import NO_INDEX_HINT, IndexUnavailable
from finrag.models import Filters
from finrag.present import (badge_color, best_evidence, citation, edgar_md, escape_md,
                            highlight_md, page_text, short_id, snippet, vote)
from finrag.search import HybridSearcher, QueryError

st.set_page_config(page_title="finrag · 10-K search", page_icon="📄", layout="wide")
LINKED = ("q", "ticker", "year", "type", "k", "rrf_k", "w_dense", "w_bm25", "k_each")
link = {key: st.query_params.get_all(key) for key in LINKED}  # before the widgets vet them


@st.cache_resource
def get_searcher() -> HybridSearcher:
    embedder = Embedder()
    embedder.encode_query("warm up")  # the query model loads with the page
    return HybridSearcher(Settings.from_env(), embedder)


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
    st.info(f"No index yet. {exc}")
    st.code(".venv/bin/python -m ingest build --sample", language="bash")
    st.stop()
if not facets["companies"]:
    st.title("finrag")
    st.info(f"The index is empty: {NO_INDEX_HINT}")
    st.stop()

# --- sidebar: filters ----------------------------------------------------------------------
companies = facets["companies"]
with st.sidebar:
    st.header("Filters")
    tickers = st.multiselect("Tickers", sorted(companies), key="ticker", bind="query-params",
                             format_func=lambda t: f"{t} · {companies[t]}")
    years = st.multiselect("Fiscal years", facets["fiscal_years"], key="year", bind="query-params")
    chunk_type = st.selectbox("Chunk type", ["all", "narrative", "table"], key="type",
                              bind="query-params")
    top_k = st.slider("Results per column", 1, 30, 10, key="k", bind="query-params")
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
    st.caption(f"Index {searcher.index.name} · {len(searcher.index):,} chunks")

# --- main: question ------------------------------------------------------------------------
st.title("finrag · ask the 10-Ks")
query = st.text_input("Question", key="q", bind="query-params",
                      placeholder="e.g. How did Apple's services revenue change in 2023?")
if not st.session_state.get("link-checked") and (ignored := ignored_from_link(link)):
    st.warning("Ignored from the link, not a value these filters offer: "
               + escape_md(", ".join(ignored)), icon="⚠️")
st.session_state["link-checked"] = True  # a link's values are vetted on the session's first run

with st.expander("Canary queries"):
    canaries = get_canaries()
    cols = st.columns(3)
    for i, canary in enumerate(canaries):
        cols[i % 3].button(canary.name, key=f"canary-{canary.name}", help=canary.query,
                           on_click=run_canary_into_state, args=(canary,))
    if st.button("Run all canaries", key="canary-all"):
        rows = [run_canary(searcher, c) for c in canaries]
        st.dataframe(pd.DataFrame([{"canary": r.name, "result": "PASS" if r.passed else "FAIL",
                                    "reason": "; ".join(r.failures)} for r in rows]),
                     hide_index=True, key="canary-table")

if not query.strip():
    st.caption("Type a question and press Enter. Narrow it with the filters on the left.")
    st.stop()

filters = Filters(tickers=tickers, fiscal_years=years,
                  chunk_types=[] if chunk_type == "all" else [chunk_type])
try:
    asked = ask(searcher, query, filters, top_k, k_each=max(int(k_each), top_k),
                rrf_k=int(rrf_k), weights=(float(w_dense), float(w_bm25)), fuse_by=fuse_by)
    result = asked.search
except QueryError as exc:
    st.warning(str(exc))
    st.stop()

active = st.session_state.pop("canary", None)
if active:
    canary = next(c for c in canaries if c.name == active)
    verdict = run_canary(searcher, canary)
    box = st.success if verdict.passed else st.error
    box(f"Canary {canary.name}: {'PASS' if verdict.passed else 'FAIL'} "
        + escape_md("; ".join(verdict.failures)), icon="✅" if verdict.passed else "❌")

if result.message:
    st.info(result.message)
if result.expansions:
    st.caption("Also searched for the statements' wording: "
               + escape_md(" · ".join(result.expansions)), help="finrag.vocabulary")

# --- answer panel --------------------------------------------------------------------------
if asked.answer is not None:
    with st.container(border=True, key="answer-figure"):
        st.subheader("Answer")
        headline, _, rest = asked.answer.text.partition(" — ")
        st.markdown(f"**{escape_md(headline)}** — {escape_md(rest)}")
        if asked.answer.formula and asked.answer.formula not in asked.answer.text:
            st.caption("Formula: " + escape_md(asked.answer.formula))
        for c in asked.citations:
            page = f"p. {c['page_label']}" if c["page_label"] else f"page {c['page']}"
            line = escape_md(f"{c['ticker']} FY{c['fiscal_year']} · '{c['line_label']}' · "
                             f"{c['statement']} · {page}")
            st.caption(f"{line} · [filing on EDGAR]({c['url']})" if c["url"] else line)
elif asked.question.asks_for_something:
    st.info("No figure answer: " + escape_md(asked.outcome.reason or ""), icon="ℹ️")
evidence = best_evidence(result.query, result.fused)
if evidence:
    with st.container(border=True, key="answer"):
        st.subheader("Best evidence")
        for ev in evidence:
            st.markdown("> " + highlight_md(ev.text, result.query))
            st.caption(f"{escape_md(citation(ev.hit.chunk))} · {edgar_md(ev.hit.chunk)}")


# --- the three columns ---------------------------------------------------------------------
def show_hit(hit, column: str) -> None:
    c = hit.chunk
    color = badge_color(hit.chunk_id)
    page = f" · {page_text(c)}" if page_text(c) else ""
    st.markdown(f"**#{hit.rank}** :{color}-badge[{short_id(hit.chunk_id)}] "
                f"{escape_md(f'{c.ticker} FY{c.fiscal_year} · {c.section} · {c.chunk_type}{page}')}"
                f"  \n:gray[score {hit.score:.4f}]")
    if column == "fused":
        d, b = hit.dense_contribution, hit.bm25_contribution
        st.progress(min(1.0, d / (d + b)) if d + b else 0.0,
                    text=f"{vote('dense', hit.dense_rank, result.dense, hit.chunk_id)} {d:.4f} · "
                         f"{vote('BM25', hit.bm25_rank, result.bm25, hit.chunk_id)} {b:.4f}")
    st.markdown(highlight_md(snippet(c.text, result.query), result.query))
    with st.expander("Full chunk"):
        index = f" (page {c.page} of the file)" if c.page_label and c.page else ""
        st.caption(f"{escape_md(citation(c) + index)} · {edgar_md(c)}")
        if c.chunk_type == "table" and c.table:
            width = max(len(r) for r in c.table)
            st.dataframe(pd.DataFrame([r + [""] * (width - len(r)) for r in c.table]),
                         hide_index=True)
        else:
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
timing = " · ".join(f"{k} {v:.0f} ms" for k, v in result.timings_ms.items())
st.caption(f"Index {result.generation} · {timing}")
