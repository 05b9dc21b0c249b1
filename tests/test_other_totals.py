"""A different total the filing states in its own words, quoted beside the statement's figure
(issue 36: Meta's capex answer sat beside "$39.23 billion of capital expenditures, including
principal payments on finance leases" with no word on the difference)."""

from __future__ import annotations

import pytest

from finrag.answer import answer
from finrag.facts import Fact
from finrag.models import Chunk, Hit
from finrag.other_totals import other_totals
from finrag.question import parse

CO = {"META": "META PLATFORMS, INC."}
QUESTION = "Meta capital expenditures 2024"
# Meta FY2024 10-K, Item 7, p. 60 and p. 76
OWN = ("Capital expenditures, including principal payments on finance leases, were $39.23 "
       "billion for the year ended December 31, 2024.")
OFFSET = ("These increases were offset by $39.23 billion of capital expenditures, including "
          "principal payments on finance leases, our capital returns of $35.20 billion for "
          "repurchases of our Class A common stock.")


def _capex(value: float = 37256, filing: int = 2024) -> Fact:
    return Fact(ticker="META", fiscal_year=filing, filing_key=f"META-{filing}", source="xbrl",
                concept="us-gaap:PaymentsToAcquirePropertyPlantAndEquipment",
                line_label="Purchases of property and equipment", statement="cash_flow",
                period_start="2024-01-01", period_end="2024-12-31", period_fiscal_year=2024,
                value=value, unit="USD millions", page=90, page_label="90")


def _answered(value: float = 37256):
    q = parse(QUESTION, CO)
    return q, answer(q, [_capex(value)], "Meta").answer


def _hits(*texts: str, ticker: str = "META", year: int = 2024) -> list[Hit]:
    out = []
    for n, text in enumerate(texts, start=1):
        c = Chunk(chunk_id=f"{n:032x}", ticker=ticker, company="Meta Platforms, Inc.",
                  fiscal_year=year, chunk_type="narrative", section="Item 7", page=60 + n,
                  page_label=str(60 + n), text=text, filing_key=f"{ticker}-{year}")
        out.append(Hit(chunk_id=c.chunk_id, rank=n, score=1.0 / n, chunk=c))
    return out


def test_the_companys_own_total_is_quoted_with_its_citation():
    q, a = _answered()
    [note] = other_totals(a, q.items[0], _hits(OWN))
    assert note["value"] == pytest.approx(39230) and note["unit"] == "USD millions"
    assert note["text"] == OWN
    assert (note["citation"]["ticker"], note["citation"]["page_label"]) == ("META", "61")


def test_an_amount_before_the_item_in_a_passage_of_the_year_counts():
    q, a = _answered()
    [note] = other_totals(a, q.items[0], _hits("Cash flows in 2024. " + OFFSET))
    assert note["value"] == pytest.approx(39230)


@pytest.mark.parametrize("text", [
    "Capital expenditures were $37.26 billion for the year ended December 31, 2024.",  # rounded
    "Capital expenditures were $28.10 billion for the year ended December 31, 2023.",  # 2023
    "Capital expenditures were $39.23 billion in 2024 and $28.10 billion in 2023.",  # two years
    OFFSET + " Cash flows in 2023 are discussed above.",  # a passage of two years
    "We anticipate capital expenditures of up to $39 billion in 2024.",  # a ceiling
    "In 2024 we had $16.14 billion and $39.23 billion of capital expenditures and other "
    "investments, respectively.",  # amounts listed for several items
    "In 2024 capital expenditures increased by $3.20 billion to $39.23 billion.",  # a change
    "In 2024 capital expenditures for data centers were $36.00 billion.",  # a part of it
    "In 2024 data center capital expenditures were $36.00 billion.",  # a part, named before
    "We expect capital expenditures of approximately $38 billion.",  # a plan
    "Capital expenditures were $90.00 billion for the year ended December 31, 2024.",  # not near
])
def test_no_note_where_the_sentence_does_not_state_the_same_total_otherwise(text):
    q, a = _answered()
    assert other_totals(a, q.items[0], _hits(text)) == []


def test_no_note_for_a_figure_that_is_not_the_items_own_dollar_line():
    """EPS is per share; a segment's line or a comparative from a later 10-K is not the figure
    the sentences of the year's filing restate."""
    eps = parse("Meta diluted EPS 2024", CO)
    fact = _capex().model_copy(update={"concept": "us-gaap:EarningsPerShareDiluted",
                                       "line_label": "Diluted", "statement": "income",
                                       "value": 23.86, "unit": "USD per share"})
    a = answer(eps, [fact], "Meta").answer
    assert a is not None and other_totals(a, eps.items[0], _hits(
        "Diluted earnings per share were $1.2 billion in 2024.")) == []
    q, a = _answered()
    segment = a.figures[0].fact.model_copy(update={"dims": ["srt:SegmentAxis=x:FamilyMember"]})
    a.figures[0] = a.figures[0].__class__(a.figures[0].name, 2024, 37256, "USD millions",
                                          segment)
    assert other_totals(a, q.items[0], _hits(OWN)) == []
    q, a = _answered()
    later = a.figures[0].fact.model_copy(update={"fiscal_year": 2025})  # a comparative column
    a.figures[0] = a.figures[0].__class__(a.figures[0].name, 2024, 37256, "USD millions", later)
    assert other_totals(a, q.items[0], _hits(OFFSET, year=2025)) == []


def test_another_companys_or_filings_passage_is_no_note():
    q, a = _answered()
    assert other_totals(a, q.items[0], _hits(OWN, ticker="GOOGL")) == []
    assert other_totals(a, q.items[0], _hits(OWN, year=2025)) == []


def meta_index(data_dir, embedder) -> None:
    """An index of Meta's p. 61 sentence and its capex fact, published in `data_dir`."""
    from finrag.config import Settings
    from finrag.generation import publish, write_generation

    chunks = [h.chunk.model_copy(update={"period_end": "2024-12-31"}) for h in _hits(OWN)]
    write_generation(Settings(data_dir=data_dir, qdrant_url=None), "gen-000001", chunks,
                     embedder.encode([c.text for c in chunks]), embedder.name, facts=[_capex()])
    publish(data_dir, "gen-000001")


def test_the_app_quotes_the_other_total_under_the_answer(data_dir, fake_embedder, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from tests.test_app import REPO, searcher_for, unescape

    meta_index(data_dir, fake_embedder)
    monkeypatch.setenv("FINRAG_APP_EMBEDDER", "conftest:AppEmbedder")
    monkeypatch.setenv("FINRAG_DATA_DIR", str(data_dir))
    monkeypatch.delenv("FINRAG_QDRANT_URL", raising=False)
    searcher_for(data_dir)
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.query_params["q"] = QUESTION
    at.run()
    assert not at.exception, at.exception
    texts = [unescape(m.value) for m in at.markdown]
    assert any("$37,256 million" in t for t in texts)
    assert any(t.startswith("> ") and "$39.23" in t and "finance leases" in t for t in texts)
    assert any(c.value.startswith("The filing also states another total") for c in at.caption)
