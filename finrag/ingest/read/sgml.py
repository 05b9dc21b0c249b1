"""EDGAR SGML submissions: the header's KEY: VALUE lines and the documents inside, in EDGAR's
byte format and in the tag-stripped form some mirrors serve."""

from __future__ import annotations

import re

from finrag.ingest.read.common import TEN_K_FORMS
from finrag.ingest.read.meta import _parse_date

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


_STRIPPED_TYPE = re.compile(r"^(10-K\S*|10-Q\S*|8-K\S*|EX-[\w.\-]+"
                            r"|GRAPHIC|ZIP|XML|EXCEL|JSON|PDF|COVER)$",
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
