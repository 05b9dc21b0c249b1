"""Yes / no questions a metric settles: the verdict, the figures of each year behind it, or
"not applicable" from the statement's own lines; never a bare figure."""

from __future__ import annotations

import pytest

from finrag.answer import answer
from finrag.question import parse
from tests.test_answer import CO, fact, revenue


def balance(label, concept, value, year, **kw):
    return fact(label, value, year, concept=f"us-gaap:{concept}", statement="balance",
                instant=True, **kw)


def test_positive_working_capital_is_a_yes_with_both_lines_cited():
    facts = [balance("Total current assets", "AssetsCurrent", 8_000, 2022),
             balance("Total current liabilities", "LiabilitiesCurrent", 5_000, 2022)]
    out = answer(parse("Does 3M have positive working capital based on FY2022 data? If working "
                       "capital is not a useful or relevant metric for this company, then please "
                       "state that and explain why.", CO), facts)
    a = out.answer
    assert (a.kind, a.verdict, a.value) == ("verdict", "yes", 3_000)
    assert a.text.startswith("Yes")
    assert {f.fact.line_label for f in a.figures} == {"Total current assets",
                                                      "Total current liabilities"}


def test_debt_that_fell_between_the_years_named_is_a_no_to_increased():
    facts = [balance("Debt maturing within one year", "DebtCurrent", 7_443, 2021, filing=2022),
             balance("Long-term debt", "LongTermDebtNoncurrent", 143_425, 2021, filing=2022),
             balance("Debt maturing within one year", "DebtCurrent", 9_813, 2022),
             balance("Long-term debt", "LongTermDebtNoncurrent", 140_676, 2022)]
    out = answer(parse("Has 3M increased its debt on balance sheet between 2022 and the 2021 "
                       "fiscal period?", CO), facts)
    a = out.answer
    assert a.verdict == "no"
    assert a.values == {"2021": 150_868, "2022": 150_489}


def _margins(cogs_by_year):
    facts = []
    for y, cogs in cogs_by_year.items():
        facts += [revenue(y, 100, filing=2023),
                  fact("Cost of sales", cogs, y, filing=2023,
                       concept="us-gaap:CostOfGoodsAndServicesSold")]
    return facts


def test_improving_gross_margin_compares_the_year_with_the_one_before():
    facts = _margins({2021: 80, 2022: 78})
    q = parse("Does 3M have an improving gross margin profile as of FY2022?", CO)
    a = answer(q, facts).answer
    assert (a.verdict, a.values) == ("yes", {"2021": 20.0, "2022": 22.0})
    facts = _margins({2021: 78, 2022: 80})
    assert answer(q, facts).answer.verdict == "no"


def test_consistent_margins_use_the_questions_own_bound():
    q = parse("Are 3M's gross margins historically consistent (not fluctuating more than "
              "roughly 2% each year)?", CO)
    a = answer(q, _margins({2021: 77.5, 2022: 77.6, 2023: 78.6})).answer
    assert a.verdict == "yes" and set(a.values) == {"2021", "2022", "2023"}
    assert answer(q, _margins({2021: 77.5, 2022: 80.0, 2023: 78.6})).answer.verdict == "no"


def test_dividends_paid_in_the_year():
    paid = fact("Dividends paid to common shareholders", -4, 2022, statement="cash_flow",
                concept="us-gaap:PaymentsOfDividendsCommonStock")
    out = answer(parse("Has 3M paid dividends to common shareholders in FY2022?", CO), [paid])
    assert out.answer.verdict == "yes" and out.answer.value == 4


@pytest.mark.parametrize("assets, verdict", [(250_000, "yes"), (60_000, "no")])
def test_capital_intensity_is_assets_per_dollar_of_revenue(assets, verdict):
    facts = [revenue(2022, 100_000), balance("Total assets", "Assets", assets, 2022)]
    a = answer(parse("Is 3M a capital intensive business based on FY 2022 data?", CO),
               facts).answer
    assert a.verdict == verdict and a.value == pytest.approx(assets / 100_000)


def test_a_margin_on_a_statement_without_its_line_is_not_applicable():
    facts = [fact("Total revenues net of interest expense", 52_862, y,
                  concept="us-gaap:Revenues") for y in (2021, 2022)]
    facts += [fact("Pretax income", 9_999, y, concept="us-gaap:IncomeLossFromContinuing"
                   "OperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest")
              for y in (2021, 2022)]
    out = answer(parse("Does 3M have an improving operating margin profile as of 2022? If "
                       "operating margin is not a useful metric for a company like this, then "
                       "state that and explain why.", CO), facts)
    a = out.answer
    assert a.verdict == "not applicable" and a.value is None
    assert "operating income" in a.text and "Pretax income" in a.text


def test_a_yes_no_question_finrag_cannot_settle_gets_no_bare_figure():
    facts = [revenue(2022, 100)]
    out = answer(parse("Is 3M's revenue recognition aggressive in FY2022?", CO), facts)
    assert out.answer is None and "yes or no" in out.reason
    out = answer(parse("Are there any product categories that represent more than 20% of 3M's "
                       "revenue for FY2022?", CO), facts)  # no parts indexed to settle it
    assert out.answer is None and "add up" in out.reason


def test_a_statement_that_prints_cost_lines_but_no_total_is_missing_not_inapplicable():
    facts = []
    for y in (2021, 2022):
        facts += [revenue(y, 100, filing=2022),
                  fact("Cost of products", 70, y, filing=2022),
                  fact("Cost of services", 20, y, filing=2022)]
    out = answer(parse("Does 3M have an improving gross margin profile as of FY2022?", CO), facts)
    assert out.answer is None and "cost of goods sold" in out.reason


def test_a_card_issuers_revenue_net_of_interest_expense_is_its_revenue():
    facts = [fact("Total revenues net of interest expense", 52_862, y, source="table",
                  page=80) for y in (2021, 2022)]
    facts += [fact("Pretax income", 9_999, y, source="table", page=80) for y in (2021, 2022)]
    out = answer(parse("Does 3M have an improving operating margin profile as of 2022?", CO),
                 facts)
    assert out.answer.verdict == "not applicable"


def test_a_bound_the_verdict_would_not_read_leaves_the_question_unanswered():
    facts = [revenue(2021, 100, filing=2022), revenue(2022, 104)]
    q = parse("Did 3M's revenue increase by more than 10% in FY2022?", CO)
    out = answer(q, facts)
    assert out.answer is None and "yes or no" in out.reason  # not "Yes" for a 4% rise
    assert answer(parse("Did 3M's revenue increase in FY2022?", CO), facts).answer.verdict == "yes"
