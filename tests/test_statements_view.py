"""A filing's statements from its facts (finrag.statements_view): columns the fiscal years it
prints, rows in the order printed, each with its page."""

from __future__ import annotations

import pytest

from finrag.facts import Fact
from finrag.statements_view import filing_choices, filing_statements, statement_table
from tests.conftest import shared_path


def fact(label: str, year: int, value: float, *, statement: str = "income", page: int = 52,
         concept: str | None = None, unit: str = "USD millions", printed: str | None = None,
         start: bool = True, dims: list[str] | None = None) -> Fact:
    return Fact(ticker="TSLA", fiscal_year=2024, filing_key="k", source="xbrl", concept=concept,
                dims=dims or [], line_label=label, statement=statement,
                period_start=f"{year}-01-01" if start else None, period_end=f"{year}-12-31",
                period_fiscal_year=year, value=value, unit=unit, page=page, page_label="49",
                chunk_id=f"chunk-{page}", printed=printed)


def years(label: str, values: dict[int, float], **kw) -> list[Fact]:
    return [fact(label, y, v, **kw) for y, v in values.items()]


def test_rows_in_printed_order_columns_latest_first_values_as_printed():
    facts = [*years("Total revenues", {2024: 97690, 2023: 96773, 2022: 81462}),
             fact("Interest expense", 2024, 350, printed="(350)"),
             fact("Interest expense", 2023, 156, printed="(156)"),
             fact("Net income", 2022, 12587, printed="$12,587"),
             fact("Net income", 2024, 7153), fact("Net income", 2023, -5.5)]
    table = statement_table(facts, "income", "Income statement")
    assert table.header() == ["Line", "FY2024", "FY2023", "FY2022"]
    assert table.unit == "USD millions" and table.pages == [(52, "49")]
    assert table.grid() == [["Total revenues", "97,690", "96,773", "81,462"],
                            ["Interest expense", "(350)", "(156)", ""],
                            ["Net income", "7,153", "(5.50)", "12,587"]]
    assert table.rows[1].mark() == "Interest expense | (350) | (156)"
    assert table.rows[0].chunk_id == "chunk-52"


def test_a_label_printed_again_is_a_row_of_its_own():
    """Tesla prints 'Automotive sales' under revenues and again under cost of revenues."""
    facts = [*years("Automotive sales", {2024: 72480, 2023: 78509}, concept="us-gaap:Revenues"),
             *years("Total revenues", {2024: 97690, 2023: 96773}),
             *years("Automotive sales", {2024: 61870, 2023: 65121},
                    concept="us-gaap:CostOfRevenue"),
             *years("Other", {2024: 1, 2023: 2}), *years("Other", {2024: 3, 2023: 4})]
    rows = statement_table(facts, "income", "Income statement").grid()
    assert [r[0] for r in rows] == ["Automotive sales", "Total revenues", "Automotive sales",
                                    "Other", "Other"]
    assert rows[2][1:] == ["61,870", "65,121"] and rows[4][1:] == ["3", "4"]


def test_other_units_are_named_and_a_labels_own_figures_left_out():
    facts = [*years("Total assets", {2024: 122070, 2023: 106618}, statement="balance",
                    start=False),
             *years("Common stock; $0.001 par value; 6,000 shares authorized",
                    {2024: 3, 2023: 3}, statement="balance", start=False),
             *years("Common stock; $0.001 par value; 6,000 shares authorized",
                    {2024: 6000, 2023: 6000}, statement="balance", start=False,
                    unit="shares millions"),
             *years("Basic", {2024: 2.23, 2023: 4.73}, statement="balance", start=False,
                    unit="USD per share")]
    table = statement_table(facts, "balance", "Balance sheet")
    assert table.columns == ["2024-12-31", "2023-12-31"]
    assert [r[0] for r in table.grid()] == [
        "Total assets", "Common stock; $0.001 par value; 6,000 shares authorized",
        "Basic (USD per share)"]


def test_opening_cash_sits_under_the_year_it_opens_and_a_notes_repeat_stays_out():
    facts = [*years("Net income", {2024: 7153, 2023: 14974, 2022: 12587},
                    statement="cash_flow", page=55),
             *years("Cash, beginning of period", {2023: 17189, 2022: 16924, 2021: 18144},
                    statement="cash_flow", page=55, start=False),
             *years("Cash, end of period", {2024: 17037, 2023: 17189, 2022: 16924},
                    statement="cash_flow", page=55, start=False),
             *[f for n in range(3) for f in years(f"Line {n}", {2024: n, 2023: n, 2022: n},
                                                  statement="cash_flow", page=55)],
             fact("Net income", 2024, 7153, statement="cash_flow", page=90)]
    table = statement_table(facts, "cash_flow", "Cash flow statement")
    assert table.columns == ["FY2024", "FY2023", "FY2022"]  # 2021's one balance is no column
    assert table.grid()[:3] == [["Net income", "7,153", "14,974", "12,587"],
                                ["Cash, beginning of period", "17,189", "16,924", "18,144"],
                                ["Cash, end of period", "17,037", "17,189", "16,924"]]
    assert len(table.rows) == 6  # the note's repeat on page 90 stays out
    assert table.pages == [(55, "49")]


def test_no_facts_no_table():
    assert statement_table([], "income", "Income statement").rows == []


class FakeIndex:
    def __init__(self, filings: dict, facts: dict) -> None:
        self._filings, self._facts = filings, facts

    def filings(self) -> dict:
        return self._filings

    def filing_facts(self, keys) -> dict:
        return {k: self._facts[k] for k in keys if k in self._facts}


def test_the_picker_names_each_filing_by_ticker_and_year():
    index = FakeIndex({"b": {"ticker": "TSLA", "fiscal_year": 2024, "source": "t.htm"},
                       "a": {"ticker": "AAPL", "fiscal_year": 2024, "source": "a.htm"},
                       "c": {"ticker": "TSLA", "fiscal_year": 2024, "source": "t2.htm"}}, {})
    assert list(filing_choices(index)) == ["AAPL FY2024", "TSLA FY2024", "TSLA FY2024 (c)"]
    assert filing_statements(index, "a") == []


@pytest.mark.slow
def test_tesla_fy2024_three_statements_from_the_real_filing():
    """Tesla's FY2024 10-K read by ingest: the three statements as printed on pp. 48, 49, 52
    (the file's pages 51, 52, 55; page labels come when facts are tied to chunks)."""
    from finrag.ingest.facts import read_facts
    from finrag.ingest.read import read_filing

    filing = read_filing(shared_path("filings", "sec-edgar-filings", "TSLA", "10-K",
                                     "tsla-20241231"))
    index = FakeIndex({}, {"k": read_facts(filing)})
    income, balance, cash = filing_statements(index, "k")
    assert (income.title, balance.title, cash.title) == (
        "Income statement", "Balance sheet", "Cash flow statement")
    rows = {r[0]: r[1:] for r in income.grid()}
    assert income.columns == ["FY2024", "FY2023", "FY2022"]
    assert rows["Research and development"] == ["4,540", "3,969", "3,075"]
    assert rows["Net income"] == ["7,153", "14,974", "12,587"]
    assert income.grid()[0][0] == "Automotive sales" and income.pages[0][0] == 52
    assert balance.columns == ["2024-12-31", "2023-12-31"] and balance.pages[0][0] == 51
    assert {r[0]: r[1:] for r in balance.grid()}["Total assets"] == ["122,070", "106,618"]
    cash_rows = {r[0]: r[1:] for r in cash.grid()}
    assert cash_rows["Cash and cash equivalents and restricted cash, beginning of period"] == [
        "17,189", "16,924", "18,144"]
    assert cash.pages[0][0] == 55
