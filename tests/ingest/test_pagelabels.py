"""Printed page labels on real filings: the number an analyst finds on the page, beside the
page's position in the file; page feet and heads never reach a chunk's text."""

from __future__ import annotations

import gzip
import json
import os
import re
from pathlib import Path

import pytest

from finrag.ingest.read import read_filing
from finrag.ingest.sample import SAMPLE_DIR

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ingest"
SHARED = Path(os.environ.get("FINRAG_SHARED_DATA")
              or Path(__file__).resolve().parents[2].parent / "shared" / "data")


def sample(tmp_path: Path, rel: str):
    """Read one bundled sample filing (gunzipped into tmp_path), without embedding."""
    folder = tmp_path / rel
    folder.mkdir(parents=True)
    for packed in (SAMPLE_DIR / rel).glob("*.gz"):
        (folder / packed.stem).write_bytes(gzip.decompress(packed.read_bytes()))
    return read_filing(folder)


def blocks_on(filing, page: int, needle: str):
    return [b for b in filing.blocks if b.page == page and needle in b.text]


# --- the three cases, on the bundled sample ------------------------------------------


def test_apple_net_sales_table_is_printed_page_35(tmp_path):
    filing = sample(tmp_path, "sec-edgar-filings/AAPL/10-K/0000320193-24-000123")
    [table] = [b for b in blocks_on(filing, 37, "Total net sales") if b.kind == "table"]
    assert table.page_label == "35"


def test_home_depot_debt_note_is_printed_page_58(tmp_path):
    filing = sample(tmp_path, "sec-edgar-filings/HD/10-K/0000354950-25-000085")
    assert blocks_on(filing, 62, "components of our long-term debt")
    assert {b.page_label for b in filing.blocks if b.page == 62} == {"58"}


def test_home_depot_page_feet_are_labels_not_text(tmp_path):
    """HD lays its foot out as a one-row table, "Fiscal 2024 Form 10-K | 39": it was indexed
    as a table chunk of its own."""
    filing = sample(tmp_path, "sec-edgar-filings/HD/10-K/0000354950-25-000085")
    feet = [b.text for b in filing.blocks if re.search(r"Form 10-K \| \d+$", b.text)]
    assert feet == []
    assert {b.page_label for b in filing.blocks if b.page == 43} == {"39"}


def test_tesla_mdna_page_43_is_printed_40_and_holds_no_page_foot(tmp_path):
    filing = sample(tmp_path, "sec-edgar-filings/TSLA/10-K/tsla-20241231")
    [block] = blocks_on(filing, 43, "Gross margin for energy generation and storage increased")
    assert block.page_label == "40"
    assert not any(b.text in {"39", "40"} for b in filing.blocks)  # the feet, dropped


def test_a_page_that_prints_no_number_has_no_label(tmp_path):
    filing = sample(tmp_path, "sec-edgar-filings/TSLA/10-K/tsla-20241231")
    assert {b.page_label for b in filing.blocks if b.page == 1} == {None}  # the cover


# --- the figure questions' pages: an oracle checked by hand from the filings ------------------


def _figures() -> list[dict]:
    path = SHARED / "eval" / "figures.dev.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.skipif(not _figures(), reason="needs ../shared/data/eval/figures.dev.jsonl")
@pytest.mark.parametrize("figure", _figures(), ids=lambda f: f["id"])
def test_printed_page_of_each_figure_matches_the_filing(figure):
    filing = read_filing((SHARED / figure["filing"]).parent)
    for check in figure["verification"].values():
        text = check["text"]
        on_page = [b for b in filing.blocks if b.page == text["page_index"]]
        assert any(text["printed"] in b.text and text["line_label"] in b.text for b in on_page)
        assert {b.page_label for b in on_page} == {text["printed_page"]}


# --- PDF ---------------------------------------------------------------------------------------


def test_pdf_page_number_is_found_where_it_is_printed_not_where_pypdf_puts_it():
    """Medicis's 1999 10-K (8 pages of a PDF): page 8 prints "7" at its foot, and pypdf's text
    has it glued to the sentence above ("unless either 7"); pages 1-7 print no number at their
    head or foot (the document's own numbers fall mid-page), so they get none."""
    filing = read_filing(FIXTURES / "pdf" / "medicis-10-k-1999-pages-1-8.pdf", ticker="MRX")
    labels = {b.page: b.page_label for b in filing.blocks}
    assert labels == {1: None, 2: None, 3: None, 4: None, 5: None, 6: None, 7: None, 8: "7"}
    assert [b.text for b in filing.blocks if b.page == 8][-1].endswith("unless either")


# --- what counts as a page mark ---------------------------------------------------------------


@pytest.mark.parametrize("line, label", [
    ("35", "35"), ("- 35 -", "35"), ("Page 35", "35"), ("20.", "20"), ("iv", "iv"),
    ("F-7", "F-7"), ("Apple Inc. | 2024 Form 10-K | 35", "35"),
    ("57 MASTERCARD 2024 FORM 10-K", "57"), ("The Procter & Gamble Company 17", "17"),
])
def test_page_mark_reads_the_label(line, label):
    from finrag.ingest.pagelabels import page_mark

    assert page_mark(line).label == label


@pytest.mark.parametrize("line", ["PART II", "NOTE 7", "Item 7", "X", "2024",
                                  "Total net sales | $391,035", "Revenue increased 12% in 2024"])
def test_headings_figures_and_check_marks_are_not_page_marks(line):
    from finrag.ingest.pagelabels import page_mark

    mark = page_mark(line)
    assert mark is None or mark.template == "<roman>"  # a roman group still needs 3 pages
