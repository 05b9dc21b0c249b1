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
    paragraphs = _glued_lines(lines)
    return _paged_blocks(_cell_tables(paragraphs), "\f" in text, bare_numbers=False)


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
    return (text[0].islower() and not previous.endswith((".", ":", ";", "?", "!"))
            and not _VALUE.match(previous))  # "35,190" then "iPad": a cell, then a row label


def _glue(previous: str, text: str) -> str:
    tight = (_PREFIX.match(previous) or text[0] in ",.;:)%"
             or (len(previous) == 1 and previous.isupper()))
    return previous + ("" if tight else " ") + text


_VALUE = re.compile(r"^[\$€£(]*\s*(\d[\d,]*(\.\d+)?|—|–|-)\s*\)?%?\)?$")
_FOOTNOTE = re.compile(r"^\(\d\)$")
_YEAR = re.compile(r"\b(19|20)\d\d\b")
_MIN_ROWS = 3


def _cell_tables(paragraphs: list[str]) -> list:
    """Tables of a tag-stripped submission, rebuilt: stripping the tags left one cell per line
    ("Services", "85,200", "78,129", "68,425"), so a statement reads as a label followed by as
    many values as it has columns. A run of at least three such rows of one width (2 or more
    values; a label with no values between them is a section line, "Net sales:"; a "(1)" right
    after a label is its footnote mark, dropped, when the row has one value too many) becomes a
    table block,
    under a header of the period cells just above it where they fit the width. Anything else
    (a sentence, a page footer) ends the run and stays as it was."""
    out: list = []
    i = 0
    while i < len(paragraphs):
        table, end = _table_at(paragraphs, i)
        if table is None:
            out.append(paragraphs[i])
            i += 1
            continue
        header, start = _header_before(out, len(table[0]) - 1)
        del out[start:]
        out.append(Block(kind="table", rows=header + table,
                         text="\n".join(" | ".join(c for c in r if c) for r in header + table)))
        i = end
    return out


def _table_at(paragraphs: list[str], i: int) -> tuple[list[list[str]] | None, int]:
    """The rows of the table starting at paragraph i (a label), and the index after it."""
    groups = []  # (label, its values, index of the label, index after the values)
    j = i
    while j < len(paragraphs) and _is_label(paragraphs[j]):
        k = j + 1
        while k < len(paragraphs) and isinstance(paragraphs[k], str) and \
                _VALUE.match(paragraphs[k]):
            k += 1
        groups.append((paragraphs[j], paragraphs[j + 1:k], j, k))
        j = k
    if not groups or not groups[0][1] or all(_PERIOD.match(v) for v in groups[0][1]):
        # a table starts at a row of values: a heading above stays text, and a sentence or
        # title followed by years ("... (in millions):", "2023", "2022") is text over a header
        return None, i
    widths = [len(v) - _leading_footnote(v) for _, v, _, _ in groups]
    widths = [w for w in widths if w >= 2]
    if len(widths) < _MIN_ROWS:
        return None, i
    width = max(set(widths), key=widths.count)
    rows: list[list[str]] = []
    starts: list[int] = []
    end, full = i, 0
    for label, values, at, after in groups:
        if len(values) == width + 1 and _leading_footnote(values):
            values = values[1:]  # "iPhone (1)": the label's footnote mark, not a value
        last = len(values) == width + 1 and _FOOTNOTE.match(values[-1])
        if last:  # "(1)" after the last row opens the footnotes below the table
            values, after = values[:-1], after - 1
        if values and len(values) != width:
            break
        rows.append([label, *values] if values else [label] + [""] * width)
        starts.append(at)
        full += bool(values)
        end = after
        if last:
            break
    while rows and not any(rows[-1][1:]):  # a trailing label belongs to what follows
        rows.pop()
        end = starts.pop()
    if full < _MIN_ROWS:
        return None, i
    return rows, end


def _leading_footnote(values: list[str]) -> int:
    return int(len(values) >= 3 and bool(_FOOTNOTE.match(values[0])))


def _is_label(paragraph) -> bool:
    return (isinstance(paragraph, str) and paragraph != "\f" and len(paragraph) <= 120
            and bool(re.search(r"[A-Za-z]", paragraph)) and not _VALUE.match(paragraph)
            and not _is_page_marker(paragraph, False))


_PERIOD = re.compile(r"^(?:[A-Za-z]{3,9}\.? \d{1,2},? )?(19|20)\d\d$|^%? ?change$", re.I)
_SECTION = re.compile(r"^[^\d]{2,60}:$")


def _header_before(out: list, width: int) -> tuple[list[list[str]], int]:
    """The rows printed just above a rebuilt table, and where they start in `out`: its header
    of period cells ("2023", "Change", "2022"... or "September 30,", "2023", ...) where they
    fit the table's width, then up to two section lines ("ASSETS:", "Current assets:")."""
    start = len(out)
    sections: list[list[str]] = []
    while (start > 0 and len(sections) < 2 and isinstance(out[start - 1], str)
           and _SECTION.match(out[start - 1])):
        start -= 1
        sections.insert(0, [out[start]] + [""] * width)
    top = start
    while (top > 0 and isinstance(out[top - 1], str) and len(out[top - 1]) <= 40
           and out[top - 1] != "\f" and start - top < 2 * width + 1):
        top -= 1
    cells = out[top:start]
    for skip in range(len(cells)):
        part = cells[skip:]
        if len(part) == width and all(_PERIOD.match(c.strip()) for c in part):
            return [["", *part], *sections], top + skip
        pairs = [f"{part[n]} {part[n + 1]}".replace(", ", " ").replace(",", "")
                 for n in range(0, len(part) - 1, 2)]
        if len(part) == 2 * width and all(_PERIOD.match(c) for c in pairs):
            return [["", *(f"{part[n]} {part[n + 1]}" for n in range(0, len(part), 2))],
                    *sections], top + skip
    return sections, start


def _paged_blocks(paragraphs: list, marked: bool, bare_numbers: bool) -> list[Block]:
    """Blocks with page numbers: a break at each '\f', else after each page-number
    paragraph or footer (if there are at least 3); page None when nothing marks pages."""
    footer = [isinstance(p, str) and p != "\f" and _is_page_marker(p, bare_numbers)
              for p in paragraphs]
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
        blocks.append(paragraph if isinstance(paragraph, Block) else _text_block(paragraph))
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
