"""Issue 20 in a real browser (chromium): what AppTest cannot see.

Tables right-aligned and scrollable rather than clipped, readable contrast (WCAG AA), a layout
that holds at 1024 px, a hand-written link, the question box refusing an overlong question
before it reaches the URL. Screenshots go to artifacts/ (ignored).
"""

from __future__ import annotations

import time

import pytest

from tests.test_browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, served_app

CONTRAST = """(sel) => {
  const lum = (c) => { const v = c.match(/[\\d.]+/g).map(Number).slice(0, 3).map(x => x / 255)
      .map(x => x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4);
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; };
  const out = [];
  for (const el of document.querySelectorAll(sel)) {
    let op = 1; for (let e = el; e; e = e.parentElement) op *= Number(getComputedStyle(e).opacity);
    const m = getComputedStyle(el).color.match(/[\\d.]+/g).map(Number);
    const a = (m.length > 3 ? m[3] : 1) * op;  // over white
    const rgb = m.slice(0, 3).map(x => x * a + 255 * (1 - a));
    const l = lum(`rgb(${rgb.join(',')})`);
    out.push((1.05) / (l + 0.05));
  }
  return out; }"""


# lines of text in each card header ("#1 TSLA FY2024 · Item 8 · table · p. 61")
HEADER_LINES = """els => els.filter(e => /^#\\d+$/.test(e.textContent)).map(e => {
  const r = document.createRange(); r.selectNodeContents(e.closest('p'));
  return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size; })"""


def settle(page) -> None:
    time.sleep(1)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=90_000)


@pytest.mark.slow
def test_tables_contrast_layout_and_links_in_chromium(sample_index, tmp_path):
    if not CHROMIUM.exists():
        pytest.skip(f"needs {CHROMIUM} (apt-get install chromium); never downloads a browser")
    sync_api = pytest.importorskip("playwright.sync_api")
    ARTIFACTS.mkdir(exist_ok=True)
    with served_app(sample_index, tmp_path / "streamlit.log") as url, \
            sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                    args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1024, "height": 900})
            # a link written by hand: bare ticker, year, question
            page.goto(f"{url}/?ticker=TSLA&year=2024&type=table"
                      "&q=net+income+per+share+weighted+average+shares",
                      wait_until="domcontentloaded")
            fused = page.locator(".st-key-col-fused")
            sync_api.expect(fused.get_by_text("TSLA FY2024").first).to_be_visible(
                timeout=90_000)
            settle(page)
            assert page.get_by_text("Ignored from the link").count() == 0
            # tables: figures right-aligned; a wide table scrolls, nothing is cut off
            cells = fused.locator("[data-testid='stTable'] td:nth-child(2)")
            sync_api.expect(cells.first).to_be_visible(timeout=60_000)
            assert cells.first.evaluate("e => getComputedStyle(e).textAlign") == "right"
            boxes = fused.locator("[data-testid='stTable'] > div").evaluate_all(
                "els => els.map(e => [e.scrollWidth, e.clientWidth, "
                "getComputedStyle(e).overflowX])")
            assert all(sw <= cw or ox == "auto" for sw, cw, ox in boxes), boxes
            # the layout at 1024 px: no sideways page scroll; card headers on <= 2 lines
            assert page.evaluate("document.documentElement.scrollWidth") <= 1024
            lines = fused.locator("[data-testid='stMarkdownContainer'] strong").evaluate_all(
                HEADER_LINES)
            assert lines and max(lines) <= 2, lines
            page.screenshot(path=str(ARTIFACTS / "app-1024.png"))
            # contrast: captions and quoted evidence at least 4.5:1 (WCAG AA)
            ratios = page.evaluate(CONTRAST, "[data-testid='stCaptionContainer'] p, "
                                             "[data-testid='stMarkdownContainer'] blockquote p")
            assert ratios and min(ratios) >= 4.5, min(ratios)
            # an overlong question never reaches the URL: the box takes 2,000 characters
            box = page.get_by_label("Question")
            box.fill("revenue " * 625)  # pasted whole: the box refuses it
            box.press("Enter")
            settle(page)
            assert len(box.input_value()) <= 2000
            assert len(page.url) < 2000 + len(url) + 100
        finally:
            browser.close()
