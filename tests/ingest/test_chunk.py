"""Chunking: narrative passages fit the model window; tables stay whole or split with headers."""

from finrag.embed import TokenCounter
from finrag.ingest.chunk import chunk_filing
from finrag.ingest.sections import Section
from finrag.models import Block, Filing

COUNT = TokenCounter().count


def _filing() -> Filing:
    return Filing(ticker="AAPL", cik="0000320193", company="Apple Inc.", fiscal_year=2023,
                  period_end="2023-09-30", accession="0000320193-23-000106", source="x.html")


def _chunks(blocks, item="Item 7", title="MD&A"):
    return chunk_filing(_filing(), [Section(item=item, title=title, blocks=blocks)], COUNT)


def test_long_narrative_is_split_and_every_chunk_fits_the_window():
    para = ("Net sales increased due to higher Services revenue, offset by lower iPhone "
            "sales of $1,577 million in fiscal 2023 compared with (1,577) a year ago. ") * 40
    chunks = _chunks([Block(kind="text", text=para), Block(kind="text", text="Short one.")])
    assert len(chunks) > 3
    assert max(COUNT([c.text for c in chunks])) <= 256
    joined = " ".join(c.text for c in chunks)
    assert joined.count("$1,577") == 40 and joined.count("(1,577)") == 40  # nothing lost
    assert {c.chunk_type for c in chunks} == {"narrative"}


def test_a_sentence_longer_than_the_window_is_split_between_words():
    words = " ".join(f"word{i}" for i in range(600))
    chunks = _chunks([Block(kind="text", text=words)])
    assert max(COUNT([c.text for c in chunks])) <= 256
    assert " ".join(c.text for c in chunks).split() == words.split()


def test_small_table_stays_whole_with_caption_and_readable_rows():
    rows = [["", "2023", "2022"], ["Net sales", "$383,285", "$394,328"],
            ["Cost of sales", "214,137", "223,546"]]
    blocks = [Block(kind="text", text="CONSOLIDATED STATEMENTS OF OPERATIONS"),
              Block(kind="table", text="", rows=rows, page=28)]
    chunks = _chunks(blocks, item="Item 8", title="Financial Statements")
    [table] = [c for c in chunks if c.chunk_type == "table"]
    assert table.text.splitlines() == ["CONSOLIDATED STATEMENTS OF OPERATIONS", "2023 | 2022",
                                       "Net sales | $383,285 | $394,328",
                                       "Cost of sales | 214,137 | 223,546"]
    assert table.table == rows and table.page == 28 and table.section == "Item 8"


def test_big_table_is_split_by_rows_with_the_header_repeated():
    rows = [["", "2024", "2023", "2022"]] + [
        [f"Line item number {i} of the statement", f"{i},100", f"({i},200)", f"{i},300"]
        for i in range(120)
    ]
    chunks = _chunks([Block(kind="table", text="", rows=rows)])
    assert len(chunks) > 1
    assert all(c.text.splitlines()[0] == "2024 | 2023 | 2022" for c in chunks)
    assert all(c.table[0] == rows[0] for c in chunks)
    assert max(COUNT([c.text for c in chunks])) <= 256
    body = [line for c in chunks for line in c.text.splitlines()[1:]]
    assert len(body) == 120  # every row once


def test_chunk_ids_are_stable_and_distinct():
    blocks = [Block(kind="text", text=f"Paragraph {i}. " * 30) for i in range(10)]
    a, b = _chunks(blocks), _chunks(blocks)
    assert [c.chunk_id for c in a] == [c.chunk_id for c in b]
    assert len({c.chunk_id for c in a}) == len(a)
    assert all(c.ticker == "AAPL" and c.fiscal_year == 2023 and c.section == "Item 7" for c in a)


def test_a_narrative_chunk_never_spans_two_pages():
    blocks = [Block(kind="text", text="Revenue grew on services.", page=40),
              Block(kind="text", text="NETFLIX, INC.", page=41),
              Block(kind="text", text="CONSOLIDATED BALANCE SHEETS", page=41),
              Block(kind="text", text="Cash and cash equivalents 1,809,330", page=41)]
    chunks = _chunks(blocks, item="Item 8")
    assert [(c.page, c.text.splitlines()[0]) for c in chunks] == [
        (40, "Revenue grew on services."), (41, "NETFLIX, INC.")]


def test_every_chunk_of_a_page_carries_the_title_the_page_opens_with():
    body = "Cash and cash equivalents 1,809,330 Short-term investments 501,385. " * 30
    blocks = [Block(kind="text", text="Table of Contents", page=42),
              Block(kind="text", text="NETFLIX, INC.", page=42),
              Block(kind="text", text="CONSOLIDATED BALANCE SHEETS (in thousands)", page=42),
              Block(kind="text", text=body, page=42),
              Block(kind="text", text=body, page=43)]  # a page that opens mid-statement
    chunks = _chunks(blocks, item="Item 8")
    on_42 = [c for c in chunks if c.page == 42]
    assert len(on_42) > 1
    assert {c.heading for c in on_42} == {
        "NETFLIX, INC. CONSOLIDATED BALANCE SHEETS (in thousands)"}
    assert {c.heading for c in chunks if c.page == 43} == {""}


# Home Depot's FY2024 10-K, p. 29 (MD&A, results of operations), rows as the HTML reader gives
# them: the year row lost its empty label cell, and the unit line carries a row label.
HD_HEAD = [["", "Fiscal", "Fiscal", "Fiscal", "", "", ""],
           ["2024", "2023", "2022", "", "", "", ""],
           ["dollars in millions", "$% of Net Sales", "$% of Net Sales", "$% of Net Sales",
            "", "", ""]]


def test_a_split_table_carries_its_period_rows_and_unit_line_to_every_part():
    body = [[f"Line item number {i} of the statement", f"{i},100", f"{i}.5", f"{i},300",
             f"{i}.1", f"{i},400", f"{i}.2"] for i in range(120)]
    chunks = _chunks([Block(kind="table", text="", rows=HD_HEAD + body)])
    assert len(chunks) > 1
    for c in chunks:
        assert c.table[:3] == HD_HEAD
        assert c.text.splitlines()[:3] == ["Fiscal | Fiscal | Fiscal", "2024 | 2023 | 2022",
                                           "dollars in millions | $% of Net Sales | "
                                           "$% of Net Sales | $% of Net Sales"]
