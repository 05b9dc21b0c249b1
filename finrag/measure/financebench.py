"""FinanceBench (Islam et al. 2023) as finrag reads it: questions, their documents, evidence pages.

The data set is CC-BY-NC: it is read from where the user keeps it (../shared/data/financebench
here), never copied into the project. `doc_index.csv` maps each `doc_name` (`3M_2018_10K`) to a
ticker and fiscal year (`doc_period`), which become the filing's metadata at ingest, the way an
analyst would type them in the app's filters. Evidence pages are stored 1-based, like the `page`
of a chunk read from a PDF; FinanceBench's `evidence_page_num` is the 0-based page index.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from finrag.measure.keyfile import DataError, read_jsonl


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
    records = read_jsonl(questions_file, dict, "a FinanceBench record",
                         "../shared/data/financebench/questions.dev.jsonl")
    docs = _documents(Path(doc_index), Path(pdfs_dir))
    questions, skipped = [], []
    for n, record in enumerate(records, start=1):
        try:
            name = record["doc_name"]
            pages = {int(e["evidence_page_num"]) + 1 for e in record["evidence"]
                     if e.get("doc_name", name) == name}
            qid, text = record["financebench_id"], record["question"]
        except (KeyError, TypeError, ValueError) as exc:
            raise DataError(f"{questions_file}: record {n} is not a FinanceBench question "
                            f"({exc!r})") from exc
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


# --- the filters a question is asked with ------------------------------------------------------

FILTER_MODES = ("filing", "ticker", "none")


def filters_for(question: Question, mode: str):
    """`filing`: the question's ticker and fiscal year, as an analyst would set them."""
    return filing_filters(question.document.ticker, question.document.fiscal_year, mode)


def filing_filters(ticker: str, fiscal_year: int, mode: str):
    """The filters an eval sets with a question about one filing: its ticker and fiscal year
    (`filing`), its ticker (`ticker`), or none (`none`: the question names its company)."""
    from finrag.models import Filters

    if mode == "filing":
        return Filters(tickers=[ticker], fiscal_years=[fiscal_year])
    if mode == "ticker":
        return Filters(tickers=[ticker])
    if mode == "none":
        return Filters()
    raise ValueError(f"--filter {mode!r}: choose one of {', '.join(FILTER_MODES)}")
