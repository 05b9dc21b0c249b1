"""finrag.ingest.sections: Items found from a filing's own headings, in order, TOC skipped."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

from finrag.ingest.read import html_to_blocks, read_filing, text_to_blocks
from finrag.ingest.sections import COVER, split_sections
from finrag.models import Block

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ingest"
SHARED = Path(os.environ.get("FINRAG_SHARED_DATA")
              or Path(__file__).resolve().parents[2].parent / "shared" / "data")

MODERN_ITEMS = ["Cover", "Item 1", "Item 1A", "Item 1B", "Item 1C", "Item 2", "Item 3", "Item 4",
                "Item 5", "Item 6", "Item 7", "Item 7A", "Item 8", "Item 9", "Item 9A", "Item 9B",
                "Item 9C", "Item 10", "Item 11", "Item 12", "Item 13", "Item 14", "Item 15",
                "Item 16"]


def fixture_text(rel: str) -> str:
    with gzip.open(FIXTURES / rel, "rb") as fh:
        return fh.read().decode("utf-8", errors="replace")


def by_item(sections):
    return {s.item: s for s in sections}


def size(section) -> int:
    return sum(len(b.text) for b in section.blocks)


def text(*lines: str) -> list[Block]:
    return [Block(kind="text", text=line) for line in lines]


BODY = "Real content of the section. " * 20


# --- real filings -----------------------------------------------------------------------------


def test_ixbrl_filing_aapl_2024():
    html = fixture_text("sec-edgar-filings/AAPL/10-K/0000320193-24-000123/primary-document.html.gz")
    sections = split_sections(html_to_blocks(html))
    assert [s.item for s in sections] == MODERN_ITEMS
    items = by_item(sections)
    assert size(items["Item 1"]) > 5000 and size(items["Item 1A"]) > 30000
    assert items["Item 1A"].title == "Risk Factors"
    assert items["Item 7"].title.startswith("Management’s Discussion and Analysis")
    assert [b.text for b in items["Item 1"].blocks[:2]] == ["PART I", "Item 1. Business"]
    assert items[COVER].title == "Cover page"


def test_old_small_filer_html():
    html = fixture_text("other/0000950153-99-001234/primary-document.html.gz")
    sections = split_sections(html_to_blocks(html))
    expected = ["Cover"] + [f"Item {n}" for n in ("1", "2", "3", "4", "5", "6", "7", "7A", "8",
                                                   "9", "10", "11", "12", "13", "14")]
    assert [s.item for s in sections] == expected
    items = by_item(sections)
    assert size(items["Item 1"]) > 50000
    assert items["Item 4"].title == "Submission of Matters to a Vote of Security Holders"


@pytest.mark.slow  # a whole 1.1 MB tag-stripped submission: ~20 s in text_to_blocks
def test_tag_stripped_text_skips_the_table_of_contents():
    raw = fixture_text(
        "sec-edgar-filings/AAPL/10-K/0000320193-19-000119/full-submission.tagstripped.txt.gz")
    filing_blocks = text_to_blocks(raw[raw.index("UNITED STATES"):])
    sections = split_sections(filing_blocks)
    expected = [i for i in MODERN_ITEMS if i not in ("Item 1C", "Item 9C")]
    assert [s.item for s in sections] == expected
    items = by_item(sections)
    assert size(items["Item 1"]) > 5000  # the real Item 1, not its TOC line
    assert size(items["Item 7"]) > 20000
    # split heading: "Item 1B." / title
    assert items["Item 1B"].title == "Unresolved Staff Comments"


@pytest.mark.slow  # pypdf over a whole PDF
def test_pdf_filing():
    pdf = SHARED / "financebench" / "pdfs" / "NETFLIX_2015_10K.pdf"
    if not pdf.exists():
        pytest.skip(f"needs {pdf} (FinanceBench PDFs are CC-BY-NC, read from the shared data)")
    sections = split_sections(read_filing(pdf, ticker="NFLX").blocks)
    found = [s.item for s in sections]
    for item in ("Item 1", "Item 1A", "Item 2", "Item 5", "Item 7", "Item 7A", "Item 9A",
                 "Item 15"):
        assert item in found
    assert found == sorted(found, key=found.index)  # document order, each once
    items = by_item(sections)
    assert size(items["Item 1"]) > 3000 and size(items["Item 1A"]) > 20000
    assert items["Item 1A"].title == "Risk Factors"
    assert items["Item 1A"].blocks[0].page > 2  # after the TOC page


# --- rules ------------------------------------------------------------------------------------


def test_toc_run_is_skipped_and_real_headings_kept():
    toc = text("Table of Contents", "Item 1. Business", "Item 1A. Risk Factors", "Item 7. MD&A")
    body = text("Item 1. Business", BODY, "Item 1A. Risk Factors", BODY, "Item 7.",
                "Results of the Year", BODY)
    sections = split_sections(toc + body)
    assert [s.item for s in sections] == ["Cover", "Item 1", "Item 1A", "Item 7"]
    assert sections[0].blocks == toc
    assert sections[3].title == "Results of the Year"


def test_cross_references_and_out_of_order_mentions_are_not_headings():
    blocks = text("Item 1. Business", BODY, "Item 8 of this Form 10-K describes revenue.",
                  "Item 7. Management's Discussion", BODY, "Item 1A. Risk Factors", BODY)
    assert [s.item for s in split_sections(blocks)] == ["Item 1", "Item 7"]


def test_part_heading_opens_the_next_item_and_titles_fall_back_to_standard():
    blocks = text("PART I", "ITEM 1 — BUSINESS", BODY, "PART II", "ITEM 7A:", BODY)
    sections = split_sections(blocks)
    assert [s.item for s in sections] == ["Item 1", "Item 7A"]
    assert sections[1].blocks[0].text == "PART II"
    assert sections[0].title == "Business"
    assert sections[1].title == "Quantitative and Qualitative Disclosures About Market Risk"


def test_no_items_gives_one_cover_section():
    blocks = text("Annual report", BODY)
    assert [(s.item, s.title) for s in split_sections(blocks)] == [("Cover", "Cover page")]
    assert split_sections([]) == []
