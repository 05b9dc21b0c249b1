"""The parsed-PDF cache: a re-run does not parse again, and a changed file or override is a miss."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import FakeEmbedder, shared_path, word_count

from finrag.config import Settings
from finrag.ingest import read_step
from finrag.ingest.build import build

pytestmark = pytest.mark.own_parse_cache  # tests of the read cache itself


def _small_pdf(tmp_path: Path, pages: range) -> Path:
    from pypdf import PdfReader, PdfWriter

    source = PdfReader(shared_path("financebench", "pdfs", "3M_2018_10K.pdf"))
    writer = PdfWriter()
    for n in pages:
        writer.add_page(source.pages[n])
    out = tmp_path / "src" / "mmm-2018.pdf"
    out.parent.mkdir(exist_ok=True)
    with open(out, "wb") as fh:
        writer.write(fh)
    return out


def _counting_reader(monkeypatch) -> list[Path]:
    calls: list[Path] = []
    real = read_step.read_filing

    def spy(unit, **kw):
        calls.append(unit)
        return real(unit, **kw)

    monkeypatch.setattr(read_step, "read_filing", spy)
    return calls


@pytest.mark.slow  # pypdf over a whole PDF
def test_rerun_serves_the_parse_from_the_cache(tmp_path, monkeypatch):
    pdf = _small_pdf(tmp_path, range(0, 6))
    settings = Settings(data_dir=tmp_path / "data", qdrant_url=None)
    calls = _counting_reader(monkeypatch)
    over = {pdf: {"ticker": "MMM", "fiscal_year": 2018}}

    first = build([pdf], settings, FakeEmbedder(), word_count, overrides=over)
    assert first.filings[0].status == "ok" and first.filings[0].ticker == "MMM"
    assert first.filings[0].fiscal_year == 2018
    second = build([pdf], settings, FakeEmbedder(), word_count, overrides=over)
    assert len(calls) == 1  # parsed once
    assert second.filings[0].status == "skipped" and not second.published

    # another fiscal year for the same bytes is another filing, parsed again
    third = build([pdf], settings, FakeEmbedder(), word_count,
                  overrides={pdf: {"ticker": "MMM", "fiscal_year": 2019}})
    assert len(calls) == 2 and third.filings[0].fiscal_year == 2019


@pytest.mark.slow  # pypdf over a whole PDF
def test_changed_bytes_are_parsed_again(tmp_path, monkeypatch):
    pdf = _small_pdf(tmp_path, range(0, 4))
    settings = Settings(data_dir=tmp_path / "data", qdrant_url=None)
    calls = _counting_reader(monkeypatch)
    build([pdf], settings, FakeEmbedder(), word_count, ticker="MMM", fiscal_year=2018)
    _small_pdf(tmp_path, range(0, 7))  # same path, more pages
    report = build([pdf], settings, FakeEmbedder(), word_count, ticker="MMM", fiscal_year=2018)
    assert len(calls) == 2 and report.published
