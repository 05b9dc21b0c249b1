"""Answer evaluations: analysts' figure questions (figures.jsonl) and FinanceBench's
metrics-generated questions, each asked through `finrag.ask` like a user would.

An answer is right when its value is within the question's tolerance in the question's unit
(figures) or within the rounding the question asks for (FinanceBench); wrong answers are
counted apart from questions left unanswered, since a wrong figure costs an analyst more than
a missing one. For figures, the report also gives the share of right answers whose every cited
page is a page the figure is printed on (the question's page, or any page holding the XBRL fact).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from finrag.book import SCALE, convert


class DataError(ValueError):
    """A question file is missing or malformed; the message names the file and line."""


@dataclass
class FigureQuestion:
    qid: str
    question: str
    qtype: str
    ticker: str
    fiscal_year: int
    filing: Path
    answer: float
    unit: str
    tolerance: float
    pages: dict[int, set[int]] = field(default_factory=dict)  # input's fiscal year -> pages
    all_pages: set[int] = field(default_factory=set)


def load_figures(path: Path) -> list[FigureQuestion]:
    """The questions of a figures .jsonl; `filing` is relative to the file's folder's parent."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"{path}: not found (a figures .jsonl, "
                        "e.g. ../shared/data/eval/figures.dev.jsonl)")
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
            out.append(_figure(d, path.parent.parent))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise DataError(f"{path}:{n}: not a figures question ({exc!r})") from None
    if not out:
        raise DataError(f"{path}: no questions")
    return out


def _figure(d: dict, root: Path) -> FigureQuestion:
    pages = {int(d["page_index"])} if d.get("page_index") else set()
    for v in (d.get("verification") or {}).values():
        pages |= set((v.get("xbrl") or {}).get("fact_pages") or [])
        if (v.get("text") or {}).get("page_index"):
            pages.add(int(v["text"]["page_index"]))
    for i in d.get("inputs") or []:
        if i.get("page_index"):
            pages.add(int(i["page_index"]))
    return FigureQuestion(d["id"], d["question"], d["type"], d["ticker"], int(d["fiscal_year"]),
                          root / d["filing"], float(d["answer"]), d["unit"],
                          float(d["tolerance"]), all_pages=pages)


def close_enough(value: float, unit: str, expected: float, expected_unit: str,
                 tolerance: float) -> bool:
    """`value` in `unit` is within `tolerance` of `expected` in `expected_unit`."""
    if unit != expected_unit:
        if unit in SCALE and expected_unit in SCALE:
            value = convert(value, unit, expected_unit)
        else:
            return False
    return abs(value - expected) <= tolerance + 1e-9


def score_figures(searcher, questions: list[FigureQuestion], filter_mode: str = "none") -> dict:
    """Ask every question (no filters by default: the question names its company)."""
    from finrag.ask import ask
    from finrag.models import Filters

    rows = []
    for q in questions:
        filters = Filters()
        if filter_mode in ("ticker", "filing"):
            filters = Filters(tickers=[q.ticker],
                              fiscal_years=[q.fiscal_year] if filter_mode == "filing" else [])
        asked = ask(searcher, q.question, filters)
        a = asked.answer
        row = {"id": q.qid, "type": q.qtype, "question": q.question, "expected": q.answer,
               "unit": q.unit, "outcome": "unanswered", "value": None, "got_unit": None,
               "cited_pages": [], "page_right": None, "reason": asked.outcome.reason,
               "answer_ms": round(asked.timings_ms.get("answer", 0.0), 2)}
        if a is not None:
            right = a.value is not None and close_enough(a.value, a.unit, q.answer, q.unit,
                                                         q.tolerance)
            pages = [c["page"] for c in asked.citations]
            row.update(outcome="right" if right else "wrong", value=a.value, got_unit=a.unit,
                       text=a.text, cited_pages=pages,
                       page_right=bool(pages) and all(p in q.all_pages for p in pages))
        rows.append(row)
    return summarize(rows) | {"filter": filter_mode, "rows": rows}


def summarize(rows: list[dict]) -> dict:
    def counts(rs: list[dict]) -> dict:
        n = len(rs)
        right = sum(r["outcome"] == "right" for r in rs)
        wrong = sum(r["outcome"] == "wrong" for r in rs)
        answered = right + wrong
        out = {"questions": n, "right": right, "wrong": wrong, "unanswered": n - answered,
               "right_share": round(right / n, 3) if n else 0.0,
               "precision": round(right / answered, 3) if answered else None}
        paged = [r for r in rs if r["outcome"] == "right" and r.get("page_right") is not None]
        if paged:
            out["page_right_share"] = round(sum(r["page_right"] for r in paged) / len(paged), 3)
        return out

    types = sorted({r["type"] for r in rows})
    return {"overall": counts(rows),
            "by_type": {t: counts([r for r in rows if r["type"] == t]) for t in types}}


# --- FinanceBench ----------------------------------------------------------------------------

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
    from finrag.measure.financebench import filters_for

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


def table(report: dict, title: str) -> str:
    lines = [title, (f"{'set':24}{'n':>4}{'right':>7}{'wrong':>7}{'none':>6}{'right%':>8}"
                     f"{'precision':>10}{'page ok':>9}")]
    for name, c in [("all", report["overall"])] + list(report["by_type"].items()):
        prec = "-" if c["precision"] is None else f"{c['precision']:.2f}"
        page = f"{c['page_right_share']:.2f}" if "page_right_share" in c else "-"
        lines.append(f"{name:24}{c['questions']:>4}{c['right']:>7}{c['wrong']:>7}"
                     f"{c['unanswered']:>6}{c['right_share']:>8.2f}{prec:>10}{page:>9}")
    for r in report["rows"]:
        if r["outcome"] != "right":
            got = r["value"] if r["value"] is not None else (r.get("reason") or "")[:110]
            lines.append(f"  {r['outcome']:10} {r['id']}: {r['question'][:70]!r} -> {got}")
    return "\n".join(lines)
