"""FinanceBench's metrics-generated questions, each asked through `finrag.ask` like a user would:
an answer is right within the rounding the question asks for (else the gold answer's own);
wrong answers are counted apart from questions left unanswered (finrag.measure.answer_tally)."""

from __future__ import annotations

import re

from finrag.measure.answer_tally import summarize
from finrag.measure.financebench import filters_for

_NUMBER = re.compile(r"-?\$?\(?-?\d[\d,]*(?:\.\d+)?\)?")


def gold_number(answer: str) -> tuple[float, int] | None:
    """The first number of a FinanceBench answer ('$1577.00', '10.3%', '0.68') and its decimals
    once trailing zeros go ('$1577.00' -> 0, '10.3%' -> 1)."""
    m = _NUMBER.search(answer or "")
    if not m:
        return None
    text = m.group(0).replace("$", "").replace(",", "")
    negative = text.startswith(("-", "("))
    text = text.strip("-()")
    value = float(text)
    decimals = len(text.split(".")[1].rstrip("0")) if "." in text else 0
    return (-value if negative else value), decimals


def financebench_right(value: float, unit: str, gold: str, asked_decimals: int | None) -> bool:
    """Within the rounding asked (the question's decimals, else the gold answer's own)."""
    parsed = gold_number(gold)
    if parsed is None:
        return False
    expected, decimals = parsed
    places = asked_decimals if asked_decimals is not None else decimals
    return abs(value - expected) <= 0.5 * 10 ** -places + 1e-9


def score_financebench(searcher, records: list[dict], mode: str) -> dict:
    """`records`: the metrics-generated FinanceBench questions with their Document (`doc`)."""
    from finrag.ask import ask

    rows = []
    for r in records:
        asked = ask(searcher, r["question"].question, filters_for(r["question"], mode))
        a = asked.answer
        row = {"id": r["question"].financebench_id, "type": r["question"].question_type,
               "question": r["question"].question, "expected": r["answer"],
               "outcome": "unanswered", "value": None, "reason": asked.outcome.reason,
               "answer_ms": round(asked.timings_ms.get("answer", 0.0), 2)}
        if a is not None:
            right = a.value is not None and financebench_right(a.value, a.unit, r["answer"],
                                                               asked.question.decimals)
            row.update(outcome="right" if right else "wrong", value=a.value, got_unit=a.unit,
                       text=a.text)
        rows.append(row)
    return summarize(rows) | {"filter": mode, "rows": rows}
