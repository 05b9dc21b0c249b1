"""Export of the answer and the three lists (CSV, Markdown) and canary verdicts in words."""

from __future__ import annotations

import csv
import io

from finrag.answer import Answer
from finrag.canary import Canary, checked, seen
from finrag.export import table_csv, to_csv, to_markdown
from finrag.models import Chunk, Filters, Hit, SearchResult
from finrag.present import whole_table
from finrag.tablegrid import table_view

TSLA = Chunk(chunk_id="a" * 32, ticker="TSLA", company="Tesla, Inc.", cik="0001318605",
             fiscal_year=2024, chunk_type="narrative", section="Item 7", page=43, page_label="39",
             text="Research and development expense was $4,540 million in 2024. [x](javascript:1)")


def _result() -> SearchResult:
    dense = [Hit(chunk_id=TSLA.chunk_id, rank=1, score=0.8, chunk=TSLA)]
    fused = [Hit(chunk_id=TSLA.chunk_id, rank=1, score=0.03, chunk=TSLA, dense_rank=1,
                 bm25_rank=2)]
    return SearchResult(query="Tesla R&D", filters=Filters(), dense=dense, bm25=[], fused=fused)


CITE = {"ticker": "TSLA", "fiscal_year": 2024, "line_label": "Research and development",
        "statement": "income statement", "page": 52, "page_label": "48", "url": "https://x"}
RATIO = Answer(kind="computed", value=9.1934, unit="times", fiscal_year=2024,
               text="Inventory turnover was 9.19 times in fiscal 2024",
               formula="cost of sales / average inventories")


def test_csv_has_one_row_per_hit_with_a_citation_and_the_answer_first():
    cite = CITE
    answer = Answer(kind="stated", value=4540.0, unit="USD millions", fiscal_year=2024,
                    text="R&D was $4,540 million")
    rows = list(csv.DictReader(io.StringIO(to_csv(_result(), answer, [cite]))))
    assert [(r["list"], r["rank"]) for r in rows] == [("answer", "1"), ("fused", "1"),
                                                      ("dense", "1")]
    assert rows[0]["citation"].startswith("TSLA FY2024 · 'Research and development'")
    fused = next(r for r in rows if r["list"] == "fused")
    assert fused["citation"].startswith("Tesla, Inc. · TSLA · FY2024 · Item 7")
    assert "p. 39" in fused["citation"] and fused["why"] == "ranked #1 by dense and #2 by BM25"


def test_markdown_cites_every_hit_and_keeps_filing_text_as_text():
    md = to_markdown(_result())
    assert "## Fused (RRF)" in md and "## BM25" in md and "No results." in md
    assert md.count("Tesla, Inc. · TSLA · FY2024 · Item 7") == 2  # fused and dense
    assert "\\[x\\](javascript:1)" in md  # a link in the filing stays text


LONG = Chunk(chunk_id="b" * 32, ticker="TSLA", company="Tesla, Inc.", fiscal_year=2024,
             chunk_type="narrative", section="Item 7", page=44, page_label="40",
             text="Automotive revenue fell. " * 40 + "The last sentence is here.")
HEAD = [["", "Year Ended December 31,", "", ""], ["(in millions)", "2024", "2023", "2022"]]


def table_chunk(n: int, rows: list[list[str]]) -> Chunk:
    grid = HEAD + rows
    text = "\n".join(" | ".join(c for c in r if c.strip()) for r in grid)
    return Chunk(chunk_id=f"{n:032x}", ticker="TSLA", company="Tesla, Inc.", fiscal_year=2024,
                 chunk_type="table", section="Item 8", page=52, page_label="48", text=text,
                 table=grid, filing_key="TSLA2024")


PART1 = table_chunk(1, [["Automotive sales", "72,480", "78,509", "67,210"]])
PART2 = table_chunk(2, [["Energy generation and storage", "10,086", "6,035", "3,909"]])
OTHER = Chunk(chunk_id=f"{3:032x}", ticker="TSLA", fiscal_year=2024, chunk_type="narrative",
              page=52, text="Cost of revenues follows.", filing_key="TSLA2024")


class Pages:
    """An index that reads a filing's pages (finrag.index.Index.page_chunks)."""

    def page_chunks(self, filing_key, pages):
        return [PART1, PART2, OTHER]


def test_the_export_stands_alone_question_filters_answer_value_unit_formula():
    rows = list(csv.DictReader(io.StringIO(to_csv(_result(), RATIO, [CITE], "WMT · FY2025"))))
    assert all(r["question"] == "Tesla R&D" and r["filters"] == "WMT · FY2025" for r in rows)
    first = rows[0]
    assert (first["list"], first["value"], first["unit"], first["formula"]) == (
        "answer", "9.1934", "times", "cost of sales / average inventories")
    md = to_markdown(_result(), RATIO, [CITE], "WMT · FY2025")
    assert md.startswith("# Tesla R&D\n\nFilters: WMT · FY2025\n")
    assert "- Value: 9.1934 (times)" in md
    assert "- Formula: cost of sales / average inventories" in md  # issue 36: it was dropped
    assert "- Cited: TSLA FY2024 · 'Research and development' · income statement · p. 48" in md


def test_texts_are_exported_whole_not_cut():
    hit = Hit(chunk_id=LONG.chunk_id, rank=1, score=0.5, chunk=LONG)
    result = SearchResult(query="automotive", filters=Filters(), dense=[hit], bm25=[],
                          fused=[])
    [row] = [r for r in csv.DictReader(io.StringIO(to_csv(result))) if r["list"] == "dense"]
    assert row["text"].endswith("The last sentence is here.") and "…" not in row["text"]
    md = to_markdown(result)
    assert "The last sentence is here." in md and "…" not in md


def test_a_split_table_exports_whole_with_its_unit_line():
    whole = whole_table(Pages(), PART2)  # the second part of the page's table
    assert [r[0] for r in whole.rows] == ["Automotive sales", "Energy generation and storage"]
    assert whole.unit == "(in millions)"
    lines = table_csv(whole).splitlines()
    assert lines[0] == "Unit: (in millions)"
    assert lines[1] == 'Line item,"Year Ended December 31, 2024",2023,2022'
    assert lines[2:] == ['Automotive sales,"72,480","78,509","67,210"',
                         'Energy generation and storage,"10,086","6,035","3,909"']
    hit = Hit(chunk_id=PART2.chunk_id, rank=1, score=0.5, chunk=PART2)
    result = SearchResult(query="energy", filters=Filters(), dense=[], bm25=[], fused=[hit])
    tables = {PART2.chunk_id: whole}
    [row] = list(csv.DictReader(io.StringIO(to_csv(result, tables=tables))))
    assert row["unit"] == "(in millions)"
    assert row["text"].splitlines()[:3] == [
        "Unit: (in millions)", "Line item | Year Ended December 31, 2024 | 2023 | 2022",
        "Automotive sales | 72,480 | 78,509 | 67,210"]
    md = to_markdown(result, tables=tables)
    assert "   Unit: (in millions)" in md
    assert "   | Automotive sales | 72,480 | 78,509 | 67,210 |" in md
    assert "   | Energy generation and storage | 10,086 | 6,035 | 3,909 |" in md


def _on(page: int, n: int, rows: list[list[str]], head=HEAD) -> Chunk:
    grid = head + rows
    return table_chunk(n, rows).model_copy(update={"page": page, "table": grid})


class Book:
    """An index of a filing whose pages hold these chunks, in page order."""

    def __init__(self, pages: dict[int, list[Chunk]]):
        self.pages = pages

    def page_chunks(self, filing_key, pages):
        return [c for p in sorted(pages) for c in self.pages.get(p, [])]


def _note(page: int, n: int, text: str) -> Chunk:
    return Chunk(chunk_id=f"{n:032x}", ticker="TSLA", fiscal_year=2024, chunk_type="narrative",
                 page=page, text=text, filing_key="TSLA2024")


def test_a_table_continued_on_the_next_pages_exports_whole():
    """A table that ends page 52 and goes on at the top of pages 53 and 54 under the same
    heading rows is one table, from any of its parts; what follows it is not."""
    first = _on(52, 11, [["Automotive sales", "72,480", "78,509", "67,210"]])
    first = first.model_copy(update={"text": "Revenues by source\n" + first.text})  # its title
    second = _on(53, 12, [["Regulatory credits", "2,763", "1,790", "1,776"]])
    third = _on(54, 13, [["Services and other", "10,534", "8,319", "6,091"]])
    later = _on(54, 15, [["Leases", "1,200", "1,100", "1,000"]])  # after a paragraph
    book = Book({52: [_note(52, 10, "Revenues by source:"), first], 53: [second],
                 54: [third, _note(54, 14, "Leasing follows."), later],
                 55: [_note(55, 16, "Segments:"), _on(55, 17, [["Other", "1", "2", "3"]])]})
    lines = ["Automotive sales", "Regulatory credits", "Services and other"]
    for part in (first, second, third):
        assert [r[0] for r in whole_table(book, part).rows] == lines
    assert [r[0] for r in whole_table(book, later).rows] == ["Leases"]


def test_a_table_on_the_next_page_under_other_headings_is_another_table():
    first = _on(52, 11, [["Automotive sales", "72,480", "78,509", "67,210"]])
    other = _on(53, 12, [["Cash", "16,139", "16,398", ""]],
                head=[["", "December 31,", "", ""], ["(in millions)", "2024", "2023", ""]])
    book = Book({52: [first], 53: [other]})
    assert [r[0] for r in whole_table(book, first).rows] == ["Automotive sales"]
    assert [r[0] for r in whole_table(book, other).rows] == ["Cash"]


def test_a_statement_with_its_own_title_on_the_next_page_is_another_table():
    """The income statement ends page 52; page 53 opens with the comprehensive income statement
    under the same years: its title says it is another table. "(continued)" says it is not."""
    first = _on(52, 11, [["Net income", "7,091", "14,997", "12,587"]])
    titled = _on(53, 12, [["Comprehensive income", "7,100", "15,000", "12,600"]])
    other = titled.model_copy(update={
        "text": "Consolidated Statements of Comprehensive Income\n" + titled.text})
    assert [r[0] for r in whole_table(Book({52: [first], 53: [other]}), first).rows] == [
        "Net income"]
    more = titled.model_copy(update={"text": "Revenues (continued)\n" + titled.text})
    assert [r[0] for r in whole_table(Book({52: [first], 53: [more]}), first).rows] == [
        "Net income", "Comprehensive income"]


def test_a_table_alone_on_its_page_or_without_heading_rows_is_itself():
    assert whole_table(Book({PART1.page: [PART1]}), PART1).rows == table_view(
        PART1.table, PART1.text).rows


def test_a_canary_verdict_says_what_was_checked_and_what_was_seen():
    canary = Canary(name="t", query="Tesla R&D", tickers=["TSLA"],
                    expect={"ticker": "TSLA", "contains": ["research and development"]})
    assert checked(canary) == ("a hit in the fused top 3 of TSLA, containing "
                               "'research and development' (searched with ticker TSLA)")
    assert seen(_result().fused, canary.expect) == "fused #1: TSLA FY2024 Item 7 p. 39"
    assert seen([], canary.expect) == "no hits"
