"""The securities a 10-K's cover registers under Section 12(b), read from real covers (HTML rows
and PDF text that runs the rows together) and answered through `ask`."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import shared_path

from finrag.cover import ALL, DEBT, EQUITY, asks, registered
from finrag.models import Chunk, Filters
from finrag.narrate import registered as answer

HEAD = ("Securities registered pursuant to Section 12(b) of the Act:\nTitle of each class "
        "Trading Symbol(s) Name of each exchange on which registered\n")


def _first_pages_pdf(name: str, tmp_path: Path) -> Path:
    """The first two pages of a FinanceBench 10-K PDF (reading all of one takes ~25 s)."""
    from pypdf import PdfReader, PdfWriter

    reader, writer = PdfReader(shared_path("financebench", "pdfs", name)), PdfWriter()
    for page in reader.pages[:2]:
        writer.add_page(page)
    out = tmp_path / name
    with out.open("wb") as f:
        writer.write(f)
    return out


def _cover_text(unit: Path) -> str:
    from finrag.ingest.read.filing import read_filing

    filing = read_filing(unit, ticker="X", fiscal_year=2022)
    return "\n".join(b.text for b in filing.blocks if b.page in (1, 2))


def test_an_html_cover_gives_each_row_its_title_symbol_and_exchange():
    ko = shared_path("filings", "sec-edgar-filings", "KO", "10-K", "0000021344-25-000011")
    found = registered(_cover_text(ko))
    assert found[0].title == "Common Stock, $0.25 Par Value" and found[0].symbol == "KO"
    notes = [s for s in found if s.debt]
    assert len(notes) == 18 and len(found) == 19
    assert (notes[0].title, notes[0].symbol, notes[0].exchanges) == (
        "1.875% Notes Due 2026", "KO26", ("New York Stock Exchange",))
    assert notes[-1].title == "3.750% Notes Due 2053"


@pytest.mark.parametrize("pdf, notes, symbols", [
    # the rows run together in the PDF's text: title, symbol, exchange, title, ...
    ("3M_2022_10K.pdf", ["0.950% Notes due 2023", "1.500% Notes due 2026",
                         "1.750% Notes due 2030", "1.500% Notes due 2031"],
     ["MMM23", "MMM26", "MMM30", "MMM31"]),
    # printed in columns: every title, then every exchange; the titles are still the answer
    ("3M_2018_10K.pdf", ["1.500% Notes due 2026", "Floating Rate Notes due 2020",
                         "0.375% Notes due 2022", "0.950% Notes due 2023",
                         "1.750% Notes due 2030", "1.500% Notes due 2031"], [""] * 6),
    ("ADOBE_2022_10K.pdf", [], []),  # common stock only
])
def test_a_pdf_cover_gives_its_notes(pdf, notes, symbols, tmp_path):
    found = registered(_cover_text(_first_pages_pdf(pdf, tmp_path)))
    debt = [s for s in found if s.debt]
    assert [s.title for s in debt] == notes
    assert [s.symbol for s in debt] == symbols
    assert any("Common Stock" in s.title for s in found)
    if pdf == "3M_2018_10K.pdf":  # columns cannot be paired: no exchange is guessed
        assert all(s.exchanges == () for s in found)


def test_a_rate_inside_a_depositary_share_is_not_a_row_of_its_own():
    text = ("Securities registered pursuant to Section 12(b) of the Act:\nTitle of each class "
            "Trading Symbol(s) Name of each exchange on which registered\nCommon Stock, $5.00 "
            "Par Value BA New York Stock Exchange\nDepositary Shares, each representing a 1/20th "
            "interest in a share of 6.00% Series A Mandatory Convertible Preferred Stock, $1.00 "
            "Par Value BA-PRA New York Stock Exchange\nSecurities registered pursuant to "
            "Section 12(g) of the Act: None")
    found = registered(text)
    assert [s.symbol for s in found] == ["BA", "BA-PRA"]
    assert not any(s.debt for s in found)  # a preferred is not debt
    assert found[1].title.endswith("Preferred Stock, $1.00 Par Value")


def test_a_row_no_title_pattern_knows_and_a_second_exchange_are_read():
    """Wells Fargo's guarantee of a subsidiary's notes follows the exchange of the row before
    it; 3M's common stock is listed on two exchanges, its symbol printed again for each; a
    long table goes on under a "(continued)" header."""
    wfc = registered(
        "Securities registered pursuant to Section 12(b) of the Act: Title of Each Class Trading "
        "Symbols Name of Each Exchange on Which Registered Common Stock, par value $1-2/3 WFC New "
        "York Stock Exchange ( NYSE ) Depositary Shares, each representing a 1/1000th interest in "
        "a share of Non-Cumulative Perpetual Class A Preferred Stock, Series DD WFC.PRD NYSE "
        "Guarantee of Medium-Term Notes, Series A, due October 30, 2028 of Wells Fargo Finance "
        "LLC WFC/28A NYSE Indicate by check mark if the registrant is a well-known seasoned "
        "issuer")
    assert [(s.symbol, s.debt) for s in wfc] == [("WFC", False), ("WFC.PRD", False),
                                                 ("WFC/28A", True)]
    mmm = registered(
        HEAD + "Common Stock, Par Value $.01 Per Share MMM New York Stock Exchange MMM Chicago "
        "Stock Exchange, Inc. 0.950% Notes due 2023 MMM23 New York Stock Exchange Securities "
        "registered pursuant to Section 12(b) of the Act (continued): Title of each class "
        "Trading Symbol(s) Name of each exchange on which registered 1.500% Notes due 2026 "
        "MMM26 New York Stock Exchange")
    assert [s.title for s in mmm] == ["Common Stock, Par Value $.01 Per Share",
                                      "0.950% Notes due 2023", "1.500% Notes due 2026"]
    assert mmm[0].exchanges == ("New York Stock Exchange", "Chicago Stock Exchange, Inc.")


def test_no_table_is_none_and_a_table_saying_none_is_empty():
    assert registered("We design, develop and sell electric vehicles.") is None
    assert registered("Securities registered pursuant to Section 12(b) of the Act: None "
                      "Securities registered pursuant to Section 12(g) of the Act: Common "
                      "Stock") == []
    # the check-box line later on the cover is not the table
    assert registered("If securities are registered pursuant to Section 12(b) of the Act, "
                      "indicate by check mark whether the financial statements ...") is None


@pytest.mark.parametrize("question, which", [
    ("Which debt securities are registered to trade on a national securities exchange under "
     "3M's name as of FY2022?", DEBT),
    ("Does Apple have any notes listed on Nasdaq?", DEBT),
    ("On which exchange is Nike's stock listed?", EQUITY),
    ("What securities are registered under Section 12(b)?", ALL),
    ("What is MGM's trading symbol?", ALL),
    ("How did foreign exchange rates affect Coca-Cola's revenue?", None),
    ("What was the effect of the foreign exchange on traded goods?", None),
    ("Is the registered public accounting firm independent?", None),
    ("How many shares were traded?", None),
    ("How many registered holders of common stock did Apple have?", None),
    ("What is the fair value of 3M's exchange-traded derivatives?", None),
    ("Which equity securities are registered under Section 12(b)?", EQUITY),
])
def test_which_questions_ask_for_the_registered_securities(question, which):
    assert asks(question) == which


def _cover_chunk(text: str, n: int = 1) -> Chunk:
    return Chunk(chunk_id=f"{n:x}" * 32, ticker="KO", company="COCA COLA CO", fiscal_year=2024,
                 chunk_type="narrative", section="Cover", page=1, page_label=None,
                 filing_key="KO:2024:10-K", text=text)


def test_the_answer_quotes_each_row_from_the_chunk_printing_it():
    first = _cover_chunk(HEAD + "Common Stock, $0.25 Par Value KO New York Stock Exchange\n"
                         "1.875% Notes Due 2026 KO26 New York Stock Exchange", 1)
    second = _cover_chunk("0.750% Notes Due 2026 KO26C New York Stock Exchange\n"
                          "Securities registered pursuant to Section 12(g) of the Act: None", 2)
    out = answer(DEBT, [first, second], "Coca-Cola")
    a = out.answer
    assert a.kind == "passage" and a.verdict is None
    assert [s["text"] for s in a.sentences] == [
        "1.875% Notes Due 2026 KO26 New York Stock Exchange",
        "0.750% Notes Due 2026 KO26C New York Stock Exchange"]
    assert [s["citation"]["chunk_id"] for s in a.sentences] == [first.chunk_id, second.chunk_id]
    assert a.text.startswith("Registered under Section 12(b) \u2014 Coca-Cola's FY2024 10-K "
                             "lists 2 debt securities")


def test_a_cover_with_stock_only_answers_none_with_what_it_registers():
    out = answer(DEBT, [_cover_chunk(HEAD + "Common Stock, $0.0001 par value per share ADBE "
                                     "NASDAQ Securities registered pursuant to Section 12(g) of "
                                     "the Act: None")], "Adobe")
    assert out.answer.verdict == "none"
    assert out.answer.text.startswith("None \u2014 Adobe's FY2024 10-K registers no debt "
                                      "securities")
    assert [s["text"] for s in out.answer.sentences] == [
        "Common Stock, $0.0001 par value per share ADBE NASDAQ"]
    assert answer(DEBT, [_cover_chunk("Item 1. Business. We sell beverages.")], "KO") is None


def test_ask_answers_from_the_cover_of_the_filing_search_found(data_dir, fake_embedder):
    """The cover is read from the first pages of the filing the passages come from, whichever
    of its chunks search ranked first."""
    from conftest import searcher_over

    from finrag.ask import ask, ask_json

    cover = _cover_chunk(HEAD + "Common Stock, $0.25 Par Value KO New York Stock Exchange\n"
                         "1.875% Notes Due 2026 KO26 New York Stock Exchange\n"
                         "Securities registered pursuant to Section 12(g) of the Act: None", 1)
    debt = Chunk(chunk_id="e" * 32, ticker="KO", company="COCA COLA CO", fiscal_year=2024,
                 chunk_type="narrative", section="Item 7", page=50, filing_key="KO:2024:10-K",
                 text="Our debt securities registered with the SEC include notes issued in "
                      "euros; we trade notes on a national securities exchange.")
    searcher = searcher_over(data_dir, fake_embedder, [cover, debt])
    try:
        question = ("Which debt securities are registered to trade on a national securities "
                    "exchange under Coca-Cola's name?")
        asked = ask(searcher, question, Filters(tickers=["KO"]))
        shape = ask_json(asked, [])["answer"]
        assert shape["kind"] == "passage"
        assert [s["text"] for s in shape["sentences"]] == [
            "1.875% Notes Due 2026 KO26 New York Stock Exchange"]
        assert shape["sentences"][0]["citation"]["page"] == 1
    finally:
        searcher.close()


def test_a_question_about_registered_securities_lifts_the_cover(data_dir, fake_embedder):
    from conftest import searcher_over

    cover = _cover_chunk(HEAD + "Common Stock, $0.25 Par Value KO New York Stock Exchange", 1)
    notes = Chunk(chunk_id="e" * 32, ticker="KO", fiscal_year=2024, chunk_type="narrative",
                  section="Item 8", page=90, filing_key="KO:2024:10-K",
                  text="Debt securities: notes registered and traded on the exchange, "
                       "registered notes trade on a national securities exchange.")
    searcher = searcher_over(data_dir, fake_embedder, [cover, notes])
    try:
        question = "Which debt securities are registered to trade on a national exchange?"
        plain = searcher.search(question, top_k=2, route=False, expand=False)
        routed = searcher.search(question, top_k=2, expand=False)
    finally:
        searcher.close()
    assert [h.chunk.page for h in plain.fused] == [90, 1]
    assert routed.routed == ["Cover"]
    assert [h.chunk.page for h in routed.fused] == [1, 90]


def test_a_yes_or_no_question_about_registered_debt_gets_its_verdict():
    cover = [_cover_chunk(HEAD + "Common Stock, $0.25 Par Value KO New York Stock Exchange\n"
                          "1.875% Notes Due 2026 KO26 New York Stock Exchange")]
    some = answer(DEBT, cover, "Coca-Cola", yes_no=True).answer
    assert some.verdict == "yes" and some.text.startswith("Yes \u2014 Coca-Cola's FY2024 10-K")
    assert [s["text"] for s in some.sentences] == [
        "1.875% Notes Due 2026 KO26 New York Stock Exchange"]
    stock_only = [_cover_chunk(HEAD + "Common Stock, $0.0001 par value per share ADBE NASDAQ")]
    none = answer(DEBT, stock_only, "Adobe", yes_no=True).answer
    assert none.verdict == "no" and none.text.startswith("No \u2014 Adobe's FY2024 10-K "
                                                         "registers no debt securities")


def test_a_question_naming_an_exchange_counts_only_the_classes_listed_there():
    cover = [_cover_chunk(HEAD + "Common Stock, $0.25 Par Value KO New York Stock Exchange\n"
                          "1.875% Notes Due 2026 KO26 New York Stock Exchange")]
    assert answer(EQUITY, cover, "Coca-Cola", yes_no=True, exchange="nyse").answer.verdict == (
        "yes")
    elsewhere = answer(EQUITY, cover, "Coca-Cola", yes_no=True, exchange="nasdaq").answer
    assert elsewhere.verdict == "no"
    assert elsewhere.text.startswith("No \u2014 Coca-Cola's FY2024 10-K lists no classes of "
                                     "stock on Nasdaq; its cover lists these")
    columns = [_cover_chunk("Securities registered pursuant to Section 12(b) of the Act: Title "
                            "of each class Name of each exchange on which registered Common "
                            "Stock, par value $0.10 per share 1.900% Notes Due 2022 New York "
                            "Stock Exchange New York Stock Exchange")]
    assert answer(DEBT, columns, "Walmart", yes_no=True, exchange="nyse") is None
