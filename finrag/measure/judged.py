"""FinanceBench's judgement, figure and narrative questions scored against a key
(`../shared/data/eval/financebench.dev.judged.jsonl`: kind, verdict, numbers, terms), each
asked through `finrag.ask` like a user would.

An answer is right when it has the key's verdict (yes / no / none), states every number of the
key within its tolerance (in the text or as the answer's value), and holds one word of every
group of the key's terms. Any other answer is wrong; no answer is unanswered. Verdicts,
figures and extracts are counted apart.
"""

from __future__ import annotations

import re
from pathlib import Path

from finrag.measure.answer_tally import summarize
from finrag.measure.keyfile import read_jsonl

KINDS = ("verdict", "figures", "extract")
_NUMBER = re.compile(r"(?<![\w.])-?\$?\d[\d,]*(?:\.\d+)?")


def load_key(path: Path) -> dict[str, dict]:
    """id -> key record of a judged .jsonl; a malformed line names the file and line."""
    keys = read_jsonl(path, _key, "a judged key",
                      "../shared/data/eval/financebench.dev.judged.jsonl")
    return dict(keys)


def _key(d: dict) -> tuple[str, dict]:
    if d["kind"] not in KINDS:
        raise ValueError(f"kind {d['kind']!r} is not one of {', '.join(KINDS)}")
    return d["id"], {"kind": d["kind"], "verdict": d.get("verdict"),
                     "numbers": [(float(v), float(t)) for v, t in d.get("numbers") or []],
                     "terms": [[w.lower() for w in g] for g in d.get("terms") or []],
                     "note": d.get("note", "")}


def numbers_in(text: str) -> list[float]:
    return [float(m.group(0).replace("$", "").replace(",", "")) for m in _NUMBER.finditer(text)]


def verdict_of(answer) -> str | None:
    """The answer's verdict: its own, or "none" where a listing answer says there is none."""
    return getattr(answer, "verdict", None)


def judge(answer, key: dict) -> bool:
    """Whether `answer` (finrag.answer.Answer) meets `key`."""
    text = (answer.text or "").lower()
    if key["verdict"] is not None and verdict_of(answer) != key["verdict"]:
        return False
    stated = numbers_in(text) + ([abs(answer.value), answer.value]
                                 if answer.value is not None else [])
    for value, tolerance in key["numbers"]:
        if not any(abs(abs(n) - value) <= tolerance for n in stated):
            return False
    return all(any(w in text for w in group) for group in key["terms"])


def score_judged(searcher, records: list[dict], mode: str) -> dict:
    """`records`: {"question": a FinanceBench Question, "key": its key}."""
    from finrag.ask import ask
    from finrag.measure.financebench import filters_for

    rows = []
    for r in records:
        q, key = r["question"], r["key"]
        asked = ask(searcher, q.question, filters_for(q, mode))
        a = asked.answer
        row = {"id": q.financebench_id, "type": key["kind"], "question": q.question,
               "expected": key["note"], "outcome": "unanswered", "value": None,
               "reason": asked.outcome.reason,
               "answer_ms": round(asked.timings_ms.get("answer", 0.0), 2)}
        if a is not None:
            row.update(outcome="right" if judge(a, key) else "wrong", value=a.value,
                       verdict=verdict_of(a), text=a.text)
        rows.append(row)
    return summarize(rows) | {"filter": mode, "rows": rows}


def table(report: dict, title: str) -> str:
    """Counts by kind, then every answer given and every question left unanswered."""
    lines = [title, f"{'kind':10}{'n':>4}{'right':>7}{'wrong':>7}{'none':>6}{'right%':>8}"
                    f"{'precision':>10}"]
    for name, c in [("all", report["overall"])] + list(report["by_type"].items()):
        prec = "-" if c["precision"] is None else f"{c['precision']:.2f}"
        lines.append(f"{name:10}{c['questions']:>4}{c['right']:>7}{c['wrong']:>7}"
                     f"{c['unanswered']:>6}{c['right_share']:>8.2f}{prec:>10}")
    for r in report["rows"]:
        got = r.get("text") or (r.get("reason") or "")
        lines.append(f"  {r['outcome']:10} {r['id']} [{r['type']}] {r['question'][:80]!r}\n"
                     f"             key: {r['expected'][:100]}\n"
                     f"             got: {got[:300]}")
    return "\n".join(lines)
