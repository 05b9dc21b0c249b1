"""A series question in a real browser: the table with the years as columns and its unit line,
and beside it a line chart whose point shows its citation on hover; a screenshot lands in
artifacts/app-series.png."""

from __future__ import annotations

import pytest

from tests.test_browser import ARTIFACTS, asked_in_browser


@pytest.mark.slow
def test_a_series_shows_its_table_and_a_chart_that_cites_on_hover(sample_index, tmp_path):
    with asked_in_browser(sample_index, tmp_path, "Tesla total revenues 2022 to 2024") as (
            page, sync_api):
        panel = page.locator(".st-key-answer-figure")
        table = panel.locator("table").first
        sync_api.expect(table.get_by_text("FY2022")).to_be_visible(timeout=90_000)
        for cell in ("81,462 c", "96,773 c", "97,690"):
            sync_api.expect(table.get_by_text(cell, exact=True)).to_be_visible()
        sync_api.expect(panel.get_by_text("(USD millions)")).to_be_visible()
        chart = panel.locator(".st-key-answer-chart .vega-embed canvas, "
                              ".st-key-answer-chart .vega-embed svg.marks")
        sync_api.expect(chart.first).to_be_visible(timeout=30_000)
        chart.first.scroll_into_view_if_needed()
        page.wait_for_timeout(500)
        box = chart.first.bounding_box()
        tip = page.locator("#vg-tooltip-element, .vg-tooltip").first
        # sweep the plot until the pointer is over a point and its tooltip shows
        found = False
        for fx in range(10, 95):
            for fy in range(2, 80, 2):
                page.mouse.move(box["x"] + box["width"] * fx / 100,
                                box["y"] + box["height"] * fy / 100)
                if tip.count() and tip.is_visible() and "cited" in (tip.text_content() or ""):
                    found = True
                    break
            if found:
                break
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "app-series.png"), full_page=False)
        sync_api.expect(tip).to_contain_text("Total revenues")
        sync_api.expect(tip).to_contain_text("p. 49")


@pytest.mark.slow
def test_peers_show_companies_as_columns_and_bars(sample_index, tmp_path):
    question = "Compare Apple and Tesla operating margin 2024"
    with asked_in_browser(sample_index, tmp_path, question) as (page, sync_api):
        panel = page.locator(".st-key-answer-figure")
        table = panel.locator("table").first
        sync_api.expect(table.get_by_text("AAPL FY2024")).to_be_visible(timeout=90_000)
        sync_api.expect(table.get_by_text("TSLA FY2024")).to_be_visible()
        for cell in ("31.5", "7.2"):
            sync_api.expect(table.get_by_text(cell, exact=True)).to_be_visible()
        sync_api.expect(panel.get_by_text("ends months apart").first).to_be_visible()
        sync_api.expect(panel.locator(".st-key-answer-chart .vega-embed").first).to_be_visible(
            timeout=30_000)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "app-peers.png"), full_page=False)
