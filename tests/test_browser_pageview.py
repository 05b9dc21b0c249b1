"""The page itself and a filing's statements in a real browser: an answer's citation opens the
filing's own page with the cited row marked; a hit in the columns opens its page too; the
statements view shows a filing's three statements and a selected row opens its page.
Screenshots land in artifacts/app-page-view.png and artifacts/app-statements.png."""

from __future__ import annotations

import urllib.parse

import pytest

from tests.test_browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, served_app


@pytest.fixture(scope="module")
def browser_page(sample_index, tmp_path_factory):
    if not CHROMIUM.exists():
        pytest.skip(f"needs {CHROMIUM} (apt-get install chromium); never downloads a browser")
    sync_api = pytest.importorskip("playwright.sync_api")
    log = tmp_path_factory.mktemp("pageview") / "streamlit.log"
    with served_app(sample_index, log) as url, sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                    args=CHROMIUM_ARGS)
        try:
            yield url, browser.new_page(viewport={"width": 1440, "height": 1000})
        finally:
            browser.close()


@pytest.mark.slow
def test_a_citation_opens_its_page_with_the_row_marked(browser_page):
    from playwright.sync_api import expect

    url, page = browser_page
    page.goto(f"{url}/?q={urllib.parse.quote('Tesla R&D expense 2024')}",
              wait_until="domcontentloaded")
    panel = page.locator(".st-key-answer-figure")
    expect(panel.get_by_text("4,540", exact=False).first).to_be_visible(timeout=120_000)
    panel.get_by_role("button", name="View page").first.click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_text("p. 49 (page 52 of the file)", exact=False)).to_be_visible(
        timeout=30_000)
    view = dialog.locator(".st-key-page-view")
    expect(view.get_by_text("Consolidated Statements of Operations")).to_be_visible(
        timeout=30_000)
    marks = view.locator("mark")
    expect(marks.first).to_have_text("Research and development", timeout=30_000)
    assert [" ".join(t.split()) for t in marks.all_text_contents()] == [
        "Research and development", "4,540", "3,969", "3,075"]
    assert view.locator("script, iframe, img, link, a[href]").count() == 0
    page.wait_for_timeout(800)  # the dialog scrolls its mark into view
    expect(marks.first).to_be_in_viewport()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "app-page-view.png"), full_page=False)
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden(timeout=10_000)

    # a hit in the fused column opens its page too
    fused = page.locator(".st-key-col-fused")
    fused.get_by_role("button", name="View page").first.click()
    expect(page.get_by_role("dialog").locator(".st-key-page-view")).to_be_visible(
        timeout=30_000)
    page.keyboard.press("Escape")


@pytest.mark.slow
def test_the_statements_view_shows_a_filings_three_statements(browser_page):
    from playwright.sync_api import expect

    url, page = browser_page
    page.goto(f"{url}/?filing=TSLA+FY2024", wait_until="domcontentloaded")
    box = page.locator(".st-key-statements")
    expect(box.get_by_text("Income statement", exact=True)).to_be_visible(timeout=120_000)
    for title in ("Balance sheet", "Cash flow statement"):
        expect(box.get_by_text(title, exact=True)).to_be_visible()
    expect(box.get_by_text("printed on p. 49", exact=False)).to_be_visible()
    expect(box.get_by_text("printed on p. 48", exact=False)).to_be_visible()
    expect(box.get_by_text("printed on p. 52", exact=False)).to_be_visible()
    grids = box.locator("[data-testid='stDataFrame']")
    expect(grids).to_have_count(3)
    income = grids.first
    box.get_by_text("Income statement", exact=True).evaluate(
        "e => e.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(800)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "app-statements.png"), full_page=False)
    # the grid is a canvas: select "Research and development" (row 15) by its checkbox
    box_xy = income.bounding_box()
    page.mouse.click(box_xy["x"] + 16, box_xy["y"] + 35 + 35 * 14 + 17)
    view = page.get_by_role("dialog").locator(".st-key-page-view")
    expect(view.locator("mark").first).to_have_text("Research and development",
                                                    timeout=30_000)
