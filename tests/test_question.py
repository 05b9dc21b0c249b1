"""Reading a question: line items, metric, fiscal years, unit, rounding and company."""

from __future__ import annotations

import pytest

from finrag.companies import company_names
from finrag.models import Filters
from finrag.question import parse

COMPANIES = {"AAPL": "Apple Inc.", "HD": "HOME DEPOT, INC.", "KO": "COCA COLA CO",
             "PG": "PROCTER & GAMBLE Co", "JNJ": "JOHNSON & JOHNSON", "MMM": "3M CO",
             "WMT": "Walmart Inc.", "UNP": "UNION PACIFIC CORP", "AMZN": "AMAZON COM INC"}


@pytest.mark.parametrize("text, years", [
    ("Walmart capex FY2025", (2025,)),
    ("Home Depot diluted EPS FY24", (2024,)),
    ("Apple revenue in fiscal 2024", (2024,)),
    ("revenue fiscal year 2023", (2023,)),
    ("average operating margin 2019 - 2021", (2019, 2020, 2021)),
    ("average operating margin FY2018 - FY2020", (2018, 2019, 2020)),
    ("what is the year end FY2018 amount of accounts payable", (2018,)),
    ("How did Nike's revenues change from FY24 to FY25?", (2024, 2025)),
    ("DPO between FY2017 and FY2018", (2017, 2018)),
    ("capex in the 10-K", ()),
    ("revenue of $2,024 million", ()),
])
def test_fiscal_years(text, years):
    assert parse(text, COMPANIES).years == years


def test_a_date_is_read_as_a_date():
    q = parse("What were Meta's total assets at December 31, 2024?")
    assert q.date == "2024-12-31" and q.years == (2024,)


@pytest.mark.parametrize("text, unit, decimals", [
    ("capex (in USD millions) for 3M", "USD millions", None),
    ("How much (in USD billions) did it pay in cash dividends", "USD billions", None),
    ("Answer in units of percents and round to one decimal place.", "percent", 1),
    ("Round your answer to two decimal places.", None, 2),
    ("Walmart capex FY2025", None, None),
])
def test_unit_and_rounding(text, unit, decimals):
    q = parse(text)
    assert (q.unit, q.decimals) == (unit, decimals)


@pytest.mark.parametrize("text, ticker", [
    ("Walmart capex FY2025", "WMT"),
    ("Home Depot diluted EPS FY24", "HD"),
    ("Coca-Cola COGS 2024", "KO"),
    ("P&G free cash flow FY2025", "PG"),
    ("Procter & Gamble net sales fiscal 2025", "PG"),
    ("J&J capex 2024", "JNJ"),
    ("What is the FY2018 capital expenditure amount for 3M?", "MMM"),
    ("Amazon's revenue growth 2017", "AMZN"),
    ("AAPL revenue 2024", "AAPL"),
    ("Union Pacific current ratio", "UNP"),
])
def test_company_named_by_name_short_name_or_ticker(text, ticker):
    assert parse(text, COMPANIES).tickers == (ticker,)


def test_generic_first_words_and_lower_case_words_are_not_companies():
    assert parse("union dues and pacific trade, hd video revenue", COMPANIES).tickers == ()


def test_the_ticker_filter_is_the_company_when_none_is_named():
    q = parse("capex FY2020", COMPANIES, Filters(tickers=["WMT"]))
    assert q.tickers == ("WMT",)
    q = parse("capex", COMPANIES, Filters(tickers=["WMT"], fiscal_years=[2024]))
    assert q.years == (2024,)


def test_company_names():
    assert "home depot" in company_names("HOME DEPOT, INC.")
    assert "p&g" in company_names("PROCTER & GAMBLE Co")
    assert "walmart" in company_names("Walmart Inc.")


@pytest.mark.parametrize("text, items, metric", [
    ("Coca-Cola COGS 2024", ["cogs"], None),
    ("What is the FY2016 COGS for Microsoft? Please state answer in USD millions.", ["cogs"], None),
    ("how much did Block generate in cash flow from operating activities in FY2020?",
     ["cfo"], None),
    ("Meta operating margin 2024", [], "operating_margin"),
    ("FY2015 depreciation and amortization (D&A from cash flow statement) % margin", ["dna"],
     "item_margin"),
    ("3 year average of capex as a % of revenue", ["capex", "revenue"], "item_margin"),
    ("FY2020 working capital ratio", [], "current_ratio"),
    ("FY2021 inventory turnover ratio", None, "inventory_turnover"),
    ("days payable outstanding (DPO)", [], "dpo"),
    ("what is Boeing's year end FY2018 net property, plant, and equipment", ["ppe_net"], None),
    ("Did Pfizer grow its PPNE between FY20 and FY21?", ["ppe_net"], None),  # PP and E
    ("2 year total revenue CAGR from FY2020 to FY2022", ["revenue"], "cagr"),
    ("supply chain risk", [], None),
    ("<script>alert(1)</script>", [], None),
])
def test_items_and_metric(text, items, metric):
    q = parse(text)
    if items is not None:
        assert [i.key for i in q.items] == items
    assert q.metric == metric


def test_nothing_asked():
    assert not parse("supply chain risk").asks_for_something
    assert not parse("<script>alert(1)</script>").asks_for_something


def test_a_definition_is_read_apart_from_the_question():
    q = parse("What is FY2018 DPO for Walmart? DPO is defined as: 365 * (average accounts "
              "payable between FY2017 and FY2018) / (FY2018 COGS + change in inventory between "
              "FY2017 and FY2018).")
    assert q.metric == "dpo"
    assert set(q.definition_items) == {"accounts_payable", "cogs", "inventory"}
    assert q.year == 2018


def test_change_and_average():
    assert parse("How did Nike's revenues change from FY24 to FY25?").change
    q = parse("FY2018 - FY2020 3 year average unadjusted EBITDA % margin")
    assert q.average and q.metric == "ebitda_margin"


def test_words_naming_a_narrower_line_are_kept():
    assert parse("iPhone net sales FY2024").rest == ("iphone",)
    assert parse("Walmart capex FY2025", COMPANIES).rest == ()


def test_growth_is_a_rate_and_change_an_amount():
    assert parse("Union Pacific revenue growth 2024").unit == "percent"
    assert parse("How did revenue change in 2024?").unit is None


def test_bare_eps_is_the_diluted_figure():
    assert [i.key for i in parse("Walmart EPS FY2025").items] == ["eps_diluted"]
    assert [i.key for i in parse("basic EPS 2024").items] == ["eps_basic"]


def test_a_company_name_read_with_the_cover_page_header_still_names_the_company():
    name = ("HANGE ACT OF 1934 For the transition period from to Commission file number: "
            "001-34028 AMERICAN WATER WORKS COMPANY, INC.")
    assert "american water works" in company_names(name)
    q = parse("How much did American Water Works pay out in cash dividends for FY2020?",
              {"AWK": name})
    assert q.tickers == ("AWK",)


def test_two_years_set_against_each_other_ask_for_a_change():
    q = parse("Coca-Cola operating income 2024 vs 2023")
    assert q.change and q.years == (2023, 2024)
    assert not parse("Coca-Cola operating income 2024").change


def test_a_common_first_word_names_its_company_only_as_a_proper_noun():
    companies = {"BBY": "BEST BUY CO INC", "SQ": "Block, Inc."}
    q = parse("Using the cash flow statement, answer the following question to the best of your "
              "abilities: how much did Block generate in cash flow from operating activities in "
              "FY2020?", companies)
    assert q.tickers == ("SQ",)
    assert parse("Best Buy revenue 2023", companies).tickers == ("BBY",)
    assert parse("best buy revenue 2023", companies).tickers == ("BBY",)  # typed in lower case
