"""Statement facts extracted at ingest: inline-XBRL facts checked against the figures an analyst
verified by hand (figures.dev.jsonl), sign / scale / format cases on the bundled sample, the
company's own fiscal years, and statement titles."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from finrag.ingest.facts import extract_facts
from finrag.ingest.fiscal import period_fiscal_year
from finrag.ingest.read import read_filing
from finrag.ingest.sample import unpack_sample
from finrag.ingest.statements import statement_of
from finrag.ingest.xbrl import displayed_number, printed_unit
from tests.conftest import SHARED, shared_path


@cache
def _facts(path: str):
    filing = read_filing(Path(path))
    return filing, extract_facts(filing, [])


@pytest.fixture(scope="module")
def hd(tmp_path_factory):
    root = unpack_sample(tmp_path_factory.mktemp("sample")) / "sec-edgar-filings"
    return _facts(str(root / "HD/10-K/0000354950-25-000085"))[1]


def _find(facts, concept, start, end, dims=()):
    return [f for f in facts if f.concept == concept and f.period_start == start
            and f.period_end == end and sorted(f.dims) == sorted(dims)]


def _figure_checks():
    path = SHARED / "eval" / "figures.dev.jsonl"
    if not path.exists():
        return [pytest.param(None, id="figures.dev.jsonl-absent")]
    cases = []
    for line in path.read_text().splitlines():
        q = json.loads(line)
        for name, check in q["verification"].items():
            cases.append(pytest.param((q, check), id=f"{q['id']}-{name}"))
    return cases


@pytest.mark.parametrize("case", _figure_checks())
def test_each_hand_checked_figure_is_a_fact_with_its_value_and_printed_page(case):
    if case is None:
        shared_path("eval", "figures.dev.jsonl")
    q, check = case
    xbrl, text = check["xbrl"], check["text"]
    filing_path = shared_path(q["filing"]).parent
    _, facts = _facts(str(filing_path))
    start, _, end = xbrl["period"].rpartition("..")
    found = _find(facts, xbrl["concept"], start or None, end, xbrl["dims"])
    want = float(xbrl["value"]) / 10 ** xbrl["scale"]  # in the unit the table prints it in
    pages = set(xbrl["fact_pages"]) | {text["page_index"]}
    right = [f for f in found if abs(f.value - want) < 1e-9 and f.page in pages]
    assert right, (q["id"], [(f.value, f.page) for f in found])
    item = _input_of(q, check)
    assert {f.unit for f in right} == {item["unit"] if item else q["unit"]}
    if text["page_index"] in {f.page for f in right} and q["statement"] != "mdna":
        on_page = [f for f in right if f.page == text["page_index"]]
        assert {f.statement for f in on_page} == {q["statement"]}
        assert text["line_label"] in {f.line_label for f in on_page}
        year = item["fiscal_year"] if item else q["fiscal_year"]
        assert {f.period_fiscal_year for f in on_page} == {year}


def _input_of(q, check) -> dict | None:
    """The figure's own record of this input (its unit and fiscal year), for computed and
    change questions; None for a stated figure (the question's own unit and year)."""
    xbrl = check["xbrl"]
    for item in q["inputs"]:
        if item["concept"] == xbrl["concept"] and \
                item["value"] * 10 ** xbrl["scale"] == float(xbrl["value"]):
            return item
    return None


def test_sign_minus_negates_the_printed_number(hd):
    # HD FY2024 income statement, "Interest and other, net | 2,120" tagged
    # us-gaap:NonoperatingIncomeExpense with sign="-" and scale 6.
    fact, *_ = _find(hd, "us-gaap:NonoperatingIncomeExpense", "2024-01-29", "2025-02-02")
    assert (fact.value, fact.unit, fact.printed) == (-2120.0, "USD millions", "2,120")
    assert (fact.line_label, fact.statement, fact.page) == ("Interest and other, net", "income", 44)


def test_a_dash_with_fixed_zero_is_zero(hd):
    # HD balance sheet, "Short-term borrowings" at 2024-01-28 printed "—" (ixt:fixed-zero).
    fact, *_ = _find(hd, "us-gaap:CommercialPaper", None, "2024-01-28")
    assert fact.value == 0.0 and fact.period_fiscal_year == 2023


def test_scale_decides_the_unit(hd):
    shares, *_ = _find(hd, "us-gaap:WeightedAverageNumberOfDilutedSharesOutstanding",
                       "2024-01-29", "2025-02-02")
    assert (shares.value, shares.unit) == (993.0, "shares millions")
    eps, *_ = _find(hd, "us-gaap:EarningsPerShareDiluted", "2024-01-29", "2025-02-02")
    assert (eps.value, eps.unit, eps.printed) == (14.91, "USD per share", "$14.91")
    rate, *_ = _find(hd, "us-gaap:EffectiveIncomeTaxRateContinuingOperations",
                     "2024-01-29", "2025-02-02")
    assert (rate.value, rate.unit) == (23.7, "percent")


def test_a_statement_outflow_keeps_its_xbrl_sign_and_its_printed_parentheses(hd):
    # HD cash flow statement: "Capital expenditures | (3,485)"; the XBRL fact is positive.
    capex = [f for f in _find(hd, "us-gaap:PaymentsToAcquireProductiveAssets",
                              "2024-01-29", "2025-02-02") if f.statement == "cash_flow"]
    assert [(f.value, f.printed) for f in capex] == [(3485.0, "(3,485)")]


def test_only_printed_facts_are_kept_each_on_a_page(hd):
    assert hd and all(f.page is not None and f.source == "xbrl" for f in hd)
    assert all(f.ticker == "HD" and f.fiscal_year == 2024 for f in hd)


@pytest.mark.parametrize("text, fmt, want", [
    ("1,577", "ixt:num-dot-decimal", 1577.0),
    ("14.91", "ixt:numdotdecimal", 14.91),
    ("1.234,5", "ixt:num-comma-decimal", 1234.5),
    ("—", "ixt:fixed-zero", 0.0),
    ("-", "ixt:zerodash", 0.0),
    ("three", "ixt-sec:numwordsen", 3.0),
    ("no", "ixt-sec:numwordsen", 0.0),
    ("April 1", "ixt:date-monthname-day-en", None),
])
def test_displayed_numbers_by_format(text, fmt, want):
    assert displayed_number(text, fmt) == want


@pytest.mark.parametrize("measure, scale, want", [
    ("iso4217:USD", 6, ("USD millions", 0)),
    ("iso4217:USD", 3, ("USD thousands", 0)),
    ("iso4217:USD", 9, ("USD billions", 0)),
    ("iso4217:USD/xbrli:shares", 0, ("USD per share", 0)),
    ("xbrli:shares", 6, ("shares millions", 0)),
    ("xbrli:pure", -2, ("percent", 0)),
    ("iso4217:USD", 5, ("USD", 5)),
])
def test_printed_units(measure, scale, want):
    assert printed_unit(measure, scale) == want


@pytest.mark.parametrize("end, filing_end, filing_year, want", [
    ("2024-01-31", "2025-01-31", 2025, 2024),  # Walmart's comparative year
    ("2025-02-02", "2025-02-02", 2024, 2024),  # Home Depot, 53 weeks
    ("2024-01-28", "2025-02-02", 2024, 2023),
    ("2023-12-30", "2024-09-28", 2024, 2024),  # Apple's first quarter of fiscal 2024
    ("2023-09-30", "2024-09-28", 2024, 2023),  # Apple's prior year end (53-week year)
    ("2023-06-30", "2025-06-30", 2025, 2023),  # P&G, two years back
    ("2022-12-31", "2024-12-31", 2024, 2022),
])
def test_period_fiscal_year_is_the_companys_own(end, filing_end, filing_year, want):
    assert period_fiscal_year(end, filing_end, filing_year) == want


@pytest.mark.parametrize("title, want", [
    ("CONSOLIDATED BALANCE SHEETS", "balance"),
    ("Walmart Inc. Consolidated Statements of Cash Flows", "cash_flow"),
    ("Consolidated Statements of Operations", "income"),
    ("3M Company and Subsidiaries Consolidated Statement of Income", "income"),
    ("Johnson & Johnson and subsidiaries consolidated statements of equity", "equity"),
    ("Tesla, Inc. Consolidated Statements of Redeemable Noncontrolling Interests and Equity",
     "equity"),
    ("CONSOLIDATED STATEMENTS OF COMPREHENSIVE INCOME", "other"),
    ("Consolidated Statements of Financial Position", "balance"),
    ("Operating lease liabilities are recorded on the consolidated balance sheets as follows:",
     "other"),
    ("Recorded in other income on the consolidated statements of operations.", "other"),
])
def test_statement_titles(title, want):
    assert statement_of(title) == want


def test_a_row_label_with_tagged_numbers_in_it_is_still_the_label():
    # UNH FY2024 balance sheet: "Accounts receivable, net of allowances of $985 and $1,000 |
    # 22,365 | 21,276"; the allowances are facts too, tagged inside the label cell.
    path = shared_path("filings", "sec-edgar-filings", "UNH", "10-K", "unh-20241231")
    _, facts = _facts(str(path))
    label = "Accounts receivable, net of allowances of $ 985 and $ 1,000"
    receivable, *_ = _find(facts, "us-gaap:AccountsReceivableNetCurrent", None, "2024-12-31")
    assert (receivable.line_label, receivable.value, receivable.printed) == (label, 22365.0,
                                                                              "22,365")
    allowance, *_ = _find(facts, "us-gaap:AllowanceForDoubtfulAccountsReceivableCurrent", None,
                          "2024-12-31")
    assert (allowance.line_label, allowance.value, allowance.printed) == (label, 985.0, "985")
    assert receivable.statement == allowance.statement == "balance"
