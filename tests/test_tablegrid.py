"""Table chunks shown as tables: periods as column labels, the unit line, CSV."""

from __future__ import annotations

import csv
import io

from finrag.tablegrid import header_rows, table_view

# Tesla FY2024 10-K, Note 17 (net income per share), rows as the reader gives them
TSLA_EPS = [["", "Year Ended December 31,", "", ""],
            ["", "2024", "2023", "2022"],
            [("Weighted average shares used in computing net income per share of common "
              "stock, basic"), "3,197", "3,174", "3,130"],
            ["Add:", "", "", ""],
            ["Stock-based awards", "(2)", "200", "345"]]
# Tesla FY2024 balance sheet heading: dates are periods, not figures
TSLA_BS = [["", "December 31, 2024", "December 31, 2023"],
           ["Assets", "", ""],
           ["Cash and cash equivalents", "$16,139", "$16,398"]]
# Home Depot FY2024, p. 29: two figures (dollars, % of sales) per fiscal year, three labels
HD_PAIRS = [["", "Fiscal", "Fiscal", "Fiscal", "", "", ""],
            ["2024", "2023", "2022", "", "", "", ""],
            ["dollars in millions", "$% of Net Sales", "$% of Net Sales", "$% of Net Sales",
             "", "", ""],
            ["Operating income", "21,526", "13.5", "21,689", "14.2", "24,039", "15.3"]]


def test_columns_are_labelled_by_period():
    view = table_view(TSLA_EPS)
    assert view.labelled
    assert view.columns == ["Line item", "Year Ended December 31, 2024", "2023", "2022"]
    assert view.rows[0][1:] == ["3,197", "3,174", "3,130"]
    assert view.numeric_columns() == view.columns[1:]


def test_a_date_heading_is_a_period_not_a_figure():
    assert header_rows(TSLA_BS) == 1
    view = table_view(TSLA_BS)
    assert view.columns[1:] == ["December 31, 2024", "December 31, 2023"]


def test_periods_that_do_not_match_the_figures_are_not_used_as_labels():
    view = table_view(HD_PAIRS)
    assert not view.labelled  # 3 labels over 6 columns of figures: shown as printed rows
    assert view.unit == "dollars in millions"
    assert ["", "2024", "2023", "2022", "", "", ""] in view.rows
    assert view.rows[-1] == HD_PAIRS[-1]


def test_the_unit_line_comes_from_the_caption_when_the_grid_has_none():
    view = table_view(TSLA_EPS, "Net income per share (in millions, except per share data)\nx")
    assert view.unit == "(in millions, except per share data)"


def test_csv_has_the_period_labels_and_every_figure():
    rows = list(csv.reader(io.StringIO(table_view(TSLA_EPS).csv())))
    assert rows[0] == ["Line item", "Year Ended December 31, 2024", "2023", "2022"]
    assert rows[-1] == ["Stock-based awards", "(2)", "200", "345"]
