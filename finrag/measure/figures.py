"""The analysts' figure questions (figures.jsonl), each asked through `finrag.ask` like a user
would, and scored.

An answer is right when its value is within the question's tolerance in the question's unit;
wrong answers are counted apart from questions left unanswered (finrag.measure.answer_tally),
since a wrong figure costs an analyst more than a missing one. The report also gives the share
of right answers whose every cited page is a page the figure is printed on (the question's page,
or any page holding the XBRL fact). FinanceBench's answers: finrag.measure.financebench_answers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from finrag.book import SCALE, convert
from finrag.measure.answer_tally import summarize
from finrag.measure.keyfile import read_jsonl


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
    root = Path(path).parent.parent
    return read_jsonl(path, lambda d: _figure(d, root), "a figures question",
                      "../shared/data/eval/figures.dev.jsonl")


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
