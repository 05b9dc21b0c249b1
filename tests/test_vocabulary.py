"""Query expansion: analysts' terms find statement wording; plain queries are left alone."""

from __future__ import annotations

from finrag.search import bm25_tokens
from finrag.tokens import tokenize
from finrag.vocabulary import expand, phrase_terms


def test_analyst_terms_map_to_line_items():
    assert any("purchases of property plant and equipment" in e
               for e in expand("What was FY2018 capex for 3M?"))
    assert any("cost of sales" in e for e in expand("What is the FY2016 COGS?"))
    assert any("total current liabilities" in e for e in expand("working-capital ratio"))
    assert any("statements of cash flows" in e for e in expand("using the cash flow statement"))
    assert any("research and development" in e for e in expand("Tesla R&D expense"))


def test_terms_match_whole_words_only():
    assert expand("services revenue") == []
    assert expand("resupply risk") == [] and expand("discustomerized") == []
    assert expand("epsilon") == [] and expand("roads") == []  # not "eps", not "roa"
    assert expand("steps in the process") == []


def test_each_expansion_once_in_table_order():
    got = expand("gross margin and gross profit, gross margins")
    assert got == ["gross profit gross margin net sales cost of sales",
                   "consolidated statements of operations income"]


def test_bm25_expansion_adds_new_tokens_once_after_the_query():
    tokens = bm25_tokens("cost of sales cost", ["cost of sales cost of revenue"])
    # then the expansion's line-item pairs; "sales_cost" straddles two items, as a statement
    # printing "Net sales" above "Cost of sales" does
    assert tokens == ["cost", "sales", "cost", "revenue", "cost_sales", "sales_cost",
                      "cost_revenue"]


def test_phrase_terms_are_the_line_items_pairs_in_order_and_not_the_titles():
    tokens = tokenize("Total current liabilities | 7,244 CONSOLIDATED BALANCE SHEETS "
                      "Net cash provided by operating activities")
    assert phrase_terms(tokens) == ["total_current", "current_liability", "net_cash",
                                    "cash_provided", "provided_operating", "operating_activity"]
    assert phrase_terms(tokenize("the current year and a total of liabilities")) == []


def test_instruction_sentences_leave_the_bm25_query_but_the_question_stays():
    tokens = bm25_tokens("Please round to one decimal place: what is the FY2018 capex "
                         "based on the cash flow statement?", [])
    assert tokens == ["2018", "capex", "based", "cash", "flow", "statement"]
    tokens = bm25_tokens("What is the FY2018 capex for 3M? Give a response to the question by "
                         "relying on the details shown in the cash flow statement.", [])
    assert tokens == ["2018", "capex", "3m"]
    # a lead-in that names something the question is about stays
    tokens = bm25_tokens("Among the derivatives Verizon used, which had the highest notional "
                         "value?", [])
    assert "derivative" in tokens and "verizon" in tokens
    # a query made only of such words is kept as typed rather than emptied
    assert bm25_tokens("explain the calculation", []) == ["explain", "calculation"]


def test_line_items_bring_the_title_of_the_statement_they_are_printed_on_once():
    got = expand("Has the gross margin improved? What drove COGS?")
    assert got[-1] == "consolidated statements of operations income"
    assert sum("statements of operations" in e for e in got) == 1
    both = expand("inventory turnover")  # cost of sales over average inventories
    assert "consolidated statements of operations income" in both
    assert "consolidated balance sheets" in both
    assert expand("working capital")[-1] == "consolidated balance sheets"
    assert expand("free cash flow")[-1] == "consolidated statements of cash flows"
    assert expand("Tesla R&D expense") == ["research and development"]  # no statement named


def test_a_statement_the_query_already_asks_for_is_not_added_again():
    got = expand("cash flow statement capex")
    assert sum("consolidated statements of cash flows" in e for e in got) == 1
    assert sum("consolidated balance sheets" in e
               for e in expand("balance sheet working capital")) == 1


def test_narrative_subjects_get_the_filing_wording():
    """What analysts ask in words, said as 10-K Items and notes say it (the narrative lever of
    docs/measurements.md: dev domain-relevant fused MRR@10 .457 -> .536)."""
    assert expand("Who are the primary customers of Boeing?") == [
        "customers significant portion of our revenues derived from"]
    assert expand("Has Boeing reported any ongoing legal battles?") == [
        "legal proceedings litigation contingencies lawsuits filed against"]
    assert expand("supply chain risk") == ["suppliers raw materials sources supply"]
