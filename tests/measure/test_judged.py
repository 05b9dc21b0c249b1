"""Scoring judged answers: the verdict, every number within tolerance, a word of every group."""

from __future__ import annotations

import json

import pytest

from finrag.answer import Answer
from finrag.measure.judged import judge, load_key
from finrag.measure.keyfile import DataError
from tests.conftest import shared_path


def key(verdict=None, numbers=(), terms=()):
    return {"kind": "verdict" if verdict else "figures", "verdict": verdict,
            "numbers": list(numbers), "terms": [list(g) for g in terms], "note": ""}


def verdict_answer(verdict, text, value=None):
    return Answer("verdict", value, "USD millions", text, 2022, verdict=verdict)


def test_the_verdict_must_match():
    a = verdict_answer("no", "No — Verizon, total debt fell by $379 million")
    assert judge(a, key("no"))
    assert not judge(a, key("yes"))


def test_every_number_of_the_key_must_be_stated_within_its_tolerance():
    a = verdict_answer("no", "No — total debt fell by $379 million", value=-379)
    assert not judge(a, key("no", numbers=[(229, 30)]))
    assert judge(a, key("no", numbers=[(379, 1)]))


def test_a_word_of_every_group():
    a = Answer("stated", 2.7, "ratio", "2.70 — J&J inventory turnover", 2022)
    assert judge(a, key(numbers=[(2.7, 0.15)], terms=[["turnover"]]))
    assert not judge(a, key(numbers=[(2.7, 0.15)], terms=[["turnover"], ["days"]]))


def test_a_malformed_key_names_its_line(tmp_path):
    path = tmp_path / "key.jsonl"
    path.write_text(json.dumps({"id": "x", "kind": "opinion"}) + "\n")
    with pytest.raises(DataError, match=r"key.jsonl:1: .*opinion"):
        load_key(path)


def test_the_shared_key_loads():
    k = load_key(shared_path("eval", "financebench.dev.judged.jsonl"))
    assert len(k) == 25 and {v["kind"] for v in k.values()} == {"verdict", "figures", "extract"}
