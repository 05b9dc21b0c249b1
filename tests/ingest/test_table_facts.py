"""Statement-table facts of filings without inline XBRL: a real 2009 HTML 10-K and a real PDF
10-K (values read by hand from the printed documents), and the layouts pypdf produces."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from finrag.ingest.facts import extract_facts
from finrag.ingest.read import read_filing
from finrag.ingest.tables import table_facts, tokens
from finrag.models import Block, Filing
from tests.conftest import shared_path


@cache
def _gainsco():
    # GAINSCO, INC. 10-K for 2009 (HTML, no XBRL): statements "(Amounts in thousands)".
    path = shared_path("filings", "other", "0001193125-10-073212")
    return extract_facts(read_filing(path, ticker="GAN"), [])


def _one(facts, label, year, page):
    found = [f for f in facts if f.line_label == label and f.period_fiscal_year == year
             and f.page == page]
    assert len(found) == 1, [(f.line_label, f.period_fiscal_year, f.page) for f in found]
    return found[0]


# Printed in the filing (checked in its text): balance sheet "Total assets $ 241,902 239,483",
# "Accumulated deficit (87,166 ) (91,250 )", "Bonds, trading ... 323 —"; statement of
# operations "Net income (loss) $ 4,073 (3,401 )"; cash flows "Net cash provided by operating
# activities $ 3,638 15,625".
@pytest.mark.parametrize("label, year, page, statement, value", [
    ("Total assets", 2009, 72, "balance", 241902.0),
    ("Total assets", 2008, 72, "balance", 239483.0),
    ("Accumulated deficit", 2009, 73, "balance", -87166.0),
    ("Bonds, trading – at fair value (cost: $323 – 2009)", 2008, 72, "balance", 0.0),
    ("Net income (loss)", 2008, 74, "income", -3401.0),
    ("Net cash provided by operating activities", 2009, 76, "cash_flow", 3638.0),
])
def test_a_2009_html_filing_gives_its_statement_rows(label, year, page, statement, value):
    fact = _one(_gainsco(), label, year, page)
    assert (fact.value, fact.unit, fact.statement, fact.source) == (
        value, "USD thousands", statement, "table")
    assert fact.ticker == "GAN" and fact.fiscal_year == 2009 and fact.concept is None


@pytest.mark.slow
def test_a_pdf_10k_gives_its_statement_rows():
    # NETFLIX 10-K 2015 (PDF; FinanceBench's copy, read from ../shared, never copied here):
    # p. 40 "CONSOLIDATED STATEMENTS OF OPERATIONS (in thousands...)": "Revenues $ 6,779,511
    # $ 5,504,656 $ 4,374,562", "Operating income 305,826 402,648 228,347"; p. 42 cash flows:
    # "Depreciation and amortization of property, equipment and intangibles 62,283 ...".
    pdf = shared_path("financebench", "pdfs", "NETFLIX_2015_10K.pdf")
    facts = table_facts(read_filing(pdf, ticker="NFLX", fiscal_year=2015))
    assert _one(facts, "Revenues", 2015, 40).value == 6779511.0
    assert _one(facts, "Revenues", 2013, 40).value == 4374562.0
    operating = _one(facts, "Operating income", 2014, 40)
    assert (operating.value, operating.unit, operating.statement) == (
        402648.0, "USD thousands", "income")
    dna = _one(facts, "Depreciation and amortization of property, equipment and intangibles",
               2015, 42)
    assert (dna.value, dna.statement) == (62283.0, "cash_flow")


def _filing(texts, *, fiscal_year=2024, period_end="2024-12-31", rows=None):
    blocks = [Block(kind="text", text=t, page=3) for t in texts]
    if rows:
        blocks.append(Block(kind="table", text="", rows=rows, page=3))
    return Filing(ticker="XYZ", fiscal_year=fiscal_year, period_end=period_end,
                  source="x.pdf", blocks=blocks)


def _values(facts):
    return {(f.line_label, f.period_fiscal_year): f.value for f in facts}


def test_cells_one_per_line_as_pypdf_gives_some_statements():
    facts = table_facts(_filing([
        "Consolidated Statement of Cash Flow", "s", "Years ended December 31", "(Millions)",
        "2024", "2023", "Purchases of property, plant and equipment", "(1,234)", "(987)",
        "Dividends paid", "$ 50", "—"]))
    assert _values(facts) == {
        ("Purchases of property, plant and equipment", 2024): -1234.0,
        ("Purchases of property, plant and equipment", 2023): -987.0,
        ("Dividends paid", 2024): 50.0, ("Dividends paid", 2023): 0.0}
    assert {(f.statement, f.unit, f.page) for f in facts} == {("cash_flow", "USD millions", 3)}
    assert {f.period_end for f in facts} == {"2024-12-31", "2023-12-31"}


def test_rows_glued_into_one_paragraph():
    facts = table_facts(_filing([
        "CONSOLIDATED STATEMENTS OF", "OPERATIONS(in thousands, except per share data)",
        "Year ended December 31, 2024 2023 Revenues $ 1,000 $ 900 Cost of revenues 600 (5 ) "
        "Other — (10) Earnings per share: Basic $ 0.29 $ 0.63"]))
    assert _values(facts) == {
        ("Revenues", 2024): 1000.0, ("Revenues", 2023): 900.0,
        ("Cost of revenues", 2024): 600.0, ("Cost of revenues", 2023): -5.0,
        ("Other", 2024): 0.0, ("Other", 2023): -10.0,
        ("Basic", 2024): 0.29, ("Basic", 2023): 0.63}
    units = {f.line_label: f.unit for f in facts}
    assert units == {"Revenues": "USD thousands", "Cost of revenues": "USD thousands",
                     "Other": "USD thousands", "Basic": "USD per share"}
    assert {f.statement for f in facts} == {"income"}


def test_a_52_53_week_year_is_named_by_its_period_end():
    # A retailer's year ended February 2, 2025 is its fiscal 2024.
    facts = table_facts(_filing(
        ["CONSOLIDATED BALANCE SHEETS", "in millions"], period_end="2025-02-02",
        rows=[["", "February 2, 2025", "January 28, 2024"],
              ["Merchandise inventories", "23,451", "20,976"]]))
    assert _values(facts) == {("Merchandise inventories", 2024): 23451.0,
                              ("Merchandise inventories", 2023): 20976.0}


def test_what_cannot_be_read_without_guessing_gives_nothing():
    schedule = _filing(["Contractual obligations (in millions)"],
                       rows=[["", "2025", "2026", "2027"], ["Debt", "500", "600", "700"]])
    no_unit = _filing(["CONSOLIDATED BALANCE SHEETS"],
                      rows=[["", "2024", "2023"], ["Total assets", "$ 51,344", "$ 118,212"]])
    short_row = _filing(["BALANCE SHEETS (in millions)"],
                        rows=[["", "2024", "2023"], ["Goodwill", "609"]])
    assert table_facts(schedule) == table_facts(no_unit) == table_facts(short_row) == []


@pytest.mark.parametrize("text, kind, value", [
    ("(1,577)", "value", -1577.0),
    ("$ (1,319,907 )", "value", -1319907.0),
    ("—", "value", 0.0),
    ("12.5%", "value", 12.5),
    ("Fiscal 2024", "year", 2024),
    ("2018", "year", 2018),
])
def test_printed_numbers(text, kind, value):
    (token,) = tokens(text)
    assert (token.kind, token.value) == (kind, value)


def test_a_year_inside_a_label_is_not_a_header():
    facts = table_facts(_filing([
        "BALANCE SHEETS (in millions)", "December 31,", "2024", "2023",
        "Shares outstanding - 2024: 576,575,168", "Total equity", "9,848", "11,622"]))
    assert _values(facts) == {("Total equity", 2024): 9848.0, ("Total equity", 2023): 11622.0}


def test_the_sample_tagstripped_text_filing_gives_its_statement_rows(tmp_path):
    # The bundled AAPL FY2023 submission, tag-stripped text, one cell per line: statement of
    # operations "(In millions, except number of shares, which are reflected in thousands, and
    # per-share amounts)", columns "September 30, 2023 / September 24, 2022 / September 25,
    # 2021": "Total net sales 383,285 394,328 365,817", diluted shares "15,812,547"; cash flows
    # "Payments for acquisition of property, plant and equipment ( 10,959 )".
    from finrag.ingest.sample import unpack_sample

    root = unpack_sample(tmp_path) / "sec-edgar-filings" / "AAPL" / "10-K"
    filing = read_filing(root / "0000320193-23-000106")
    assert Path(filing.source).suffix == ".txt"
    facts = extract_facts(filing, [])
    assert {f.source for f in facts} == {"table"}
    income = [f for f in facts if f.statement == "income"]
    sales = {f.period_fiscal_year: (f.value, f.unit, f.period_end) for f in income
             if f.line_label == "Total net sales"}
    assert sales == {2023: (383285.0, "USD millions", "2023-09-30"),
                     2022: (394328.0, "USD millions", "2022-09-24"),
                     2021: (365817.0, "USD millions", "2021-09-25")}
    shares = [f for f in income if f.line_label == "Diluted" and f.period_fiscal_year == 2023]
    assert {(f.value, f.unit) for f in shares} == {(6.13, "USD per share"),
                                                   (15812547.0, "shares thousands")}
    capex = [f for f in facts if f.statement == "cash_flow" and f.period_fiscal_year == 2023
             and f.line_label == "Payments for acquisition of property, plant and equipment"]
    assert [f.value for f in capex] == [-10959.0]


def test_a_statement_of_comprehensive_income_after_the_income_statement_is_other():
    filing = _filing(["Consolidated Statements of Earnings (In Millions)", "Fiscal Year 2024 2023",
                      "Net earnings $ 2,210.8 $ 1,786.2"])
    filing.blocks += [Block(kind="text", page=4, text=t) for t in [
        "Consolidated Statements of Comprehensive Income XYZ, INC. (In Millions)",
        "Fiscal Year 2024 2023", "Foreign currency translation (169.1) (82.8)"]]
    facts = table_facts(filing)
    assert {(f.line_label, f.statement) for f in facts} == {
        ("Net earnings", "income"), ("Foreign currency translation", "other")}


def test_pdf_statement_layouts_of_four_financebench_10ks():
    """Lines as pypdf gives them from FinanceBench's PDFs, where whole statements were read as
    "other" or not at all: CVS's link to the index above every statement title, Johnson &
    Johnson's note references in labels and header and its 52-53 week years ending in early
    January, 3M's first cell beside its label and the other years on lines of their own,
    Microsoft's "CASH FLOWS STATEMENTS"."""
    cvs = table_facts(_filing([
        "Index to Consolidated Financial Statements Consolidated Balance Sheets",
        "At December 31,", "In millions, except per share amounts 2022 2021 Assets:",
        "Cash and cash equivalents $ 12,945 $ 9,408 Investments 2,778 3,117",
        "Total assets $ 228,275 $ 232,999"], fiscal_year=2022, period_end="2022-12-31"))
    assert _values(cvs)[("Total assets", 2022)] == 228275.0
    assert {f.statement for f in cvs} == {"balance"}
    jnj = table_facts(_filing([
        "JOHNSON & JOHNSON AND SUBSIDIARIES", "CONSOLIDATED BALANCE SHEETS",
        "At January 1, 2023 and January 2, 2022 (Dollars in Millions Except Share and Per "
        "Share Amounts) (Note 1) 2022 2021", "Assets", "Current assets",
        "Cash and cash equivalents (Notes 1 and 2) $ 14,127 14,487 Accounts receivable trade, "
        "less allowances for doubtful accounts $203 (2021, $230) 16,160 15,283",
        "Total assets $ 187,378 182,018"], fiscal_year=2022, period_end="2023-01-01"))
    assert _values(jnj) == {
        ("Cash and cash equivalents (Notes 1 and 2)", 2022): 14127.0,
        ("Cash and cash equivalents (Notes 1 and 2)", 2021): 14487.0,
        ("Accounts receivable trade, less allowances for doubtful accounts $203 (2021 , $230)",
         2022): 16160.0,
        ("Accounts receivable trade, less allowances for doubtful accounts $203 (2021 , $230)",
         2021): 15283.0,
        ("Total assets", 2022): 187378.0, ("Total assets", 2021): 182018.0}
    assert {f.period_end for f in jnj} == {"2023-01-01", "2022-01-02"}
    mmm = table_facts(_filing([
        "Table of", "Contents 3M Company and Subsidiaries", "Consolidated Statement of Income",
        "Years ended December 31 (Millions, except per share amounts) 2022 2021 2020",
        "Net sales $ 34,229", "$ 35,355", "$ 32,184", "Operating expenses",
        "Cost of sales 19,232", "18,795", "16,605"], fiscal_year=2022, period_end="2022-12-31"))
    assert _values(mmm) == {("Net sales", 2022): 34229.0, ("Net sales", 2021): 35355.0,
                            ("Net sales", 2020): 32184.0, ("Cost of sales", 2022): 19232.0,
                            ("Cost of sales", 2021): 18795.0, ("Cost of sales", 2020): 16605.0}
    assert {f.statement for f in mmm} == {"income"}
    msft = table_facts(_filing([
        "PART II", "Item 8", "CASH FLOWS STATEMENTS", "(In millions)",
        "Year Ended June 30, 2016 2015 2014", "Net income $ 16,798 $ 12,193 $ 22,074"],
        fiscal_year=2016, period_end="2016-06-30"))
    assert {(f.statement, f.period_fiscal_year, f.value) for f in msft} == {
        ("cash_flow", 2016, 16798.0), ("cash_flow", 2015, 12193.0), ("cash_flow", 2014, 22074.0)}


def test_a_row_begun_beside_its_label_is_not_finished_by_a_page_number():
    facts = table_facts(_filing([
        "Consolidated Statement of Income",
        "Years ended December 31 (Millions) 2022 2021 2020",
        "Net sales $ 34,229", "$ 35,355", "$ 32,184",
        "Goodwill impairment 1,234 456", "52"], fiscal_year=2022, period_end="2022-12-31"))
    assert _values(facts) == {("Net sales", 2022): 34229.0, ("Net sales", 2021): 35355.0,
                              ("Net sales", 2020): 32184.0}
    noted = table_facts(_filing([
        "CONSOLIDATED BALANCE SHEETS", "(Dollars in Millions) 2022 2021",
        "Cash and cash equivalents (Notes 1, 2, and 3) $ 14,127 14,487"],
        fiscal_year=2022, period_end="2022-12-31"))
    assert _values(noted) == {("Cash and cash equivalents (Notes 1, 2, and 3)", 2022): 14127.0,
                              ("Cash and cash equivalents (Notes 1, 2, and 3)", 2021): 14487.0}
