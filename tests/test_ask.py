"""Pure parts of `finrag.ask`: the company read from the passages, the years facts are read for."""

from __future__ import annotations

from finrag.ask import _company_from_passages, years_needed
from finrag.models import Chunk, Filters, Hit, SearchResult
from finrag.question import parse


def _result(*hits: tuple[str, str]) -> SearchResult:
    fused = [Hit(chunk_id=f"c{i}", rank=i, score=1.0,
                 chunk=Chunk(chunk_id=f"c{i}", ticker=t, fiscal_year=2024, chunk_type="table",
                             text=text))
             for i, (t, text) in enumerate(hits, start=1)]
    return SearchResult(query="q", filters=Filters(), fused=fused)



def _filing_chunks(ticker: str, company: str, year: int, section: str):
    """A maker of one filing's chunks: chunk(n, page, text, kind) with ids from n."""
    def chunk(n: int, page: int, text: str, kind: str = "narrative") -> Chunk:
        return Chunk(chunk_id=f"{n:x}" * 32, ticker=ticker, company=company, fiscal_year=year,
                     chunk_type=kind, section=section, page=page,
                     filing_key=f"{ticker}:{year}:10-K", text=text)
    return chunk

def test_a_line_only_one_company_prints_names_the_company():
    q = parse("iPhone net sales FY2024")
    r = _result(("AAPL", "iPhone net sales were flat"), ("AAPL", "iPhone | $201,183"),
                ("HD", "Net sales | 159,514"))
    assert _company_from_passages(q, r) == "AAPL"


def test_no_company_when_passages_disagree_or_only_one_holds_the_words():
    q = parse("iPhone net sales FY2024")
    assert _company_from_passages(
        q, _result(("AAPL", "iPhone sales"), ("HD", "iPhone cases"))) is None
    assert _company_from_passages(q, _result(("AAPL", "iPhone sales"), ("AAPL", "Mac"))) is None
    assert _company_from_passages(
        parse("capex 2024"), _result(("AAPL", "capex"), ("AAPL", "capex"))) is None


def test_years_needed():
    assert years_needed(parse("inventory turnover FY2021")) == [2020, 2021]
    assert years_needed(parse("How did revenue change in fiscal 2024?")) == [2023, 2024]
    assert years_needed(parse("total assets at January 31, 2025")) == [2024, 2025]


def test_two_data_dirs_with_the_same_generation_name_answer_from_their_own_facts(tmp_path):
    """Both data dirs publish `gen-000001`; one process asks the first, then the second: the
    second answer must be the second index's figure, not the first one's kept lookup."""
    from conftest import FakeEmbedder

    from finrag.ask import ask
    from finrag.config import Settings
    from finrag.facts import Fact
    from finrag.generation import publish, write_generation
    from finrag.search import HybridSearcher

    embedder = FakeEmbedder()
    answers = []
    for team, value in (("a", 4540.0), ("b", 3969.0)):
        settings = Settings(data_dir=tmp_path / team, qdrant_url=None)
        chunk = Chunk(chunk_id=f"{team}" * 32, ticker="TSLA", company="Tesla, Inc.",
                      fiscal_year=2024, chunk_type="table", page=49, filing_key="TSLA2024",
                      text=f"Research and development | {value:,.0f}")
        fact = Fact(ticker="TSLA", fiscal_year=2024, filing_key="TSLA2024", source="xbrl",
                    concept="us-gaap:ResearchAndDevelopmentExpense",
                    line_label="Research and development", statement="income",
                    period_start="2024-01-01", period_end="2024-12-31", period_fiscal_year=2024,
                    value=value, unit="USD millions", page=49)
        write_generation(settings, "gen-000001", [chunk], embedder.encode([chunk.text]),
                         embedder.name, [fact])
        publish(settings.data_dir, "gen-000001")
        searcher = HybridSearcher(settings, embedder)
        try:
            answers.append(ask(searcher, "Tesla research and development expense 2024").answer)
        finally:
            searcher.close()
    assert [a.value for a in answers] == [4540.0, 3969.0]


def test_a_refusal_names_what_the_index_or_the_filters_lack():
    from finrag.ask import cause

    companies = {"AAPL": "Apple Inc.", "TSLA": "Tesla, Inc."}
    filed = {"AAPL": [2019, 2020, 2021, 2024], "TSLA": [2024]}
    q = parse("Microsoft revenue 2024", companies)
    assert cause(q, (2024,), Filters(), companies, filed) == " Indexed companies: AAPL, TSLA."
    q = parse("Apple revenue 2015", companies)
    assert "fiscal 2015 is not indexed (indexed: fiscal 2019, 2020, 2021, 2024)" in cause(
        q, (2015,), Filters(), companies, filed)
    narrowed = Filters(fiscal_years=[2019, 2020, 2021])
    q = parse("Apple net sales fiscal 2024", companies, narrowed)
    said = cause(q, (2024,), narrowed, companies, filed)
    assert "filter (2019, 2020, 2021) excludes fiscal 2024" in said and "clear it" in said
    q = parse("Apple net sales fiscal 2024", companies)
    assert cause(q, (2024,), Filters(), companies, filed) == ""
    # an earlier year than the filter's may be a comparative column of the filtered 10-K
    q = parse("Apple net sales fiscal 2019 to 2021", companies, Filters(fiscal_years=[2021]))
    assert cause(q, (2019, 2020, 2021), Filters(fiscal_years=[2021]), companies, filed) == ""


def test_a_list_stated_past_the_passage_search_found_is_quoted_whole(tmp_path):
    """Best Buy's acquisitions note: search finds the passage on Yardbird; Current Health's
    sentence is in the next chunk of the same page. Both are quoted; a chunk of another page
    far away is not read."""
    from conftest import FakeEmbedder

    from finrag.ask import _around
    from finrag.config import Settings
    from finrag.generation import publish, write_generation
    from finrag.index import Index
    from finrag.passage import quotes

    chunk = _filing_chunks("BBY", "Best Buy Co., Inc.", 2023, "Item 8")

    yardbird = chunk(1, 51, "In fiscal 2022, we acquired all of the outstanding shares of Two "
                     "Peaks, LLC d/b/a Yardbird Furniture, a direct-to-consumer outdoor furniture "
                     "company, for net cash consideration of $79 million.")
    health = chunk(2, 51, "In fiscal 2022, we acquired all of the outstanding shares of Current "
                   "Health Ltd. (Current Health), a care-at-home technology platform, for net "
                   "cash consideration of $389 million.")
    far = chunk(3, 80, "In fiscal 2019, we acquired all of the outstanding shares of GreatCall, "
                "Inc., a connected health services provider, for $790 million.")
    settings = Settings(data_dir=tmp_path / "data", qdrant_url=None)
    embedder = FakeEmbedder()
    chunks = [yardbird, health, far]
    write_generation(settings, "gen-000001", chunks, embedder.encode([c.text for c in chunks]),
                     embedder.name, [])
    publish(settings.data_dir, "gen-000001")
    index = Index.open(settings)
    try:
        assert [c.chunk_id for c in index.page_chunks("BBY:2023:10-K", [51, 52])] == [
            yardbird.chunk_id, health.chunk_id]
        question = "What are major acquisitions that Best Buy has done in FY2023 and FY2022?"
        found = [Hit(chunk_id=yardbird.chunk_id, rank=1, score=1.0, chunk=yardbird)]
        first = quotes(question, found, {"best", "buy", "bby"})
        more = _around(index, [q.hit for q in first], {yardbird.chunk_id})
        assert [h.chunk_id for h in more] == [health.chunk_id]
        got = quotes(question, found + more, {"best", "buy", "bby"})
        assert {q.hit.chunk_id for q in got} == {yardbird.chunk_id, health.chunk_id}
    finally:
        index.close()


def test_a_why_answer_quotes_only_the_company_and_years_asked():
    """Another company's MD&A, or the same company's older 10-K, may give a cause in the same
    words; only the filing asked about answers, and a question naming no indexed company gets
    no quote at all."""
    from finrag.answer import Outcome
    from finrag.ask import _narrated
    from finrag.passage import CAUSE

    def hit(n, ticker, year, text):
        c = Chunk(chunk_id=f"{n:x}" * 32, ticker=ticker, fiscal_year=year, chunk_type="narrative",
                  section="Item 7", page=30, text=text, company=ticker)
        return Hit(chunk_id=c.chunk_id, rank=n, score=1.0 / n, chunk=c)

    cause = "Operating margin decreased primarily due to higher litigation charges in {}."
    fused = [hit(1, "VZ", 2022, cause.format("the wireless business")),
             hit(2, "MMM", 2018, cause.format("the identity management divestiture")),
             hit(3, "MMM", 2022, cause.format("Combat Arms Earplugs"))]
    companies = {"MMM": "3M COMPANY", "VZ": "VERIZON COMMUNICATIONS INC"}
    question = "What drove operating margin change as of FY2022 for 3M?"
    result = SearchResult(query=question, filters=Filters(), fused=fused)
    out = _narrated(None, result, parse(question, companies), (2022,), CAUSE,
                    Outcome(None, None), companies)
    assert [s["citation"]["ticker"] for s in out.answer.sentences] == ["MMM"]
    assert "Combat Arms" in out.answer.sentences[0]["text"]
    nobody = "What drove operating margin change in FY2022?"
    result = SearchResult(query=nobody, filters=Filters(), fused=fused)
    assert _narrated(None, result, parse(nobody, companies), (2022,), CAUSE,
                     Outcome(None, None), companies).answer is None


def test_a_cause_printed_beside_the_table_search_found_is_quoted(data_dir, fake_embedder):
    """Tesla's 2024 MD&A: search finds the revenue table; the sentence that explains the
    automotive sales revenue is another chunk of the same page. `ask` reads the pages of its
    best passages when none of them answers."""
    from conftest import searcher_over

    from finrag.ask import ask

    chunk = _filing_chunks("TSLA", "Tesla, Inc.", 2024, "Item 7")

    table = chunk(1, 40, "Revenues | 2024 | 2023\nAutomotive sales revenue | 72,480 | 78,509\n"
                  "Why automotive sales revenue fell | | ", "table")
    cause = chunk(2, 40, "Automotive sales revenue decreased $6.03 billion, or 8%, in the year "
                  "ended December 31, 2024, primarily due to lower average selling price on our "
                  "vehicles driven by overall price reductions.")
    searcher = searcher_over(data_dir, fake_embedder, [table, cause])
    try:
        question = "Why did Tesla's automotive sales revenue fall in 2024?"
        found = searcher.search(question, Filters(tickers=["TSLA"]), top_k=1)
        assert [h.chunk_id for h in found.fused] == [table.chunk_id]  # the cause is not found
        asked = ask(searcher, question, Filters(tickers=["TSLA"]), top_k=1)
        assert [s["text"] for s in asked.answer.sentences] == [cause.text]
        assert asked.answer.sentences[0]["citation"]["page"] == 40
    finally:
        searcher.close()


def test_a_list_that_runs_into_the_next_chunk_is_read_to_its_end(data_dir, fake_embedder):
    """PepsiCo's FY2022 Item 1: the divisions "as follows: 1) ...; 5) Europe ...;" fill one
    chunk and "6) ...; and 7) ..." open the next one, under the page's running header."""
    from conftest import searcher_over

    from finrag.ask import ask

    chunk = _filing_chunks("PEP", "PepsiCo, Inc.", 2022, "Item 1")

    first = chunk(1, 4, "We are organized into seven reportable segments (also referred to as "
                        "divisions), as follows: 1) Frito-Lay North America (FLNA); 2) Quaker "
                        "Foods North America (QFNA); 3) PepsiCo Beverages North America (PBNA); "
                        "4) Latin America (LatAm); 5) Europe;")
    rest = chunk(2, 5, "Table of Contents 6) Africa, Middle East and South Asia (AMESA); and 7) "
                       "Asia Pacific, Australia and New Zealand and China Region (APAC). Our "
                       "brands are sold in more than 200 countries and territories.")
    other = chunk(3, 40, "Net revenue grew in every division in 2022, led by pricing actions "
                         "in each of them.")
    searcher = searcher_over(data_dir, fake_embedder, [first, rest, other])
    try:
        asked = ask(searcher, "What are PepsiCo's reportable segments?",
                    Filters(tickers=["PEP"]), top_k=1)
    finally:
        searcher.close()
    said = asked.answer.sentences[0]
    assert said["text"].startswith("We are organized into seven reportable segments")
    assert said["text"].endswith("and 7) Asia Pacific, Australia and New Zealand and China "
                                 "Region (APAC).")
    assert said["citation"]["page"] == 4


def test_a_question_asking_for_names_is_answered_by_the_sentence_not_a_total_line(tmp_path):
    """Verizon FY2022: "What are Verizon's reportable segments?" had been answered with the
    figure of the segment note's line "Total reportable segments"; the filing's sentence that
    names them answers it. Where no sentence does, the line's figure still stands."""
    from conftest import FakeEmbedder

    from finrag.ask import ask
    from finrag.config import Settings
    from finrag.facts import Fact
    from finrag.generation import publish, write_generation
    from finrag.search import HybridSearcher

    embedder = FakeEmbedder()
    settings = Settings(data_dir=tmp_path / "vz", qdrant_url=None)
    table = Chunk(chunk_id="a" * 32, ticker="VZ", company="Verizon Communications Inc.",
                  fiscal_year=2022, chunk_type="table", page=102, filing_key="VZ2022",
                  text="Total reportable segments | 134,578 | 133,613")
    named = Chunk(chunk_id="b" * 32, ticker="VZ", company="Verizon Communications Inc.",
                  fiscal_year=2022, chunk_type="narrative", page=67, filing_key="VZ2022",
                  text="We have two reportable segments that we operate and manage as "
                       "strategic business units, Consumer and Business.")
    fact = Fact(ticker="VZ", fiscal_year=2022, filing_key="VZ2022", source="table",
                line_label="Total reportable segments", statement="other",
                period_end="2022-12-31", period_fiscal_year=2022, value=134578.0,
                unit="USD millions", page=102)
    write_generation(settings, "gen-000001", [table, named],
                     embedder.encode([table.text, named.text]), embedder.name, [fact])
    publish(settings.data_dir, "gen-000001")
    searcher = HybridSearcher(settings, embedder)
    try:
        asked = ask(searcher, "What are Verizon's reportable segments?", Filters(tickers=["VZ"]))
        total = ask(searcher, "Verizon total reportable segments 2022", Filters(tickers=["VZ"]))
    finally:
        searcher.close()
    assert asked.answer.kind == "passage"
    assert [s["text"] for s in asked.answer.sentences] == [named.text]
    assert total.answer.value == 134578.0
