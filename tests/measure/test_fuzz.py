"""Fuzzed filings: a seeded sample through the reading path, the bugs it found (each pinned),
a build over bad files beside a good one, and the `fuzz` command's JSON and exit code."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from conftest import FakeEmbedder

from finrag.config import Settings
from finrag.embed import TokenCounter
from finrag.ingest.build import build
from finrag.ingest.cli import main
from finrag.ingest.read import ReadError, parse_sgml_header, read_filing
from finrag.ingest.sections import _Heading, _keep_in_order
from finrag.measure import fuzz as fuzzing
from finrag.measure.fuzz import BUGS, MUTATIONS, make_case, run_case, seed_bytes, write_case
from finrag.models import Block

pytestmark = pytest.mark.own_parse_cache  # a reader broken on purpose: no cached parse

COUNT = TokenCounter().count
GOOD = "MRX/10-K/0000950153-99-001234/primary-document.html"


@pytest.fixture(scope="module")
def sample():
    return fuzzing.fuzz(60, seed=0, count=COUNT)


@pytest.mark.slow  # the 60-case fuzz run
def test_a_seeded_sample_has_no_bugs(sample):
    totals = sample.totals()
    bugs = [o for o in sample.outcomes if o.status in BUGS]
    assert totals["bugs"] == 0, bugs
    assert totals["cases"] == 60 == totals["ok"] + totals["clean_failures"]
    assert set(sample.by_mutation()) == set(MUTATIONS)  # every mutation came up
    assert totals["ok"] > 10 and totals["clean_failures"] > 10


@pytest.mark.slow  # the 60-case fuzz run
def test_every_clean_failure_is_one_line_naming_its_file(sample):
    for o in sample.outcomes:
        if o.status == "clean" and not o.message.startswith("no chunks"):
            assert o.message.strip() and "\n" not in o.message
            assert Path(make_case(o.case).path).name in o.message, o


def test_a_case_depends_only_on_seed_and_number():
    assert make_case(7, seed=3).data == make_case(7, seed=3).data
    assert make_case(7, seed=3).data != make_case(7, seed=4).data
    assert [make_case(n).mutation for n in range(len(MUTATIONS))] == list(MUTATIONS)
    assert make_case(fuzzing.HUGE_EVERY // 2, huge_bytes=100_000).mutation == fuzzing.HUGE


@pytest.mark.slow  # a 50 MB filing
def test_a_huge_filing_is_read_whole(tmp_path):
    number = fuzzing.HUGE_EVERY // 2
    case = make_case(number, seed=1, huge_bytes=3_000_000)  # the 50 MB case, scaled down
    outcome = run_case(case, write_case(case, tmp_path), COUNT)
    assert outcome.status == "ok" and outcome.chunks > 0, outcome


# --- bugs the fuzzer found, pinned -----------------------------------------------------------


def _write(tmp_path: Path, data: bytes, layout: str = GOOD) -> Path:
    path = tmp_path / layout
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path.parent


def _one_line(unit: Path) -> str:
    with pytest.raises(ReadError) as info:
        read_filing(unit)
    message = str(info.value)
    assert "\n" not in message and "primary-document.html" in message and not info.value.internal
    return message


@pytest.mark.parametrize("unit", [b"<div>", b"<table><tr><td>", b"<font>"])
def test_nesting_past_the_parser_limit_is_refused_not_silently_cut(tmp_path, unit):
    """libxml2 stops at 256 levels and returns a tree without the rest of the document."""
    html = seed_bytes("html-1999")
    at = html.index(b">", html.lower().index(b"<body")) + 1
    message = _one_line(_write(tmp_path, html[:at] + unit * 300 + b"x" + html[at:]))
    assert "nested over 256 deep" in message


def test_utf16_and_utf32_filings_read_like_utf8(tmp_path):
    text = seed_bytes("html-1999").decode("utf-8")
    expected = read_filing(_write(tmp_path / "utf8", text.encode()))
    for encoding in ("utf-16", "utf-16-le", "utf-16-be", "utf-32"):
        filing = read_filing(_write(tmp_path / encoding, text.encode(encoding)))
        assert filing.blocks == expected.blocks, encoding


def test_a_stray_nul_byte_does_not_refuse_the_filing(tmp_path):
    html = seed_bytes("html-1999")
    damaged = html[:2000] + b"\x00\x01" + html[2000:]
    assert read_filing(_write(tmp_path, damaged)).blocks == \
        read_filing(_write(tmp_path / "clean", html)).blocks


def test_one_stray_cp1252_byte_leaves_the_utf8_text_alone(tmp_path):
    """It used to turn the whole file into cp1252 mojibake ('JuneÂ 30'): no fiscal year."""
    html = seed_bytes("html-1999").replace(b"&nbsp;", "\xa0".encode())
    damaged = html + b"<!-- \x92 -->"
    filing = read_filing(_write(tmp_path, damaged))
    assert (filing.fiscal_year, filing.period_end) == (1999, "1999-06-30")
    assert filing.blocks == read_filing(_write(tmp_path / "clean", html)).blocks


def test_a_damaged_pdf_is_one_line_and_pypdf_stays_quiet(tmp_path, caplog):
    pdf = seed_bytes("pdf-1999")
    path = tmp_path / "MRX" / "10-K" / "x" / "filing.pdf"
    path.parent.mkdir(parents=True)
    path.write_bytes(pdf[: len(pdf) // 2])
    with pytest.raises(ReadError, match="filing.pdf: unreadable PDF .*re-download it"):
        read_filing(path)
    assert not [r for r in caplog.records if r.name.startswith("pypdf")]


def test_header_parsing_is_linear_in_whitespace_runs():
    header = "ACCESSION NUMBER: 0000320193-24-000123\nCOMPANY CONFORMED NAME: A" \
             + " " * 200_000 + "B\n</SEC-HEADER>"
    started = time.perf_counter()
    fields = parse_sgml_header(header)
    assert time.perf_counter() - started < 1.0
    assert fields["COMPANY CONFORMED NAME"].startswith("A") and fields["ACCESSION NUMBER"]


def test_item_ordering_is_linear_in_the_number_of_headings():
    headings = [_Heading(i, ("1", "7", "7A", "8")[i % 4], "t", 500) for i in range(60_000)]
    started = time.perf_counter()
    chain = _keep_in_order(headings)
    assert time.perf_counter() - started < 5.0
    assert [h.item for h in chain] == ["1", "7", "7A", "8"] and chain[0].index == 0


def test_the_safety_net_marks_its_errors_as_internal(tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise KeyError("a reader bug\nwith two lines")

    monkeypatch.setattr("finrag.ingest.read.html.html_to_blocks", broken)
    with pytest.raises(ReadError) as info:
        read_filing(_write(tmp_path, seed_bytes("html-1999")))
    assert info.value.internal and "\n" not in str(info.value) and "KeyError" in str(info.value)


def test_a_block_with_only_spaces_yields_no_chunk():
    from finrag.ingest.chunk import chunk_filing
    from finrag.ingest.sections import split_sections
    from finrag.models import Filing

    blocks = [Block(kind="text", text="Item 1. Business"), Block(kind="text", text="   ")]
    filing = Filing(ticker="X", fiscal_year=2020, source="x", blocks=blocks)
    chunks = chunk_filing(filing, split_sections(blocks), COUNT)
    assert [c.text for c in chunks] == ["Item 1. Business"]


# --- bad files beside a good one, through the real build -------------------------------------

BAD_CASES = (8, 9, 10, 11, 12, 21)  # empty, gzipped .htm, damaged PDF, nesting, truncated, zip


def test_a_build_over_fuzzed_files_indexes_the_good_one_and_reports_each_bad_one(tmp_path):
    src = tmp_path / "src"
    _write(src / "good", seed_bytes("html-1999"))
    bad = []
    for number in BAD_CASES:
        case = make_case(number)
        write_case(case, src / f"case-{number}")
        bad.append(Path(case.path).name)
    settings = Settings(data_dir=tmp_path / "data", qdrant_url=None)
    report = build([src], settings, FakeEmbedder(), COUNT)
    ok = [f for f in report.filings if f.status == "ok"]
    failed = [f for f in report.filings if f.status == "failed"]
    assert [(f.ticker, f.fiscal_year) for f in ok] == [("MRX", 1999)] and ok[0].chunks > 100
    assert len(failed) == len(BAD_CASES) and report.published
    for f, name in zip(sorted(failed, key=lambda f: int(f.path.split("case-")[1].split("/")[0])),
                       bad):
        assert f.error and "\n" not in f.error and name in f.error, f


# --- the command ----------------------------------------------------------------------------


def test_fuzz_command_json_shape_and_exit_code(tmp_path, capsys):
    assert main(["fuzz", "--cases", "3", "--seed", "2", "--json", "--keep", str(tmp_path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["cases"] == 3 and data["seed"] == 2 and data["bugs"] == data["uncaught"] == 0
    assert data["ok"] + data["clean_failures"] == 3 and data["bug_cases"] == []
    assert list(data["mutations"]) == list(MUTATIONS)[:3]
    assert set(data["mutations"]["truncate"]) == {"cases", "ok", "clean", "bugs"}
    assert {"seconds", "peak_rss_mb", "slowest", *BUGS} <= set(data)
    assert len(list(tmp_path.glob("case-*"))) == 3  # --keep left every case


def test_fuzz_command_exits_1_on_an_uncaught_exception(capsys, monkeypatch):
    def broken(*args, **kwargs):
        raise IndexError("chunker bug")

    monkeypatch.setattr(fuzzing, "chunk_filing", broken)
    assert main(["fuzz", "--cases", "8", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["uncaught"] == data["bugs"] > 0
    assert all("IndexError: chunker bug" in b["message"] for b in data["bug_cases"])
