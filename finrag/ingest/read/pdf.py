"""PDF -> blocks with pypdf: one page at a time, each page's head and foot taken apart for its
printed page label."""

from __future__ import annotations

import logging
import re
from contextlib import contextmanager
from pathlib import Path

from finrag.ingest.pagelabels import PdfEdges, label_pages, page_mark
from finrag.ingest.read.common import ReadError, _Doc, _label
from finrag.ingest.read.meta import _cover_meta
from finrag.ingest.read.text import _text_block
from finrag.models import Block


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
