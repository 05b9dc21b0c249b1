"""Export of the answer and the three lists (CSV, Markdown) and canary verdicts in words."""

from __future__ import annotations

import csv
import io

from finrag.canary import Canary, checked, seen
from finrag.export import to_csv, to_markdown
from finrag.models import Chunk, Filters, Hit, SearchResult

TSLA = Chunk(chunk_id="a" * 32, ticker="TSLA", company="Tesla, Inc.", cik="0001318605",
             fiscal_year=2024, chunk_type="narrative", section="Item 7", page=43, page_label="39",
             text="Research and development expense was $4,540 million in 2024. [x](javascript:1)")


def _result() -> SearchResult:
    dense = [Hit(chunk_id=TSLA.chunk_id, rank=1, score=0.8, chunk=TSLA)]
    fused = [Hit(chunk_id=TSLA.chunk_id, rank=1, score=0.03, chunk=TSLA, dense_rank=1,
                 bm25_rank=2)]
    return SearchResult(query="Tesla R&D", filters=Filters(), dense=dense, bm25=[], fused=fused)


def test_csv_has_one_row_per_hit_with_a_citation_and_the_answer_first():
    cite = {"ticker": "TSLA", "fiscal_year": 2024, "line_label": "Research and development",
            "statement": "income statement", "page": 52, "page_label": "48", "url": "https://x"}
    rows = list(csv.DictReader(io.StringIO(to_csv(_result(), "R&D was $4,540 million", [cite]))))
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


def test_a_canary_verdict_says_what_was_checked_and_what_was_seen():
    canary = Canary(name="t", query="Tesla R&D", tickers=["TSLA"],
                    expect={"ticker": "TSLA", "contains": ["research and development"]})
    assert checked(canary) == ("a hit in the fused top 3 of TSLA, containing "
                               "'research and development' (searched with ticker TSLA)")
    assert seen(_result().fused, canary.expect) == "fused #1: TSLA FY2024 Item 7 p. 39"
    assert seen([], canary.expect) == "no hits"
