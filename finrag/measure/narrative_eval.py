"""Narrative questions over real 10-Ks (keys/narrative.dev.jsonl): causes, lists, yes / no and
other questions a filing answers in words, each with the verbatim phrases of the sentences that
answer it.

The key names no page: a question's evidence is every page of its filing whose text holds one of
its phrases (compared in lower case, quotes and white space normalized), found in the index
being measured, so a change to how filings are read or chunked cannot leave the key behind.
Each question is searched under its filter (the filing's ticker and year by default) and scored
by page-hit@k and MRR per method, as the FinanceBench eval is; the answer `ask` gives is scored
too: quoted from an evidence page, quoted from another page, or not quoted, and whether a
quoted sentence holds one of the key's phrases (the stricter count: the answering sentence).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from finrag.measure.financebench import filing_filters
from finrag.measure.keyfile import read_jsonl
from finrag.measure.retrieval_metrics import METHODS, MethodScores, Outcome
from finrag.models import Chunk, Filters

KINDS = ("cause", "list", "yes_no", "other")
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"',
                         "\u2013": "-", "\u2014": "-", "\u00a0": " "})


@dataclass(frozen=True)
class NarrativeQuestion:
    qid: str
    question: str
    kind: str
    ticker: str
    fiscal_year: int
    filing: str  # the document, relative to the data folder the key's filings are under
    evidence: tuple[str, ...]  # verbatim phrases of the sentences that answer


def load_key(path: Path) -> list[NarrativeQuestion]:
    return read_jsonl(path, _question, "a narrative question",
                      "finrag/measure/keys/narrative.dev.jsonl")


def _question(d: dict) -> NarrativeQuestion:
    if d["kind"] not in KINDS:
        raise ValueError(f"kind {d['kind']!r} is not one of {', '.join(KINDS)}")
    phrases = tuple(str(p) for p in d["evidence"])
    if not phrases:
        raise ValueError("no evidence phrase")
    return NarrativeQuestion(d["id"], d["question"], d["kind"], d["ticker"].upper(),
                             int(d["fiscal_year"]), d["filing"], phrases)


def normalize(text: str) -> str:
    return " ".join((text or "").translate(_QUOTES).lower().split())


Place = tuple[str, int, int | None]  # (ticker, fiscal year, page)


def _place(chunk: Chunk) -> Place:
    return (chunk.ticker, chunk.fiscal_year, chunk.page)


def evidence_places(index, q: NarrativeQuestion) -> frozenset[Place]:
    """The pages of the question's filing whose text holds one of its phrases."""
    keys = [k for k, f in index.filings().items()
            if f["ticker"] == q.ticker and f["fiscal_year"] == q.fiscal_year]
    pages: dict[Place, list[str]] = defaultdict(list)
    for payloads in index.filing_payloads(keys).values():
        for payload in payloads.values():
            chunk = Chunk.model_validate_json(payload)
            pages[_place(chunk)].append(chunk.text)
    wanted = [normalize(p) for p in q.evidence]
    return frozenset(where for where, texts in pages.items()
                     if any(w in normalize(" ".join(texts)) for w in wanted))


def filters_for(q: NarrativeQuestion, mode: str) -> Filters:
    return filing_filters(q.ticker, q.fiscal_year, mode)


def quoted(asked, evidence: frozenset[Place]) -> str:
    """"evidence" where the answer quotes a sentence printed on an evidence page, "elsewhere"
    where it quotes only other pages, "none" where it quotes nothing."""
    a = asked.answer
    sentences = (a.sentences or []) if a is not None else []
    if not sentences:
        return "none"
    cited = {(s["citation"]["ticker"], s["citation"]["fiscal_year"], s["citation"]["page"])
             for s in sentences}
    return "evidence" if cited & evidence else "elsewhere"


def holds_phrase(asked, q: NarrativeQuestion) -> bool:
    """Whether a quoted sentence holds one of the key's phrases: the answering sentence
    itself, not only its page (a page holds other sentences: Amazon's headcount page also
    counts the employees in Career Choice)."""
    a = asked.answer
    said = [normalize(s["text"]) for s in ((a.sentences or []) if a is not None else [])]
    return any(normalize(p) in s for p in q.evidence for s in said)


def evaluate(searcher, questions: list[NarrativeQuestion], mode: str = "filing",
             k: int = 10, answers: bool = True, **search_kw) -> dict:
    """Every question searched (and asked, with `answers`) under its filter, with `search_kw`
    (HybridSearcher.search's settings); the report."""
    from finrag.ask import ask

    index = searcher.index
    overall = {m: MethodScores() for m in METHODS}
    by_kind: dict[str, dict[str, MethodScores]] = {}
    tally: dict[str, Counter] = defaultdict(Counter)
    rows, unfound = [], []
    for q in questions:
        evidence = evidence_places(index, q)
        if not evidence:
            unfound.append(q.qid)
            continue
        filters = filters_for(q, mode)
        if answers:
            asked = ask(searcher, q.question, filters, top_k=k, **search_kw)
            result, outcome = asked.search, quoted(asked, evidence)
            tally[q.kind][outcome] += 1
            tally[q.kind]["phrase"] += holds_phrase(asked, q)
        else:
            result, outcome = searcher.search(q.question, filters, top_k=k, **search_kw), None
        kind = by_kind.setdefault(q.kind, {m: MethodScores() for m in METHODS})
        ranks = {}
        for m in METHODS:
            o = Outcome([_place(h.chunk) for h in getattr(result, m)], evidence, 0.0)
            overall[m].outcomes.append(o)
            kind[m].outcomes.append(o)
            ranks[m] = o.rank
        rows.append({"id": q.qid, "kind": q.kind, "ranks": ranks, "answer": outcome})
    return {
        "questions": len(rows), "filter": mode, "k": k,
        "evidence_not_found": unfound,
        "methods": {m: overall[m].summary(k) for m in METHODS},
        "by_kind": {t: {"questions": len(s["fused"].outcomes),
                        "methods": {m: s[m].summary(k) for m in METHODS}}
                    for t, s in sorted(by_kind.items())},
        "answers": {t: dict(c) for t, c in sorted(tally.items())},
        "rows": rows,
    }


def table(r: dict) -> str:
    k = r["k"]
    cols = ["hit@1", "hit@5", f"hit@{k}", f"mrr@{k}"]
    lines = [f"Narrative questions: {r['questions']}, filter {r['filter']}"
             + (f" ({len(r['evidence_not_found'])} with no evidence page found: "
                f"{', '.join(r['evidence_not_found'])})" if r["evidence_not_found"] else ""),
             f"{'method':8}" + "".join(f"{c:>9}" for c in cols)]
    for group, methods in [("", r["methods"])] + [
            (f"  {t} ({v['questions']})", v["methods"]) for t, v in r["by_kind"].items()]:
        if group:
            lines.append(group)
        for m, s in methods.items():
            lines.append(f"{m:8}" + "".join(f"{s[c]:>9}" for c in cols))
    if r["answers"]:
        lines.append("answers (quoted from an evidence page / from another page / no quote; "
                     "a quote holding a key phrase):")
        for t, c in r["answers"].items():
            lines.append(f"  {t:8} {c.get('evidence', 0)} / {c.get('elsewhere', 0)} / "
                         f"{c.get('none', 0)}; {c.get('phrase', 0)}")
    return "\n".join(lines)


def filing_folders(questions: list[NarrativeQuestion], root: Path) -> list[Path]:
    return sorted({(root / q.filing).parent for q in questions})

