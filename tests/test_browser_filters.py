"""Issue 36 in a real browser (chromium, the app on a small index written with the fake
embedder, so no model loads): the ticker list takes the exact ticker typed, a removed chip goes
into the link and a reload gives the same page, an over-long paste is said, the coverage names
each fiscal year's end, and table hits in the three columns show a scrollbar where they are
wider than their column. Screenshots land in artifacts/."""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path

import pytest

from finrag.config import Settings
from finrag.generation import publish, write_generation
from finrag.models import Chunk
from tests.test_browser import ARTIFACTS, REPO, browser_serving

FILINGS = [("AAPL", "Apple Inc.", 2024, "2024-09-28"),
           ("META", "Meta Platforms, Inc.", 2024, "2024-12-31"),
           ("WMT", "Walmart Inc.", 2025, "2025-01-31")]
HEAD = [["", "Fiscal Years Ended", "", "", ""], ["(Amounts in millions)", "2025", "2024", "2023",
                                                 "2022"]]


def chunks() -> list[Chunk]:
    out = []
    for ticker, company, year, end in FILINGS:
        grid = HEAD + [["Total revenues", "$680,985", "$648,125", "$611,289", "$572,754"],
                       ["Capital expenditures", "(23,783)", "(20,606)", "(16,857)", "(13,106)"]]
        text = "\n".join(" | ".join(c for c in r if c.strip()) for r in grid)
        for i, (kind, body) in enumerate([
                ("narrative", f"{company} capital expenditures and total revenues rose."),
                ("table", text)]):
            out.append(Chunk(chunk_id=f"{ticker}{i}".ljust(32, "0"), ticker=ticker,
                             company=company, fiscal_year=year, period_end=end, chunk_type=kind,
                             section="Item 8", page=50 + i, page_label=str(48 + i), text=body,
                             table=grid if kind == "table" else None,
                             filing_key=f"{ticker}{year}"))
    return out


@pytest.fixture
def index(data_dir, fake_embedder, monkeypatch) -> Path:
    settings = Settings(data_dir=data_dir, qdrant_url=None)
    cs = chunks()
    write_generation(settings, "gen-000001", cs, fake_embedder.encode([c.text for c in cs]),
                     fake_embedder.name)
    publish(data_dir, "gen-000001")
    # the served app builds the fake query model (tests/conftest.py) instead of the real one
    monkeypatch.setenv("FINRAG_APP_EMBEDDER", "conftest:AppEmbedder")
    monkeypatch.setenv("PYTHONPATH", str(REPO / "tests"))
    return data_dir


def browser_on(index: Path, tmp_path: Path):
    return browser_serving(index, tmp_path, scrollbars=True)


QUESTION = "Meta capital expenditures 2024"


@pytest.mark.slow
def test_ticker_exact_chip_in_the_link_long_paste_and_year_ends(index, tmp_path):
    with browser_on(index, tmp_path) as (browser, url, sync_api):
        expect = sync_api.expect
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        page.goto(url, wait_until="domcontentloaded")
        # the coverage grid is drawn on a canvas: its cells are checked in
        # tests/test_app_filters.py; its picture is taken here
        coverage = page.locator(".st-key-coverage [data-testid='stDataFrame']")
        expect(coverage).to_be_visible(timeout=60_000)
        ARTIFACTS.mkdir(exist_ok=True)
        page.wait_for_timeout(1000)
        page.screenshot(path=str(ARTIFACTS / "app-coverage-year-ends.png"))
        # typing "AAPL" offers AAPL alone, and Enter selects it alone
        box = page.locator(".st-key-ticker input")
        box.click()
        box.press_sequentially("AAPL")
        options = page.get_by_role("option")
        expect(options.first).to_be_visible()
        assert options.all_inner_texts() == ["AAPL · Apple Inc."], options.all_inner_texts()
        page.screenshot(path=str(ARTIFACTS / "app-ticker-exact.png"))
        box.press("Enter")
        page.keyboard.press("Escape")
        ticker = page.locator(".st-key-ticker")
        expect(ticker.get_by_text("AAPL · Apple Inc.")).to_be_visible()
        expect(ticker.get_by_text("META")).to_have_count(0)
        page.wait_for_url(re.compile(r"ticker=AAPL"))
        assert "META" not in urllib.parse.unquote(page.url)

        # a chip removed goes into the link; the link reloaded gives the same page
        page.goto(f"{url}/?q={urllib.parse.quote(QUESTION)}", wait_until="domcontentloaded")
        said = page.get_by_text(re.compile("Answer, evidence and results searched with"))
        expect(said).to_contain_text("META · FY2024", timeout=60_000)
        page.get_by_role("button", name=re.compile("META · Meta Platforms")).click()
        page.wait_for_url(re.compile(r"off=META"))
        expect(said).to_contain_text("searched with: FY2024 (read from the question: FY2024)")
        fused = page.locator(".st-key-col-fused")
        expect(fused.get_by_text(re.compile(r"AAPL FY2024")).first).to_be_visible()
        page.screenshot(path=str(ARTIFACTS / "app-chip-removed.png"))
        shown = sorted(fused.locator("strong").all_inner_texts())
        page.reload(wait_until="domcontentloaded")
        expect(said).to_contain_text("searched with: FY2024 (read from the question: FY2024)",
                                     timeout=60_000)
        expect(fused.get_by_text(re.compile(r"AAPL FY2024")).first).to_be_visible()
        assert sorted(fused.locator("strong").all_inner_texts()) == shown

        # an over-long paste is refused with a message, the box keeping its first 2,000
        question = page.get_by_label("Question")
        pasted = "revenue " * 325  # 2,600 characters
        question.fill(pasted)
        question.press("Enter")
        expect(page.get_by_text(re.compile("2,600 characters long"))).to_be_visible(
            timeout=60_000)
        # the box is set to its first 2,000 by the same run (waited for: under load the
        # message can be drawn before the box's new value)
        expect(question).to_have_value(pasted[:2000], timeout=30_000)
        page.screenshot(path=str(ARTIFACTS / "app-long-paste.png"))


SCROLLS = """els => els.map(t => { const d = t.querySelector(':scope > div') || t;
  const cs = getComputedStyle(d);
  return {over: d.scrollWidth > d.clientWidth + 1, auto: cs.overflowX === 'auto',
          bar: d.offsetHeight - d.clientHeight - 2, color: cs.scrollbarColor}; })"""


@pytest.mark.slow
@pytest.mark.parametrize("width", [1024, 1440])
def test_table_hits_show_a_scrollbar_where_wider_than_their_column(index, tmp_path, width):
    with browser_on(index, tmp_path) as (browser, url, sync_api):
        page = browser.new_page(viewport={"width": width, "height": 1000})
        page.goto(f"{url}/?q={urllib.parse.quote('total revenues capital expenditures')}",
                  wait_until="domcontentloaded")
        tables = page.locator("[class*='st-key-col-'] [data-testid='stTable']")
        sync_api.expect(tables.first).to_be_visible(timeout=60_000)
        found = tables.evaluate_all(SCROLLS)
        assert found, "no table hit in the columns"
        for t in found:  # whole, or a scroll that shows: a drawn bar in a visible colour
            assert not t["over"] or (t["auto"] and t["bar"] >= 8
                                     and "rgba(0, 0, 0, 0)" not in t["color"]), t
        # the period labels sit over their figures (both right-aligned in one column)
        first = tables.first
        head = first.locator("th").nth(1).bounding_box()
        cell = first.locator("tbody tr").first.locator("td").nth(1).bounding_box()
        assert abs((head["x"] + head["width"]) - (cell["x"] + cell["width"])) < 2
        page.locator(".st-key-col-dense").scroll_into_view_if_needed()
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"app-tables-{width}.png"))


@pytest.mark.slow
def test_a_filter_that_excludes_the_company_asked_is_cleared_in_one_click_and_export(
        index, tmp_path):
    with browser_on(index, tmp_path) as (browser, url, sync_api):
        expect = sync_api.expect
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        question = urllib.parse.quote("Apple capital expenditures 2024")
        page.goto(f"{url}/?ticker=WMT&q={question}", wait_until="domcontentloaded")
        why = page.locator(".st-key-excluded-ticker")
        expect(why.get_by_text("The ticker filter (WMT) excludes AAPL, which the question "
                               "names.")).to_be_visible(timeout=60_000)
        fused = page.locator(".st-key-col-fused")
        expect(fused.get_by_text(re.compile(r"WMT FY2025")).first).to_be_visible()
        page.screenshot(path=str(ARTIFACTS / "app-filter-excludes.png"))
        why.get_by_role("button", name="Clear the ticker filter").click()
        expect(why).to_have_count(0, timeout=60_000)
        expect(fused.get_by_text(re.compile(r"AAPL FY2024")).first).to_be_visible()
        expect(fused.get_by_text(re.compile(r"WMT FY2025"))).to_have_count(0)
        # the Markdown export stands alone: the question, its filters, whole tables with units
        with page.expect_download() as got:
            page.get_by_role("button", name="Results as Markdown").click()
        md = Path(got.value.path()).read_text()
        assert md.startswith("# Apple capital expenditures 2024\n\nFilters: AAPL · FY2024\n")
        assert "   Unit: (Amounts in millions)" in md
        assert "   | Capital expenditures | (23,783) | (20,606) | (16,857) | (13,106) |" in md


NFLX_2024 = (REPO.parent / "shared" / "data" / "filings" / "sec-edgar-filings" / "NFLX" / "10-K"
             / "nflx-20241231" / "primary-document.html")
# the cells' left and right edges in the page, by their text, for the table holding `figure`
EDGES = """(tables, figure) => {
  const t = tables.find(t => t.innerText.includes(figure));
  if (!t) return null;
  const out = {};
  for (const c of t.querySelectorAll('th, td')) {
    const r = c.getBoundingClientRect(), text = c.innerText.trim();
    if (text && !(text in out)) out[text] = [r.left, r.right];
  }
  return out;
}"""


@pytest.mark.slow
def test_a_heading_spanning_two_columns_sits_over_the_first_it_spans(data_dir, fake_embedder,
                                                                     monkeypatch, tmp_path):
    """Netflix FY2024 p. 20, read by the reader: "Change" over "2024 vs. 2023" and its
    $5,360,508, not over the 2023 column (issue 36)."""
    import lxml.html

    from finrag.ingest.read import table_grid

    if not NFLX_2024.exists():
        pytest.skip(f"needs {NFLX_2024} (the shared data set beside the repo)")
    grid = next(g for g in map(table_grid, lxml.html.fromstring(NFLX_2024.read_bytes())
                               .iter("table"))
                if len(g) > 3 and g[3][0] == "Streaming revenues" and "2024 vs. 2023" in g[1])
    text = "Streaming revenues\n" + "\n".join(" | ".join(c for c in r if c) for r in grid)
    chunk = Chunk(chunk_id="n" * 32, ticker="NFLX", company="Netflix, Inc.", fiscal_year=2024,
                  period_end="2024-12-31", chunk_type="table", section="Item 7", page=20,
                  page_label="20", text=text, table=grid, filing_key="NFLX2024")
    settings = Settings(data_dir=data_dir, qdrant_url=None)
    write_generation(settings, "gen-000001", [chunk], fake_embedder.encode([text]),
                     fake_embedder.name)
    publish(data_dir, "gen-000001")
    monkeypatch.setenv("FINRAG_APP_EMBEDDER", "conftest:AppEmbedder")
    monkeypatch.setenv("PYTHONPATH", str(REPO / "tests"))
    with browser_on(data_dir, tmp_path) as (browser, url, sync_api):
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        page.goto(f"{url}/?q={urllib.parse.quote('Netflix streaming revenues change')}",
                  wait_until="domcontentloaded")
        tables = page.locator(".st-key-col-fused [data-testid='stTable']")
        sync_api.expect(tables.first).to_be_visible(timeout=60_000)
        tables.first.evaluate("t => { for (const e of [t, ...t.querySelectorAll('*')])"
                              " if (e.scrollWidth > e.clientWidth) e.scrollLeft = 1e6; }")
        ARTIFACTS.mkdir(exist_ok=True)
        page.locator(".st-key-col-fused").screenshot(
            path=str(ARTIFACTS / "app-heading-columns.png"))
        edges = tables.evaluate_all(EDGES, "$5,360,508")
        assert edges, "the Netflix table is not in the fused column"
        change, versus, figure = edges["Change"], edges["2024 vs. 2023"], edges["$5,360,508"]
        assert change == versus == figure  # one column: heading, period and figure
        assert edges["2023"][1] <= change[0]  # left of it, not under it


@pytest.mark.slow
def test_the_companys_own_total_is_quoted_under_the_statements_figure(data_dir, fake_embedder,
                                                                      monkeypatch, tmp_path):
    """Meta FY2024 capex: the cash flow line answers, and the MD&A's own total "including
    principal payments on finance leases" is quoted under it (issue 36)."""
    from tests.test_other_totals import QUESTION, meta_index

    meta_index(data_dir, fake_embedder)
    monkeypatch.setenv("FINRAG_APP_EMBEDDER", "conftest:AppEmbedder")
    monkeypatch.setenv("PYTHONPATH", str(REPO / "tests"))
    with browser_on(data_dir, tmp_path) as (browser, url, sync_api):
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        page.goto(f"{url}/?q={urllib.parse.quote(QUESTION)}", wait_until="domcontentloaded")
        panel = page.locator(".st-key-answer-figure")
        sync_api.expect(panel.get_by_text("$37,256 million").first).to_be_visible(timeout=60_000)
        note = panel.locator(".st-key-other-totals")
        sync_api.expect(note.get_by_text("including principal payments on finance leases")
                        ).to_be_visible()
        sync_api.expect(note.get_by_text(re.compile(r"Meta Platforms, Inc\. FY2024, Item 7, "
                                                    r"p\. 61"))).to_be_visible()
        ARTIFACTS.mkdir(exist_ok=True)
        panel.screenshot(path=str(ARTIFACTS / "app-other-totals.png"))


@pytest.mark.slow
def test_a_company_not_indexed_gets_the_reason_and_no_other_companys_evidence(index, tmp_path):
    """"Microsoft capital expenditures 2024" on an index of Apple, Meta and Walmart: the reason
    lists the companies indexed; no Apple or Meta passage is offered as best evidence."""
    with browser_on(index, tmp_path) as (browser, url, sync_api):
        expect = sync_api.expect
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        question = urllib.parse.quote("Microsoft capital expenditures 2024")
        page.goto(f"{url}/?q={question}", wait_until="domcontentloaded")
        expect(page.get_by_text(re.compile(r"names no indexed company.*AAPL, META, WMT"))
               ).to_be_visible(timeout=60_000)
        expect(page.get_by_role("heading", name="Fused (RRF)")).to_be_visible()
        page.wait_for_function(  # the run is over: no "Running" widget
            "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')",
            timeout=60_000)
        expect(page.get_by_role("heading", name="Best evidence")).to_have_count(0)
        page.wait_for_timeout(1500)  # widgets drawn for the picture
        page.screenshot(path=str(ARTIFACTS / "app-company-not-indexed.png"))
