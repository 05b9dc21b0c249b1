"""Evidence extraction, highlighting and escaping: what the app shows from a filing."""

import pytest

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


# --- EDGAR links from the filing's own identity (real sample filings) --------------------------


def _first_chunk(tmp_path, rel: str) -> Chunk:
    """The first chunk of a bundled sample filing, read and chunked without embedding."""
    import gzip

    from finrag.ingest.chunk import chunk_filing
    from finrag.ingest.read import read_filing
    from finrag.ingest.sample import SAMPLE_DIR
    from finrag.ingest.sections import split_sections

    folder = tmp_path / rel
    folder.mkdir(parents=True)
    for packed in (SAMPLE_DIR / rel).glob("*.gz"):
        (folder / packed.stem).write_bytes(gzip.decompress(packed.read_bytes()))
    filing = read_filing(folder)
    return chunk_filing(filing, split_sections(filing.blocks),
                        lambda texts: [len(t.split()) * 2 for t in texts])[0]


def test_apple_links_to_the_10k_document_itself(tmp_path):
    from finrag.present import edgar_link

    link = edgar_link(_first_chunk(tmp_path, "sec-edgar-filings/AAPL/10-K/0000320193-24-000123"))
    assert link.url == ("https://www.sec.gov/Archives/edgar/data/320193/000032019324000123/"
                        "aapl-20240928.htm")  # as EDGAR's own filing list names it
    assert (link.kind, link.reason) == ("document", "")


@pytest.mark.parametrize("rel, cik", [("sec-edgar-filings/TSLA/10-K/tsla-20241231", "0001318605"),
                                      ("sec-edgar-filings/NVDA/10-K/nvda-20240128", "0001045810")])
def test_filing_without_accession_links_to_the_company_10k_list_by_its_cik(tmp_path, rel, cik):
    """TSLA and NVDA FY2024 in the sample: a folder named by the document, no SGML header; the
    CIK comes from the inline-XBRL cover (dei:EntityCentralIndexKey)."""
    from finrag.present import edgar_link, edgar_md

    chunk = _first_chunk(tmp_path, rel)
    link = edgar_link(chunk)
    assert link.url == (f"https://www.sec.gov/cgi-bin/browse-edgar?action=getcompany&CIK={cik}"
                        "&type=10-K&dateb=&owner=include&count=40")
    assert link.kind == "company 10-K list" and "accession" in link.reason
    assert "company's 10-K list on EDGAR" in edgar_md(chunk)


def test_no_cik_says_so_instead_of_showing_no_link():
    from finrag.present import edgar_link, edgar_md

    chunk = _hit("x", accession="0000320193-23-000106").chunk
    assert edgar_link(chunk).url is None
    assert edgar_md(chunk).startswith("no EDGAR link") and "CIK" in edgar_md(chunk)


def test_submission_filename_names_the_document(tmp_path):
    """TSLA FY2019's real submission header says <FILENAME>tsla-10k_20191231.htm."""
    import shutil
    from pathlib import Path

    from finrag.ingest.read import read_filing
    from finrag.present import edgar_url

    src = Path(__file__).parent / "fixtures/ingest/sec-edgar-filings/TSLA/10-K/0001564590-20-004475"
    shutil.copytree(src, tmp_path / "TSLA/10-K" / src.name)
    filing = read_filing(tmp_path / "TSLA/10-K" / src.name)
    chunk = _hit("x", cik=filing.cik, accession=filing.accession, document=filing.document).chunk
    assert edgar_url(chunk) == ("https://www.sec.gov/Archives/edgar/data/1318605/"
                                "000156459020004475/tsla-10k_20191231.htm")


# --- pages as an analyst reads them -----------------------------------------------------------


def test_citation_gives_the_printed_page_or_says_it_is_the_file_position():
    from finrag.present import citation

    printed = _hit("x", section="Item 8", page=37, page_label="35").chunk
    assert citation(printed).endswith("· p. 35")
    unprinted = _hit("x", section="Item 8", page=3).chunk
    assert citation(unprinted).endswith("· page 3 of the file, no printed number")


# --- figures, not years and references; snippets between words; fused rank in words ----------


def test_years_and_note_numbers_are_not_highlighted_as_figures():
    # Home Depot FY2024 10-K, MD&A wording
    md = highlight_md("Net sales for fiscal 2024 were $159.5 billion, up 4.5% (see Note 5 and "
                      "Item 7 of this Form 10-K); 53 weeks.", "net sales")
    assert ":blue-background[\\$159\\.5]" in md and ":blue-background[4\\.5%]" in md
    for plain in ("2024", "5", "7", "10", "53"):
        assert f":blue-background[{plain}]" not in md, plain


def test_snippet_starts_and_ends_on_word_boundaries():
    text = ("We may be unable to address our business needs. " * 10 + "Our supply chain "
            "depends on a limited number of suppliers. " + "We address the risks. " * 20)
    s = snippet(text, "supply", width=120)
    inner = s.removeprefix("… ").removesuffix(" …")
    words = set(text.split())
    assert inner.split()[0] in words and inner.split()[-1] in words, s


def test_a_fused_hit_is_explained_in_words():
    from finrag.present import explain
    a, b = (Hit(chunk_id=c * 32, rank=i, score=1.0,
                chunk=Chunk(chunk_id=c * 32, ticker="MMM", fiscal_year=2018,
                            chunk_type="narrative", page=40, text="t"))
            for i, c in ((1, "a"), (2, "b")))
    both = a.model_copy(update={"dense_rank": 1, "bm25_rank": 2})
    assert explain(both, [a, b], [b, a]) == "ranked #1 by dense and #2 by BM25"
    dense_only = a.model_copy(update={"dense_rank": 1})
    assert explain(dense_only, [a, b], [b, a]) == "ranked #1 by dense only"
    other = a.model_copy(update={"bm25_rank": 2})
    assert explain(other, [a], [a, b]) == "ranked #2 by BM25 (another passage on this page) only"


def test_a_year_or_a_day_before_a_comma_is_not_a_figure():
    md = highlight_md("As of February 2, 2025, debt was $53,067 million, up from fiscal 2024, "
                      "when it was 44,111.", "debt")
    assert ":blue-background[\\$53,067]" in md and ":blue-background[44,111" in md
    assert ":blue-background[2,]" not in md and ":blue-background[2025,]" not in md
    assert ":blue-background[2024,]" not in md


def test_a_header_row_is_never_evidence():
    table = ("(Amounts in millions, except per share data) | 2025 | 2024 | 2023\n"
             "Total revenues | 680,985 | 648,125 | 611,289\n"
             "Cost of sales | 511,753 | 490,142 | 463,721")
    evidence = best_evidence("Walmart cost of sales 2025 millions", [_hit(table, kind="table")])
    assert [ev.text for ev in evidence] == ["Cost of sales | 511,753 | 490,142 | 463,721"]


def test_the_cited_rows_of_an_answer_with_their_periods_and_unit():
    from finrag.answer import answer
    from finrag.present import cited_rows
    from finrag.question import parse
    from tests.test_answer import fact

    grid = [["in millions", "2024", "2023"], ["Net sales", "400", "380"],
            ["Cost of sales", "300", "290"], ["Gross profit", "100", "90"]]
    chunk = Chunk(chunk_id="c" * 32, ticker="MMM", fiscal_year=2024, chunk_type="table",
                  text="\n".join(" | ".join(r) for r in grid), table=grid)

    class Index:
        def chunks(self, ids):
            return {chunk.chunk_id: chunk} if chunk.chunk_id in ids else {}

    facts = [fact("Net sales", 400, 2024, concept="us-gaap:Revenues"),
             fact("Gross profit", 100, 2024, concept="us-gaap:GrossProfit")]
    for f in facts:
        f.chunk_id = chunk.chunk_id
    a = answer(parse("3M gross margin 2024", {"MMM": "3M CO"}), facts).answer
    [(c, view)] = cited_rows(Index(), a)
    assert c is chunk and view.columns[1:] == ["2024", "2023"]
    assert [r[0] for r in view.rows] == ["Net sales", "Gross profit"]  # in the table's order
