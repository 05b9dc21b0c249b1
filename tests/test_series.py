"""A figure across fiscal years and companies (finrag.series): reading the question, a series
with its comparatives, restatement, gaps, growth and CAGR; peers; a ranking across companies;
the table and the `--json` shape. Hand-made facts, except the last test (a real index)."""

from __future__ import annotations

import pytest

from finrag.autofilter import auto_filters
from finrag.facts import Fact
from finrag.models import Filters
from finrag.pointtable import lines
from finrag.question import across, parse
from finrag.series import across as answer_across

CO = {"AAPL": "Apple Inc.", "AMZN": "AMAZON COM INC", "WMT": "Walmart Inc.",
      "MSFT": "MICROSOFT CORP"}


def fact(ticker, label, value, year, *, filing=None, concept=None, statement="income",
         instant=False, end="12-31", page=40, unit="USD millions"):
    """A fact of `ticker`'s fiscal `year`, printed in its `filing` (default: the year's own)."""
    last = f"{year}-{end}"
    first = f"{year}-01-01" if end == "12-31" else f"{year - 1}-{int(end[:2]) + 1:02d}-01"
    return Fact(ticker=ticker, fiscal_year=filing or year, filing_key=f"{ticker}-{filing or year}",
                source="xbrl", concept=concept, line_label=label, statement=statement,
                period_start=None if instant else first, period_end=last,
                period_fiscal_year=year, value=value, unit=unit, page=page)


def sales(t, year, value, **kw):
    return fact(t, "Net sales", value, year, concept="us-gaap:Revenues", **kw)


def op_income(t, year, value, **kw):
    return fact(t, "Operating income", value, year, concept="us-gaap:OperatingIncomeLoss", **kw)


def run(text, facts, filed, filters=None):
    filters = filters or Filters()
    q = parse(text, CO, filters)

    def load(ticker, years, statements):
        return [f for f in facts if f.ticker == ticker and f.period_fiscal_year in years
                and (not statements or f.statement in statements)]

    return answer_across(q, load, CO, filed, filters)


# --- reading the question --------------------------------------------------------------------

@pytest.mark.parametrize("text, years, last_n, since", [
    ("Apple total net sales fiscal 2019 to fiscal 2024", (2019, 2020, 2021, 2022, 2023, 2024),
     None, None),
    ("Apple revenue from FY2020 through FY2023", (2020, 2021, 2022, 2023), None, None),
    ("Apple net income over the last five years", (), 5, None),
    ("Walmart capex, past 3 fiscal years", (), 3, None),
    ("Apple capex since 2020", (2020,), None, 2020),
    ("Apple revenue from FY2021 onwards", (2021,), None, 2021),
    ("Apple revenue 2019, 2021 and 2024", (2019, 2021, 2024), None, None),
])
def test_a_span_of_fiscal_years_reads_as_a_series(text, years, last_n, since):
    q = parse(text, CO)
    assert (q.years, q.last_n, q.since) == (years, last_n, since)
    assert across(q) == "series"


@pytest.mark.parametrize("text, kind", [
    ("Compare Apple and Amazon operating margin 2024", "peers"),
    ("Apple vs Amazon revenue FY2020-FY2024", "peers"),
    ("Which company had the highest gross margin in 2024?", "ranking"),
    ("Which of Apple and Walmart had the lowest net margin in 2024?", "ranking"),
    ("Rank the companies by revenue in fiscal 2024", "ranking"),
    ("Apple revenue 2024", None),
    ("How did Apple's revenue change from 2023 to 2024?", None),  # the change's own answer
    ("Apple average operating margin 2019 - 2021", None),
    ("Apple revenue CAGR 2019 to 2024", None),
    ("Did Apple's operating margin improve from 2022 to 2024?", None),
    ("Which of Apple's segments had the highest revenue in 2024?", None),  # within one company
])
def test_which_questions_read_across_years_or_companies(text, kind):
    assert across(parse(text, CO)) == kind


def test_the_ranking_order_and_the_peers_named():
    assert parse("Which company had the lowest operating margin in 2024?", CO).peer_order == "min"
    assert parse("Which company had the highest gross margin in 2024?", CO).peer_order == "max"
    assert parse("Compare Apple and Amazon operating margin 2024", CO).tickers == ("AAPL", "AMZN")
    several = Filters(tickers=["AAPL", "WMT"])
    assert across(parse("operating margin 2024", CO, several)) == "peers"


def test_a_series_adds_no_year_filter_so_later_comparatives_stay_readable():
    filed = {"AAPL": [2019, 2020, 2021, 2024]}
    assert auto_filters("Apple net sales 2019 to 2024", Filters(), CO, filed).years == ()
    assert auto_filters("Apple net sales 2024", Filters(), CO, filed).years == (2024,)


# --- a series --------------------------------------------------------------------------------

APPLE = [sales("AAPL", 2019, 260_174, filing=2019), sales("AAPL", 2018, 265_595, filing=2019),
         sales("AAPL", 2020, 274_515, filing=2020), sales("AAPL", 2019, 260_100, filing=2020),
         sales("AAPL", 2024, 391_035, filing=2024), sales("AAPL", 2023, 383_285, filing=2024),
         sales("AAPL", 2022, 394_328, filing=2024)]
APPLE_FILED = {"AAPL": [2019, 2020, 2024]}


def test_a_series_takes_each_year_from_its_own_10k_else_a_later_comparative():
    a = run("Apple net sales fiscal 2019 to fiscal 2024", APPLE, APPLE_FILED).answer
    assert a.kind == "series" and a.unit == "USD millions"
    got = {p["fiscal_year"]: (p["value"], p["filing_fiscal_year"]) for p in a.points}
    assert got == {2019: (260_174, 2019), 2020: (274_515, 2020), 2022: (394_328, 2024),
                   2023: (383_285, 2024), 2024: (391_035, 2024)}
    assert a.value == 391_035 and a.fiscal_year == 2024
    assert "FY2022 (fiscal 2024 10-K)" in a.text


def test_a_restatement_keeps_the_own_figure_and_shows_the_later_one():
    a = run("Apple net sales fiscal 2019 to fiscal 2020", APPLE, APPLE_FILED).answer
    p2019 = a.points[0]
    assert (p2019["value"], p2019["restated_value"], p2019["restated_in"]) == (
        260_174, 260_100, 2020)
    assert "restated_value" not in a.points[1]
    assert "$260,174 million in its own 10-K, $260,100 million in the fiscal 2020 10-K" in a.text


def test_a_later_filing_printing_the_same_figure_in_another_scale_is_no_restatement():
    facts = [sales("AAPL", 2019, 260_174, filing=2019),
             sales("AAPL", 2019, 260_174_000, filing=2020, unit="USD thousands")]
    a = run("Apple net sales 2019 and 2020", facts, {"AAPL": [2019, 2020]}).answer
    assert "restated_value" not in a.points[0]


def test_a_year_no_filing_prints_is_named_not_skipped():
    out = run("Apple net sales fiscal 2019 to fiscal 2024", APPLE, APPLE_FILED)
    assert [m["fiscal_year"] for m in out.answer.missing] == [2021]
    assert "No figure for AAPL FY2021" in out.answer.text
    assert "-" not in [c for c in lines(out.answer)[2].split()[1:]]  # 2021 is not a column


def test_growth_per_year_and_cagr_over_the_span_with_formulas():
    a = run("Apple net sales fiscal 2022 to fiscal 2024", APPLE, APPLE_FILED).answer
    yoy = [g for g in a.growth if g["kind"] == "yoy"]
    assert [(g["from"], g["to"]) for g in yoy] == [(2022, 2023), (2023, 2024)]
    assert yoy[0]["value"] == pytest.approx((383_285 - 394_328) / 394_328 * 100, abs=1e-3)
    cagr = next(g for g in a.growth if g["kind"] == "cagr")
    assert cagr["value"] == pytest.approx(((391_035 / 394_328) ** 0.5 - 1) * 100, abs=1e-3)
    assert cagr["formula"].endswith("^ (1/2) - 1") and a.formula == cagr["formula"]


def test_growth_skips_a_gap_year():
    a = run("Apple net sales fiscal 2020 to fiscal 2022", APPLE, APPLE_FILED).answer
    assert [g for g in a.growth if g["kind"] == "yoy"] == []  # 2021 is missing
    assert next(g for g in a.growth if g["kind"] == "cagr")["from"] == 2020


def test_the_last_n_years_end_at_the_latest_indexed_10k():
    a = run("Apple net sales over the last three years", APPLE, APPLE_FILED).answer
    assert [p["fiscal_year"] for p in a.points] == [2022, 2023, 2024]


def test_a_metric_series_moves_in_percentage_points_and_has_no_cagr():
    facts = APPLE + [op_income("AAPL", y, v, filing=2024) for y, v in
                     ((2022, 119_437), (2023, 114_301), (2024, 123_216))]
    a = run("Apple operating margin 2022 to 2024", facts, APPLE_FILED).answer
    assert a.unit == "percent" and a.points[-1]["value"] == pytest.approx(31.51, abs=0.01)
    assert {g["unit"] for g in a.growth} == {"percentage points"}
    assert "Operating income FY2024" in a.points[-1]["formula"]


def test_no_point_at_all_is_no_answer_with_the_reasons():
    out = run("Apple net sales 2010 to 2012", APPLE, APPLE_FILED)
    assert out.answer is None and "fiscal 2010" in out.reason


# --- peers and rankings ----------------------------------------------------------------------

PEERS = [sales("AAPL", 2024, 391_035, end="09-28"), op_income("AAPL", 2024, 123_216, end="09-28"),
         sales("AMZN", 2024, 637_959), op_income("AMZN", 2024, 68_593),
         sales("WMT", 2024, 648_125, filing=2025, end="01-31"),
         op_income("WMT", 2024, 27_012, filing=2025, end="01-31")]
PEERS_FILED = {"AAPL": [2024], "AMZN": [2024], "WMT": [2025], "MSFT": [2024]}


def test_peers_give_each_company_its_figure_and_say_when_year_ends_differ():
    a = run("Compare Apple and Amazon operating margin 2024", PEERS, PEERS_FILED).answer
    assert a.kind == "peers" and [p["ticker"] for p in a.points] == ["AAPL", "AMZN"]
    assert a.points[1]["value"] == pytest.approx(68_593 / 637_959 * 100, abs=1e-4)
    assert "ends months apart: 2024-09-28 AAPL; 2024-12-31 AMZN" in a.text


def test_a_ranking_orders_every_company_and_lists_those_lacking_the_figure():
    a = run("Which company had the highest revenue in 2024?", PEERS, PEERS_FILED).answer
    assert a.kind == "ranking"
    assert [p["ticker"] for p in a.points] == ["WMT", "AMZN", "AAPL"]
    assert a.value == 648_125 and a.points[0]["filing_fiscal_year"] == 2025
    assert [m["ticker"] for m in a.missing] == ["MSFT"] and "1 lack the figure: Microsoft" in a.text
    low = run("Which company had the lowest operating margin in 2024?", PEERS, PEERS_FILED).answer
    assert [p["ticker"] for p in low.points] == ["WMT", "AMZN", "AAPL"]  # 4.2%, 10.8%, 31.5%


def test_a_ranking_among_the_companies_named():
    a = run("Which of Apple and Amazon had the highest revenue in 2024?", PEERS,
            PEERS_FILED).answer
    assert [p["ticker"] for p in a.points] == ["AMZN", "AAPL"] and not a.missing


def test_an_ambiguous_figure_is_absent_never_guessed():
    clash = PEERS + [sales("AMZN", 2024, 600_000)]  # one filing, one line, two figures
    a = run("Which company had the highest revenue in 2024?", clash, PEERS_FILED).answer
    assert "AMZN" not in [p["ticker"] for p in a.points]
    assert "different figures" in next(m for m in a.missing if m["ticker"] == "AMZN")["reason"]


# --- shown -----------------------------------------------------------------------------------

def test_the_table_has_years_as_columns_the_unit_line_and_the_marks():
    a = run("Apple net sales fiscal 2019 to fiscal 2020", APPLE, APPLE_FILED).answer
    out = lines(a)
    assert out[0] == "(USD millions)"
    assert out[1].split() == ["FY2019", "FY2020"]
    assert out[2].split() == ["AAPL", "260,174", "r", "274,515"]
    assert any(line.startswith("r: AAPL FY2019 restated to 260,100") for line in out)


def test_peers_of_one_year_have_companies_as_columns():
    a = run("Compare Apple and Amazon operating margin 2024", PEERS, PEERS_FILED).answer
    out = lines(a)
    assert out[0] == "(percent)" and out[1].split() == ["AAPL", "FY2024", "AMZN", "FY2024"]
    assert out[2].split()[-2:] == ["31.5", "10.8"]


def test_ask_json_carries_points_with_their_pages_and_links():
    from types import SimpleNamespace

    from finrag.ask import ask_json, citations

    a = run("Compare Apple and Amazon operating margin 2024", PEERS, PEERS_FILED).answer
    index = SimpleNamespace(chunks=lambda ids: {})
    asked = SimpleNamespace(answer=a, citations=citations(index, a),
                            search=SimpleNamespace(query="q"),
                            outcome=SimpleNamespace(reason=None))
    body = ask_json(asked, [])["answer"]
    assert body["kind"] == "peers" and len(body["points"]) == 2
    p = body["points"][0]
    assert {"ticker", "fiscal_year", "value", "unit", "citation", "filing_fiscal_year",
            "page", "url", "formula", "cited"} <= set(p)
    assert p["page"] == 40 and [asked.citations[i]["line_label"] for i in p["cited"]] == [
        "Operating income", "Net sales"]
    assert body["growth"] is None and body["missing"] is None


def test_growth_compares_a_restated_point_on_the_later_basis():
    split = [fact("AAPL", "Diluted", v, y, filing=f, concept="us-gaap:EarningsPerShareDiluted",
                  unit="USD per share") for y, v, f in
             ((2019, 11.89, 2019), (2019, 2.97, 2021), (2020, 3.28, 2020), (2021, 5.61, 2021))]
    a = run("Apple diluted EPS 2019 to 2021", split, {"AAPL": [2019, 2020, 2021]}).answer
    assert a.points[0]["value"] == 11.89 and a.points[0]["restated_value"] == 2.97
    first = a.growth[0]
    assert first["value"] == pytest.approx((3.28 - 2.97) / 2.97 * 100, abs=1e-3)
    assert "FY2019 $2.97 per share restated in the fiscal 2021 10-K" in first["formula"]


def test_no_gross_margin_where_a_larger_cost_of_revenue_sits_beside_cost_of_sales():
    insurer = [sales("UNH", 2024, 400_278), fact("UNH", "Medical costs", 264_185, 2024,
                                                 concept="us-gaap:PolicyholderBenefitsAndClaimsIncurredNet"),
               fact("UNH", "Cost of products sold", 46_694, 2024,
                    concept="us-gaap:CostOfGoodsAndServicesSold"),
               fact("UNH", "Total operating costs", 367_991, 2024,
                    concept="us-gaap:CostsAndExpenses")]
    retailer = [sales("AMZN", 2024, 637_959), fact("AMZN", "Cost of sales", 326_288, 2024,
                                                   concept="us-gaap:CostOfGoodsAndServicesSold")]
    companies = {"UNH": [2024], "AMZN": [2024]}
    a = run("Which company had the highest gross margin in 2024?", insurer + retailer,
            companies, Filters(tickers=["AMZN", "UNH"])).answer
    assert [p["ticker"] for p in a.points] == ["AMZN"]
    assert "'Medical costs' is a larger cost of revenue" in a.missing[0]["reason"]


@pytest.mark.slow
def test_real_filings_give_a_series_from_comparatives_and_a_ranking(small_sample, tmp_path):
    """Cut real 10-Ks (AAPL FY2024, TSLA FY2024, HD FY2024, NVDA FY2024), fake embedder: the
    printed statements' figures, through `ask` as a user would."""
    from conftest import FakeEmbedder, word_count

    from finrag.ask import ask
    from finrag.config import Settings
    from finrag.ingest.build import build
    from finrag.search import HybridSearcher

    settings = Settings(data_dir=tmp_path / "data", qdrant_url=None)
    paths = [small_sample / p for p in ("AAPL/10-K/0000320193-24-000123",
                                        "TSLA/10-K/tsla-20241231", "HD/10-K/0000354950-25-000085")]
    build(paths, settings, FakeEmbedder(), word_count)
    searcher = HybridSearcher(settings, FakeEmbedder())
    try:
        a = ask(searcher, "Apple total net sales fiscal 2021 to fiscal 2024").answer
        r = ask(searcher, "Which company had the highest net income in 2024?").answer
    finally:
        searcher.close()
    assert [(p["fiscal_year"], p["value"], p["filing_fiscal_year"]) for p in a.points] == [
        (2022, 394_328, 2024), (2023, 383_285, 2024), (2024, 391_035, 2024)]
    assert [m["fiscal_year"] for m in a.missing] == [2021]
    assert [(p["ticker"], p["value"]) for p in r.points] == [
        ("AAPL", 93_736), ("HD", 14_806), ("TSLA", 7_091)]  # attributable to common


GROWN = PEERS + [sales("AAPL", 2023, 383_285, end="09-28"), sales("AMZN", 2023, 574_785),
                 op_income("AAPL", 2023, 114_301, end="09-28"), op_income("AMZN", 2023, 36_852)]


def test_a_ranking_by_growth_ranks_the_growth_not_the_level():
    a = run("Which company had the highest revenue growth in 2024?", GROWN, PEERS_FILED).answer
    assert [p["ticker"] for p in a.points] == ["AMZN", "AAPL"]  # +11.0% against +2.0%
    assert a.points[0]["value"] == pytest.approx((637_959 - 574_785) / 574_785 * 100, abs=1e-3)
    assert sorted(m["ticker"] for m in a.missing) == ["MSFT", "WMT"]  # no fiscal 2023 figure
    margin = run("Which company had the highest operating margin growth in 2024?", GROWN,
                 PEERS_FILED).answer
    assert margin.unit == "percentage points" and margin.points[0]["ticker"] == "AMZN"


def test_peers_growth_in_a_year_reads_the_year_before():
    a = run("Compare Apple and Amazon revenue growth in 2024", GROWN, PEERS_FILED).answer
    assert sorted((g["ticker"], g["from"], g["to"]) for g in a.growth) == [
        ("AAPL", 2023, 2024), ("AMZN", 2023, 2024)]
    assert "Amazon +11.0%" not in a.text and "Amazon 11.0% FY2023-FY2024" in a.text


def test_a_span_of_no_company_is_left_to_the_one_company_path():
    q = parse("total net sales fiscal 2019 to fiscal 2024", CO)
    assert across(q) == "series" and answer_across(q, None, CO, {}, Filters()) is None
