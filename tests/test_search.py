"""HybridSearcher on a real index (edge store + BM25) of hand-made chunks, fake embedder."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import searcher_over

from finrag.commands.search import hit_cell
from finrag.config import Settings
from finrag.generation import publish, write_generation
from finrag.index import Index, IndexUnavailable
from finrag.models import Chunk, Filters
from finrag.present import explain
from finrag.search import NO_MATCH, HybridSearcher, QueryError

TEXTS = {
    ("AAPL", 2023, "narrative"): ("Services net sales increased due to higher advertising"
                                  " and cloud services revenue."),
    ("AAPL", 2024, "narrative"): (
        "Services revenue grew again, led by the App Store and advertising."),
    ("AAPL", 2023, "table"): ("Net sales by category\nServices | 85,200 | 78,129"
                              "\niPhone | 200,583 | 205,489"),
    ("TSLA", 2024, "narrative"): ("Research and development expense increased as we expanded"
                                  " AI training compute."),
    ("TSLA", 2024, "table"): "Research and development | 4,540 | 3,969\nSG&A | 5,150 | 4,800",
    ("NVDA", 2024, "narrative"): ("Data Center revenue grew on strong demand"
                                  " for our Hopper GPU platform."),
    ("HD", 2024, "narrative"): ("Supply chain disruptions could adversely affect"
                                " our ability to stock stores."),
}
BOILERPLATE = ("Forward-looking statements involve risks and uncertainties"
               " that could cause results to differ.")


def make_chunks() -> list[Chunk]:
    chunks = []
    for i, ((ticker, year, kind), text) in enumerate(TEXTS.items()):
        chunks.append(Chunk(chunk_id=f"{i:032x}", ticker=ticker, company=f"{ticker} Inc.",
                            fiscal_year=year, chunk_type=kind, section="Item 7", text=text,
                            filing_key=f"{ticker}{year}"))
    for j, (ticker, year) in enumerate([("AAPL", 2023), ("AAPL", 2024), ("TSLA", 2024)]):
        chunks.append(Chunk(chunk_id=f"{100 + j:032x}", ticker=ticker, fiscal_year=year,
                            chunk_type="narrative", section="Item 1A", text=BOILERPLATE,
                            filing_key=f"{ticker}{year}"))
    return chunks


@pytest.fixture
def searcher(data_dir, fake_embedder):
    settings = Settings(data_dir=data_dir, qdrant_url=None)
    chunks = make_chunks()
    write_generation(settings, "gen-000001", chunks, fake_embedder.encode([c.text for c in chunks]),
                     fake_embedder.name)
    publish(data_dir, "gen-000001")
    s = HybridSearcher(settings, fake_embedder)
    yield s
    s.close()


FILTERS = [
    Filters(tickers=["AAPL"]),
    Filters(tickers=["AAPL"], fiscal_years=[2024]),
    Filters(chunk_types=["table"]),
    Filters(fiscal_years=[2023, 2024], chunk_types=["narrative"]),
    Filters(tickers=["TSLA", "HD"]),
]


@pytest.mark.parametrize("filters", FILTERS, ids=lambda f: json.dumps(f.model_dump()))
def test_every_hit_in_every_list_honours_the_filters(searcher, filters):
    result = searcher.search("services revenue research supply chain", filters, top_k=10)
    passing = [c for c in make_chunks() if filters.matches(c.payload())]
    assert result.fused, "a filter with matches must return fused hits"
    for hits in (result.dense, result.bm25, result.fused):
        assert all(filters.matches(h.chunk.payload()) for h in hits)
    # filtering happens before top-k: the dense list holds every passing chunk (k_each >= size)
    assert len(result.dense) == len({c.text for c in passing})


def test_filter_matching_nothing_returns_three_empty_lists_and_a_message(searcher):
    result = searcher.search("services", Filters(tickers=["ZZZZ"]))
    assert (result.dense, result.bm25, result.fused) == ([], [], [])
    assert result.message == NO_MATCH


def test_fused_hits_explain_their_ranks_and_contributions(searcher):
    result = searcher.search("research and development expense", Filters(tickers=["TSLA"]), 5)
    top = result.fused[0]
    assert top.chunk.ticker == "TSLA"
    assert top.score == pytest.approx(top.dense_contribution + top.bm25_contribution)
    if top.dense_rank:
        assert top.dense_contribution == pytest.approx(1 / (60 + top.dense_rank))
    assert [h.rank for h in result.fused] == list(range(1, len(result.fused) + 1))


def test_the_same_text_in_several_filings_takes_one_slot(searcher):
    result = searcher.search("forward-looking statements risks uncertainties", top_k=10)
    for hits in (result.dense, result.bm25, result.fused):
        assert sum(h.chunk.text == BOILERPLATE for h in hits) == 1


@pytest.mark.parametrize("query", ["", "   ", "\x00\x01"])
def test_empty_query_is_a_clear_error(searcher, query):
    with pytest.raises(QueryError, match="empty"):
        searcher.search(query)


def test_huge_query_is_refused_with_its_length(searcher):
    with pytest.raises(QueryError, match="100,000 characters"):
        searcher.search("a" * 100_000)


def test_bad_top_k_and_k_each_are_refused(searcher):
    with pytest.raises(QueryError, match="got 0"):
        searcher.search("services", top_k=0)
    with pytest.raises(QueryError, match="k_each"):
        searcher.search("services", top_k=10, k_each=5)


def test_missing_index_is_a_clear_error(tmp_path, fake_embedder):
    with pytest.raises(IndexUnavailable, match="ingest build --sample"):
        HybridSearcher(Settings(data_dir=tmp_path, qdrant_url=None), fake_embedder).search("x")


def test_index_built_by_another_tokenizer_is_refused(searcher, data_dir):
    path = data_dir / "generations" / "gen-000001" / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["tokenizer"] = "some-other-v0"
    path.write_text(json.dumps(manifest))
    with pytest.raises(IndexUnavailable, match="tokenizer"):
        Index.open(Settings(data_dir=data_dir, qdrant_url=None))


def test_searcher_switches_to_a_newly_published_generation(searcher, data_dir, fake_embedder):
    first = searcher.search("services").generation
    chunks = make_chunks()[:3]
    write_generation(searcher.settings, "gen-000002", chunks,
                     fake_embedder.encode([c.text for c in chunks]), fake_embedder.name)
    publish(data_dir, "gen-000002")
    result = searcher.search("services")
    assert (first, result.generation) == ("gen-000001", "gen-000002")
    assert {h.chunk_id for h in result.fused} <= {c.chunk_id for c in chunks}


_ORDER_SCRIPT = """
import json, sys
sys.path[:0] = [sys.argv[2], sys.argv[3]]
from pathlib import Path
from conftest import FakeEmbedder
from finrag.config import Settings
from finrag.search import HybridSearcher
s = HybridSearcher(Settings(data_dir=Path(sys.argv[1]), qdrant_url=None), FakeEmbedder())
r = s.search("services revenue advertising research")
print(json.dumps([h.chunk_id for h in r.fused]))
"""


@pytest.mark.slow  # spawns two interpreters
def test_fused_order_is_the_same_across_processes(searcher, data_dir):
    from conftest import REPO

    searcher.close()  # one process per edge directory
    runs = [
        subprocess.run([sys.executable, "-c", _ORDER_SCRIPT, str(data_dir), str(REPO),
                        str(REPO / "tests")], capture_output=True, text=True, check=True).stdout
        for _ in range(2)
    ]
    assert runs[0] == runs[1] and json.loads(runs[0])


def test_server_backend_gives_the_same_fused_ranking_as_embedded(tmp_path, fake_embedder):
    chunks = make_chunks()
    vectors = fake_embedder.encode([c.text for c in chunks])
    rankings = []
    for url in (None, ":memory:"):
        settings = Settings(data_dir=tmp_path / str(url), qdrant_url=url)
        write_generation(settings, "gen-000001", chunks, vectors, fake_embedder.name)
        publish(settings.data_dir, "gen-000001")
        searcher = HybridSearcher(settings, fake_embedder)
        assert searcher.index.manifest["backend"]["kind"] == ("server" if url else "edge")
        rankings.append([
            [(h.chunk_id, h.dense_rank, h.bm25_rank) for h in searcher.search(q, f).fused]
            for q in ("services revenue", "research and development", "supply chain")
            for f in [Filters(), *FILTERS]
        ])
        searcher.close()
    assert rankings[0] == rankings[1] and any(rankings[0])


def test_fusing_by_page_gives_one_fused_hit_per_page_with_both_votes(data_dir, fake_embedder):
    """Dense and BM25 favour different chunks of one statement page; by page they agree."""
    page = [  # (chunk id, page, text) in one filing
        ("a" * 32, 40, "Consolidated statements of cash flows purchases of property and equipment"),
        ("b" * 32, 40, "capital expenditure capital expenditure capex"),
        ("c" * 32, 41, "Capital expenditure plans for data centers and property"),
        ("d" * 32, None, "Capital expenditure of the period"),  # no page: a unit of its own
        ("e" * 32, None, "Property and equipment, net, capital expenditure"),
    ]
    chunks = [Chunk(chunk_id=cid, ticker="MMM", fiscal_year=2018, chunk_type="narrative",
                    page=p, text=t, filing_key="MMM2018") for cid, p, t in page]
    settings = Settings(data_dir=data_dir, qdrant_url=None)
    write_generation(settings, "gen-000001", chunks, fake_embedder.encode([c.text for c in chunks]),
                     fake_embedder.name)
    publish(data_dir, "gen-000001")
    s = HybridSearcher(settings, fake_embedder)
    try:
        query = "capital expenditure property equipment cash flows"
        by_page = s.search(query, top_k=10, expand=False)
        by_chunk = s.search(query, top_k=10, expand=False, fuse_by="chunk")
    finally:
        s.close()
    assert len(by_chunk.fused) == 5
    keys = [(h.chunk.filing_key, h.chunk.page) if h.chunk.page else h.chunk_id
            for h in by_page.fused]
    assert len(keys) == len(set(keys)) == 4  # page 40's two chunks are one entry
    (p40,) = [h for h in by_page.fused if h.chunk.page == 40]
    dense_ranks = [h.rank for h in by_page.dense if h.chunk.page == 40]
    bm25_ranks = [h.rank for h in by_page.bm25 if h.chunk.page == 40]
    assert (p40.dense_rank, p40.bm25_rank) == (min(dense_ranks), min(bm25_ranks))
    assert p40.score == pytest.approx(1 / (60 + p40.dense_rank) + 1 / (60 + p40.bm25_rank))
    # the dense and BM25 columns stay chunk lists
    assert by_page.dense == by_chunk.dense and by_page.bm25 == by_chunk.bm25


def test_unknown_fuse_by_is_a_query_error(searcher):
    with pytest.raises(QueryError, match="fuse_by"):
        searcher.search("services", fuse_by="section")
def _without_timings(result) -> dict:
    return result.model_dump(exclude={"timings_ms"})


@pytest.mark.parametrize("overlap", [True, False])
def test_overlapped_search_returns_what_the_sequential_one_does(searcher, overlap):
    sequential = HybridSearcher(searcher.settings, searcher.embedder, overlap=False)
    searcher.overlap = overlap
    for query in ("services revenue", "research and development", "supply chain", "capex"):
        for filters in [Filters(), *FILTERS]:
            got = searcher.search(query, filters)
            assert _without_timings(got) == _without_timings(sequential.search(query, filters))
            assert {"embed", "dense", "bm25", "fuse"} <= set(got.timings_ms)
    sequential.close()


def test_an_embedding_error_reaches_the_caller_from_the_worker(searcher):
    class Broken:
        def encode(self, texts):
            raise RuntimeError("model exploded")

    broken = HybridSearcher(searcher.settings, Broken())
    with pytest.raises(RuntimeError, match="model exploded"):
        broken.search("services revenue")
    broken.close()


@pytest.mark.slow
def test_overlapped_search_on_the_real_model_matches_sequential(sample_index):
    from finrag.embed import Embedder

    settings = Settings(data_dir=sample_index, qdrant_url=None)
    overlapped = HybridSearcher(settings, Embedder(query_cache_size=0))
    sequential = HybridSearcher(settings, Embedder(query_cache_size=0), overlap=False)
    for query in ("How did services revenue change compared to the prior year?",
                  "capex and free cash flow", "SG&A expense", "supply chain risk"):
        for filters in (Filters(), Filters(tickers=["AAPL"]), Filters(fiscal_years=[2024])):
            a, b = overlapped.search(query, filters), sequential.search(query, filters)
            assert [h.chunk_id for h in a.fused] == [h.chunk_id for h in b.fused]
            assert _without_timings(a) == _without_timings(b)
    overlapped.close()
    sequential.close()


@pytest.mark.slow
def test_every_row_of_a_statement_page_is_found_under_the_statement_title(sample_index,
                                                                          real_embedder):
    """The title heads only the first chunk of a statement page; the model embeds it above every
    chunk of the page, so dense search for the statement finds its rows, not other tables."""
    searcher = HybridSearcher(Settings(data_dir=sample_index, qdrant_url=None), real_embedder)
    result = searcher.search("Tesla consolidated statements of cash flows",
                             Filters(tickers=["TSLA"], fiscal_years=[2024], chunk_types=["table"]),
                             top_k=5)
    searcher.close()
    pages = [h.chunk.page for h in result.dense]
    title_page = next((h.chunk.page for h in result.dense
                       if "Statements of Cash Flows" in h.chunk.heading), None)
    assert title_page is not None, pages
    assert pages.count(title_page) >= 4, pages  # tables: none holds the title in its own text


def test_a_page_printing_the_line_items_outranks_one_with_their_words_scattered(data_dir,
                                                                              fake_embedder):
    # "working capital" expands to "total current assets total current liabilities"; both
    # chunks hold those words, only the balance sheet rows hold them as the line items' phrases
    rows = ("Inventories | 4,366 | 4,034\nTotal current assets | 13,709 | 14,277\n"
            "Accounts payable | 2,266 | 1,945\nAccrued payroll | 749 | 870\n"
            "Total current liabilities | 7,244 | 7,687")
    scattered = ("Current tax liabilities and assets: the total of liabilities for uncertain "
                 "positions is current, and the total of deferred assets is reviewed each year.")
    others = ["Net sales increased 3% driven by higher services revenue.",
              "Research and development expense grew as we hired engineers.",
              "Supply chain disruptions could affect our ability to stock stores."]
    chunks = [Chunk(chunk_id=f"{i:032x}", ticker="MMM", fiscal_year=2018,
                    chunk_type="table" if text == rows else "narrative", section="Item 8",
                    text=text, filing_key="MMM2018")
              for i, text in enumerate([scattered, rows, *others])]
    settings = Settings(data_dir=data_dir, qdrant_url=None)
    write_generation(settings, "gen-000001", chunks,
                     fake_embedder.encode([c.text for c in chunks]), fake_embedder.name)
    publish(data_dir, "gen-000001")
    searcher = HybridSearcher(settings, fake_embedder)
    result = searcher.search("What is the working capital?", top_k=5)
    searcher.close()
    assert [h.chunk.text for h in result.bm25][:2] == [rows, scattered]


def test_a_shown_copy_of_a_repeated_text_is_the_one_its_retriever_ranked(data_dir, fake_embedder):
    """The same passage in two years' 10-Ks: the copy each list shows, with its page and score,
    is the copy that retriever ranked first, not the copy with the lower chunk id."""
    shared = ("For certain long-term service arrangements, the Company has performance "
              "obligations that extend beyond one year.")
    rows = [  # (chunk id, fiscal year, page, heading, text); FY2023's copy has the lower id
        ("0" * 31 + "1", 2023, 34, "", shared),
        ("0" * 31 + "2", 2023, 34, "", "Employees and human capital headcount offices"),
        ("f" * 32, 2024, 37, "Revenue recognition service arrangements",
         shared),
        ("e" * 32, 2024, 37, "Revenue recognition service arrangements",
         "Deferred revenue for service arrangements and performance obligations"),
    ]
    chunks = [Chunk(chunk_id=cid, ticker="AAPL", fiscal_year=y, chunk_type="narrative", page=p,
                    heading=h, text=t, filing_key=f"AAPL{y}") for cid, y, p, h, t in rows]
    settings = Settings(data_dir=data_dir, qdrant_url=None)
    write_generation(settings, "gen-000001", chunks,
                     fake_embedder.encode([c.text for c in chunks]), fake_embedder.name)
    publish(data_dir, "gen-000001")
    query = "revenue recognition service arrangements performance obligations"
    s = HybridSearcher(settings, fake_embedder)
    try:
        index = s.index
        raw_dense = index.vectors.search(fake_embedder.encode([query])[0], Filters(), 10)
        result = s.search(query, Filters(tickers=["AAPL"]), top_k=10, expand=False)
    finally:
        s.close()
    raw_order = [cid for cid, _ in raw_dense]
    assert raw_order.index("f" * 32) < raw_order.index("0" * 31 + "1")  # FY2024's copy first
    for hits in (result.dense, result.bm25):
        copies = [h for h in hits if h.chunk.text == shared]
        assert [(h.chunk.fiscal_year, h.chunk.page) for h in copies] == [(2024, 37)]
    (dense_copy,) = [h for h in result.dense if h.chunk.text == shared]
    assert dense_copy.score == pytest.approx(dict(raw_dense)["f" * 32])
    (bm25_copy,) = [h for h in result.bm25 if h.chunk.text == shared]
    # the page votes go to the pages that were ranked: p. 34 only by its other chunk's ranks
    fused = {(h.chunk.fiscal_year, h.chunk.page): h for h in result.fused}
    assert fused[2024, 37].dense_rank <= dense_copy.rank
    assert fused[2024, 37].bm25_rank <= bm25_copy.rank
    other = "0" * 31 + "2"
    for method in ("dense", "bm25"):
        ranked = {h.chunk_id: h.rank for h in getattr(result, method)}
        if (2023, 34) in fused:
            assert getattr(fused[2023, 34], f"{method}_rank") == ranked.get(other)


@pytest.mark.parametrize("weights, kept", [((0.0, 1.0), "bm25"), ((1.0, 0.0), "dense")])
def test_a_zero_weight_drops_its_retriever_from_the_fused_list(searcher, weights, kept):
    result = searcher.search("services revenue research and development", top_k=10,
                             weights=weights, fuse_by="chunk")
    ranked = getattr(result, kept)
    assert [h.chunk_id for h in result.fused] == [h.chunk_id for h in ranked]
    assert all(h.score > 0 for h in result.fused)
    dropped = "dense" if kept == "bm25" else "bm25"
    assert all(getattr(h, f"{dropped}_rank") is None for h in result.fused)


def test_both_weights_zero_is_a_query_error_quoting_them(searcher):
    with pytest.raises(QueryError, match=r"\(0\.0, 0\.0\): both are 0"):
        searcher.search("services", weights=(0.0, 0.0))


def test_opening_and_searching_read_only_the_rows_they_need(searcher, index_sql):
    """A reader's cost must not grow with the index: opening it reads no chunk row, and a
    search or the coverage facets read the chunk table only through its indexes (a lookup by
    chunk id; the covering filter index), never by scanning every row."""
    from finrag.index import open_table

    statements = index_sql
    index = Index.open(searcher.settings)
    try:
        assert len(index) == len(make_chunks())
        assert statements == []  # the count is the manifest's
        result = searcher.search("services net sales", Filters(tickers=["AAPL"]))
        assert result.fused
        searcher.index.facets()
        selects = [sql for sql in statements if sql.lstrip().upper().startswith("SELECT")]
        con = open_table(searcher.index.path)
        plans = [row[-1] for sql in selects for row in con.execute("EXPLAIN QUERY PLAN " + sql)]
        con.close()
        assert plans and all("chunks" not in p or "INDEX" in p for p in plans), plans
    finally:
        index.close()


def test_a_why_question_lifts_the_mdna_passage_among_the_candidates_it_already_has(
        data_dir, fake_embedder):
    """A 10-K explains its changes in MD&A (Item 7): a why question gives its candidates there
    a third vote; the risk factor that repeats the question's words falls behind it."""
    rows = [("a" * 32, "Item 1A", 12, "Why gross margin decreased: gross margin decreased and "
                                      "gross margin could decrease further."),
            ("b" * 32, "Item 7", 30, "Gross margin decreased due to higher freight costs."),
            ("c" * 32, "Item 8", 50, "Revenue recognition policies for product sales.")]
    s = searcher_over(data_dir, fake_embedder, [
        Chunk(chunk_id=cid, ticker="NKE", fiscal_year=2025, chunk_type="narrative", section=sec,
              page=p, text=t, filing_key="NKE2025") for cid, sec, p, t in rows])
    try:
        query = "Why gross margin decreased?"
        plain = s.search(query, top_k=3, expand=False, route=False)
        routed = s.search(query, top_k=3, expand=False)
        other = s.search("gross margin decreased", top_k=3, expand=False)
    finally:
        s.close()
    assert plain.fused[0].chunk.section == "Item 1A" and plain.routed == []
    assert routed.routed == ["Item 7", "income statement"]  # gross margin: on the income statement
    assert routed.fused[0].chunk.section == "Item 7"
    assert routed.fused[0].section_contribution > 0
    assert "MD&A" in explain(routed.fused[0], routed.dense, routed.bm25, routed.routed)
    assert "+MD&A]" in hit_cell(routed.fused[0], 100, routed.routed)[0]  # the CLI says so too
    assert {h.chunk_id for h in routed.fused} == {h.chunk_id for h in plain.fused}
    assert "Item 7" not in other.routed  # no why: no MD&A vote (and no statement page here)
    assert all(h.section_contribution == 0 for h in other.fused)


def test_a_line_item_question_lifts_the_statement_page_that_prints_it(data_dir, fake_embedder):
    """Working capital is printed on the balance sheet: its page (known by its heading) gets
    the third vote over a narrative page that repeats the question's words."""
    rows = [("a" * 32, "Item 7", 30, "", "Corning keeps working capital positive."),
            ("b" * 32, "Item 8", 55, "CONSOLIDATED BALANCE SHEETS",
             "Working capital positive | 2,278 | 2,652"),
            ("c" * 32, "Item 8", 56, "CONSOLIDATED STATEMENTS OF CASH FLOWS",
             "Net cash provided by operating activities | 2,615 | 3,412")]
    s = searcher_over(data_dir, fake_embedder, [
        Chunk(chunk_id=cid, ticker="GLW", fiscal_year=2022, chunk_type="table" if h else
              "narrative", section=sec, page=p, heading=h, text=t, filing_key="GLW2022")
        for cid, sec, p, h, t in rows])
    try:
        query = "Does Corning have positive working capital?"
        plain = s.search(query, top_k=3, route=False, expand=False)
        routed = s.search(query, top_k=3, expand=False)
        s_bm25_only = s.search(query, top_k=3, expand=False, weights=(0.0, 1.0))
    finally:
        s.close()
    assert routed.routed == ["balance sheet"]
    assert [h.chunk.page for h in plain.fused][:2] == [30, 55]  # the narrative page's words win
    # a retriever weighted 0 has no say in which candidates the vote goes to either
    assert all(h.bm25_rank for h in s_bm25_only.fused)
    assert [h.chunk.page for h in routed.fused][:2] == [55, 30]  # the statement's page is lifted
    lifted = routed.fused[0]
    assert "balance sheet prints the line items" in explain(lifted, routed.dense, routed.bm25,
                                                           routed.routed)


@pytest.mark.parametrize("heading, holds", [
    ("CONSOLIDATED BALANCE SHEETS", True),
    ("The Boeing Company Consolidated Statements of Financial Position", True),
    ("Off-Balance Sheet Arrangements", False),
    ("Supplemental balance sheet information", False),
])
def test_a_statement_is_known_by_its_own_title_not_a_mention(heading, holds):
    from finrag.routing import holds as routed_to

    chunk = Chunk(chunk_id="f" * 32, ticker="BA", fiscal_year=2022, chunk_type="table",
                  section="Item 8", heading=heading, text="x")
    assert routed_to(chunk, ["balance sheet"]) is holds
