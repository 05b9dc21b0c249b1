"""The page itself (finrag.pageview): a filing's page cut where ingest cuts it, sanitized, the
cited row or sentence marked; a missing file said in one line."""

from __future__ import annotations

from pathlib import Path

import lxml.html
import pytest

from finrag.models import Chunk
from finrag.pageview import PageUnavailable, page_html, page_view, resolve, text_page
from tests.conftest import FIXTURES, shared_path

TSLA = ("filings", "sec-edgar-filings", "TSLA", "10-K", "tsla-20241231", "primary-document.html")
INCOME = 52  # Tesla FY2024: the income statement, printed p. 49, is the file's 52nd page
RD_ROW = "Research and development | 4,540 | 3,969 | 3,075"


def text_of(html: str) -> str:
    return " ".join(lxml.html.fromstring(html).text_content().split())


def marked(html: str) -> list[str]:
    return [" ".join(m.text_content().split()) for m in lxml.html.fromstring(html).iter("mark")]


def marked_rows(html: str) -> list[str]:
    return [" ".join(" ".join(td.text_content() for td in tr).split())
            for tr in lxml.html.fromstring(html).iter("tr") if tr.find(".//mark") is not None]


def test_the_income_statement_page_with_its_row_marked():
    view = page_html(shared_path(*TSLA), INCOME, [RD_ROW])
    text = text_of(view.html)
    assert view.kind == "html" and view.marked == 1 and view.pages == 111
    assert "Consolidated Statements of Operations" in text
    assert "Consolidated Balance Sheets" not in text  # the page before stays out
    assert marked_rows(view.html) == ["Research and development 4,540 3,969 3,075"]
    assert "Research and development" in marked(view.html)


def test_a_label_printed_twice_marks_the_row_with_the_cited_figure():
    """'Automotive sales' heads a revenue row and a cost-of-revenues row: the figure decides."""
    view = page_html(shared_path(*TSLA), INCOME, ["Automotive sales | 61,870"])
    assert view.marked == 1
    [row] = marked_rows(view.html)
    assert "61,870" in row and "72,480" not in row


def test_a_row_not_on_the_page_marks_nothing():
    view = page_html(shared_path(*TSLA), INCOME, ["Goodwill | 244"])
    assert view.marked == 0 and "<mark" not in view.html


def write(tmp_path: Path, body: str, name: str = "doc.htm") -> Path:
    path = tmp_path / name
    path.write_text(f"<html><head><title>t</title></head><body>{body}</body></html>")
    return path


BREAK = '<div style="page-break-after: always"></div>'


def test_pages_are_cut_at_the_breaks_and_an_empty_stretch_is_no_page(tmp_path):
    path = write(tmp_path, f"<p>one</p>{BREAK}{BREAK}<div><p>two</p>{BREAK}</div><p>three</p>"
                           f"{BREAK}<p>&#160;</p>")
    texts = [text_of(page_html(path, n).html) for n in (1, 2, 3)]
    assert texts == ["one", "two", "three"]
    assert page_html(path, 1).pages == 3


def test_hr_breaks_pages_only_where_no_break_is_styled(tmp_path):
    path = write(tmp_path, "<p>one</p><hr><p>two</p>")
    assert text_of(page_html(path, 2).html) == "two"
    styled = write(tmp_path, f"<p>one</p><hr><p>two</p>{BREAK}<p>three</p>", "styled.htm")
    assert text_of(page_html(styled, 1).html) == "onetwo"  # one page: <p>one</p><hr><p>two</p>


HOSTILE = (
    '<div style="display:none"><ix:header>hidden facts</ix:header></div>'
    "<p>Cover</p>" + BREAK +
    '<style>body {display:none}</style><link rel="stylesheet" href="http://evil/x.css">'
    '<script>alert(1)</script><p onclick="alert(2)" style="position:fixed;top:0;'
    'background:url(http://evil/bg.png);font-weight:bold">Net sales rose.</p>'
    '<img src="http://evil/p.png" onerror="alert(3)"><iframe src="http://evil/"></iframe>'
    '<a href="javascript:alert(4)">link text</a><svg><script>alert(5)</script></svg>'
    '<table><tr><td style="width:50%;color:red;behavior:url(x.htc)">Revenue</td>'
    "<td>1,577</td></tr></table><!-- comment -->"
    '<form action="http://evil"><input value="x"></form><object data="http://evil"></object>'
)


def test_a_hostile_page_reaches_the_output_inert(tmp_path):
    view = page_html(write(tmp_path, HOSTILE), 2, ["Revenue | 1,577"])
    low = view.html.lower()
    for bad in ("<script", "alert(", "onclick", "onerror", "http://evil", "javascript:",
                "position", "url(", "<iframe", "<style", "<link", "<svg", "<form", "<input",
                "<object", "behavior", "<!--", "<img", "href", "display"):
        assert bad not in low, bad
    text = text_of(view.html)
    assert "Net sales rose." in text and "link text" in text and "[image]" in text
    assert "hidden facts" not in text_of(page_html(write(tmp_path, HOSTILE, "b.htm"), 1).html)
    assert "font-weight:bold" in view.html and "width:50%" in view.html  # plain styles stay
    assert view.marked == 1


def test_a_sentence_is_marked_exactly_where_one_text_holds_it(tmp_path):
    path = write(tmp_path, "<p>Revenue grew. Costs rose because of tariffs and freight. "
                           "Margins fell.</p>")
    view = page_html(path, 1, ["Costs rose because of tariffs and freight."])
    assert marked(view.html) == ["Costs rose because of tariffs and freight."]
    assert text_of(view.html).startswith("Revenue grew. Costs rose")


def test_a_sentence_across_tags_marks_its_paragraph(tmp_path):
    path = write(tmp_path, "<div><p>Other.</p><p>Net sales <b>rose 5%</b> in fiscal 2024.</p>"
                           "</div>")
    view = page_html(path, 1, ["Net sales rose 5% in fiscal 2024."])
    assert marked(view.html) == ["Net sales rose 5% in fiscal 2024."]


def test_a_page_past_the_end_says_the_file_changed(tmp_path):
    path = write(tmp_path, f"<p>one</p>{BREAK}<p>two</p>")
    with pytest.raises(PageUnavailable, match="has 2 pages now.*re-ingest"):
        page_html(path, 7)


def test_a_missing_file_says_what_and_the_fix(tmp_path):
    chunk = Chunk(chunk_id="c", ticker="TSLA", fiscal_year=2024, chunk_type="table", text="x",
                  page=3, source=str(tmp_path / "gone" / "primary-document.html"))
    with pytest.raises(PageUnavailable) as err:
        page_view(chunk, [])
    message = str(err.value)
    assert "gone/primary-document.html" in message and "re-ingest" in message
    assert "\n" not in message


def test_a_relative_source_is_found_under_the_data_dirs_parent(tmp_path, monkeypatch):
    path = write(tmp_path, "<p>x</p>")
    monkeypatch.chdir(FIXTURES)
    assert resolve("doc.htm", (tmp_path,)) == tmp_path / "doc.htm"
    assert resolve(str(path)) == path


def test_a_chunk_without_a_page_says_there_is_none():
    chunk = Chunk(chunk_id="c", ticker="AAPL", fiscal_year=1996, chunk_type="narrative",
                  text="x", page=None, source="whatever.txt")
    with pytest.raises(PageUnavailable, match="no page breaks"):
        page_view(chunk, [])


def test_a_pdf_page_is_its_text_with_the_cited_line_marked():
    pdf = FIXTURES / "ingest" / "pdf" / "medicis-10-k-1999-pages-1-8.pdf"
    first = page_html(pdf, 1)
    assert first.kind == "pdf" and first.pages == 8 and "<pre>" in first.html
    lines = lxml.html.fromstring(first.html).text_content().splitlines()
    words = " ".join(next(x for x in lines if len(x.split()) > 3).split())
    view = page_html(pdf, 1, [words])
    assert view.marked >= 1 and words.split()[0] in " ".join(marked(view.html))


def test_a_text_filings_page_comes_from_its_passages_escaped_and_marked():
    chunks = [
        Chunk(chunk_id="a", ticker="AAPL", fiscal_year=2023, chunk_type="narrative", page=28,
              text="Net sales rose. <b>Services</b> grew 9%."),
        Chunk(chunk_id="b", ticker="AAPL", fiscal_year=2023, chunk_type="table", page=28,
              text="Net sales | 383,285", table=[["", "2023"], ["Net sales", "383,285"],
                                                 ["Cost of sales", "214,137"]]),
    ]
    view = text_page(chunks, 28, ["Net sales | 383,285", "Net sales rose."])
    assert view.kind == "text" and view.marked == 2
    assert "<b>" not in view.html and "&lt;b&gt;Services" in view.html
    assert marked_rows(view.html) == ["Net sales 383,285"]


@pytest.mark.slow
def test_every_page_is_the_page_ingest_numbered():
    """Congruence with the reader: as many pages, and each text block ingest read on page n is
    on the page the view cuts as n (white space aside)."""
    from finrag.ingest.read import read_filing

    path = shared_path(*TSLA)
    filing = read_filing(path.parent)
    pages = max(b.page for b in filing.blocks)
    assert page_html(path, 1).pages == pages
    cut = {n: "".join(text_of(page_html(path, n).html).split()) for n in range(1, pages + 1)}
    missing = [(b.page, b.text[:40]) for b in filing.blocks
               if b.kind == "text" and "".join(b.text.split()) not in cut[b.page]]
    assert missing == []
