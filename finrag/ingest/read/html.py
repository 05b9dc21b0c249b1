"""HTML and inline-XBRL documents -> blocks: paragraphs and tables in reading order, pages split
at the document's page breaks, hidden content skipped, tables kept as grids."""

from __future__ import annotations

import re
from pathlib import Path

import lxml.html
from lxml import etree

from finrag.ingest.pagelabels import label_pages
from finrag.ingest.read.columns import Cell, place
from finrag.ingest.read.common import _NUMBER, ReadError, _Doc, _label, _merge_cells, _norm
from finrag.ingest.read.decode import _decode
from finrag.ingest.read.meta import _cover_meta, _dei_meta, ixbrl_document_name
from finrag.models import Block

_BLOCK_TAGS = {
    "div", "p", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "br", "hr",
    "blockquote", "center", "pre", "section", "article", "dd", "dt", "dl", "body", "page",
    "address", "caption", "td", "th",
}
_SKIP_TAGS = {"script", "style", "head", "title", "ix:header", "noscript"}
_HIDDEN = re.compile(r"display\s*:\s*none", re.I)
_MAX_SPAN = 1000  # HTML caps colspan at 1000 and rowspan at 65534
_BREAK_BEFORE = re.compile(r"(page-)?break-before\s*:\s*(always|page)", re.I)
_BREAK_AFTER = re.compile(r"(page-)?break-after\s*:\s*(always|page)", re.I)


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


# --- tables


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
    """Rows of cell texts: SEC split cells merged ("$" "1,577" ")" -> "$1,577)"), each cell in
    the column its colspan prints it in (`columns.place`; else each row compacted), empty
    rows and columns dropped, rows padded to one width."""
    cells = _positioned([tr for tr in table.iter("tr") if _visible(tr)])
    rows = place(cells) or [_merge_cells([c.text for c in row]) for row in cells]
    rows = [r for r in rows if any(r)]
    width = max((len(r) for r in rows), default=0)
    rows = [r + [""] * (width - len(r)) for r in rows]
    keep = [j for j in range(width) if any(r[j] for r in rows)]
    return [[r[j] for j in keep] for r in rows]


def _visible(el) -> bool:
    return not _HIDDEN.search(el.get("style") or "")


def _positioned(trs) -> list[list[Cell]]:
    """Each row's visible cells with the grid columns they cover: a cell starts after the
    colspans before it and the cells above that reach down into its row (rowspan)."""
    below: dict[int, int] = {}  # column -> rows still covered by a cell above
    out = []
    for tr in trs:
        row, at = [], 0
        for td in (td for td in tr if td.tag in ("td", "th") and _visible(td)):
            while below.get(at, 0) > 0:
                at += 1
            wide, down = _span(td.get("colspan")), _span(td.get("rowspan"))
            row.append(Cell(at, at + wide, _cell_text(td)))
            below.update({k: down for k in range(at, at + wide) if down > 1})
            at += wide
        below = {k: n - 1 for k, n in below.items() if n > 1}
        out.append(row)
    return out


def _span(value: str | None) -> int:
    """A colspan or rowspan as a count: 1 where it is missing, 0 or not a number; at most
    _MAX_SPAN, as browsers cap it."""
    value = (value or "").strip()
    return min(int(value), _MAX_SPAN) if value.isdecimal() and int(value) > 0 else 1


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
