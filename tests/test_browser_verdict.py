"""A yes / no question in a real browser: the verdict heads the answer panel, each year's figure
in a table below it, the inputs cited; a screenshot lands in artifacts/app-verdict.png."""

from __future__ import annotations

import urllib.parse

import pytest

from tests.test_browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, served_app


@pytest.mark.slow
def test_a_verdict_heads_the_answer_with_its_figures_and_citations(sample_index, tmp_path):
    if not CHROMIUM.exists():
        pytest.skip(f"needs {CHROMIUM} (apt-get install chromium); never downloads a browser")
    sync_api = pytest.importorskip("playwright.sync_api")
    question = "Is Tesla a capital intensive business based on FY2024 data?"
    with served_app(sample_index, tmp_path / "streamlit.log") as url:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                        args=CHROMIUM_ARGS)
            try:
                page = browser.new_page(viewport={"width": 1440, "height": 1000})
                page.goto(f"{url}/?q={urllib.parse.quote(question)}",
                          wait_until="domcontentloaded")
                panel = page.locator(".st-key-answer-figure")
                sync_api.expect(panel.get_by_role("heading", name="Yes")).to_be_visible(
                    timeout=90_000)
                sync_api.expect(panel.get_by_text("total assets per $1 of revenue").first
                                ).to_be_visible()
                table = panel.locator("table")
                sync_api.expect(table.get_by_text("FY2024")).to_be_visible(timeout=30_000)
                sync_api.expect(table.get_by_text("1.25")).to_be_visible()
                for line in ("'Total assets'", "'Total revenues'"):
                    sync_api.expect(panel.get_by_text(line).first).to_be_visible()
                evidence = page.locator(".st-key-answer")  # the cited rows lead the evidence
                for line in ("Total assets", "Total revenues"):
                    sync_api.expect(evidence.locator("table").get_by_text(line, exact=True)
                                    .first).to_be_visible()
                ARTIFACTS.mkdir(exist_ok=True)
                page.screenshot(path=str(ARTIFACTS / "app-verdict.png"), full_page=False)
            finally:
                browser.close()
