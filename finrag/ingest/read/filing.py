"""One filing unit -> `Filing`: pick its main document, read it with the reader for its
format, and take the metadata from the filing itself (SGML header, inline-XBRL cover facts,
cover page, folder name), the filing's own statements first."""

from __future__ import annotations

import re
from pathlib import Path

from finrag.ingest.fiscal import fiscal_year_from_period
from finrag.ingest.read.common import _ACCESSION, _TICKER, TEN_K_FORMS, ReadError, _Doc, _label
from finrag.ingest.read.decode import _CONTROLS, _decode, _is_binary, _wide_to_utf8
from finrag.ingest.read.html import _read_html
from finrag.ingest.read.locate import _is_submission_name
from finrag.ingest.read.pdf import _read_pdf
from finrag.ingest.read.sgml import (
    _main_document,
    _meta_from_header,
    _sgml_documents,
    parse_sgml_header,
    submission_document_name,
)
from finrag.ingest.read.text import _read_plain
from finrag.models import Filing


def read_filing(unit: Path, *, ticker: str | None = None, fiscal_year: int | None = None) -> Filing:
    """Read one unit (accession folder or file) into a Filing; bad input raises ReadError."""
    unit = Path(unit)
    try:
        return _read_unit(unit, ticker, fiscal_year)
    except ReadError:
        raise
    except Exception as exc:  # a parser choking on hostile input must not escape as itself
        error = ReadError(f"{_label(unit)}: could not be read ({type(exc).__name__}: "
                          f"{str(exc)[:120]}); the file may be damaged")
        error.internal = True
        raise error from exc


def _read_unit(unit: Path, ticker: str | None, fiscal_year: int | None) -> Filing:
    doc = _best_document(unit)
    header = _header_meta(unit)
    overrides = {"ticker": ticker.upper() if ticker else None, "fiscal_year": fiscal_year}
    meta = _stated_first(_merge(overrides, doc.meta, header, _folder_meta(unit), doc.cover), header)
    _check_form(doc.source, meta)
    return Filing(
        ticker=_require_ticker(doc.source, meta),
        cik=meta.get("cik") or "",
        company=meta.get("company") or "",
        form=meta["form"],
        fiscal_year=_require_fiscal_year(doc.source, meta),
        period_end=meta["period_end"].isoformat() if meta.get("period_end") else None,
        accession=meta.get("accession") or "",
        document=meta.get("document") or "",
        source=str(doc.source),
        blocks=doc.blocks,
    )


def _merge(*sources: dict) -> dict:
    """Field by field, the first source that has a value."""
    merged: dict = {}
    for source in sources:
        for key, value in source.items():
            if value not in (None, "") and merged.get(key) in (None, ""):
                merged[key] = value
    return merged


def _best_document(unit: Path) -> _Doc:
    """The document that gives the structure: the first candidate that yields text."""
    candidates = _candidates(unit) if unit.is_dir() else [unit]
    if not candidates:
        raise ReadError(f"{_label(unit)}: no filing document in this folder")
    errors: list[ReadError] = []
    for path in candidates:
        try:
            return _read_document(path)
        except ReadError as exc:
            if _is_refusal(exc):
                raise
            errors.append(exc)
    raise errors[0]


def _is_refusal(exc: ReadError) -> bool:
    """A 'not a 10-K' verdict holds for the whole unit; other failures try the next document."""
    return "is not a 10-K" in str(exc)


def _candidates(folder: Path) -> list[Path]:
    """Documents of an accession folder, best structure first."""
    files = [p for p in sorted(folder.iterdir()) if p.is_file()]
    named = {p.name: p for p in files}
    first = [named[n] for n in ("primary-document.html", "filing-details.html",
                                "full-submission.txt") if n in named]
    variants = sorted((p for p in files if _is_submission_name(p.name) and p not in first),
                      key=lambda p: -p.stat().st_size)
    others = sorted((p for p in files if p.suffix.lower() in {".htm", ".html", ".pdf"}
                     and p not in first), key=lambda p: -p.stat().st_size)
    return first + variants + others


def _header_meta(unit: Path) -> dict:
    """Metadata from the SGML header of any full-submission file in an accession folder."""
    if not unit.is_dir():
        return {}
    for path in sorted(p for p in unit.iterdir() if _is_submission_name(p.name)):
        head = _head_text(path)
        header = parse_sgml_header(head)
        if header.get("ACCESSION NUMBER") or header.get("CONFORMED SUBMISSION TYPE"):
            return {**_meta_from_header(header), "document": submission_document_name(head)}
    return {}


def _head_text(path: Path, size: int = 64_000) -> str:
    with open(path, "rb") as fh:
        return _decode(fh.read(size))


def _folder_meta(unit: Path) -> dict:
    """Ticker and accession from the downloader's `<TICKER>/10-K/<accession>/` layout."""
    folder = unit if unit.is_dir() else unit.parent
    meta: dict = {}
    if _ACCESSION.match(folder.name):
        meta["accession"] = folder.name
    parts = folder.parts
    if len(parts) >= 3 and TEN_K_FORMS.match(parts[-2].upper()):
        candidate = parts[-3].upper()
        if _TICKER.match(candidate) and candidate not in {"SEC-EDGAR-FILINGS", "FILINGS"}:
            meta["ticker"] = candidate
    return meta


def _check_form(source: Path, meta: dict) -> None:
    form = (meta.get("form") or "").upper().replace(" ", "")
    if not form:
        raise ReadError(f"{_label(source)}: cannot tell that this is a 10-K (no form type in a "
                        "header, XBRL facts or cover page); skipped")
    if not TEN_K_FORMS.match(form):
        shown = form if len(form) <= 20 else form[:20] + "..."  # a damaged form field
        raise ReadError(f"{_label(source)}: form {shown} is not a 10-K; skipped")
    meta["form"] = form


def _require_ticker(source: Path, meta: dict) -> str:
    ticker = (meta.get("ticker") or "").strip().upper()
    if not ticker:
        raise ReadError(f"{_label(source)}: no ticker in the filing or its folder name; "
                        "pass --ticker or use the <TICKER>/10-K/<accession>/ layout")
    return ticker


def _require_fiscal_year(source: Path, meta: dict) -> int:
    if meta.get("fiscal_year"):
        return int(meta["fiscal_year"])
    if meta.get("period_end"):
        return fiscal_year_from_period(meta["period_end"], meta.get("fye"))
    raise ReadError(f"{_label(source)}: no fiscal year or period of report found; "
                    "pass --fiscal-year")


def _read_document(path: Path) -> _Doc:
    raw = _wide_to_utf8(path.read_bytes())
    if not raw.strip():
        raise ReadError(f"{_label(path)}: empty file; skipped (re-download it)")
    if raw.lstrip()[:5] == b"%PDF-" or path.suffix.lower() == ".pdf":
        return _read_pdf(path, raw)
    if _is_binary(raw):
        raise ReadError(f"{_label(path)}: binary data, not HTML, text or PDF; skipped "
                        "(unpack it first if it is compressed or an archive)")
    text = _CONTROLS.sub("", _decode(raw))  # stray NULs etc.: lxml refuses them
    head = text[:4000]
    if re.search(r"<SEC-(DOCUMENT|HEADER)>|^\s*ACCESSION NUMBER:", head, re.M):
        return _read_submission(path, text)
    if re.search(r"<document>\s*<type>", head, re.I):
        return _read_wrapped(path, text)
    if _looks_html(head):
        return _read_html(path, text)
    return _read_plain(path, text)


def _looks_html(head: str) -> bool:
    return bool(re.search(r"<(html|body|div|p|table|font|span)[\s>]", head, re.I))


def _read_submission(path: Path, text: str) -> _Doc:
    """An SGML full submission (or its tag-stripped text): header, then the 10-K document."""
    meta = _meta_from_header(parse_sgml_header(text))
    meta["document"] = submission_document_name(text)
    _check_form(path, dict(meta))
    body = _main_document(text)
    doc = _read_body(path, body)
    return _Doc(path, doc.blocks, _stated_first(_merge(doc.meta, meta), meta), doc.cover)


def _stated_first(merged: dict, header: dict) -> dict:
    """The submission's own `<FILENAME>` over the name read from the document's title."""
    return {**merged, "document": header.get("document") or merged.get("document")}


def _read_wrapped(path: Path, text: str) -> _Doc:
    """HTML inside a lower-case `<document><type>10-K ... <text>` wrapper."""
    kind = re.search(r"<type>\s*([^\s<]+)", text[:4000], re.I)
    meta = {"form": kind.group(1).upper()} if kind else {}
    _check_form(path, dict(meta))
    body = _sgml_documents(text)[0][1]
    doc = _read_body(path, body)
    return _Doc(path, doc.blocks, _merge(doc.meta, meta), doc.cover)


def _read_body(path: Path, body: str) -> _Doc:
    if not body.strip():
        raise ReadError(f"{_label(path)}: the 10-K document is missing or cut off; skipped "
                        "(re-download the submission)")
    if _looks_html(body[:4000]):
        return _read_html(path, re.sub(r"^\s*<XBRL>|</XBRL>\s*$", "", body.strip(), flags=re.I))
    return _read_plain(path, body)
