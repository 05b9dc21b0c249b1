"""Table cells read into the columns they are printed in (finrag/ingest/read/columns.py).

A 10-K's HTML table prints a figure as several cells ("$", "1,577", ")") under a heading that
spans them; a row that leaves a column blank has fewer filled cells. Read row by row, compacted,
such a row's figures slide left under the wrong period heading: a wrong figure for that period.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import lxml.html
import pytest

from finrag.ingest.read import table_grid

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ingest"
SHARED = Path(os.environ.get("FINRAG_SHARED_DATA")
              or Path(__file__).resolve().parents[2].parent / "shared" / "data")
AAPL_2024 = FIXTURES / "sec-edgar-filings/AAPL/10-K/0000320193-24-000123/primary-document.html.gz"
NFLX_2024 = SHARED / "filings/sec-edgar-filings/NFLX/10-K/nflx-20241231/primary-document.html"


def grid(html: str) -> list[list[str]]:
    return table_grid(lxml.html.fromstring(html))


def tables(raw: bytes) -> list[list[list[str]]]:
    return [table_grid(t) for t in lxml.html.fromstring(raw).iter("table")]


def column(rows: list[list[str]], heading: str, header_row: int) -> int:
    return rows[header_row].index(heading)


# A layout in the way SEC filers print it: each period heading spans the "$", the figure and
# the ")" cells; "Change" between the years spans the change's cells. The margin row leaves the
# change blank, as a ratio row does.
SPLIT = """<table>
<tr><td></td><td colspan="3">2024</td><td colspan="3">Change</td><td colspan="3">2023</td></tr>
<tr><td>Revenue</td><td>$</td><td>1,577</td><td></td><td>$</td><td>177</td><td></td>
    <td>$</td><td>1,400</td><td></td></tr>
<tr><td>Gross margin</td><td></td><td>41</td><td>%</td><td></td><td></td><td></td>
    <td></td><td>39</td><td>%</td></tr>
<tr><td>Net loss</td><td>$</td><td>(12</td><td>)</td><td></td><td></td><td></td>
    <td>$</td><td>(3</td><td>)</td></tr>
</table>"""


def test_each_figure_sits_under_the_heading_that_spans_its_cells():
    rows = grid(SPLIT)
    assert rows[0] == ["", "2024", "Change", "2023"]
    assert rows[1] == ["Revenue", "$1,577", "$177", "$1,400"]


def test_a_row_with_a_blank_column_keeps_its_figures_under_their_periods():
    """Compacted, 2023's margin (39%) and net loss would sit under "Change"."""
    rows = grid(SPLIT)
    assert rows[2] == ["Gross margin", "41%", "", "39%"]
    assert rows[3] == ["Net loss", "$(12)", "", "$(3)"]


def test_a_cell_spanning_rows_pushes_the_cells_beside_it_right():
    rows = grid("""<table>
    <tr><td rowspan="2">Segment</td><td colspan="2">Revenue</td></tr>
    <tr><td>2024</td><td>2023</td></tr>
    <tr><td>Americas</td><td>167,045</td><td>162,560</td></tr></table>""")
    assert rows[1] == ["", "2024", "2023"]
    assert rows[2] == ["Americas", "167,045", "162,560"]


def test_positions_that_cannot_place_every_cell_fall_back_to_the_printed_rows():
    """Two filled cells of one row over one column of figures: no guess, rows as printed."""
    rows = grid("""<table>
    <tr><td>Total</td><td colspan="2">1,000</td></tr>
    <tr><td>Part</td><td>400</td><td>600</td></tr></table>""")
    assert rows == [["Total", "1,000", ""], ["Part", "400", "600"]]


@pytest.mark.parametrize("span", ["0", "-3", "x", "\u00b2", "99999"])
def test_a_colspan_out_of_range_is_read_without_error(span):
    rows = grid(f'<table><tr><td colspan="{span}">Cash</td><td>16,139</td></tr></table>')
    assert rows == [["Cash", "16,139"]]


def test_a_footnote_row_does_not_turn_column_placement_off():
    """"(1)" is a footnote marker, not a figure: its row's wide text cell must not join the
    figure columns into one (which sent the whole table back to compacted rows)."""
    rows = grid("""<table>
    <tr><td></td><td colspan="2">2024</td><td></td><td colspan="2">2023</td></tr>
    <tr><td>Revenue</td><td>$</td><td>100</td><td></td><td>$</td><td>90</td></tr>
    <tr><td>Margin</td><td></td><td></td><td></td><td></td><td>39%</td></tr>
    <tr><td>(1)</td><td colspan="5">Restated for the change in accounting.</td></tr>
    </table>""")
    assert rows[2] == ["Margin", "", "39%"]  # 2023's, not under 2024
    assert rows[0] == ["", "2024", "2023"]


def test_apple_2024_ratio_rows_and_totals_sit_under_their_years():
    """Apple FY2024: "Percentage of total net sales" leaves the Change columns blank, and
    "Total right-of-use assets" leaves the line-item column blank; read row by row, 2023's
    7% showed under "Change" and $11,303 under "Financial Statement Line Items"."""
    found = tables(gzip.decompress(AAPL_2024.read_bytes()))
    heading = ["", "2024", "Change", "2023", "Change", "2022"]
    opex = next(t for t in found if len(t) > 2 and t[0] == heading
                and t[1][0] == "Research and development")
    assert opex[2] == ["Percentage of total net sales", "8%", "", "8%", "", "7%"]
    leases = next(t for t in found if t and t[0][0] == "Lease-Related Assets and Liabilities")
    total = next(r for r in leases if r[0] == "Total right-of-use assets")
    assert total[column(leases, "2024", 0)] == "$11,303"
    assert total[column(leases, "2023", 0)] == "$11,676"


def test_netflix_2024_change_heading_sits_over_the_change_column():
    if not NFLX_2024.exists():
        pytest.skip(f"needs {NFLX_2024} (the shared data set beside the repo)")
    found = tables(NFLX_2024.read_bytes())
    segment = next(t for t in found if len(t) > 3 and t[1][1:4] == ["2024", "2023", "2022"]
                   and "2024 vs. 2023" in t[1] and t[3][0] == "Streaming revenues")
    change = column(segment, "2024 vs. 2023", 1)
    assert segment[0][change] == "Change"
    assert segment[0][column(segment, "2023", 1)] == ""
