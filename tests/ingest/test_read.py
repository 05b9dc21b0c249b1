"""finrag.ingest.read on real filings: accession folders, iXBRL, SGML, tag-stripped text, PDF,
and the inputs it must refuse with one clear line."""

from __future__ import annotations

import gzip
import os
import re
import shutil
import time
from datetime import date
from pathlib import Path

import pytest

from finrag.ingest.fiscal import fiscal_year_from_period
from finrag.ingest.read import ReadError, locate, parse_sgml_header, read_filing
from finrag.ingest.sample import unpack_sample

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ingest"
SHARED = Path(os.environ.get("FINRAG_SHARED_DATA")
              or Path(__file__).resolve().parents[2].parent / "shared" / "data")
AAPL_2024 = "sec-edgar-filings/AAPL/10-K/0000320193-24-000123"
HD_2024 = "sec-edgar-filings/HD/10-K/0000354950-25-000085"
NVDA_2024 = "sec-edgar-filings/NVDA/10-K/nvda-20240128"
MEDICIS_1999 = "other/0000950153-99-001234"


def unpack(tmp_path: Path, rel: str) -> Path:
    """Copy a fixture folder (or file) into tmp_path under the same layout, gunzipping."""
    src = FIXTURES / rel
    files = [src] if src.is_file() else sorted(p for p in src.rglob("*") if p.is_file())
    for path in files:
        target = tmp_path / path.relative_to(FIXTURES)
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".gz":
            with gzip.open(path, "rb") as fh:
                target.with_suffix("").write_bytes(fh.read())
        else:
            shutil.copyfile(path, target)
    return tmp_path / rel.removesuffix(".gz")


def shared(*parts: str) -> Path:
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"needs {path} (the shared data set beside the repo; "
                    "set FINRAG_SHARED_DATA to point elsewhere)")
    return path


def one_line_error(unit: Path, **kwargs) -> str:
    with pytest.raises(ReadError) as info:
        read_filing(unit, **kwargs)
    message = str(info.value)
    assert "\n" not in message
    return message


# --- SGML header ------------------------------------------------------------------------------


def test_header_cut_mid_way_gives_its_fields():
    text = (FIXTURES / AAPL_2024 / "full-submission.first1000bytes.txt").read_text()
    header = parse_sgml_header(text)
    assert header["ACCESSION NUMBER"] == "0000320193-24-000123"
    assert header["CONFORMED SUBMISSION TYPE"] == "10-K"
    assert header["CONFORMED PERIOD OF REPORT"] == "20240928"
    assert header["COMPANY CONFORMED NAME"] == "Apple Inc."
    assert header["CENTRAL INDEX KEY"] == "0000320193"
    assert header["FISCAL YEAR END"] == "0928"


def test_header_with_several_former_companies_keeps_the_current_name():
    header = parse_sgml_header(
        (FIXTURES / "sgml/MultipleFormerCompaniesHeader.10-K.txt").read_text())
    assert header["COMPANY CONFORMED NAME"] == "REGENEREX PHARMA, INC."
    assert header["FORMER CONFORMED NAMES"] == [
        "PEPTIDE TECHNOLOGIES, INC.", "Eternelle Skincare Products Inc.",
        "PEPTIDE TECHNOLOGIES, INC."]
    assert header["FISCAL YEAR END"] == "0331"


def test_header_with_double_newlines_and_two_filers():
    text = (FIXTURES / "sgml/header_with_double_newlines.485APOS.txt").read_text()
    header = parse_sgml_header(text)
    assert header["ACCESSION NUMBER"] == "0001193125-24-066744"
    assert header["CONFORMED SUBMISSION TYPE"] == "485APOS"
    assert header["CENTRAL INDEX KEY"] == "0001100663"
    assert header["FISCAL YEAR END"] == "1231"


# --- fiscal year ------------------------------------------------------------------------------


@pytest.mark.parametrize(("period", "fye", "expected"), [
    (date(2019, 9, 28), "0928", 2019),  # AAPL FY2019
    (date(2025, 2, 2), "0202", 2024),  # HD FY2024 (dei says 2024)
    (date(2024, 1, 28), "0128", 2024),  # NVDA FY2024 (dei says 2024)
    (date(2025, 1, 31), "0131", 2025),  # WMT / CRM FY2025 (dei says 2025)
    (date(2023, 1, 1), "0101", 2022),  # JNJ 52/53-week year nominally ending Dec 31
    (date(2025, 1, 3), "0103", 2024),  # LDOS
    (date(2025, 1, 3), None, 2024),
    (date(2025, 1, 3), "0630", 2025),  # FISCAL YEAR END far away: no spill-over
    (date(2024, 12, 28), "1228", 2024),
])
def test_fiscal_year_from_period(period, fye, expected):
    assert fiscal_year_from_period(period, fye) == expected


@pytest.mark.slow  # reads every real filing
def test_derived_fiscal_year_agrees_with_dei_on_every_real_filing():
    root = shared("filings", "sec-edgar-filings")
    checked = 0
    for doc in sorted(root.rglob("primary-document.html")):
        text = doc.read_text(errors="replace")
        if "dei:DocumentFiscalYearFocus" not in text:
            continue
        filing = read_filing(doc.parent)
        derived = fiscal_year_from_period(date.fromisoformat(filing.period_end), None)
        assert derived == filing.fiscal_year, doc
        checked += 1
    assert checked >= 20


# --- accession folders ------------------------------------------------------------------------


def test_accession_folder_with_header_and_ixbrl(tmp_path):
    filing = read_filing(unpack(tmp_path, AAPL_2024))
    assert (filing.ticker, filing.cik, filing.company) == ("AAPL", "0000320193", "Apple Inc.")
    assert (filing.form, filing.fiscal_year, filing.period_end) == ("10-K", 2024, "2024-09-28")
    assert filing.accession == "0000320193-24-000123"
    assert filing.source.endswith("primary-document.html")
    assert filing.blocks[0].page == 1 and max(b.page for b in filing.blocks) > 40
    assert not any("dei:" in b.text or "xbrli" in b.text for b in filing.blocks[:50])


def test_tables_merge_split_dollar_and_parenthesis_cells(tmp_path):
    filing = read_filing(unpack(tmp_path, AAPL_2024))
    tables = [b for b in filing.blocks if b.kind == "table"]
    rows = [row for t in tables for row in t.rows]
    assert ["Total net sales", "$391,035", "2%", "$383,285", "(3)%", "$394,328"] in rows
    assert ["", "2024", "Change", "2023", "Change", "2022"] in rows  # header over its values
    cells = [c for r in rows for c in r]
    assert "$" not in cells and ")" not in cells
    assert any(re.fullmatch(r"\$?\(\d[\d,]*\)", c) for c in cells)  # negatives kept whole
    assert any("Total net sales | $391,035 | $383,285 | $394,328" in t.text for t in tables)
    assert all(len(set(map(len, t.rows))) == 1 for t in tables)  # a rectangular grid


def test_ixbrl_folder_without_header_takes_metadata_from_dei_and_folder(tmp_path):
    filing = read_filing(unpack(tmp_path, NVDA_2024))
    assert (filing.ticker, filing.fiscal_year, filing.period_end) == ("NVDA", 2024, "2024-01-28")
    assert filing.cik == "0001045810"
    assert filing.accession == ""


def test_52_53_week_retailer_year_ending_in_february(tmp_path):
    filing = read_filing(unpack(tmp_path, HD_2024))
    assert (filing.fiscal_year, filing.period_end) == (2024, "2025-02-02")
    assert filing.accession == "0000354950-25-000085"


def test_overrides_win(tmp_path):
    filing = read_filing(unpack(tmp_path, AAPL_2024), ticker="aapx", fiscal_year=2030)
    assert (filing.ticker, filing.fiscal_year) == ("AAPX", 2030)


def test_sgml_submission_with_inline_xbrl_document(tmp_path):
    unit = unpack(tmp_path, "sec-edgar-filings/TSLA/10-K/0001564590-20-004475")
    filing = read_filing(unit)
    assert (filing.ticker, filing.fiscal_year, filing.period_end) == ("TSLA", 2019, "2019-12-31")
    assert filing.accession == "0001564590-20-004475"
    texts = [b.text for b in filing.blocks]
    assert "TESLA, INC." in texts and not any("Subsidiaries" in t for t in texts)  # no exhibit
    assert any(b.kind == "table" and "24578000000" in b.text for b in filing.blocks)


def test_tag_stripped_submission_old_text_filing(tmp_path):
    unit = unpack(tmp_path, "sec-edgar-filings/AAPL/10-K/0000320193-95-000016")
    filing = read_filing(unit)
    assert (filing.fiscal_year, filing.period_end, filing.cik) == (1995, "1995-09-29", "0000320193")
    assert filing.company == "APPLE COMPUTER INC"
    assert len(filing.blocks) > 300 and max(b.page or 0 for b in filing.blocks) > 20
    assert not any(b.text.startswith("MIC-Info") for b in filing.blocks)


def test_tag_stripped_ixbrl_submission_skips_hidden_facts(tmp_path):
    unit = unpack(tmp_path, "sec-edgar-filings/AAPL/10-K/0000320193-19-000119")
    filing = read_filing(unit)
    assert (filing.fiscal_year, filing.period_end) == (2019, "2019-09-28")
    assert filing.blocks[0].text == "UNITED STATES"
    assert any(b.text.startswith("$") and "," in b.text for b in filing.blocks)  # "$" + "1,234"


def test_old_small_filer_html_needs_a_ticker_and_reads_the_cover(tmp_path):
    unit = unpack(tmp_path, MEDICIS_1999)
    assert "no ticker" in one_line_error(unit)
    filing = read_filing(unit, ticker="MRX")
    assert (filing.fiscal_year, filing.period_end) == (1999, "1999-06-30")
    assert filing.company.startswith("MEDICIS PHARMACEUTICAL")
    assert filing.accession == "0000950153-99-001234"


# --- refusals ---------------------------------------------------------------------------------


def test_8k_submission_is_refused_in_one_line(tmp_path):
    path = unpack(tmp_path, "sgml/0000943374-24-000509.txt.gz")
    message = one_line_error(path)
    assert message == "sgml/0000943374-24-000509.txt: form 8-K is not a 10-K; skipped"


def test_header_only_folder_is_refused(tmp_path):
    unit = unpack(tmp_path, "sec-edgar-filings/AAPL/10-K/0000320193-25-000079")
    assert "missing or cut off" in one_line_error(unit)


def test_empty_file(tmp_path):
    path = tmp_path / "AAPL" / "10-K" / "x" / "filing.htm"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"  \n")
    assert "empty file" in one_line_error(path)


def test_truncated_html(tmp_path):
    html = (unpack(tmp_path, AAPL_2024) / "primary-document.html").read_bytes()
    path = tmp_path / "cut" / "aapl-20240928.htm"
    path.parent.mkdir()
    path.write_bytes(html[:300_000])
    assert "cut off" in one_line_error(path, ticker="AAPL")


@pytest.mark.parametrize(("name", "data", "expected"), [
    ("junk.htm", bytes(range(256)) * 40, "binary data"),
    ("junk.pdf", b"%PDF-1.4\n garbage without objects", "unreadable PDF"),
    ("note.txt", b"hello, this is not a filing\n", "cannot tell that this is a 10-K"),
    ("page.html", b"<html><body><p>Quarterly update</p></body></html>", "cannot tell"),
])
def test_garbage_is_refused_with_a_reason(tmp_path, name, data, expected):
    path = tmp_path / name
    path.write_bytes(data)
    assert expected in one_line_error(path, ticker="X")


# --- locate -----------------------------------------------------------------------------------


def test_locate_finds_accession_folders_and_loose_files(tmp_path):
    acc = tmp_path / "AAPL" / "10-K" / "0000320193-24-000123"
    acc.mkdir(parents=True)
    (acc / "full-submission.first1000bytes.txt").write_text("x")
    (acc / "extra.htm").write_text("x")
    loose = tmp_path / "loose"
    (loose / "deep").mkdir(parents=True)
    for name in ("b.pdf", "a.htm", "deep/c.txt", "deep/d.json"):
        (loose / name).write_text("x")
    assert locate([tmp_path]) == [acc, loose / "a.htm", loose / "b.pdf", loose / "deep" / "c.txt"]
    assert locate([acc, acc / "extra.htm"]) == [acc, acc / "extra.htm"]
    with pytest.raises(ReadError, match="no such file"):
        locate([tmp_path / "missing"])


# --- PDF and speed (shared data) --------------------------------------------------------------


@pytest.mark.slow  # pypdf over a whole PDF
def test_encrypted_pdf_reads_with_pages():
    pdf = shared("financebench", "pdfs", "NETFLIX_2015_10K.pdf")
    filing = read_filing(pdf, ticker="NFLX")
    assert (filing.fiscal_year, filing.period_end) == (2015, "2015-12-31")
    assert filing.blocks[0].page == 1 and max(b.page for b in filing.blocks) > 60
    assert all(b.page is not None for b in filing.blocks)


def test_pdf_statement_keeps_its_short_figures_and_drops_the_page_number(tmp_path):
    """3M's 2018 10-K prints each cell of its statements on a line of its own; a bare "302"
    there is a figure, not a page number, and must reach the chunk text."""
    from pypdf import PdfReader, PdfWriter

    pdf = SHARED / "financebench" / "pdfs" / "3M_2018_10K.pdf"
    if not pdf.exists():
        pytest.skip(f"needs {pdf} (FinanceBench PDFs are CC-BY-NC, read from the shared data)")
    writer = PdfWriter()
    for n in (0, 59):  # the cover (metadata) and the cash-flow statement, printed page 60
        writer.add_page(PdfReader(pdf).pages[n])
    small = tmp_path / "mmm-2018.pdf"
    with open(small, "wb") as fh:
        writer.write(fh)
    statement = [b.text for b in read_filing(small, ticker="MMM", fiscal_year=2018).blocks
                 if b.page == 2]
    at = statement.index("Stock-based compensation expense")
    assert statement[at + 1: at + 4] == ["302", "324", "298"]
    at = statement.index("Company pension and postretirement expense")
    assert statement[at + 1: at + 4] == ["410", "334", "250"]
    assert statement[0] == "Table of Contents" and statement[-1] != "60"
    assert statement[-1].startswith("The accompanying Notes")


def test_largest_html_filing_reads_fast():
    doc = max(shared("filings").rglob("*.html"), key=lambda p: p.stat().st_size)
    started = time.perf_counter()
    filing = read_filing(doc.parent)
    assert time.perf_counter() - started < 3.0
    assert len(filing.blocks) > 500


def test_tag_stripped_statements_become_tables(tmp_path):
    """Stripping the tags left one cell per line; the statements come back as tables, with
    their period header, section lines and rows, and the prose around them stays prose."""
    root = unpack_sample(tmp_path) / "sec-edgar-filings" / "AAPL" / "10-K"
    filing = read_filing(root / "0000320193-23-000106")
    tables = [b for b in filing.blocks if b.kind == "table"]
    assert len(tables) >= 25
    income = next(t for t in tables if ["Total net sales", "383,285", "394,328", "365,817"]
                  in t.rows)
    assert income.rows[0] == ["", "September 30, 2023", "September 24, 2022",
                              "September 25, 2021"]
    assert ["Net sales:", "", "", ""] in income.rows
    categories = next(t for t in tables if "Mac" in [r[0] for r in t.rows])
    assert categories.rows[0] == ["", "2023", "Change", "2022", "Change", "2021"]
    # "iPhone (1)": the footnote mark is not a value
    assert ["iPhone", "$200,583", "(2)%", "$205,489", "7%", "$191,973"] in categories.rows
    prose = [b.text for b in filing.blocks if b.kind == "text"]
    assert any(t.startswith("Americas net sales decreased 4%") for t in prose)


def test_one_cell_per_line_rows_need_three_of_one_width():
    from finrag.ingest.read.text import text_to_blocks

    lines = ["Revenue was higher.", "2024", "2023", "Product", "10", "9", "Service", "5", "4",
             "Total", "15", "13", "The table above shows revenue."]
    blocks = text_to_blocks("\n".join(lines))
    assert [b.kind for b in blocks] == ["text", "table", "text"]
    assert blocks[1].rows == [["", "2024", "2023"], ["Product", "10", "9"],
                              ["Service", "5", "4"], ["Total", "15", "13"]]
    two_rows = text_to_blocks("\n".join(lines[:9] + lines[12:]))
    assert "table" not in [b.kind for b in two_rows]
