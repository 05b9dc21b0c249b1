"""FinanceBench (Islam et al. 2023) as finrag reads it: questions, their documents, evidence pages.

The data set is CC-BY-NC: it is read from where the user keeps it (../shared/data/financebench
here), never copied into the project. `doc_index.csv` maps each `doc_name` (`3M_2018_10K`) to a
ticker and fiscal year (`doc_period`), which become the filing's metadata at ingest, the way an
analyst would type them in the app's filters. Evidence pages are stored 1-based, like the `page`
of a chunk read from a PDF; FinanceBench's `evidence_page_num` is the 0-based page index.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path


class DataError(ValueError):
    """The benchmark files are missing or malformed; the message names the file."""


@dataclass(frozen=True)
class Document:
    doc_name: str
    ticker: str
    fiscal_year: int
    pdf: Path


@dataclass(frozen=True)
class Question:
    financebench_id: str
    question: str
    question_type: str
    document: Document
    evidence_pages: frozenset[int]  # 1-based PDF page numbers
    answer: str = ""  # the gold answer, as the data set writes it

    @property
    def evidence(self) -> frozenset[tuple[str, int]]:
        """The evidence as (PDF file name, page): page N of another filing is not evidence."""
        return frozenset((self.document.pdf.name, p) for p in self.evidence_pages)


def load(questions_file: Path, pdfs_dir: Path, doc_index: Path) -> tuple[list[Question], list[str]]:
    """The questions that can be evaluated, and one line for each that cannot."""
    for path in (questions_file, pdfs_dir, doc_index):
        if not Path(path).exists():
            raise DataError(f"{path}: not found "
                            "(FinanceBench: questions.jsonl, pdfs/, doc_index.csv)")
    docs = _documents(Path(doc_index), Path(pdfs_dir))
    questions, skipped = [], []
    for n, record in enumerate(_records(Path(questions_file)), start=1):
        try:
            name = record["doc_name"]
            pages = {int(e["evidence_page_num"]) + 1 for e in record["evidence"]
                     if e.get("doc_name", name) == name}
            qid, text = record["financebench_id"], record["question"]
        except (KeyError, TypeError, ValueError) as exc:
            raise DataError(f"{questions_file}:{n}: not a FinanceBench record ({exc!r})") from exc
        doc = docs.get(name)
        if doc is None:
            skipped.append(f"{qid}: no PDF for {name} in {pdfs_dir}")
        elif not pages:
            skipped.append(f"{qid}: no evidence page in {name}")
        else:
            questions.append(Question(qid, text, record.get("question_type", ""), doc,
                                      frozenset(pages), str(record.get("answer", ""))))
    if not questions:
        raise DataError(f"{questions_file}: no question has its PDF in {pdfs_dir}")
    return questions, skipped


def _records(path: Path) -> list[dict]:
    records = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, start=1):
            if line.strip():
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise DataError(f"{path}:{n}: not JSON ({exc.msg})") from exc
    return records


def _documents(doc_index: Path, pdfs_dir: Path) -> dict[str, Document]:
    docs: dict[str, Document] = {}
    with open(doc_index, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            try:
                name, ticker, year = row["doc_name"], row["ticker"], int(row["doc_period"])
            except (KeyError, TypeError, ValueError) as exc:
                raise DataError(
                    f"{doc_index}: needs doc_name, ticker, doc_period ({exc!r})") from exc
            pdf = pdfs_dir / f"{name}.pdf"
            if ticker and pdf.is_file():
                docs[name] = Document(name, ticker.upper(), year, pdf)
    return docs


# --- running the questions -------------------------------------------------------------------

FILTER_MODES = ("filing", "ticker", "none")


def filters_for(question: Question, mode: str):
    """`filing`: the question's ticker and fiscal year, as an analyst would set them."""
    from finrag.models import Filters

    doc = question.document
    if mode == "filing":
        return Filters(tickers=[doc.ticker], fiscal_years=[doc.fiscal_year])
    if mode == "ticker":
        return Filters(tickers=[doc.ticker])
    if mode == "none":
        return Filters()
    raise ValueError(f"--filter {mode!r}: choose one of {', '.join(FILTER_MODES)}")


def evaluate(searcher, questions: list[Question], mode: str, k: int = 10, auto: bool = False,
             **search_kw) -> dict:
    """Run every question through the normal search path; the report `--json` prints. `auto`:
    the company / fiscal year each question names become filters, as in the app and CLIs
    (finrag.autofilter), where `mode` sets none."""
    from finrag.autofilter import auto_filters
    from finrag.companies import companies_of
    from finrag.measure.eval import CURVE_DEPTH, METHODS, MethodScores, result_outcomes

    overall = {m: MethodScores() for m in METHODS}
    by_type: dict[str, dict[str, MethodScores]] = {}
    misses = []
    for q in questions:
        filters = filters_for(q, mode)
        if auto:
            filters = auto_filters(q.question, filters, *companies_of(searcher.index)).filters
        result = searcher.search(q.question, filters, top_k=max(k, CURVE_DEPTH), **search_kw)
        outcomes = result_outcomes(result, q.evidence)
        kind = by_type.setdefault(q.question_type or "unknown",
                                  {m: MethodScores() for m in METHODS})
        for m in METHODS:
            overall[m].outcomes.append(outcomes[m])
            kind[m].outcomes.append(outcomes[m])
        fused = outcomes["fused"]
        if not (fused.rank and fused.rank <= k):
            misses.append({
                "financebench_id": q.financebench_id,
                "question": q.question,
                "doc_name": q.document.doc_name,
                # 0-based, as in the data
                "evidence_pages": sorted(p - 1 for p in q.evidence_pages),
                "fused_pages": [p - 1 if p else None for _, p in fused.pages[:k]],
                "fused_docs": [Path(name).stem for name, _ in fused.pages[:k]],
            })
    return {
        "questions": len(questions),
        "filter": mode,
        "auto_filters": auto,
        "k": k,
        "search": {key: list(v) if isinstance(v, tuple) else v for key, v in search_kw.items()},
        "methods": {m: overall[m].summary(k) for m in METHODS},
        "by_type": {
            t: {"questions": len(s["fused"].outcomes),
                "methods": {m: s[m].summary(k) for m in METHODS}}
            for t, s in sorted(by_type.items())
        },
        "curve": {m: overall[m].curve() for m in METHODS},
        "misses": misses,
    }


def plot(report: dict, path: Path) -> None:
    """A PNG of hit@k, k = 1..20, one line per method."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4), dpi=120)
    for method, curve in report["curve"].items():
        ax.plot(range(1, len(curve) + 1), curve, marker="o", markersize=3, label=method)
    ax.set_xlabel("k (chunks)")
    ax.set_ylabel("page hit@k")
    ax.set_ylim(0, 1)
    ax.set_xticks(range(0, len(next(iter(report["curve"].values()))) + 1, 5))
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    ax.set_title(f"FinanceBench, {report['questions']} questions, filter: {report['filter']}")
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
