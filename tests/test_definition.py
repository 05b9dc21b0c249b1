"""The whole question or no answer: a formula the question states is computed as stated, a
metric it names but does not define is refused, "net" is the net line."""

from __future__ import annotations

import pytest

from finrag.answer import answer
from finrag.definition import Unplaced, read, read_in
from finrag.question import parse
from tests.test_answer import CO, capex, fact, revenue


def cfo(year, value, **kw):
    return fact("Net cash provided by operating activities", value, year, statement="cash_flow",
                concept="us-gaap:NetCashProvidedByUsedInOperatingActivities", **kw)


def current_liabilities(year, value, **kw):
    return fact("Total current liabilities", value, year, statement="balance", instant=True,
                concept="us-gaap:LiabilitiesCurrent", **kw)


def test_a_ratio_the_question_defines_is_computed_as_defined_not_answered_with_its_numerator():
    facts = [cfo(2021, 4_000, unit="USD thousands"),
             current_liabilities(2021, 2_000, unit="USD thousands")]
    q = parse("What is 3M's FY2021 operating cash flow ratio? Operating cash flow ratio is "
              "defined as: cash from operations / total current liabilities. Round your answer "
              "to two decimal places.", CO)
    out = answer(q, facts)
    assert out.reason is None
    assert (out.answer.value, out.answer.unit) == (2.0, "ratio")
    assert len(out.answer.figures) == 2


def test_a_metric_named_but_neither_known_nor_defined_is_no_answer():
    facts = [cfo(2021, 4_000), current_liabilities(2021, 2_000)]
    out = answer(parse("What is 3M's FY2021 operating cash flow ratio?", CO), facts)
    assert out.answer is None
    assert "operating cash flow ratio" in out.reason and "does not define" in out.reason


def test_operators_in_the_question_join_its_figures():
    facts = [fact("Operating income", 900, 2021, concept="us-gaap:OperatingIncomeLoss"),
             fact("Depreciation and amortization", 100, 2021, statement="cash_flow",
                  concept="us-gaap:DepreciationDepletionAndAmortization"),
             capex(2021, 300)]
    out = answer(parse("What is 3M's FY2021 unadjusted EBITDA less capex (in USD millions)?",
                       CO), facts)
    assert out.answer.value == 700  # not EBITDA's 1,000
    assert "capital expenditures" in out.answer.formula.lower() or "PP&E" in out.answer.formula


def test_a_formula_over_two_lines_as_a_percent():
    facts = [revenue(2024, 400), fact("Cost of sales", 300, 2024,
                                      concept="us-gaap:CostOfGoodsAndServicesSold")]
    q = parse("What was 3M's (net sales minus cost of sales) as a percent of net sales in "
              "fiscal 2024?", CO)
    out = answer(q, facts)
    assert (out.answer.value, out.answer.unit) == (25.0, "percent")


def test_a_definition_with_words_it_cannot_place_is_no_answer_naming_them():
    facts = [cfo(2021, 4_000), current_liabilities(2021, 2_000)]
    q = parse("What is 3M's FY2021 cash ratio? Cash ratio is defined as: cash from operations "
              "adjusted for seasonal swings / total current liabilities.", CO)
    out = answer(q, facts)
    assert out.answer is None and "adjusted for seasonal swings" in out.reason


def test_net_ppe_is_not_the_gross_line_printed_above_its_accumulated_depreciation():
    def row(label, value):
        return fact(label, value, 2018, statement="balance", instant=True, source="table",
                    page=60)
    facts = [row("Property, plant and equipment", 20_000),
             row("Less accumulated depreciation", -8_000),
             row("Net property, plant and equipment", 12_000)]
    q = parse("What is 3M's year end FY2018 net property, plant, and equipment (in USD "
              "millions)?", CO)
    assert answer(q, facts).answer.value == 12_000
    gross_only = facts[:2]  # the net row printed without a label
    out = answer(q, gross_only)
    assert out.answer is None


@pytest.mark.parametrize("text, keys, op", [
    ("365 * (average accounts payable between FY2017 and FY2018) / (FY2018 COGS + change in "
     "inventory between FY2017 and FY2018)", {"accounts_payable", "cogs", "inventory"}, "/"),
    ("(cash from operations - capex)", {"cfo", "capex"}, "-"),
    ("total current assets divided by total current liabilities",
     {"current_assets", "current_liabilities"}, "/"),
    ("unadjusted operating income + depreciation and amortization from the cash flow statement",
     {"operating_income", "dna"}, "+"),
])
def test_definitions_read(text, keys, op):
    f = read(text)
    assert f.keys() == keys and f.op == op


def test_a_formula_half_read_is_no_formula():
    with pytest.raises(Unplaced):
        read("net income over revenue")  # two operands, no operator between them
    with pytest.raises(Unplaced):
        read("(cash from operations - capex")
    assert read_in("What is Tesla R&D expense 2024?") is None


def test_a_line_outside_the_known_items_by_its_printed_label():
    costs = fact("Medical costs", 240_000, 2024, concept="unh:MedicalCosts")
    out = answer(parse("What were 3M's medical costs in 2024?", CO), [costs, revenue(2024, 1)])
    assert out.answer.value == 240_000 and "'Medical costs'" in out.answer.text
    out = answer(parse("What were 3M's dental costs in 2024?", CO), [costs])
    assert out.answer is None and "asks for no figure" in out.reason


def test_two_printed_lines_where_one_is_meant_is_no_answer_naming_both():
    facts = [fact("Medical costs", 240_000, 2024, source="table", page=40),
             fact("Medical costs", 230_000, 2024, source="table", page=40, statement="other")]
    facts[1].statement = "income"
    out = answer(parse("What were 3M's medical costs in 2024?", CO), facts)
    assert out.answer is None and "240,000" in out.reason and "230,000" in out.reason


def test_words_joined_by_and_name_one_narrower_line():
    facts = [revenue(2024, 35_000),
             fact("Subscription and support", 32_500, 2024, concept="us-gaap:Revenues",
                  dims=["srt:ProductOrServiceAxis=crm:SubscriptionAndSupportMember"],
                  statement="other")]
    out = answer(parse("3M subscription and support revenue FY2024", CO), facts)
    assert out.answer.value == 32_500


@pytest.mark.parametrize("text, basis", [
    ("3M adjusted EBITDA FY2021", "adjusted"),
    ("3M non-GAAP operating income FY2021", "non gaap"),
    ("3M Class A diluted EPS FY2021", "class a"),
    ("3M net income attributable to noncontrolling interests FY2021", "noncontrolling interests"),
])
def test_a_basis_the_statements_do_not_print_is_no_answer_not_the_reported_figure(text, basis):
    facts = [fact("Operating income", 900, 2021, concept="us-gaap:OperatingIncomeLoss"),
             fact("Depreciation and amortization", 100, 2021, statement="cash_flow",
                  concept="us-gaap:DepreciationDepletionAndAmortization"),
             fact("Net income", 500, 2021, concept="us-gaap:NetIncomeLoss"),
             fact("Diluted", 5.1, 2021, concept="us-gaap:EarningsPerShareDiluted",
                  unit="USD per share")]
    out = answer(parse(text, CO), facts)
    assert out.answer is None and f"'{basis}'" in out.reason
    assert answer(parse("3M unadjusted EBITDA FY2021", CO), facts).answer.value == 1_000


def test_a_number_before_a_formula_is_not_one_of_its_operands():
    facts = [capex(y, 8, filing=2020) for y in (2018, 2019, 2020)]
    facts += [revenue(y, 100, filing=2020) for y in (2018, 2019, 2020)]
    q = parse("What is the FY2018 - FY2020 3 year average of capex as a % of revenue for 3M? "
              "Calculate what was asked by utilizing the line items clearly shown.", CO)
    assert answer(q, facts).answer.value == pytest.approx(8.0)


def test_an_answer_names_the_metric_or_the_formula_it_computed():
    facts = [cfo(2021, 4_000), current_liabilities(2021, 2_000),
             fact("Total current assets", 3_000, 2021, statement="balance", instant=True,
                  concept="us-gaap:AssetsCurrent")]
    a = answer(parse("3M current ratio FY2021", CO), facts).answer
    assert ", current ratio, fiscal 2021;" in a.text
    q = parse("What is 3M's FY2021 operating cash flow ratio? Operating cash flow ratio is "
              "defined as: cash from operations / total current liabilities.", CO)
    assert ", operating cash flow ratio, fiscal 2021;" in answer(q, facts).answer.text
