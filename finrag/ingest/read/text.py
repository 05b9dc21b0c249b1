"""Plain and tag-stripped text -> blocks: paragraphs, page markers, rows of aligned cells."""

from __future__ import annotations

import re
from pathlib import Path

from finrag.ingest.pagelabels import page_mark
from finrag.ingest.read.common import (
    _FOOTER,
    _NUMBER,
    _PAGE_NUMBER,
    _PREFIX,
    ReadError,
    _Doc,
    _label,
    _merge_cells,
    _norm,
)
from finrag.ingest.read.meta import _cover_meta
from finrag.models import Block


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
    columnar = [cells for cells in split
                if len(cells) >= 2 and any(_NUMBER.match(c) for c in cells)]
    if len(lines) >= 2 and len(columnar) * 2 >= len(lines):
        rows = [_merge_cells(cells) for cells in split]
        width = max(len(r) for r in rows)
        rows = [r + [""] * (width - len(r)) for r in rows]
        text = "\n".join(" | ".join(c for c in r if c) for r in rows)
        return Block(kind="table", text=text, rows=rows)
    return Block(kind="text", text=_norm(paragraph))
