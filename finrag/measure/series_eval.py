"""Series, peer and ranking questions with exact answers (keys/series.dev.jsonl), each asked
through `finrag.ask` like a user would, and scored point by point.

A question is right when the answer is of its kind and holds every point of the key within its
tolerance (and, for a ranking, the key's company first); wrong when any point it gives for a key's
company and year is off, or it gives a figure for a year the key says no indexed filing prints,
or it ranks another company first; unanswered otherwise (no answer, another kind, or points
left out). A wrong point in a chart is a wrong answer, so points are tallied too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from finrag.measure.answer_tally import summarize
from finrag.measure.figures import close_enough
from finrag.measure.keyfile import read_jsonl


@dataclass
class KeyPoint:
    ticker: str
    fiscal_year: int
    value: float
    unit: str
    tolerance: float
    pages: frozenset[int] = frozenset()  # page indexes the key found its figures printed on


def _pages(source: dict) -> frozenset[int]:
    found = [source.get("page_index")] + [i.get("page_index") for i in source.get("inputs", [])]
    return frozenset(int(p) for p in found if p)


@dataclass
class SeriesQuestion:
    qid: str
    kind: str  # "series" | "peers" | "ranking"
    question: str
    filings: list[str]  # accession folders under the filings root, e.g. "AAPL/10-K/0000..."
    points: list[KeyPoint]
    absent: list[tuple[str, int]] = field(default_factory=list)  # no indexed filing prints it
    top: str | None = None  # a ranking's first company
    tickers: list[str] = field(default_factory=list)  # a ticker filter set with the question


def load_key(path: Path) -> list[SeriesQuestion]:
    return read_jsonl(path, _question, "a series question",
                      "finrag/measure/keys/series.dev.jsonl")


def _question(d: dict) -> SeriesQuestion:
    return SeriesQuestion(
        d["id"], d["kind"], d["question"], list(d["filings"]),
        [KeyPoint(p["ticker"], int(p["fiscal_year"]), float(p["value"]), p["unit"],
                  float(p["tolerance"]), _pages(p.get("source", {}))) for p in d["points"]],
        [(m["ticker"], int(m["fiscal_year"])) for m in d.get("absent", [])],
        d.get("top"), list(d.get("tickers", [])))


def judge(q: SeriesQuestion, a) -> tuple[str, dict]:
    """The question's outcome and its points' tally (right, wrong, absent)."""
    tally = {"right": 0, "wrong": 0, "absent": 0}
    if a is None or a.kind != q.kind or not a.points:
        tally["absent"] = len(q.points)
        return "unanswered", tally
    given = {(p["ticker"], p["fiscal_year"]): p for p in a.points}
    for k in q.points:
        p = given.get((k.ticker, k.fiscal_year))
        if p is None:
            tally["absent"] += 1
        elif close_enough(p["value"], p["unit"], k.value, k.unit, k.tolerance):
            tally["right"] += 1
        else:
            tally["wrong"] += 1
    tally["wrong"] += sum(key in given for key in q.absent)
    if tally["wrong"] or (q.top and a.points[0]["ticker"] != q.top):
        return "wrong", tally
    return ("right" if tally["absent"] == 0 else "unanswered"), tally


def pages_right(q: SeriesQuestion, a, citations: list[dict]) -> bool | None:
    """Whether every key point the answer gives cites the pages the key found it printed on."""
    given = {(p["ticker"], p["fiscal_year"]): p for p in (a.points or [])} if a else {}
    checked = [(k, given[k.ticker, k.fiscal_year]) for k in q.points
               if k.pages and (k.ticker, k.fiscal_year) in given]
    if not checked:
        return None
    return all({citations[i]["page"] for i in p["cited"]} <= k.pages for k, p in checked)


def score_series(searcher, questions: list[SeriesQuestion]) -> dict:
    from finrag.ask import ask
    from finrag.models import Filters

    rows = []
    points = {"right": 0, "wrong": 0, "absent": 0}
    for q in questions:
        asked = ask(searcher, q.question, Filters(tickers=q.tickers))
        a = asked.answer
        outcome, tally = judge(q, a)
        for k, v in tally.items():
            points[k] += v
        rows.append({"id": q.qid, "type": q.kind, "question": q.question, "outcome": outcome,
                     "value": a.text[:110] if a is not None else None,
                     "reason": asked.outcome.reason, "points": tally,
                     "page_right": pages_right(q, a, asked.citations) if outcome == "right"
                     else None,
                     "answer_ms": round(asked.timings_ms.get("answer", 0.0), 2)})
    given = points["right"] + points["wrong"]
    points["precision"] = round(points["right"] / given, 3) if given else None
    return summarize(rows) | {"points": points, "rows": rows}
