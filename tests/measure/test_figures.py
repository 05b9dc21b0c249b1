"""Scoring answers: tolerance in the question's unit, FinanceBench rounding, the question file."""

from __future__ import annotations

import pytest

from finrag.measure.answer_tally import summarize
from finrag.measure.figures import close_enough, load_figures
from finrag.measure.financebench_answers import financebench_right, gold_number
from tests.conftest import shared_path


@pytest.mark.parametrize("text, parsed", [
    ("$1577.00", (1577.0, 0)), ("10.3%", (10.3, 1)), ("0.68", (0.68, 2)), ("$0.40", (0.4, 1)),
    ("-5.4%", (-5.4, 1)), ("$16,525.00", (16525.0, 0)), ("no figure", None),
])
def test_gold_number(text, parsed):
    assert gold_number(text) == parsed


@pytest.mark.parametrize("value, gold, decimals, right", [
    (1577, "$1577.00", None, True), (1577.6, "$1577.00", None, False),
    (10.34, "10.3%", 1, True), (10.36, "10.3%", 1, False),
    (0.403, "$0.40", None, True), (0.46, "$0.40", None, False),
    (42.694, "42.69", 2, True), (42.70, "42.69", 2, False),
])
def test_financebench_rounding(value, gold, decimals, right):
    assert financebench_right(value, "x", gold, decimals) is right


def test_close_enough_converts_units_and_refuses_other_kinds():
    assert close_enough(18.324, "USD billions", 18324, "USD millions", 0.5)
    assert not close_enough(18.33, "USD billions", 18324, "USD millions", 0.5)
    assert not close_enough(42.2, "ratio", 42.2, "percent", 0.05)


def test_summary_counts_and_precision():
    rows = [{"type": "stated", "outcome": "right", "page_right": True},
            {"type": "stated", "outcome": "wrong", "page_right": None},
            {"type": "yoy", "outcome": "unanswered"}]
    s = summarize(rows)
    assert s["overall"] == {"questions": 3, "right": 1, "wrong": 1, "unanswered": 1,
                            "right_share": 0.333, "precision": 0.5, "page_right_share": 1.0}
    assert s["by_type"]["yoy"]["precision"] is None


def test_load_the_dev_questions_with_their_pages():
    qs = load_figures(shared_path("eval", "figures.dev.jsonl"))
    assert len(qs) == 15 and all(q.filing.is_file() for q in qs)
    iphone = next(q for q in qs if q.question == "iPhone net sales FY2024")
    assert iphone.all_pages == {25, 37} and iphone.unit == "USD millions"
