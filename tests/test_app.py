"""The Streamlit app through streamlit.testing (no browser): widgets found by key.

A test over the real sample index (`sample_index`: slow) queries it with the real model; the
others, over indexes written with the fake embedder, run the app on the fake too
(FINRAG_APP_EMBEDDER, app.py), so they load no model. The app's `st.cache_resource`d
searcher is made again whenever a test's FINRAG_DATA_DIR or model differs from the last
(`searcher_for`), so the real-model tests share one.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from finrag.config import Settings
from finrag.generation import publish, write_generation
from finrag.models import Chunk

REPO = Path(__file__).resolve().parents[1]
COLUMNS = ("col-dense", "col-bm25", "col-fused")
# the chunk-id badge shows only with the "explain" toggle on (issue 20: ids behind the toggle)
HEADER = re.compile(r"\*\*#\d+\*\* (?::\w+-badge\[[0-9a-f]+\] )?(?P<meta>.*)")
HOSTILE = ("Research and development expense rose. <script>alert(1)</script> "
           "<img src=x onerror=alert(1)> [x](javascript:alert(1)) ![p](http://evil/x.png) $x^2$")


CACHED = {"for": None}  # the (data dir, query model) the app's cached searcher was made for


@pytest.fixture(scope="module", autouse=True)
def app_cache():
    """The app's `st.cache_resource`d searcher: none at the module's start, and none left for
    later tests (one on a tmp dir, or holding the real model)."""
    st.cache_resource.clear()
    CACHED["for"] = None
    yield
    st.cache_resource.clear()
    CACHED["for"] = None


def searcher_for(data_dir: Path) -> None:
    """Clear the app's cached searcher unless it was made for this data dir and query model:
    the tests over `sample_index` share one, so the real model loads once for all of them (as
    one app process serves every session), and a test over another dir gets its own."""
    key = (str(data_dir), os.environ.get("FINRAG_APP_EMBEDDER"))
    if CACHED["for"] != key:
        st.cache_resource.clear()
        CACHED["for"] = key


@pytest.fixture
def app(monkeypatch, request):
    """A factory: AppTest of app.py over the given data dir (`searcher_for`); the app's query
    model is the real one where the test reads the real-model `sample_index`, the fake (as the
    test's own index was written) otherwise."""
    if "sample_index" not in request.fixturenames:
        monkeypatch.setenv("FINRAG_APP_EMBEDDER", "conftest:AppEmbedder")

    def make(data_dir: Path) -> AppTest:
        monkeypatch.setenv("FINRAG_DATA_DIR", str(data_dir))
        monkeypatch.delenv("FINRAG_QDRANT_URL", raising=False)
        searcher_for(data_dir)
        at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
        at.run()
        assert not at.exception, at.exception
        return at

    return make


def ask(at: AppTest, question: str) -> AppTest:
    at.text_input(key="q").input(question).run()
    assert not at.exception, at.exception
    return at


def column_markdown(at: AppTest, key: str) -> list[str]:
    block = at.get_by_key(key)
    return [m.value for m in block if getattr(m, "type", None) == "markdown"]


def hit_headers(at: AppTest) -> dict[str, list[str]]:
    """Per column: the header line (ticker FY · section · type) of every hit."""
    out = {}
    for key in COLUMNS:
        metas = [m.group("meta").strip() for body in column_markdown(at, key)
                 if (m := HEADER.match(body))]
        out[key] = metas
    return out


def unescape(md: str) -> str:
    return re.sub(r"\\(.)", r"\1", md)


def test_a_question_fills_all_three_columns(app, sample_index):
    at = ask(app(sample_index), "Tesla research and development expense")
    headers = hit_headers(at)
    for key in COLUMNS:
        assert len(headers[key]) == 10, (key, headers[key])  # default "Results per column"
    seen = " ".join(unescape(h) for hs in headers.values() for h in hs)
    assert "TSLA FY2024" in seen
    assert [h.value for h in at.subheader][-3:] == ["Dense", "BM25", "Fused (RRF)"]
    panel = at.get_by_key("answer")  # the best-evidence panel (KeyError when not shown)
    assert [h.value for h in panel.subheader] == ["Best evidence"]
    captions = [unescape(c.value) for c in panel.caption]
    cited = [c for c in captions if not c.startswith("Unit:")]  # a table's unit line aside
    # the answer's own row first (one table chunk), then one or two passages
    assert 2 <= len(cited) <= 3 and all(" · TSLA · FY2024 · " in c for c in cited), captions
    first = panel.table[0].value
    first = getattr(first, "data", first)  # a Styler's frame
    assert list(first.iloc[:, 0]) == ["Research and development"]
    assert not at.warning and not at.error


def test_ticker_filter_keeps_only_that_company(app, sample_index):
    at = app(sample_index)
    options = at.multiselect(key="ticker").options  # come from the index: the two companies
    assert len(options) == 2 and [o[:4] for o in options] == ["AAPL", "TSLA"], options
    at.multiselect(key="ticker").set_value(["TSLA"])
    at = ask(at, "revenue growth and risk factors")
    headers = hit_headers(at)
    assert all(headers[k] for k in COLUMNS)
    for key in COLUMNS:
        for h in headers[key]:
            plain = unescape(h)
            assert plain.startswith("TSLA FY2024"), (key, plain)
            assert "AAPL" not in plain


def test_table_filter_returns_only_tables(app, sample_index):
    at = app(sample_index)
    at.selectbox(key="type").set_value("table")
    at = ask(at, "total net sales by category")
    headers = hit_headers(at)
    assert all(headers[k] for k in COLUMNS)
    for key in COLUMNS:
        for h in headers[key]:
            assert re.search(r" · table( · p\. \d+)?$", unescape(h)), (key, h)


def test_canary_button_runs_its_query_and_shows_pass(app, sample_index):
    at = app(sample_index)
    at.button(key="canary-tesla-rnd-2024").click().run()
    assert not at.exception, at.exception
    assert at.text_input(key="q").value == "Tesla R&D expense fiscal 2024"
    assert at.multiselect(key="ticker").value == ["TSLA"]
    assert len(at.success) == 1, [s.value for s in at.success]
    assert "tesla-rnd-2024" in at.success[0].value and "PASS" in at.success[0].value
    verdict = unescape(at.success[0].value)  # what was checked and what was seen, in words
    assert "Checked: a hit in the fused top 3 of TSLA, containing 'research and development'" \
        in verdict and "Seen: fused #" in verdict and "TSLA FY2024" in verdict
    assert not at.error
    assert all(unescape(h).startswith("TSLA") for h in hit_headers(at)["col-fused"])


def test_empty_data_dir_shows_how_to_build_an_index(app, tmp_path):
    at = app(tmp_path / "nothing-here")
    assert at.info, "expected an st.info explaining there is no index"
    shown = " ".join([i.value for i in at.info] + [c.value for c in at.code])
    assert "python -m ingest build --sample" in shown
    assert not at.text_input  # the app stopped before the question box


def test_empty_question_shows_the_hint_and_no_columns(app, sample_index):
    at = app(sample_index)
    assert any("Type a question" in c.value for c in at.caption)
    with pytest.raises(KeyError):
        at.get_by_key("col-fused")


def test_overlong_question_is_refused_by_the_box(app, sample_index):
    # issue 36 changed this again: a box limited to 2,000 characters dropped a longer paste
    # whole in the browser, leaving it empty with no word; now the question is cut to the
    # search's limit, not searched, and a warning says so (issue 20: it was searched, then
    # warned about)
    at = ask(app(sample_index), "revenue " * 375)  # 3000 characters
    assert at.text_input(key="q").value == ("revenue " * 375)[:2000]
    assert any("3,000 characters long" in w.value for w in at.warning)
    with pytest.raises(KeyError):
        at.get_by_key("col-fused")


def test_hostile_chunk_text_is_shown_inert(app, data_dir, fake_embedder):
    settings = Settings(data_dir=data_dir, qdrant_url=None)
    chunks = [
        Chunk(chunk_id=f"{i:032x}", ticker="EVIL", company="Evil <b>Corp</b>", fiscal_year=2024,
              chunk_type="narrative", section="Item 7", text=text, filing_key="EVIL2024")
        for i, text in enumerate([HOSTILE, "Nothing to see here, research continues."])
    ]
    write_generation(settings, "gen-000001", chunks,
                     fake_embedder.encode([c.text for c in chunks]), fake_embedder.name)
    publish(data_dir, "gen-000001")

    at = ask(app(data_dir), "research and development expense")
    bodies = [m for m in at.get("markdown")] + list(at.caption)
    text = "\n".join(m.value for m in bodies)
    assert "alert" in text, "the hostile chunk should be shown"
    # every directive character from the filing arrives backslash-escaped (inert in Markdown)
    for raw in (r"<script", r"</script", r"<img", r"\]\(javascript:", r"!\[", r"\$x"):
        assert not re.search(r"(?<!\\)" + raw, text), raw
    assert "](javascript:" not in text
    assert not any(m.proto.allow_html for m in bodies if "alert" in m.value)
    # the full chunk is shown verbatim as plain text (st.text), never as Markdown
    assert any("<script>alert(1)</script>" in t.value for t in at.get("text"))


def test_citations_show_the_printed_page_and_what_the_edgar_link_opens(app, data_dir,
                                                                      fake_embedder):
    """A page that prints "35" is cited "p. 35"; one that prints nothing says it is the page's
    position in the file; a filing known by CIK only links the company's 10-K list and says
    why; a filing with no CIK says there is no link instead of showing none."""
    settings = Settings(data_dir=data_dir, qdrant_url=None)
    chunks = [
        Chunk(chunk_id="a" * 32, ticker="TSLA", company="Tesla, Inc.", cik="0001318605",
              fiscal_year=2024, chunk_type="narrative", section="Item 7", page=43,
              page_label="40", text="Gross margin for energy generation and storage increased.",
              filing_key="TSLA2024"),
        Chunk(chunk_id="b" * 32, ticker="ACME", fiscal_year=2024, chunk_type="narrative",
              section="Item 7", page=2, text="Gross margin of storage products fell.",
              filing_key="ACME2024"),
    ]
    write_generation(settings, "gen-000001", chunks,
                     fake_embedder.encode([c.text for c in chunks]), fake_embedder.name)
    publish(data_dir, "gen-000001")

    # words, not a figure: a figure asked of no company gets no best evidence (issue 36)
    at = ask(app(data_dir), "energy generation and storage products")
    captions = [unescape(c.value) for c in at.caption]
    tesla = next(c for c in captions if c.startswith("Tesla, Inc. · TSLA · FY2024"))
    assert "· p. 40 ·" in tesla and "p. 43" not in tesla
    assert ("[company's 10-K list on EDGAR](https://www.sec.gov/cgi-bin/browse-edgar?action="
            "getcompany&CIK=0001318605&type=10-K&dateb=&owner=include&count=40)") in tesla
    assert "no accession number" in tesla
    acme = next(c for c in captions if c.startswith("ACME · ACME · FY2024"))
    assert "page 2 of the file, no printed number" in acme
    assert "no EDGAR link: no CIK" in acme


def test_the_answer_panel_states_the_figure_above_the_columns(app, sample_index):
    at = ask(app(sample_index), "Tesla R&D expense 2024")
    panel = at.get_by_key("answer-figure")
    shown = " ".join(unescape(m.value) for m in panel if getattr(m, "type", None) == "markdown")
    assert "**$4,540 million**" in shown and "Research and development" in shown
    captions = " ".join(unescape(c.value) for c in panel if getattr(c, "type", None) == "caption")
    assert "TSLA FY2024" in captions and "income" in captions
    subheaders = [h.value for h in at.subheader]
    assert subheaders.index("Answer") < subheaders.index("Dense")  # above the three columns
    assert all(hit_headers(at)[k] for k in COLUMNS)


@pytest.mark.parametrize("question", ["<script>alert(1)</script>", "supply chain risk"])
def test_no_answer_panel_for_a_question_that_asks_for_no_figure(app, sample_index, question):
    at = ask(app(sample_index), question)
    with pytest.raises(KeyError):
        at.get_by_key("answer-figure")
    assert not any("No figure answer" in i.value for i in at.info)


def test_a_figure_that_is_not_found_says_what_was_missing(app, sample_index):
    at = ask(app(sample_index), "Tesla inventory turnover 2023")
    with pytest.raises(KeyError):
        at.get_by_key("answer-figure")
    assert any("No figure answer" in i.value and "inventories for fiscal 2022" in unescape(i.value)
               for i in at.info), [i.value for i in at.info]


# --- issue 20: the app as an analyst's tool ------------------------------------------------


def test_a_table_hit_is_a_table_with_period_columns_and_a_csv(app, sample_index):
    at = app(sample_index)
    at.selectbox(key="type").set_value("table")
    at = ask(at, "Tesla weighted average shares used in computing net income per share basic")
    fused = at.get_by_key("col-fused")
    tables = [e for e in fused if getattr(e, "type", None) == "table"]
    assert tables, "no table shown in the fused column"
    columns = [list(t.value.columns) for t in tables]
    assert any(c[0] == "Line item" and any("2024" in x for x in c) and "2023" in c
               for c in columns), columns
    assert not any(all(str(x).strip().isdigit() for x in c[1:]) and "0" in c for c in columns)
    assert len([b for b in at.download_button if b.label == "Table as CSV"]) >= len(tables)


def test_the_company_the_question_names_is_a_filter_the_user_can_remove(app, sample_index):
    at = ask(app(sample_index), "Tesla research and development expense")
    assert at.multiselect(key="ticker").value == []  # the user's own filter is untouched
    assert at.pills[0].value == ["TSLA"]
    assert {unescape(h).split()[0] for k in COLUMNS for h in hit_headers(at)[k]} == {"TSLA"}
    at.pills[0].set_value([]).run()
    assert not at.exception
    tickers = {unescape(h).split()[0] for k in COLUMNS for h in hit_headers(at)[k]}
    assert "AAPL" in tickers  # removed: the whole index is searched again


def test_a_hand_written_link_with_a_bare_ticker_works(app, sample_index, monkeypatch):
    monkeypatch.setenv("FINRAG_DATA_DIR", str(sample_index))
    searcher_for(sample_index)
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.query_params.update(ticker="tsla", year="2024", q="research and development")
    at.run()
    assert not at.exception and not at.warning, [w.value for w in at.warning]
    assert at.multiselect(key="ticker").value == ["TSLA"]
    assert at.multiselect(key="year").value == [2024]
    assert {unescape(h).split()[0] for h in hit_headers(at)["col-fused"]} == {"TSLA"}


def test_a_long_question_in_the_link_is_refused(app, sample_index, monkeypatch):
    monkeypatch.setenv("FINRAG_DATA_DIR", str(sample_index))
    searcher_for(sample_index)
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.query_params["q"] = "revenue " * 625  # 5,000 characters
    at.run()
    assert not at.exception
    assert any("5,000 characters long" in w.value and "not searched" in w.value
               for w in at.warning)
    with pytest.raises(KeyError):
        at.get_by_key("col-fused")
    assert len(at.session_state["q"]) == 2000  # the box keeps the first 2,000
    assert len(at.query_params["q"][0] if isinstance(at.query_params["q"], list)
               else at.query_params["q"]) == 2000  # and so does the link
    # no max_chars on the box: a browser drops an over-long paste whole and says nothing
    # (tests/test_browser_filters.py pastes 2,600 characters and reads the message)


def test_coverage_is_on_the_first_screen_and_the_year_list_follows_the_tickers(app, sample_index):
    at = app(sample_index)
    [coverage] = [e.value for e in at.get_by_key("coverage") if e.type == "dataframe"]
    assert list(coverage["Company"]) == ["AAPL · Apple Inc.", "TSLA · Tesla, Inc."]
    # issue 36: one row per 10-K, its fiscal year with the day it ended
    assert list(coverage["Fiscal year"]) == ["FY2024 (Sep 28, 2024)", "FY2024 (Dec 31, 2024)"]
    assert all(re.fullmatch(r"[\d,]+", c) for c in coverage["Passages"])
    at.multiselect(key="ticker").set_value(["TSLA"]).run()
    assert at.multiselect(key="year").options == ["2024"]
    [coverage] = [e.value for e in at.get_by_key("coverage") if e.type == "dataframe"]
    assert list(coverage["Company"]) == ["TSLA · Tesla, Inc."]  # narrowed to the chosen


def test_an_empty_result_says_which_years_the_chosen_companies_have(app, sample_index):
    at = app(sample_index)
    at.session_state["ticker"] = ["TSLA"]
    at.session_state["year"] = [2023]
    at = ask(at, "revenue")
    assert any("No indexed chunk" in i.value and "TSLA: FY2024" in i.value for i in at.info), \
        [i.value for i in at.info]


def test_fused_hits_are_explained_in_words_and_ids_hide_behind_explain(app, sample_index):
    at = ask(app(sample_index), "supply chain risk")
    fused = [c.value for c in at.get_by_key("col-fused") if getattr(c, "type", None) == "caption"]
    assert any(re.fullmatch(r"ranked \\#\d+ by dense and \\#\d+ by BM25", c) for c in fused), fused
    bodies = column_markdown(at, "col-fused")
    assert not any("-badge[" in b or "score 0." in b for b in bodies)
    at.toggle(key="explain").set_value(True).run()
    bodies = column_markdown(at, "col-fused")
    assert any("-badge[" in b and "score 0." in b for b in bodies)


def test_results_export_as_csv_and_markdown(app, sample_index):
    at = ask(app(sample_index), "Tesla R&D expense 2024")
    labels = {b.label for b in at.download_button}
    assert {"Results as CSV", "Results as Markdown"} <= labels


def test_a_hostile_table_cell_is_shown_inert(app, data_dir, fake_embedder):
    """st.table renders its cells as Markdown: a filing's cell must arrive escaped."""
    settings = Settings(data_dir=data_dir, qdrant_url=None)
    grid = [["", "2024", "2023"],
            ["Revenue ![p](http://evil/x.png) [x](javascript:alert(1))", "$x^2$", "**1**"]]
    chunks = [Chunk(chunk_id="c" * 32, ticker="EVIL", fiscal_year=2024, chunk_type="table",
                    section="Item 8", text="2024 | 2023\nRevenue | $x^2$ | **1**", table=grid,
                    filing_key="EVIL2024")]
    write_generation(settings, "gen-000001", chunks,
                     fake_embedder.encode([c.text for c in chunks]), fake_embedder.name)
    publish(data_dir, "gen-000001")
    at = ask(app(data_dir), "revenue")
    cells = [c for t in at.table for row in t.value.values.tolist() for c in row]
    assert cells and unescape(" ".join(cells)).count("javascript:alert(1)") >= 1
    for raw in (r"!\[", r"\]\(javascript:", r"\$x", r"\*\*1"):
        assert not any(re.search(r"(?<!\\)" + raw, c) for c in cells), raw


def test_the_securities_a_cover_registers_are_shown_row_by_row_with_their_page(app,
                                                                              sample_index):
    """Apple's FY2024 cover registers eight notes beside its common stock: the answer names
    them, each row quoted as printed, cited to the cover page, with a button to open it."""
    at = ask(app(sample_index), "Which debt securities are registered under Apple's name?")
    panel = at.get_by_key("answer-figure")
    shown = [unescape(m.value) for m in panel if getattr(m, "type", None) == "markdown"]
    assert any("Registered under Section 12(b)" in s and "8 debt securities" in s for s in shown)
    quoted = [re.sub(r":blue-background\[(.*?)\]", r"\1", s) for s in shown
              if s.startswith("> ")]  # the question's words marked
    assert len(quoted) == 8 and "0.000% Notes due 2025" in quoted[0]
    assert not any("Common Stock" in s for s in quoted)
    captions = [unescape(c.value) for c in panel if getattr(c, "type", None) == "caption"]
    assert any("Apple" in c and "Cover" in c for c in captions), captions
