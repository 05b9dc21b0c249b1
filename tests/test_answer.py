"""Answers from hand-made facts: stated, computed, change, and honest refusals."""

from __future__ import annotations

import pytest

from finrag.answer import answer
from finrag.facts import Fact
from finrag.question import parse

CO = {"MMM": "3M CO", "HD": "HOME DEPOT, INC."}


def fact(label, value, year, *, filing=None, concept=None, statement="income", unit="USD millions",
         instant=False, dims=(), source="xbrl", page=50, page_label=None, ticker="MMM"):
    end = f"{year}-12-31"
    return Fact(ticker=ticker, fiscal_year=filing or year, filing_key=f"{ticker}-{filing or year}",
                source=source, concept=concept, dims=list(dims), line_label=label,
                statement=statement, period_start=None if instant else f"{year}-01-01",
                period_end=end, period_fiscal_year=year, value=value, unit=unit, page=page,
                page_label=page_label)


def capex(year, value, **kw):
    return fact("Purchases of property, plant and equipment (PP&E)", value, year,
                concept="us-gaap:PaymentsToAcquirePropertyPlantAndEquipment",
                statement="cash_flow", **kw)


def revenue(year, value, **kw):
    return fact("Net sales", value, year, concept="us-gaap:Revenues", **kw)


def test_a_stated_figure_with_its_citation():
    facts = [capex(2018, 1577, page=50, page_label="48"), capex(2017, 1373, filing=2018)]
    out = answer(parse("What is the FY2018 capital expenditure amount (in USD millions) for 3M?",
                       CO), facts, "3M")
    a = out.answer
    assert out.reason is None
    assert (a.kind, a.value, a.unit, a.fiscal_year) == ("stated", 1577, "USD millions", 2018)
    assert "$1,577 million" in a.text and "p. 48" in a.text
    assert a.figures[0].fact.line_label.startswith("Purchases of property")


def test_an_outflow_printed_negative_in_a_table_is_stated_positive():
    f = capex(2018, -1577, source="table")
    f.concept = None
    out = answer(parse("3M capex FY2018", CO), [f])
    assert out.answer.value == 1577


def test_the_unit_asked_converts_the_printed_figure():
    f = fact("Dividends paid", -403, 2020, statement="cash_flow",
             concept="us-gaap:PaymentsOfDividends")
    out = answer(parse("How much (in USD billions) did 3M pay out in cash dividends for FY2020?",
                       CO), [f])
    assert out.answer.unit == "USD billions"
    assert out.answer.value == pytest.approx(0.403)


def test_the_filing_of_the_year_asked_wins_over_a_restated_comparative():
    facts = [revenue(2019, 900, filing=2020), revenue(2019, 1000, filing=2019)]
    out = answer(parse("3M revenue FY2019", CO), facts)
    assert out.answer.value == 1000


def test_a_comparative_column_of_a_later_filing_is_used_and_said():
    out = answer(parse("3M revenue FY2019", CO), [revenue(2019, 900, filing=2020)])
    assert out.answer.value == 900 and "fiscal 2020 filing" in out.answer.text


def test_a_segment_figure_is_not_the_consolidated_total():
    seg = revenue(2018, 400, dims=["us-gaap:StatementBusinessSegmentsAxis=mmm:SafetyMember"])
    out = answer(parse("3M revenue FY2018", CO), [seg])
    assert out.answer is None
    assert "revenue for fiscal 2018" in out.reason and "not found" in out.reason


def test_a_quarter_is_not_the_year():
    q = revenue(2018, 250)
    q.period_start = "2018-10-01"
    out = answer(parse("3M revenue FY2018", CO), [q])
    assert out.answer is None


def test_conflicting_figures_are_no_answer():
    a = revenue(2018, 100, source="table")
    b = revenue(2018, 120, source="table", page=50)  # the same page: no telling which
    a.concept = b.concept = None
    out = answer(parse("3M revenue FY2018", CO), [a, b])
    assert out.answer is None and "different figures" in out.reason


def test_a_computed_metric_shows_its_formula_and_inputs():
    facts = [fact("Income from operations", 69380, 2024, concept="us-gaap:OperatingIncomeLoss"),
             revenue(2024, 164501)]
    out = answer(parse("3M operating margin 2024", CO), facts)
    a = out.answer
    assert a.kind == "computed" and a.unit == "percent"
    assert a.value == pytest.approx(42.176, abs=1e-3)
    assert "Income from operations FY2024" in a.formula and "Net sales FY2024" in a.formula
    assert len(a.figures) == 2


def test_free_cash_flow():
    facts = [fact("Net cash provided by operating activities", 2000, 2020, statement="cash_flow",
                  concept="us-gaap:NetCashProvidedByUsedInOperatingActivities"), capex(2020, 500)]
    out = answer(parse("3M free cash flow FY2020", CO), facts)
    assert out.answer.value == 1500 and out.answer.unit == "USD millions"


def test_a_three_year_average_margin():
    facts = []
    for y, oi, rev in [(2019, 10, 100), (2020, 20, 100), (2021, 30, 100)]:
        facts += [fact("Operating income", oi, y, concept="us-gaap:OperatingIncomeLoss",
                       filing=2021),
                  revenue(y, rev, filing=2021)]
    q = parse("What is the FY2019 - FY2021 3 year average operating income % margin for 3M? "
              "Answer in units of percents and round to one decimal place.", CO)
    out = answer(q, facts)
    assert out.answer.value == 20.0
    assert out.answer.values == {"2019": 10.0, "2020": 20.0, "2021": 30.0}


def test_dpo_follows_the_question_definition_with_the_change_in_inventory():
    facts = [fact("Accounts payable", 40, 2017, concept="us-gaap:AccountsPayableCurrent",
                  statement="balance", instant=True),
             fact("Accounts payable", 50, 2018, concept="us-gaap:AccountsPayableCurrent",
                  statement="balance", instant=True),
             fact("Inventories", 30, 2017, concept="us-gaap:InventoryNet", statement="balance",
                  instant=True),
             fact("Inventories", 40, 2018, concept="us-gaap:InventoryNet", statement="balance",
                  instant=True),
             fact("Cost of sales", 355, 2018, concept="us-gaap:CostOfGoodsAndServicesSold")]
    q = parse("What is FY2018 DPO for 3M? DPO is defined as: 365 * (average accounts payable "
              "between FY2017 and FY2018) / (FY2018 COGS + change in inventory between FY2017 "
              "and FY2018). Round your answer to two decimal places.", CO)
    out = answer(q, facts)
    assert out.answer.value == pytest.approx(365 * 45 / 365, abs=0.005)
    q2 = parse("What is FY2018 DPO for 3M?", CO)
    assert answer(q2, facts).answer.value == pytest.approx(365 * 45 / 355, abs=1e-6)


def test_a_definition_with_items_the_formula_does_not_use_is_refused():
    facts = [revenue(2020, 10), capex(2020, 1)]
    q = parse("What is the FY2020 free cash flow of 3M? "
              "FCF is defined as net income minus capex.", CO)
    out = answer(q, facts)
    assert out.answer is None and "net income" in out.reason


def test_change_over_years():
    facts = [revenue(2023, 152669, ticker="HD", filing=2024), revenue(2024, 159514, ticker="HD")]
    out = answer(parse("Home Depot net sales change fiscal 2023 to fiscal 2024", CO), facts)
    a = out.answer
    assert (a.kind, a.value) == ("change", 6845)
    assert a.values == {"2023": 152669, "2024": 159514}
    assert a.change_pct == pytest.approx(4.48, abs=0.01)


def test_growth_in_percent_and_cagr():
    facts = [revenue(2016, 100, filing=2017), revenue(2017, 130.8)]
    q = parse("3M's year-over-year change in revenue from FY2016 to FY2017 (in units of "
              "percents and round to one decimal place)", CO)
    assert answer(q, facts).answer.value == 30.8
    facts = [revenue(2020, 100, filing=2022), revenue(2021, 105, filing=2022), revenue(2022, 121)]
    q = parse("3M 2 year total revenue CAGR from FY2020 to FY2022", CO)
    assert answer(q, facts).answer.value == pytest.approx(10.0, abs=1e-6)


def test_a_narrower_line_named_by_the_question():
    facts = [revenue(2024, 391035, ticker="HD"),
             fact("iPhone", 201183, 2024, concept="us-gaap:Revenues", ticker="HD",
                  dims=["srt:ProductOrServiceAxis=aapl:IPhoneMember"], statement="other")]
    out = answer(parse("iPhone net sales FY2024", {"HD": "HOME DEPOT, INC."}), facts)
    assert out.answer is None  # no company named, none filtered
    q = parse("Home Depot iPhone net sales FY2024", CO)
    assert answer(q, facts).answer.value == 201183
    out = answer(parse("Home Depot widget net sales FY2024", CO), facts)
    assert out.answer is None and "widget" in out.reason  # not the total for a line not found


@pytest.mark.parametrize("text", ["<script>alert(1)</script>", "supply chain risk"])
def test_a_query_that_asks_for_no_figure_has_no_answer(text):
    out = answer(parse(text, CO), [revenue(2018, 1)])
    assert out.answer is None and "asks for no figure" in out.reason


def test_missing_figures_say_what_was_looked_for():
    out = answer(parse("3M current ratio FY2018", CO),
                 [fact("Total current assets", 10, 2018, concept="us-gaap:AssetsCurrent",
                       statement="balance", instant=True)])
    assert out.answer is None
    assert "total current liabilities for fiscal 2018" in out.reason


def test_a_figure_in_a_sentence_is_not_a_line_item():
    """An XBRL fact tagged in narrative text ('depreciation ... was $4.12 billion') has the
    sentence as its label: it is not the statement's line."""
    narrative = fact("during the years ended December 31, 2024 was $", 4.12, 2024,
                     concept="us-gaap:Depreciation", statement="other", unit="USD billions")
    out = answer(parse("3M depreciation 2024", CO), [narrative])
    assert out.answer is None


def test_the_item_on_its_own_statement_wins_over_a_preferred_concept_elsewhere():
    cash_flow = fact("Charges for acquired in-process research and development", 1841, 2024,
                     concept="us-gaap:ResearchAndDevelopmentExpense", statement="cash_flow")
    income = fact("Research and development expense", 17232, 2024, statement="income",
                  concept="us-gaap:ResearchAndDevelopmentExpenseExcludingAcquiredInProcessCost")
    assert answer(parse("3M R&D 2024", CO), [cash_flow, income]).answer.value == 17232


def test_the_statement_precedes_a_condensed_copy_in_the_notes():
    main = fact("Accounts payable", 302578, 2018, statement="balance", instant=True,
                source="table", page=57, unit="USD thousands")
    note = fact("Accounts payable", 25758, 2018, statement="balance", instant=True,
                source="table", page=174, unit="USD thousands")
    out = answer(parse("3M accounts payable FY2018 in USD millions", CO), [note, main])
    assert out.answer.value == pytest.approx(302.578)


def test_a_section_heading_before_the_row_label_is_read_past():
    f = fact("Cash flows from investing activities Capital expenditures, net of construction "
             "payable", -1486843, 2018, statement="cash_flow", source="table",
             unit="USD thousands")
    assert answer(parse("3M capex FY2018", CO), [f]).answer.value == 1486843


def test_interest_expense_printed_negative_is_an_expense():
    facts = [fact("Operating earnings", 9137, 2024, concept="us-gaap:OperatingIncomeLoss"),
             fact("Interest expense, net", -2160, 2024, source="table")]
    assert (answer(parse("3M interest coverage 2024", CO), facts).answer.value
            == pytest.approx(4.23, abs=0.005))


def test_a_per_share_question_is_not_answered_with_a_total():
    f = fact("Dividends paid", -8359, 2024, statement="cash_flow",
             concept="us-gaap:PaymentsOfDividends")
    out = answer(parse("3M dividends paid per share 2024", CO), [f])
    assert out.answer is None and "per share" in out.reason


def test_a_label_is_quoted_without_its_footnote_mark():
    f = fact("iPhone (1)", 201_183, 2024, concept="us-gaap:Revenues", statement="other",
             dims=["srt:ProductOrServiceAxis=aapl:IPhoneMember"])
    out = answer(parse("3M iPhone net sales FY2024", CO), [revenue(2024, 391_035), f])
    assert out.answer.value == 201_183
    assert "'iPhone'" in out.answer.text and "(1)" not in out.answer.text


def test_a_tax_provision_printed_in_parentheses_is_an_expense():
    facts = []
    for y, tax, pretax in [(2021, -491, 2426), (2022, -411, 1797)]:
        facts += [fact("Provision for income taxes (Note 7)", tax, y, source="table",
                       filing=2022),
                  fact("Income before income taxes", pretax, y, source="table", filing=2022)]
    q = parse("How much has the effective tax rate of 3M changed between FY2021 and FY2022?", CO)
    a = answer(q, facts).answer
    assert a.values == pytest.approx({"2021": 20.24, "2022": 22.87}, abs=0.01)
    assert a.text.startswith("+2.6 percentage points — ")
