"""A "why" question in a real browser: the change heads the answer panel, then the filing's own
sentence with the question's words marked and its citation (company, FY, Item, printed page,
EDGAR link); a screenshot lands in artifacts/app-narrative.png."""

from __future__ import annotations

import pytest

from tests.test_browser import ARTIFACTS, asked_in_browser


@pytest.mark.slow
def test_a_why_question_shows_the_change_then_the_quoted_cited_sentences(sample_index, tmp_path):
    question = "What drove Tesla's gross margin change in 2024?"
    with asked_in_browser(sample_index, tmp_path, question) as (page, sync_api):
        panel = page.locator(".st-key-answer-figure")
        sync_api.expect(panel.get_by_text("-0.4 percentage points")).to_be_visible(
            timeout=90_000)
        sync_api.expect(panel.get_by_text("The filing's own words:")).to_be_visible()
        quote = panel.locator("blockquote").first
        sync_api.expect(quote).to_contain_text("due to")
        sync_api.expect(quote.locator("strong").first).to_be_visible()  # words marked
        sync_api.expect(panel.get_by_text("Tesla, Inc. FY2024, Item 7, p. 39").first
                        ).to_be_visible()
        sync_api.expect(panel.get_by_role("link", name="filing on EDGAR").first).to_be_visible()
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "app-narrative.png"), full_page=False)


@pytest.mark.slow
def test_the_securities_a_cover_registers_show_as_quoted_rows(sample_index, tmp_path):
    """Apple's FY2024 cover: its notes, each row quoted as printed and cited to the cover;
    a screenshot lands in artifacts/app-cover.png."""
    question = "Which debt securities are registered under Apple's name?"
    with asked_in_browser(sample_index, tmp_path, question) as (page, sync_api):
        panel = page.locator(".st-key-answer-figure")
        sync_api.expect(panel.get_by_text("Registered under Section 12(b)")).to_be_visible(
            timeout=90_000)
        sync_api.expect(panel.locator("blockquote")).to_have_count(8)
        sync_api.expect(panel.locator("blockquote").first).to_contain_text("Notes due 2025")
        sync_api.expect(panel.get_by_text("Apple Inc. FY2024, Cover").first).to_be_visible()
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "app-cover.png"), full_page=False)
