"""Facts in the index: written with the generation, read back by company and fiscal year, the
same after a re-run, replaced when their filing changes."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import FakeEmbedder

from finrag.config import Settings
from finrag.embed import TokenCounter
from finrag.index import Index
from finrag.ingest import read_step
from finrag.ingest.build import build
from finrag.ingest.sample import unpack_sample

pytestmark = [pytest.mark.slow,  # builds two whole real filings (>2,000 facts)
              # a data dir's own fact cache, and a fact stage broken on purpose
              pytest.mark.own_parse_cache]

COUNT = TokenCounter().count
SUBSET = ("HD/10-K/0000354950-25-000085", "NVDA/10-K/nvda-20240128")
HD_EPS = ("us-gaap:EarningsPerShareDiluted", "2024-01-29", "2025-02-02")


def _filings(tmp: Path) -> list[Path]:
    root = unpack_sample(tmp / "src") / "sec-edgar-filings"
    return [root / p for p in SUBSET]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("facts")
    settings = Settings(data_dir=tmp / "data", qdrant_url=None)
    report = build(_filings(tmp), settings, FakeEmbedder(), COUNT)
    return tmp, settings, report


def _stored(settings: Settings, **filters):
    index = Index.open(settings)
    try:
        return index.facts(**filters), {c.chunk_id: c for c in index.all_chunks()}
    finally:
        index.close()


def _eps(facts):
    return [f for f in facts if (f.concept, f.period_start, f.period_end) == HD_EPS
            and not f.dims]


def test_facts_are_stored_with_the_generation_and_cite_an_indexed_chunk(built):
    _, settings, report = built
    facts, chunks = _stored(settings)
    assert len(facts) == sum(f.facts for f in report.filings) > 2000
    assert {f.ticker for f in facts} == {"HD", "NVDA"}
    eps, *_ = _eps(facts)  # HD income statement, p. 44: "Diluted earnings per share | $14.91"
    assert (eps.value, eps.unit, eps.page, eps.statement) == (14.91, "USD per share", 44, "income")
    chunk = chunks[eps.chunk_id]
    assert chunk.page == 44 and "$14.91" in chunk.text
    assert "Diluted earnings per share" in chunk.text


def test_facts_are_read_by_company_and_fiscal_year(built):
    _, settings, _ = built
    hd, _ = _stored(settings, tickers=["hd"])
    assert hd and {f.ticker for f in hd} == {"HD"}
    prior, _ = _stored(settings, tickers=["HD"], period_fiscal_years=[2023])
    assert prior and {f.period_fiscal_year for f in prior} == {2023}
    sales = [f for f in prior if f.line_label == "Net sales" and f.statement == "income"]
    assert {f.value for f in sales} == {152669.0}  # HD income statement, fiscal 2023 column
    nvda, _ = _stored(settings, fiscal_years=[2024], tickers=["NVDA"])
    assert nvda and {(f.ticker, f.fiscal_year) for f in nvda} == {("NVDA", 2024)}
    assert _stored(settings, tickers=["AAPL"])[0] == []
    capex, _ = _stored(settings, tickers=["HD"], period_fiscal_years=[2024],
                       statements=["cash_flow"],
                       concepts=["us-gaap:PaymentsToAcquireProductiveAssets"])
    assert [(f.value, f.printed, f.line_label) for f in capex] == [
        (3485.0, "(3,485)", "Capital expenditures")]  # HD cash flow statement, p. 47


def test_the_same_filings_again_give_the_same_facts_once(built):
    tmp, settings, _ = built
    before, _ = _stored(settings)
    again = build(_filings(tmp), settings, FakeEmbedder(), COUNT)
    after, _ = _stored(settings)
    assert not again.published
    assert after == before
    keys = [f.model_dump_json() for f in after]
    assert len(keys) == len(set(keys))


def test_a_changed_filing_replaces_its_facts(built, tmp_path):
    src, settings, _ = built
    data = tmp_path / "data"
    subprocess.run(["cp", "-r", str(settings.data_dir), str(data)], check=True)
    moved = Settings(data_dir=data, qdrant_url=None)
    before, _ = _stored(moved, tickers=["HD"])
    hd = _filings(src)[0]
    changed = tmp_path / "HD" / "10-K" / hd.name
    changed.parent.mkdir(parents=True)
    subprocess.run(["cp", "-r", str(hd), str(changed)], check=True)
    doc = changed / "primary-document.html"
    text = doc.read_text()
    assert text.count('id="f-177">14.91<') == 1  # the EPS fact of the income statement
    doc.write_text(text.replace('id="f-177">14.91<', 'id="f-177">14.95<'))
    report = build([changed], moved, FakeEmbedder(), COUNT)
    after, _ = _stored(moved, tickers=["HD"])
    assert report.published and len(after) == len(before)
    assert [f.value for f in _eps(after) if f.page == 44] == [14.95]
    assert len(_stored(moved, tickers=["NVDA"])[0]) > 1000  # the other filing's facts stay


def test_a_failing_fact_stage_keeps_the_filings_chunks(tmp_path, monkeypatch):
    def broken(filing):
        raise KeyError("boom")

    monkeypatch.setattr(read_step, "read_facts", broken)
    settings = Settings(data_dir=tmp_path / "data", qdrant_url=None)
    report = build(_filings(tmp_path)[:1], settings, FakeEmbedder(), COUNT)
    (filing,) = report.filings
    assert filing.status == "ok" and filing.chunks > 100 and filing.facts == 0
    assert "facts not extracted" in filing.facts_error and "\n" not in filing.facts_error


def test_a_rerun_takes_the_facts_from_the_fact_cache(built, tmp_path, monkeypatch):
    src, settings, _ = built
    data = tmp_path / "data"
    subprocess.run(["cp", "-r", str(settings.data_dir), str(data)], check=True)
    moved = Settings(data_dir=data, qdrant_url=None)
    before, _ = _stored(moved)

    def never(filing):
        raise AssertionError("facts read again")

    monkeypatch.setattr(read_step, "read_facts", never)
    report = build(_filings(src), moved, FakeEmbedder(), COUNT, rebuild=True)
    assert report.published and not any(f.facts_error for f in report.filings)
    assert _stored(moved)[0] == before
