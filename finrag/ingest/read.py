"""Read one 10-K from disk into a `Filing`: metadata from the filing itself, content as `Block`s.

Inputs, as `locate` finds them: an accession folder in sec-edgar-downloader's layout
(`<TICKER>/10-K/<accession>/` holding `primary-document.html`, `filing-details.html`,
`full-submission.txt` or one of its variants), or a loose `.htm/.html/.txt/.pdf` file.

Readers: SGML full submission (the header plus the 10-K `<DOCUMENT>`'s HTML or text), inline-XBRL
or plain HTML (lxml), PDF (pypdf; blocks carry 1-based page numbers), plain or tag-stripped text.

Metadata, first source that has it wins: the caller's overrides (ticker, fiscal_year); the
document's inline-XBRL `dei:` facts; the SGML header; the folder layout; the cover page
("For the fiscal year ended September 28, 2019"). Field formats: `cik` is the 10-digit
zero-padded string EDGAR prints ("0000320193"; `int(cik)` gives the number used in EDGAR URLs),
`period_end` is an ISO date "YYYY-MM-DD", `accession` is "0000320193-24-000123", `form` is the
form as filed ("10-K", "10-K405", "10-KT", "10-K/A"), `document` is the 10-K document's file name
on EDGAR where the filing states it (the submission's `<FILENAME>`, else `ixbrl_document_name`).

Fiscal year: `dei:DocumentFiscalYearFocus` when the document has it, else
`finrag.ingest.fiscal.fiscal_year_from_period`, the rule `ingest download` uses too (see its docstring
for the rule and its known limits).

Any bad input (not a 10-K, empty, truncated, binary junk, unreadable PDF, no ticker) raises
`ReadError` with a one-line message naming the file; no other exception type escapes
`read_filing`.

Speed (this machine, 2 cores): the largest HTML filing here (KO FY2024, 3.9 MB) reads in
about 0.4 s (lxml parse + one tree walk). PDFs are slower, nearly all of it pypdf text
extraction: NETFLIX_2015_10K (72 pages, encrypted) ~3 s, ADOBE_2022_10K (99 pages, AES) ~6 s,
MICROSOFT_2023_10K (115 pages) ~16 s.
"""

from __future__ import annotations

import codecs
import logging
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import lxml.html
from lxml import etree

from finrag.models import Block, Filing
from finrag.ingest.pagelabels import PdfEdges, label_pages, page_mark
from finrag.ingest.fiscal import fiscal_year_from_period

UNIT_MARKERS = ("full-submission.txt", "primary-document.html", "filing-details.html")
LOOSE_SUFFIXES = {".htm", ".html", ".txt", ".pdf"}
TEN_K_FORMS = re.compile(r"^10-K(405|T|SB|SB40|T405)?(/A)?$")

_ACCESSION = re.compile(r"^\d{10}-\d{2}-\d{6}$")
_TICKER = re.compile(r"^[A-Z][A-Z0-9.\-]{0,9}$")
_MONTHS = {m: i + 1 for i, m in enumerate(
    "jan feb mar apr may jun jul aug sep oct nov dec".split())}


class ReadError(ValueError):
    """A filing that cannot be read; the message is one line naming the file and the problem.

    Whitespace in the message (a parser's multi-line error quoted in it) collapses to single
    spaces, so a report line stays one line. `internal` is True when `read_filing`'s safety net
    made this error out of an unexpected exception: a reader bug, which the fuzzer counts.
    """

    internal = False

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(str(message).split()))


# ---------------------------------------------------------------------------------------------
# locate


def locate(paths: list[Path]) -> list[Path]:
    """Expand user paths into filing units (accession folders or loose files), sorted."""
    units: set[Path] = set()
    for path in paths:
        path = Path(path)
        if not path.exists():
            raise ReadError(f"{path}: no such file or directory")
        units.update(_units_under(path) if path.is_dir() else [path])
    return sorted(units)


def _units_under(folder: Path) -> list[Path]:
    """The units in a folder: itself if it is an accession folder, else what it holds."""
    if is_accession_folder(folder):
        return [folder]
    found: list[Path] = []
    for child in sorted(folder.iterdir()):
        if child.name.startswith("."):
            continue
        if child.is_dir():
            found.extend(_units_under(child))
        elif child.suffix.lower() in LOOSE_SUFFIXES:
            found.append(child)
    return found


def is_accession_folder(folder: Path) -> bool:
    """True if the folder directly holds one of the downloader's filing documents."""
    names = {p.name for p in folder.iterdir() if p.is_file()}
    return any(n in UNIT_MARKERS or _is_submission_name(n) for n in names)


def _is_submission_name(name: str) -> bool:
    return name.startswith("full-submission") and name.endswith(".txt")


# ---------------------------------------------------------------------------------------------
# read_filing


@dataclass
class _Doc:
    """One document read: its blocks and the metadata it carries itself."""

    source: Path
    blocks: list[Block]
    meta: dict = field(default_factory=dict)  # dei facts, the document's own SGML header
    cover: dict = field(default_factory=dict)  # guesses from the cover page text


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


def _label(path: Path) -> str:
    """A short, recognisable name for messages: the last two path parts."""
    parts = Path(path).parts
    return "/".join(parts[-2:]) if len(parts) >= 2 else str(path)


# ---------------------------------------------------------------------------------------------
# one document: sniff the format and dispatch


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


_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0e-\x1f]")  # C0 controls but tab, newlines, form feed


def _is_binary(raw: bytes) -> bool:
    """More than 1% NUL bytes, or 5% control characters, in the first 4 KB (a stray NUL in a
    damaged filing is dropped, not a reason to refuse the filing)."""
    sample = raw[:4096]
    if sample.count(0) * 100 > len(sample):
        return True
    controls = sum(b < 32 and b not in (9, 10, 12, 13) for b in sample)
    return controls > len(sample) * 0.05


def _decode(raw: bytes) -> str:
    """UTF-8, where bytes that are not UTF-8 (a cp1252 or latin-1 file, or one stray cp1252
    quote in a UTF-8 file) decode one by one as cp1252; a byte-order mark is dropped."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("utf-8", errors=_CP1252_BYTES)
    return text.removeprefix("\ufeff")


def _cp1252_bytes(error: UnicodeDecodeError) -> tuple[str, int]:
    return error.object[error.start:error.end].decode("cp1252", errors="replace"), error.end


_CP1252_BYTES = "finrag-cp1252-bytes"
codecs.register_error(_CP1252_BYTES, _cp1252_bytes)


_WIDE_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
              (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def _wide_to_utf8(raw: bytes) -> bytes:
    """UTF-16/32 text (saved by some editors and converters) as UTF-8: with a byte-order mark,
    or UTF-16 without one when every other byte of the start is NUL. Other bytes unchanged."""
    encoding = next((enc for bom, enc in _WIDE_BOMS if raw.startswith(bom)), None)
    sample = raw[:4096]
    if encoding is None and len(sample) >= 64 and sample.count(0) * 2 >= len(sample) * 0.9:
        odd_nuls = sample[1::2].count(0)
        encoding = "utf-16-le" if odd_nuls > sample[::2].count(0) else "utf-16-be"
    if encoding is None:
        return raw
    return raw.decode(encoding, errors="replace").encode("utf-8")


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


# ---------------------------------------------------------------------------------------------
# SGML header and documents


_HEADER_LINE = re.compile(r"^([A-Z][A-Z0-9 &/\-.]*?):[ \t]*(.*)$")  # on stripped lines


def parse_sgml_header(text: str) -> dict:
    """`KEY: VALUE` lines of an EDGAR SGML header, first occurrence of each key wins.

    Also collects every `FORMER CONFORMED NAME` under "FORMER CONFORMED NAMES". Works on a
    header cut mid-way, on tag-stripped text, and with blank lines between fields; stops at the
    end of the header (`</SEC-HEADER>`, `<DOCUMENT>`, or the first non-field line after it began).
    """
    fields: dict = {"FORMER CONFORMED NAMES": []}
    started = False
    for line in text.splitlines():
        line = line.strip()
        if not line or (line.startswith("<") and not _ends_header(line)):
            continue
        if _ends_header(line):
            break
        match = _HEADER_LINE.match(line)
        if match is None:
            if started:
                break
            continue
        key, value = match.groups()
        started = started or key == "ACCESSION NUMBER"
        if key == "FORMER CONFORMED NAME" and value:
            fields["FORMER CONFORMED NAMES"].append(value)
        fields.setdefault(key, value)
    return fields


def _ends_header(line: str) -> bool:
    return bool(re.match(r"</SEC-HEADER>|<DOCUMENT>", line, re.I))


def _meta_from_header(header: dict) -> dict:
    period = header.get("CONFORMED PERIOD OF REPORT", "")
    fye = header.get("FISCAL YEAR END", "")
    cik = header.get("CENTRAL INDEX KEY", "")
    return {
        "accession": header.get("ACCESSION NUMBER") or None,
        "form": header.get("CONFORMED SUBMISSION TYPE") or None,
        "company": header.get("COMPANY CONFORMED NAME") or None,
        "cik": cik.zfill(10) if cik.isdigit() else None,
        "period_end": _parse_date(period) if period else None,
        "fye": fye if re.fullmatch(r"\d{4}", fye) else None,
    }


def _main_document(text: str) -> str:
    """The body of the submission's 10-K document (SGML tags or tag-stripped layout)."""
    documents = _sgml_documents(text)
    if not documents:
        return _stripped_main_document(text)
    for kind, body in documents:
        if TEN_K_FORMS.match(kind.upper()):
            return body
    return documents[0][1]


_DOCUMENT = re.compile(r"<document>(.*?)(?:</document>|\Z)", re.S | re.I)
_TEXT = re.compile(r"<text>(.*?)(?:</text>|\Z)", re.S | re.I)


def _sgml_documents(text: str) -> list[tuple[str, str]]:
    """(type, body inside <TEXT>) for each <DOCUMENT>, in order."""
    documents = []
    for match in _DOCUMENT.finditer(text):
        part = match.group(1)
        kind = re.search(r"<type>\s*([^\s<]+)", part[:2000], re.I)
        body = _TEXT.search(part)
        documents.append((kind.group(1) if kind else "", body.group(1) if body else ""))
    return documents


_STRIPPED_TYPE = re.compile(r"^(10-K\S*|10-Q\S*|8-K\S*|EX-[\w.\-]+|GRAPHIC|ZIP|XML|EXCEL|JSON|PDF|COVER)$",
                            re.I)
_FILENAME = re.compile(r"^\S+\.(htm|html|txt|pdf|jpg|jpeg|gif|png|xml|xsd|js|css|json|zip|xlsx)$",
                       re.I)


_TAGGED_DOCUMENT = re.compile(
    r"<TYPE>[ \t]*([^\s<]+)\s*(?:<SEQUENCE>[ \t]*\d+\s*)?<FILENAME>[ \t]*([^\s<]+)", re.I)
_DOCUMENT_NAME = re.compile(r"[\w.\-]+\.html?", re.I)


def submission_document_name(text: str) -> str | None:
    """The file name EDGAR gives the submission's 10-K document (its `<FILENAME>`, or the
    FILENAME line of a tag-stripped submission), e.g. "tsla-10k_20191231.htm"; None where the
    text does not reach it (a header cut short)."""
    for kind, name in _TAGGED_DOCUMENT.findall(text):
        if TEN_K_FORMS.match(kind.upper()):
            return name if _DOCUMENT_NAME.fullmatch(name) else None
    lines = text.split("\n")
    for i in range(len(lines) - 2):
        if _is_stripped_start(lines, i) and TEN_K_FORMS.match(lines[i].strip().upper()):
            name = lines[i + 2].strip()
            return name if _DOCUMENT_NAME.fullmatch(name) else None
    return None


def _stripped_main_document(text: str) -> str:
    """The 10-K document of a tag-stripped submission: the lines between document starts."""
    lines = text.split("\n")
    starts = [i for i in range(len(lines) - 1) if _is_stripped_start(lines, i)]
    for n, start in enumerate(starts):
        if lines[start].strip().upper().startswith("10-K"):
            end = starts[n + 1] if n + 1 < len(starts) else len(lines)
            return "\n".join(lines[_skip_document_fields(lines, start):end])
    return ""


def _is_stripped_start(lines: list[str], i: int) -> bool:
    """A TYPE line followed by a SEQUENCE number: where a tag-stripped document begins."""
    kind, seq = lines[i].strip(), lines[i + 1].strip()
    return bool(seq.isdigit() and len(seq) <= 3 and _STRIPPED_TYPE.match(kind))


def _skip_document_fields(lines: list[str], start: int) -> int:
    """Skip TYPE, SEQUENCE and, where present, FILENAME and DESCRIPTION lines."""
    i = start + 2
    if i < len(lines) and _FILENAME.match(lines[i].strip()):
        i += 1
        if i < len(lines) and len(lines[i].strip()) < 80:
            i += 1
    return i


# ---------------------------------------------------------------------------------------------
# dates


def _parse_date(text: str) -> date | None:
    """'20240928', '2024-09-28', 'September 28, 2024', 'Sept. 28 2024' -> date, else None."""
    text = re.sub(r"\s+", " ", text.replace("\xa0", " ")).strip()
    try:
        if re.fullmatch(r"\d{8}", text):
            return date(int(text[:4]), int(text[4:6]), int(text[6:]))
        if m := re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", text):
            return date(*map(int, m.groups()))
        if m := re.fullmatch(r"([a-z]{3})[a-z]*\.? ?(\d{1,2}) ?,? ?(\d{4})", text, re.I):
            month = _MONTHS.get(m.group(1).lower())
            return date(int(m.group(3)), month, int(m.group(2))) if month else None
    except ValueError:
        return None
    return None


# ---------------------------------------------------------------------------------------------
# cover page


_FY_ENDED = re.compile(r"fiscal\s+year\s+ended:?\s*([A-Za-z]{3,9}\.?\s*\d{1,2}\s*,?\s*\d{4})", re.I)
_COVER_FORM = re.compile(r"\bFORM\s+(10-K(?:405|T|SB)?(?:/A)?|8-K|10-Q|20-F|40-F|6-K|S-1|11-K)\b",
                         re.I)


def _cover_meta(blocks: list[Block]) -> dict:
    """Form, period end and company from the cover page text."""
    cover = " ".join(b.text for b in blocks[:150])[:20_000]
    cover = re.sub(r"\s+", " ", cover)
    meta: dict = {}
    if m := _COVER_FORM.search(cover[:6000]):
        meta["form"] = m.group(1).upper()
    elif re.search(r"annual report pursuant to section 13", cover[:6000], re.I):
        meta["form"] = "10-K"
    if m := _FY_ENDED.search(cover):
        meta["period_end"] = _parse_date(m.group(1))
    meta["company"] = _cover_company(blocks[:150])
    return meta


def _cover_company(blocks: list[Block]) -> str | None:
    """The line just before '(Exact name of registrant as specified in its charter)'."""
    for i, block in enumerate(blocks):
        m = re.search(r"\(?\s*exact name of (the )?registrant", block.text, re.I)
        if not m:
            continue
        before = block.text[: m.start()].strip()
        if before:
            return before[-120:]
        return blocks[i - 1].text[:120] if i else None
    return None


# ---------------------------------------------------------------------------------------------
# HTML


_BLOCK_TAGS = {
    "div", "p", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "br", "hr",
    "blockquote", "center", "pre", "section", "article", "dd", "dt", "dl", "body", "page",
    "address", "caption", "td", "th",
}
_SKIP_TAGS = {"script", "style", "head", "title", "ix:header", "noscript"}
_HIDDEN = re.compile(r"display\s*:\s*none", re.I)
_BREAK_BEFORE = re.compile(r"(page-)?break-before\s*:\s*(always|page)", re.I)
_BREAK_AFTER = re.compile(r"(page-)?break-after\s*:\s*(always|page)", re.I)
_PAGE_NUMBER = re.compile(r"^(page\s+)?[-–—]?\s*(\d{1,3}|[ivxlc]{1,6})\s*[-–—]?$", re.I)
_FOOTER = re.compile(r"^.{2,90}(\||\s{2,})\s*\d{1,3}$")


def _read_html(path: Path, text: str) -> _Doc:
    if not re.search(r"</(html|body)>", text[-4000:], re.I):
        raise ReadError(f"{_label(path)}: the HTML is cut off (no closing </html>); skipped "
                        "(re-download it)")
    root = _parse_html(path, text)
    dei = {**_dei_meta(root), "document": ixbrl_document_name(root)}
    blocks = html_to_blocks(root)
    if not blocks:
        raise ReadError(f"{_label(path)}: no text found in the HTML; skipped")
    return _Doc(path, blocks, dei, _cover_meta(blocks))


def _parse_html(path: Path, text: str):
    text = re.sub(r"^\s*<\?xml[^>]*>", "", text)
    parser = lxml.html.HTMLParser(remove_comments=True, remove_pis=True, recover=True)
    try:
        root = lxml.html.document_fromstring(text, parser=parser)
    except (etree.ParserError, ValueError) as exc:
        raise ReadError(f"{_label(path)}: not parseable as HTML ({exc}); skipped") from exc
    limit = next((e for e in parser.error_log if e.type_name == "ERR_RESOURCE_LIMIT"), None)
    if limit is not None:  # libxml2 stops there and silently drops the rest of the document
        raise ReadError(f"{_label(path)}: the HTML is beyond what the parser takes "
                        f"({limit.message.strip()[:100]}): tags nested over 256 deep or a text "
                        "run over 10 MB; skipped (the file is damaged: re-download it)")
    return root


def html_to_blocks(root) -> list[Block]:
    """Reading-order blocks of a parsed HTML document (or of an HTML string)."""
    if isinstance(root, (str, bytes)):
        root = _parse_html(Path("<html>"), root if isinstance(root, str) else _decode(root))
    styled = any(_BREAK_BEFORE.search(s) or _BREAK_AFTER.search(s)
                 for s in root.xpath("//@style[contains(., 'break')]"))
    out = _BlockWriter(hr_breaks=not styled)
    body = root.find("body")
    _walk(body if body is not None else root, out)
    return out.finish()


class _BlockWriter:
    """Collects inline text into blocks, tracking page breaks."""

    def __init__(self, hr_breaks: bool) -> None:
        self.hr_breaks = hr_breaks
        self.parts: list[str] = []
        self.blocks: list[Block] = []
        self.page = 1
        self.breaks = 0
        self.since_break = 0

    def add(self, text: str | None) -> None:
        if text:
            self.parts.append(text)

    def flush(self) -> None:
        text = _norm("".join(self.parts))
        self.parts = []
        if text:
            self.emit(Block(kind="text", text=text))

    def emit(self, block: Block) -> None:
        block.page = self.page
        self.blocks.append(block)
        self.since_break += 1

    def page_break(self) -> None:
        self.flush()
        if not self.since_break:
            return
        self.page += 1
        self.breaks += 1
        self.since_break = 0

    def finish(self) -> list[Block]:
        """The blocks, with printed page labels found and page marks dropped; page None
        throughout when the document marks no page breaks."""
        self.flush()
        if not self.breaks:
            for block in self.blocks:
                block.page = None
            return self.blocks
        return [b for page in label_pages(_by_page(self.blocks)) for b in page]


def _by_page(blocks: list[Block]) -> list[list[Block]]:
    """Consecutive blocks of the same page, as lists."""
    pages: list[list[Block]] = []
    for block in blocks:
        if not pages or pages[-1][0].page != block.page:
            pages.append([])
        pages[-1].append(block)
    return pages


def _walk(el, out: _BlockWriter) -> None:
    tag = el.tag if isinstance(el.tag, str) else ""
    style = el.get("style") or "" if tag else ""
    if tag in _SKIP_TAGS or (style and _HIDDEN.search(style)):
        out.add(el.tail)
        return
    if tag == "table":
        _emit_table(el, out)
        out.add(el.tail)
        return
    if style and _BREAK_BEFORE.search(style):
        out.page_break()
    block = tag in _BLOCK_TAGS
    if block:
        out.flush()
    if tag == "hr" and out.hr_breaks:
        out.page_break()
    out.add(el.text)
    for child in el:
        _walk(child, out)
    if block:
        out.flush()
    if style and _BREAK_AFTER.search(style):
        out.page_break()
    out.add(el.tail)


def _norm(text: str) -> str:
    """Collapse whitespace (nbsp, zero-width, newlines) to single spaces."""
    text = text.replace("\u200b", "").replace("\ufeff", "")
    return re.sub(r"\s+", " ", text).strip()


# --- tables


_NUMBER = re.compile(r"^[\$€£¥(\-–—]*\s*\d[\d,.]*\s*[)%]*$|^[\$€£¥(]*\d[\d,.]*\s*(x|pts|bps)?\)?$")
_PREFIX = re.compile(r"^(\$|US\$|€|£|¥|\(|\$\(|\(\$)$")
_SUFFIX = re.compile(r"^[)%]+$|^%\)$|^\)%$")


def _emit_table(table, out: _BlockWriter) -> None:
    """A data table as one table block; a layout table as text blocks."""
    out.flush()
    rows = table_grid(table)
    cells = [c for row in rows for c in row if c]
    if not cells:
        return
    if len(cells) == 1 or not any(_NUMBER.match(c) for c in cells):
        for row in rows:
            out.add(" ".join(c for c in row if c))
            out.flush()
        return
    text = "\n".join(" | ".join(c for c in row if c) for row in rows)
    out.emit(Block(kind="table", text=text, rows=rows))


def table_grid(table) -> list[list[str]]:
    """Rows of cell texts: SEC split cells merged ("$" "1,577" ")" -> "$1,577)"), empty
    rows and columns dropped, rows padded to one width."""
    rows = [_merge_cells(_row_cells(tr)) for tr in table.iter("tr") if _visible(tr)]
    rows = [r for r in rows if any(r)]
    width = max((len(r) for r in rows), default=0)
    rows = [r + [""] * (width - len(r)) for r in rows]
    keep = [j for j in range(width) if any(r[j] for r in rows)]
    return [[r[j] for j in keep] for r in rows]


def _visible(el) -> bool:
    return not _HIDDEN.search(el.get("style") or "")


def _row_cells(tr) -> list[str]:
    return [_cell_text(td) for td in tr if td.tag in ("td", "th") and _visible(td)]


def _cell_text(td) -> str:
    hidden = [el for el in td.iter() if el is not td and _HIDDEN.search(el.get("style") or "")]
    if hidden:  # rare: hidden spans inside a cell
        td = _without(td, hidden)
    return _norm(" ".join(td.itertext()) if _has_blocks(td) else td.text_content())


def _has_blocks(td) -> bool:
    return any(isinstance(el.tag, str) and el.tag in ("p", "div", "br") for el in td.iter())


def _without(td, hidden):
    clone = lxml.html.fromstring(lxml.html.tostring(td))
    for el in clone.iter():
        if _HIDDEN.search(el.get("style") or ""):
            el.drop_tree()
    return clone


def _merge_cells(cells: list[str]) -> list[str]:
    """Join currency/parenthesis prefixes and ')'/'%' suffixes to their number; compact the row,
    keeping an empty first cell when the row has no label (a header row over the values)."""
    merged: list[str] = []
    prefix = ""
    for cell in cells:
        if not cell:
            continue
        if _PREFIX.match(cell):
            prefix += cell
        elif _SUFFIX.match(cell) and merged:
            merged[-1] += cell
        else:
            merged.append(prefix + cell)
            prefix = ""
    if prefix:
        merged.append(prefix)
    if cells and not cells[0] and merged:
        merged.insert(0, "")
    return merged


# --- dei facts


def _dei_meta(root) -> dict:
    """Inline-XBRL cover facts: ticker, fiscal year, period end, CIK, name, form."""
    facts: dict[str, tuple[str, str]] = {}
    for el in root.iter("ix:nonnumeric"):
        name = (el.get("name") or "").lower()
        if name.startswith("dei:") and name not in facts:
            facts[name] = (_norm(el.text_content()), el.get("contextref") or "")
    if not facts:
        return {}
    year = facts.get("dei:documentfiscalyearfocus", ("", ""))[0]
    cik = facts.get("dei:entitycentralindexkey", ("", ""))[0]
    ticker = facts.get("dei:tradingsymbol", ("", ""))[0].upper()
    return {
        "ticker": ticker if _TICKER.match(ticker) else None,
        "fiscal_year": int(year) if re.fullmatch(r"\d{4}", year) else None,
        "period_end": _dei_period_end(root, facts),
        "cik": cik.zfill(10) if cik.isdigit() else None,
        "company": facts.get("dei:entityregistrantname", ("", ""))[0] or None,
        "form": facts.get("dei:documenttype", ("", ""))[0].upper() or None,
    }


def ixbrl_document_name(root) -> str | None:
    """The inline-XBRL document's own file name, where two parts of it state the same base name:
    its `<title>` and its taxonomy schema (`link:schemaRef`, "aapl-20240928.xsd"). EDGAR
    inline-XBRL filings name the primary document, its schema and (by the filing agents' habit)
    its title after one base ("aapl-20240928.htm", checked against EDGAR's own list of Apple's
    10-Ks). Where they differ ("aph-20221231x10k.htm" beside "aph-20221231.xsd"), None: a guessed
    name would be a dead link. EDGAR serves HTML documents as ".htm"."""
    title = root.find(".//title")
    refs = [el.get("xlink:href") or "" for el in root.iter("link:schemaref")]
    if title is None or len(refs) != 1:
        return None
    stem = (title.text or "").strip()
    if not re.fullmatch(r"[a-z][a-z0-9]*-\d{8}", stem) or refs[0] != f"{stem}.xsd":
        return None
    return f"{stem}.htm"


def _dei_period_end(root, facts: dict) -> date | None:
    """The end date of the context the DocumentType fact refers to, else the fact's text."""
    for key in ("dei:documenttype", "dei:documentperiodenddate"):
        context = facts.get(key, ("", ""))[1]
        if context and (end := _context_end(root, context)):
            return end
    return _parse_date(facts.get("dei:documentperiodenddate", ("", ""))[0])


def _context_end(root, context_id: str) -> date | None:
    for ctx in root.iter("xbrli:context"):
        if ctx.get("id") == context_id:
            ends = [e.text_content() for e in ctx.iter("xbrli:enddate", "xbrli:instant")]
            return _parse_date(ends[0]) if ends else None
    return None


# ---------------------------------------------------------------------------------------------
# plain and tag-stripped text


def _read_plain(path: Path, text: str) -> _Doc:
    blocks = text_to_blocks(text)
    if not blocks:
        raise ReadError(f"{_label(path)}: no text found; skipped")
    return _Doc(path, blocks, {}, _cover_meta(blocks))


def text_to_blocks(text: str) -> list[Block]:
    """Paragraph blocks of plain text, with 1-based pages where page breaks are marked
    (form feeds, SGML <PAGE> tags, page-number lines, '... Form 10-K | 23' footers)."""
    text = re.sub(r"<PAGE>", "\f", text, flags=re.I)
    text = re.sub(r"</?(S|C|FN|F\d+|CAPTION|TABLE)>", "", text, flags=re.I)
    lines = _skip_hidden_facts(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    blank = sum(1 for line in lines if not line.strip())
    if blank * 8 >= len(lines):
        return _paged_blocks(_blank_line_paragraphs(lines), "\f" in text, bare_numbers=True)
    return _paged_blocks(_glued_lines(lines), "\f" in text, bare_numbers=False)


def _skip_hidden_facts(lines: list[str]) -> list[str]:
    """Tag-stripped iXBRL starts with the hidden facts; the document starts at its title."""
    limit = max(len(lines) // 5, 1)
    for i, line in enumerate(lines[:limit]):
        if re.match(r"\s*UNITED STATES\s*$|\s*SECURITIES AND EXCHANGE COMMISSION\s*$", line):
            return lines[i:]
    return lines


_PAGE_LINE = re.compile(r"^\s{8,}(page\s+)?[-–—]?\s*(\d{1,3}|[ivxlc]{1,6})\s*[-–—]?\s*$", re.I)


def _blank_line_paragraphs(lines: list[str]) -> list[str]:
    """Paragraphs separated by blank lines; '\f' and centred page-number lines stand alone."""
    paragraphs: list[str] = []
    current: list[str] = []
    for line in lines:
        for piece in _split_form_feeds(line):
            alone = piece == "\f" or bool(_PAGE_LINE.match(piece))
            if alone or not piece.strip():
                paragraphs.append("\n".join(current))
                current = []
                if alone:
                    paragraphs.append(piece if piece == "\f" else piece.strip())
            else:
                current.append(piece)
    paragraphs.append("\n".join(current))
    return [p for p in paragraphs if p.strip() or p == "\f"]


def _split_form_feeds(line: str) -> list[str]:
    if "\f" not in line:
        return [line]
    pieces: list[str] = []
    for i, piece in enumerate(line.split("\f")):
        if i:
            pieces.append("\f")
        if piece.strip():
            pieces.append(piece)
    return pieces


def _glued_lines(lines: list[str]) -> list[str]:
    """Rebuild paragraphs from one-fragment-per-line text: '$' + '1,577', 'Sept 30' + ', 2023'."""
    paragraphs: list[str] = []
    for line in lines:
        for piece in _split_form_feeds(line):
            text = piece if piece == "\f" else _norm(piece)
            if not text:
                continue
            if paragraphs and text != "\f" and _continues(paragraphs[-1], text):
                paragraphs[-1] = _glue(paragraphs[-1], text)
            else:
                paragraphs.append(text)
    return paragraphs


def _continues(previous: str, text: str) -> bool:
    if previous == "\f":
        return False
    if _PREFIX.match(previous) or text[0] in ",.;:)%":
        return True
    return text[0].islower() and not previous.endswith((".", ":", ";", "?", "!"))


def _glue(previous: str, text: str) -> str:
    tight = (_PREFIX.match(previous) or text[0] in ",.;:)%"
             or (len(previous) == 1 and previous.isupper()))
    return previous + ("" if tight else " ") + text


def _paged_blocks(paragraphs: list[str], marked: bool, bare_numbers: bool) -> list[Block]:
    """Blocks with page numbers: a break at each '\f', else after each page-number
    paragraph or footer (if there are at least 3); page None when nothing marks pages."""
    footer = [p != "\f" and _is_page_marker(p, bare_numbers) for p in paragraphs]
    use_footers = not marked and sum(footer) >= 3
    blocks: list[Block] = []
    labels: dict[int, str] = {}  # page -> the label its page-number line prints
    page, since = 1, 0
    for paragraph, is_footer in zip(paragraphs, footer):
        if is_footer and (marked or use_footers) and (mark := page_mark(paragraph)):
            labels.setdefault(page, mark.label)
        if paragraph == "\f" or (use_footers and is_footer):
            page, since = (page + 1, 0) if since else (page, since)
            continue
        if is_footer and marked:
            continue
        blocks.append(_text_block(paragraph))
        blocks[-1].page = page
        since += 1
    for block in blocks:
        block.page_label = labels.get(block.page)
        if not (marked or use_footers):
            block.page = None
    return blocks


def _is_page_marker(paragraph: str, bare_numbers: bool) -> bool:
    text = _norm(paragraph)
    if len(text) >= 100:
        return False
    if bare_numbers and _PAGE_NUMBER.match(text):
        return True
    return bool(_FOOTER.match(text) and "10-K" in text.upper())


_CELL_GAP = re.compile(r"\s{3,}|\t")


def _text_block(paragraph: str) -> Block:
    """A paragraph of plain text; fixed-width columns of numbers become a table block."""
    lines = [line for line in paragraph.split("\n") if line.strip()]
    split = [_CELL_GAP.split(line.strip()) for line in lines]
    columnar = [cells for cells in split if len(cells) >= 2 and any(_NUMBER.match(c) for c in cells)]
    if len(lines) >= 2 and len(columnar) * 2 >= len(lines):
        rows = [_merge_cells(cells) for cells in split]
        width = max(len(r) for r in rows)
        rows = [r + [""] * (width - len(r)) for r in rows]
        text = "\n".join(" | ".join(c for c in r if c) for r in rows)
        return Block(kind="table", text=text, rows=rows)
    return Block(kind="text", text=_norm(paragraph))


# ---------------------------------------------------------------------------------------------
# PDF


def _read_pdf(path: Path, raw: bytes) -> _Doc:
    """Pages of blocks, each with its page index and printed label (`label_pages`): only a
    page's first or last line can be its page number or footer. A bare number inside the page
    is a table cell: some PDFs put every cell of a statement on a line of its own
    ("Stock-based compensation expense", "302", "324", "298"), and dropping every short number
    there lost 906 figures from 3M's 2018 10-K."""
    pages: list[list[Block]] = []
    for number, (page_text, head, foot) in enumerate(_pdf_pages(path, raw), start=1):
        page = _pdf_page_blocks(page_text, head, foot)
        for block in page:
            block.page = number
        pages.append(page)
    blocks = [b for page in label_pages(pages) for b in page]
    if not blocks:
        raise ReadError(f"{_label(path)}: no extractable text in the PDF (scanned?); skipped")
    return _Doc(path, blocks, {}, _cover_meta(blocks))


def _pdf_page_blocks(text: str, head: str | None, foot: str | None) -> list[Block]:
    """A page's blocks, its printed head and foot lines first and last where they look like a
    page mark (`page_mark`) and stand as a line of the text: pypdf may place them anywhere in
    the text, and glue them to the sentence before."""
    lines = text.split("\n")
    first = _take_line(lines, head, last=False)
    last = _take_line(lines, foot, last=True) if foot != head else None
    blocks = [_text_block(p) for p in _pdf_paragraphs("\n".join(lines))]
    return ([Block(kind="text", text=first)] if first else []) + blocks + (
        [Block(kind="text", text=last)] if last else [])


def _take_line(lines: list[str], edge: str | None, last: bool) -> str | None:
    """Remove the page mark `edge` from `lines` and return it: the line that is it, else the
    end of the last line (the start of the first) where pypdf glued it on with no space
    ("our margins may be3", Netflix 2015) and a letter or stop, not a digit, touches it."""
    if not edge or page_mark(edge) is None:
        return None
    edge = " ".join(edge.split())
    order = range(len(lines) - 1, -1, -1) if last else range(len(lines))
    for i in order:
        if " ".join(lines[i].split()) == edge:
            return " ".join(lines.pop(i).split())
    filled = [i for i in order if lines[i].strip()]
    if not filled:
        return None
    i = filled[0]
    line = lines[i].strip()
    if last and line.endswith(edge) and not line[: -len(edge)][-1:].isdigit():
        lines[i] = line[: -len(edge)]
        return edge
    if not last and line.startswith(edge) and not line[len(edge):][:1].isdigit():
        lines[i] = line[len(edge):]
        return edge
    return None


def _pdf_paragraphs(page_text: str) -> list[str]:
    """Lines of a pypdf page joined into paragraphs. pypdf ends a line mid-word without a
    trailing space ('statemen' + 'ts'), at a word boundary with one."""
    paragraphs: list[str] = []
    previous = ""
    for raw in page_text.replace("\xa0", " ").split("\n"):
        line = raw.strip()
        if not line:
            previous = ""
            continue
        if paragraphs and previous and _pdf_continues(previous, line):
            joint = "" if (previous[-1].isalpha() and line[0].islower()) else " "
            paragraphs[-1] += joint + line
        else:
            paragraphs.append(line)
        previous = raw
    return paragraphs


def _pdf_continues(previous_raw: str, line: str) -> bool:
    previous = previous_raw.rstrip()
    if re.match(r"(item|part)\s+[0-9ivx]+[a-c]?\b", line, re.I):
        return False
    ends = previous.endswith((".", "?", "!", ":")) or len(previous) < 40
    return not (line[0].isupper() and ends)


def _pdf_page(page) -> tuple[str, str | None, str | None]:
    """A page's text, and its highest and lowest line as printed (`PdfEdges`)."""
    edges = PdfEdges()
    text = page.extract_text(visitor_text=edges.visit) or ""
    return (text, *edges.lines())


def _pdf_pages(path: Path, raw: bytes) -> list[tuple[str, str | None, str | None]]:
    """(text, head line, foot line) of each page; an encrypted PDF is opened with the empty
    password."""
    import io

    from pypdf import PdfReader

    try:
        with _quiet("pypdf"):  # a damaged PDF logs dozens of lines; the ReadError says it once
            reader = PdfReader(io.BytesIO(raw))
            if reader.is_encrypted and not reader.decrypt(""):
                raise ReadError(f"{_label(path)}: encrypted PDF needs a password; skipped")
            return [_pdf_page(page) for page in reader.pages]
    except ReadError:
        raise
    except Exception as exc:  # only pypdf runs here: whatever it raises, the bytes are bad
        raise ReadError(f"{_label(path)}: unreadable PDF ({type(exc).__name__}: "
                        f"{str(exc)[:100]}); skipped (re-download it, or index the filing's "
                        "HTML instead)") from exc


@contextmanager
def _quiet(logger_name: str):
    logger = logging.getLogger(logger_name)
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)
