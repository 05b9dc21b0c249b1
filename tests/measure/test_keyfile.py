"""The eval's question and key files are refused the same way by every loader: one line
naming the file (and line) and what was expected."""

from __future__ import annotations

import pytest

from finrag.measure import figures, financebench, judged, series_eval
from finrag.measure.keyfile import DataError

LOADERS = {
    "figures": figures.load_figures,
    "series": series_eval.load_key,
    "judged": judged.load_key,
    "financebench": lambda p: financebench.load(p, p.parent, p),  # pdfs dir, doc index exist
}


@pytest.fixture(params=sorted(LOADERS))
def load(request):
    return LOADERS[request.param]


def test_a_missing_file_is_named_with_an_example(load, tmp_path):
    with pytest.raises(DataError, match=r"nope\.jsonl: not found") as info:
        load(tmp_path / "nope.jsonl")
    assert "\n" not in str(info.value)


def test_a_line_that_is_not_json_names_the_file_and_line(load, tmp_path):
    path = tmp_path / "key.jsonl"
    path.write_text('\n{"id": \n', encoding="utf-8")
    with pytest.raises(DataError, match=r"key\.jsonl:2: not a ") as info:
        load(path)
    assert "\n" not in str(info.value)


def test_a_file_of_blank_lines_holds_no_records(load, tmp_path):
    path = tmp_path / "key.jsonl"
    path.write_text("\n  \n", encoding="utf-8")
    with pytest.raises(DataError, match=r"key\.jsonl: holds no records"):
        load(path)


def test_a_record_missing_a_field_names_its_line(tmp_path):
    path = tmp_path / "key.jsonl"
    path.write_text('{"id": "q1", "kind": "verdict"}\n{"id": "q2"}\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"key\.jsonl:2: not a judged key \(KeyError\('kind'\)"):
        judged.load_key(path)
