"""Issue 36 in the app (AppTest, fake embedder): one filter state carried in the link, the
ticker list matching tickers, fiscal year-end dates in the coverage, an over-long question said,
a sidebar filter that excludes what was asked cleared in one click."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from finrag.config import Settings
from finrag.generation import publish, write_generation
from finrag.models import Chunk
from tests.test_app import COLUMNS, REPO, hit_headers, searcher_for, unescape

FILINGS = [  # ticker, company, fiscal year, the day it ended
    ("AAPL", "Apple Inc.", 2019, "2019-09-28"),
    ("AAPL", "Apple Inc.", 2024, "2024-09-28"),
    ("META", "Meta Platforms, Inc.", 2024, "2024-12-31"),
    ("WMT", "Walmart Inc.", 2025, "2025-01-31"),
]
TEXTS = ["Net sales and capital expenditures for the year were reported in the segment note.",
         "Purchases of property and equipment, capital expenditures, rose in the year."]


def chunks() -> list[Chunk]:
    out = []
    for ticker, company, year, end in FILINGS:
        for i, text in enumerate(TEXTS):
            out.append(Chunk(chunk_id=f"{ticker}{year}{i}".ljust(32, "0"), ticker=ticker,
                             company=company, fiscal_year=year, period_end=end,
                             chunk_type="narrative", section="Item 7",
                             page=(1 if ticker == "AAPL" else 40) + i,  # META, WMT: none on p. 1
                             page_label=str(30 + i), text=f"{company} {text}",
                             filing_key=f"{ticker}{year}"))
    return out


@pytest.fixture
def index(data_dir, fake_embedder) -> Path:
    settings = Settings(data_dir=data_dir, qdrant_url=None)
    cs = chunks()
    write_generation(settings, "gen-000001", cs, fake_embedder.encode([c.text for c in cs]),
                     fake_embedder.name)
    publish(data_dir, "gen-000001")
    return data_dir


@pytest.fixture
def open_app(monkeypatch, index):
    """A factory: the app over `index` opened on a link (`?q=...&off=...`)."""
    monkeypatch.setenv("FINRAG_APP_EMBEDDER", "conftest:AppEmbedder")
    monkeypatch.setenv("FINRAG_DATA_DIR", str(index))
    monkeypatch.delenv("FINRAG_QDRANT_URL", raising=False)

    def make(**link) -> AppTest:
        searcher_for(index)
        at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
        at.query_params.update(link)
        at.run()
        assert not at.exception, at.exception
        return at

    return make


def searched_with(at: AppTest) -> str:
    return next(unescape(c.value) for c in at.caption
                if c.value.startswith("Answer, evidence and results searched with"))


def linked(at: AppTest, key: str) -> list[str]:
    """The link's values for `key` (AppTest keeps one value as a string)."""
    value = at.query_params.get(key, [])
    return [value] if isinstance(value, str) else list(value)


def tickers_shown(at: AppTest) -> set[str]:
    return {unescape(h).split()[0] for k in COLUMNS for h in hit_headers(at)[k]}


def test_a_removed_chip_goes_into_the_link_and_the_link_gives_the_same_page(open_app):
    at = open_app(q="Meta capital expenditures 2024")
    assert at.pills[0].value == ["META", "FY2024"]
    assert searched_with(at).endswith("META · FY2024 (read from the question: META · FY2024)")
    assert tickers_shown(at) == {"META"}
    at.pills[0].set_value(["FY2024"]).run()  # the META chip removed
    assert not at.exception
    assert linked(at, "off") == ["META"]  # the link says so
    assert searched_with(at).endswith("FY2024 (read from the question: FY2024)")
    shown = tickers_shown(at)
    assert shown == {"AAPL", "META"}  # every company's FY2024, answer and columns alike
    # the link, opened anew (a reload or a colleague), gives the same state
    again = open_app(q="Meta capital expenditures 2024", off="META")
    assert again.pills[0].value == ["FY2024"]
    assert searched_with(again) == searched_with(at)
    assert tickers_shown(again) == shown
    # a new question starts with all its chips again
    again.text_input(key="q").input("Meta net sales 2024").run()
    assert "off" not in again.query_params and again.pills[0].value == ["META", "FY2024"]


def test_the_ticker_list_matches_from_the_ticker_and_enter_takes_one(open_app):
    box = open_app().multiselect(key="ticker")
    assert box.options == ["AAPL · Apple Inc.", "META · Meta Platforms, Inc.",
                           "WMT · Walmart Inc."]  # each label leads with its ticker
    # typing "AAPL" matches labels from their start (not META's by fuzzy letters), and no
    # "Select 2 matches" row stands first for Enter to take (the browser test types it)
    assert box.proto.filter_mode == 2  # FILTER_MODE_PREFIX
    assert box.proto.select_all == 0


def test_coverage_gives_each_fiscal_year_the_day_it_ended(open_app):
    at = open_app()
    [table] = [e.value for e in at.get_by_key("coverage") if e.type == "dataframe"]
    assert list(table.columns) == ["Company", "Fiscal year", "Passages", "Tables"]
    assert list(zip(table["Company"], table["Fiscal year"])) == [
        ("AAPL · Apple Inc.", "FY2019 (Sep 28, 2019)"),
        ("AAPL · Apple Inc.", "FY2024 (Sep 28, 2024)"),
        ("META · Meta Platforms, Inc.", "FY2024 (Dec 31, 2024)"),
        ("WMT · Walmart Inc.", "FY2025 (Jan 31, 2025)")]
    assert list(table["Passages"]) == ["2"] * 4


def test_an_over_long_question_is_refused_with_a_message(open_app):
    at = open_app()
    at.text_input(key="q").input("revenue " * 375).run()  # 3,000 characters, as if pasted
    assert not at.exception
    said = [unescape(w.value) for w in at.warning]
    assert any("3,000 characters long" in w and "limited to 2,000" in w
               and "not searched" in w for w in said), said
    assert at.text_input(key="q").value == ("revenue " * 375)[:2000]  # kept to shorten
    with pytest.raises(KeyError):
        at.get_by_key("col-fused")
    assert all(len(q) <= 2000 for q in linked(at, "q"))


def test_a_sidebar_filter_that_excludes_the_year_asked_is_cleared_in_one_click(open_app):
    at = open_app(year="2019")
    at.text_input(key="q").input("Apple net sales 2024").run()
    panel = at.get_by_key("excluded-year")
    said = " ".join(unescape(w.value) for w in panel if getattr(w, "type", "") == "alert")
    assert "fiscal-year filter (2019) excludes fiscal 2024" in said or \
        any("(2019) excludes fiscal 2024" in unescape(w.value) for w in at.warning)
    assert {unescape(h).split()[1] for h in hit_headers(at)["col-fused"]} == {"FY2019"}
    at.button(key="clear-year").click().run()
    assert not at.exception
    assert at.multiselect(key="year").value == [] and "year" not in at.query_params
    assert {unescape(h).split()[1] for h in hit_headers(at)["col-fused"]} == {"FY2024"}
    with pytest.raises(KeyError):
        at.get_by_key("excluded-year")


def test_no_clear_button_when_the_filter_holds_what_was_asked(open_app):
    at = open_app(year="2024")
    at.text_input(key="q").input("Apple net sales 2024").run()
    assert not [b for b in at.button if b.key and b.key.startswith("clear-")]
    assert re.search(r"searched with: AAPL · FY2024", searched_with(at))


def test_a_company_not_indexed_gets_the_reason_and_no_other_companys_evidence(open_app):
    """"Microsoft revenue 2024" on an index without Microsoft: the reason lists the companies
    indexed, and no Apple or Meta sentence is offered as its best evidence (issue 36)."""
    at = open_app(q="Microsoft capital expenditures 2024")
    said = " ".join(unescape(i.value) for i in at.info)
    assert "names no indexed company" in said and "AAPL, META, WMT" in said
    assert "Best evidence" not in [h.value for h in at.subheader]
    assert [h.value for h in at.subheader][-3:] == ["Dense", "BM25", "Fused (RRF)"]  # still
    at = open_app(q="Meta capital expenditures 2024")  # a company indexed: its evidence
    assert "Best evidence" in [h.value for h in at.subheader]
