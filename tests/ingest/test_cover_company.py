"""The company name read from a 10-K cover (PDFs and text documents with no SGML header or
inline-XBRL facts): the registrant's name, not the cover text around it."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import shared_path

from finrag.ingest.read import read_filing
from finrag.ingest.read.meta import _cover_company
from finrag.models import Block


def _cover(*lines: str) -> list[Block]:
    return [Block(kind="text", text=t, page=1) for t in lines]


HEAD = ("UNITED STATES", "SECURITIES AND EXCHANGE COMMISSION", "Washington, D.C. 20549",
        "FORM 10-K", "ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES "
        "EXCHANGE ACT OF 1934 For the fiscal year ended December 31, 2022")


@pytest.mark.parametrize("lines,name", [
    # the caption's own line holds the fields before the name (a PDF's text run)
    (("For the transition period from to Commission file number: 001-11111 "
      "NORTHWIND TRADERS, INC. (Exact name of registrant as specified in its charter)",),
     "NORTHWIND TRADERS, INC."),
    # a rule of underscores between the file number and the name
    (("Commission File No. 000-22222 ______________________________ CONTOSO.COM, INC. "
      "(Exact name of registrant as specified in its charter)",), "CONTOSO.COM, INC."),
    # small capitals split each word after its first letter, across lines
    (("Commission File No. 001-33333", "FABRIKAM R", "ESORTS I",
      "NTERNATIONAL (Exact name of Registrant as specified in its charter)"),
     "FABRIKAM RESORTS INTERNATIONAL"),
    # no caption: the name follows the file number, up to its legal suffix
    (("Commission file number 1-4444", "LITWARE COMPANY", "State of Incorporation: Delaware"),
     "LITWARE COMPANY"),
    (("For the Transition Period From to Commission File Number 001-55555",
      "ADVENTURE WORKS CORPORATION", "WASHINGTON 91-1234567 (STATE OF INCORPORATION) (I.R.S. ID)"),
     "ADVENTURE WORKS CORPORATION"),
    # an HTML cover: the name is the line above the caption, no file number before it
    (("Tailspin Toys Inc.", "(Exact name of registrant as specified in its charter)"),
     "Tailspin Toys Inc."),
    # the name is a logo: no name rather than the words around it
    (("Commission File Number 001-66666 (Exact name of Registrant as specified in its "
      "charter) Delaware (State or other jurisdiction)",), None),
    (("no cover here",), None),
])
def test_the_registrant_name_and_nothing_around_it(lines, name):
    assert _cover_company(_cover(*HEAD, *lines)) == name


@pytest.mark.slow
@pytest.mark.parametrize("pdf,name", [
    ("3M_2018_10K.pdf", "3M COMPANY"),
    ("MICROSOFT_2016_10K.pdf", "MICROSOFT CORPORATION"),
    ("MGMRESORTS_2018_10K.pdf", "MGM RESORTS INTERNATIONAL"),
    ("AMERICANWATERWORKS_2020_10K.pdf", "AMERICAN WATER WORKS COMPANY, INC."),
    ("BESTBUY_2023_10K.pdf", "BEST BUY CO., INC."),
    ("BLOCK_2016_10K.pdf", "SQUARE, INC."),
    ("COCACOLA_2017_10K.pdf", ""),  # its cover prints the name as a logo
])
def test_real_pdf_covers(pdf, name, tmp_path):
    """Read from the filing's first four pages, which hold its cover (pypdf over the whole
    filings took 5-45 s each, reading pages the name is never taken from)."""
    from pypdf import PdfReader, PdfWriter

    source, cover = PdfReader(shared_path("financebench", "pdfs", pdf)), PdfWriter()
    for page in source.pages[:4]:
        cover.add_page(page)
    path = tmp_path / pdf
    with open(path, "wb") as fh:
        cover.write(fh)
    assert read_filing(Path(path), ticker="X", fiscal_year=2020).company == name
