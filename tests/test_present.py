"""Evidence extraction, highlighting and escaping: what the app shows from a filing."""

from finrag.models import Chunk, Hit
from finrag.present import best_evidence, edgar_url, escape_md, highlight_md, snippet


def _hit(text: str, rank: int = 1, kind: str = "narrative", **kw) -> Hit:
    chunk = Chunk(chunk_id=f"{rank:032x}", ticker="AAPL", fiscal_year=2023, chunk_type=kind,
                  text=text, **kw)
    return Hit(chunk_id=chunk.chunk_id, rank=rank, score=1.0, chunk=chunk)


def test_evidence_is_the_best_matching_sentence_verbatim():
    text = ("The Company designs smartphones. Services net sales increased 9% during 2023 "
            "compared to 2022. Other matters follow.")
    [ev] = best_evidence("services net sales 2023", [_hit(text)], limit=1)
    assert ev.text == "Services net sales increased 9% during 2023 compared to 2022."
    assert ev.text in text


def test_evidence_from_a_table_is_a_row():
    table = "Products and Services\nServices | 85,200 | 78,129\niPhone | 200,583 | 205,489"
    [ev] = best_evidence("services", [_hit(table, kind="table")], limit=1)
    assert ev.text == "Services | 85,200 | 78,129"


def test_evidence_prefers_more_query_terms_over_rank():
    hits = [_hit("Revenue grew.", 1), _hit("Services revenue grew in 2023.", 2)]
    assert best_evidence("services revenue 2023", hits, limit=1)[0].hit.rank == 2


def test_hostile_text_is_escaped_not_markup():
    hostile = '<script>alert(1)</script> ![x](http://evil/x.png) [a](javascript:alert(1)) $x$'
    md = highlight_md(hostile, "alert")
    for raw in ("<script>", "![x](", "](javascript:", "$x$"):
        assert raw not in md
    assert "\\<script\\>" in md
    assert "**alert**" in md


def test_figures_are_highlighted_and_kept_whole():
    md = highlight_md("Net sales were $1,577 million, down (1,577).", "net sales")
    assert ":blue-background[\\$1,577]" in md
    assert ":blue-background[\\(1,577\\)]" in md
    assert "**Net**" in md and "**sales**" in md


def test_escape_md_escapes_streamlit_directives():
    assert escape_md(":red[boom]") == "\\:red\\[boom\\]"


def test_snippet_centres_on_the_first_query_term():
    text = "filler " * 200 + "services revenue grew" + " tail" * 50
    s = snippet(text, "services", width=120)
    assert "services revenue grew" in s and s.startswith("…")


def test_edgar_url_needs_cik_and_accession():
    c = _hit("x", cik="0000320193", accession="0000320193-23-000106").chunk
    assert edgar_url(c) == ("https://www.sec.gov/Archives/edgar/data/320193/"
                            "000032019323000106/0000320193-23-000106-index.htm")
    assert edgar_url(_hit("x").chunk) is None


def test_vote_says_when_fusion_by_page_credited_another_chunk_of_the_page():
    from finrag.present import vote
    a, b = (Hit(chunk_id=c * 32, rank=i, score=1.0,
                chunk=Chunk(chunk_id=c * 32, ticker="MMM", fiscal_year=2018,
                            chunk_type="narrative", page=40, text="t"))
            for i, c in ((1, "a"), (2, "b")))
    assert vote("dense", 1, [a, b], a.chunk_id) == "dense #1"
    assert vote("BM25", 2, [a, b], a.chunk_id) == "BM25 #2 (another chunk of this page)"
    assert vote("BM25", None, [a, b], a.chunk_id) == "BM25 #–"
    assert vote("dense", 30, [a, b], a.chunk_id) == "dense #30"  # beyond the shown column
