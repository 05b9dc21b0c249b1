"""The company and fiscal year a question names become filters (finrag.autofilter)."""

from __future__ import annotations

from finrag.autofilter import auto_filters
from finrag.models import Filters

# the bundled sample's companies, as their filings name them
COMPANIES = {"AAPL": "Apple Inc.", "HD": "HOME DEPOT, INC.", "NVDA": "NVIDIA CORP",
             "TSLA": "Tesla, Inc."}
FILED = {"AAPL": [2023, 2024], "HD": [2024], "NVDA": [2024], "TSLA": [2024]}


def auto(question: str, filters: Filters | None = None):
    return auto_filters(question, filters or Filters(), COMPANIES, FILED)


def test_a_company_named_by_its_short_name_becomes_the_ticker_filter():
    assert auto("Home Depot total debt").filters.tickers == ["HD"]
    assert auto("What are Nvidia's main supply chain risks?").filters.tickers == ["NVDA"]


def test_a_ticker_and_a_short_fiscal_year_become_filters():
    a = auto("AAPL FY24 services revenue")
    assert (a.filters.tickers, a.filters.fiscal_years) == (["AAPL"], [2024])
    assert a.describe() == "AAPL · FY2024"
    assert auto("Apple revenue in fiscal 2023").filters.fiscal_years == [2023]


def test_a_year_the_company_has_no_10k_for_is_not_a_filter():
    a = auto("Tesla research and development in fiscal 2023")
    assert a.filters.tickers == ["TSLA"] and a.filters.fiscal_years == []
    assert a.skipped_years == (2023,)


def test_the_users_own_filters_are_kept():
    a = auto("Home Depot total debt FY2024", Filters(tickers=["TSLA"], chunk_types=["table"]))
    assert a.filters.tickers == ["TSLA"] and a.tickers == ()
    assert a.filters.chunk_types == ["table"]


def test_a_question_naming_no_company_adds_nothing():
    a = auto("What are the main supply chain risks?")
    assert not a.added and a.filters == Filters()


def test_a_name_read_with_its_cover_page_text_still_names_the_company():
    # company names as the PDF reader takes them from 10-K cover pages
    companies = {"BBY": " from to Commission file number 1-9595 ______________ BEST BUY CO., INC.",
                 "NKE": "OF 1934FOR THE TRANSI TION PERIOD FROM TO .Commission File No. 1-10635 "
                        "NIKE, Inc.",
                 "AWK": "HANGE ACT OF 1934 For the transition period from to Commission file "
                        "number: 001-34028 AMERICAN WATER WORKS COMPANY, INC."}
    filed = {"BBY": [2023], "NKE": [2021], "AWK": [2021]}
    for question, ticker in [("What is Best Buy's FY2023 revenue?", "BBY"),
                             ("Nike's inventory in FY2021", "NKE"),
                             ("American Water Works capex FY2021", "AWK")]:
        a = auto_filters(question, Filters(), companies, filed)
        assert a.filters.tickers == [ticker], question
