"""The cited page itself, offline: a filing's own page as safe HTML, the cited row or sentence
marked, so an analyst checks a figure against the page it is printed on.

A chunk's `page` is the 1-based position of its page in the document its `source` names. The
page is cut from that document the way ingest numbers pages:
- HTML / inline XBRL: the markup between the document's page breaks (`page-break-before` /
  `-after` styles, else `<hr>`), a break that closes an empty stretch counting no page, and
  what ingest skips (hidden XBRL header, scripts, `display:none`) skipped. The page is then
  sanitized: an allow-list of tags and of style properties; no script, event handler, link,
  image, frame or stylesheet reaches the output, and nothing loads from the network.
- PDF: the page's text as pypdf lays it out (rendering to an image needs a PDF rasterizer,
  a dependency that does not earn its place for this view).
- Plain or tag-stripped text: the page's passages as indexed (the text reader's page rules
  live with ingest; the index holds their result).

A source that moved or is missing raises `PageUnavailable` with one line: what and the fix.
"""

from __future__ import annotations

import functools
import html as html_lib
import re
from dataclasses import dataclass
from pathlib import Path

import lxml.html
from lxml import etree

from finrag.lineitems import normalize
from finrag.models import Chunk

_BREAK = "finragbreak"  # the marker element put at each page break before the cut
_BREAK_BEFORE = re.compile(r"(page-)?break-before\s*:\s*(always|page)", re.I)
_BREAK_AFTER = re.compile(r"(page-)?break-after\s*:\s*(always|page)", re.I)
_HIDDEN = re.compile(r"display\s*:\s*none", re.I)
_SKIP = {"script", "style", "head", "title", "ix:header", "noscript"}  # as ingest skips them
_DROP = _SKIP | {"link", "meta", "base", "iframe", "frame", "frameset", "object", "embed",
                 "applet", "form", "input", "button", "select", "textarea", "svg", "math",
                 "video", "audio", "source", "canvas", "template", "picture", "map"}
_KEEP = {"div", "p", "span", "table", "thead", "tbody", "tfoot", "tr", "td", "th", "br", "hr",
         "b", "strong", "i", "em", "u", "sub", "sup", "font", "ul", "ol", "li", "h1", "h2", "h3",
         "h4", "h5", "h6", "center", "blockquote", "pre", "caption", "colgroup", "col", "small",
         "big", "s", "strike", "dl", "dt", "dd", "mark"}
_ATTRIBUTES = {"colspan", "rowspan", "align", "valign", "width"}
_CSS = {"font-weight", "font-style", "font-size", "text-align", "text-decoration",
        "text-indent", "vertical-align", "padding", "padding-left", "padding-right",
        "padding-top", "padding-bottom", "border", "border-top", "border-bottom", "border-left",
        "border-right", "border-collapse", "border-spacing", "width", "min-width",
        "background-color", "color", "white-space", "line-height", "margin-left",
        "margin-right", "margin-top", "margin-bottom"}
_CSS_VALUE = re.compile(r"^[\w\s.,%#()+-]*$")  # no url(...) / expression quoting, no escapes
MARK_STYLE = "background-color:#ffe066;color:#000"
MAX_PAGES_CACHED = 8  # parsed documents kept (a dialog reopened on the same filing is instant)


class PageUnavailable(Exception):
    """The page cannot be shown: one line saying what and how to fix it."""


@dataclass(frozen=True)
class PageView:
    """One page, ready to show: sanitized HTML, how it was made, and how many marks landed."""

    html: str
    kind: str  # "html" | "pdf" | "text"
    page: int  # 1-based position in the document
    pages: int  # pages in the document (0 where unknown)
    marked: int  # cited rows / sentences found and marked on the page


def resolve(source: str, roots: tuple[Path, ...] = ()) -> Path:
    """The file a chunk's `source` names: as given (relative to the working directory), else
    under each of `roots` (the data dir's parent: an index built from another directory)."""
    path = Path(source)
    if path.is_file():
        return path
    for root in roots:
        if not path.is_absolute() and (root / path).is_file():
            return root / path
    raise PageUnavailable(
        f"The filing's file {source} is not there (moved or deleted): re-ingest it from where "
        f"it is now (python -m ingest build <folder>) to view its pages.")


def page_html(source: str | Path, page: int, marks: list[str] = ()) -> PageView:
    """Page `page` (1-based) of an HTML or PDF filing, sanitized, with `marks` marked: a mark
    holding " | " is a table row ("label | 4,540 | 3,969": the row with that label, the one
    holding most of those figures), any other a sentence."""
    path = Path(source)
    kind, text = _document(path)
    if kind == "pdf":
        return _pdf_page(path, page, marks)
    if kind != "html":
        raise PageUnavailable(f"{path.name} is a text filing: its pages come from the index "
                              "(page_view)")
    stat = path.stat()
    pages = _html_pages(str(path), stat.st_mtime_ns, stat.st_size)
    _check_page(page, len(pages), path)
    root = _fragment(pages[page - 1])
    sanitize(root)
    marked = sum(mark(root, m) for m in marks if m.strip())
    return PageView(_serialize(root), "html", page, len(pages), marked)


def page_view(chunk: Chunk, marks: list[str], roots: tuple[Path, ...] = (),
              index=None) -> PageView:
    """The page a chunk is printed on, its `marks` marked; a text filing's page from the
    passages `index` holds for it."""
    if not chunk.page:
        raise PageUnavailable(
            f"{chunk.ticker} FY{chunk.fiscal_year}: this document marks no page breaks, so "
            "there is no page to show; the passage itself is in 'Full chunk'.")
    path = resolve(chunk.source, roots)
    if _document(path)[0] == "text":
        if index is None:
            raise PageUnavailable("a text filing's page is read from the index")
        return text_page(_page_chunks(index, chunk), chunk.page, marks)
    return page_html(path, chunk.page, marks)


def text_page(chunks: list[Chunk], page: int, marks: list[str] = ()) -> PageView:
    """A text filing's page from its indexed passages, in order: paragraphs and tables."""
    parts, marked = [], 0
    wanted = [m for m in marks if m.strip()]
    for c in chunks:
        if c.chunk_type == "table" and c.table:
            rows, n = _text_table(c.table, wanted)
            parts.append(rows)
        else:
            body, n = _marked_text(c.text, wanted)
            parts.append(f"<p>{body}</p>")
        marked += n
    return PageView("<div>" + "\n".join(parts) + "</div>", "text", page, 0, marked)


# --- reading the document


def _document(path: Path) -> tuple[str, str]:
    """("pdf", "") | ("html", markup) | ("text", text): the 10-K document inside an SGML
    submission when the file is one."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise PageUnavailable(f"The filing's file {path} cannot be read ({exc.strerror}): "
                              "re-ingest it from where it is now.") from exc
    if raw.lstrip()[:5] == b"%PDF-":
        return "pdf", ""
    text = _decode(raw)
    documents = re.findall(r"<document>(.*?)(?:</document>|\Z)", text[:50_000_000], re.S | re.I)
    if documents:
        main = next((d for d in documents if re.search(r"<type>\s*10-K", d[:2000], re.I)),
                    documents[0])
        body = re.search(r"<text>(.*?)(?:</text>|\Z)", main, re.S | re.I)
        text = body.group(1) if body else ""
    if re.search(r"<(html|body|div|p|table|font|span)[\s>]", text[:4000], re.I):
        return "html", text
    return "text", text


def _decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")


@functools.lru_cache(maxsize=MAX_PAGES_CACHED)
def _html_pages(path: str, mtime_ns: int, size: int) -> list[str]:
    """The markup of each page, in order (mtime and size key the cache: an edited file is
    read again)."""
    text = _document(Path(path))[1]
    text = re.sub(r"^\s*<\?xml[^>]*>", "", text)
    parser = lxml.html.HTMLParser(remove_comments=True, remove_pis=True, recover=True)
    root = lxml.html.document_fromstring(text, parser=parser)
    body = root.find("body")
    body = body if body is not None else root
    styled = any(_BREAK_BEFORE.search(s) or _BREAK_AFTER.search(s)
                 for s in root.xpath("//@style[contains(., 'break')]"))
    _place_breaks(body, hr_breaks=not styled)
    markup = etree.tostring(body, encoding="unicode", method="html")
    segments = markup.split(f"<{_BREAK}></{_BREAK}>")
    return [s for s in segments if _has_text(_fragment(s))]  # an empty stretch is no page


def _place_breaks(el, hr_breaks: bool) -> None:
    """A marker element at each page break, where ingest's reader breaks: before an element
    styled break-before, after one styled break-after, at an `<hr>` when nothing is styled;
    never inside a table or a skipped (hidden) element."""
    for child in list(el):
        tag = child.tag if isinstance(child.tag, str) else ""
        style = child.get("style") or "" if tag else ""
        if not tag or tag in _SKIP or _HIDDEN.search(style):
            continue
        if _BREAK_BEFORE.search(style):
            child.addprevious(etree.Element(_BREAK))
        if tag == "hr" and hr_breaks:
            child.addnext(etree.Element(_BREAK))
        if tag != "table":
            _place_breaks(child, hr_breaks)
        if _BREAK_AFTER.search(style):
            child.addnext(etree.Element(_BREAK))


def _fragment(markup: str):
    return lxml.html.fragment_fromstring(markup, create_parent="div")


def _has_text(el) -> bool:
    """Whether ingest would read any text here (what it skips, skipped)."""
    return bool(_visible_text(el).replace("\u200b", "").replace("\ufeff", "").strip())


def _visible_text(el) -> str:
    tag = el.tag if isinstance(el.tag, str) else ""
    if not tag or tag in _SKIP or _HIDDEN.search(el.get("style") or ""):
        return ""
    return (el.text or "") + "".join(_visible_text(c) + (c.tail or "") for c in el)


def _check_page(page: int, pages: int, path: Path) -> None:
    if not 1 <= page <= pages:
        raise PageUnavailable(
            f"{path.name} has {pages} pages now, not a page {page}: the file changed since it "
            "was indexed; re-ingest it (python -m ingest build <folder>).")


def _page_chunks(index, chunk: Chunk) -> list[Chunk]:
    return index.page_chunks(chunk.filing_key, [chunk.page]) or [chunk]


# --- PDF


def _pdf_page(path: Path, page: int, marks: list[str]) -> PageView:
    from pypdf import PdfReader  # only a PDF page needs it
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(str(path))
        _check_page(page, len(reader.pages), path)
        text = reader.pages[page - 1].extract_text(extraction_mode="layout")
    except (PdfReadError, OSError, ValueError) as exc:
        raise PageUnavailable(f"{path.name}: the PDF page cannot be read ({exc}); "
                              "re-download and re-ingest the filing.") from exc
    lines, marked = [], 0
    wanted = [_key(m.split(" | ")[0]) for m in marks if m.strip()]
    for line in text.splitlines():
        shown = html_lib.escape(line)
        if any(w and w in _key(line) for w in wanted):
            shown, marked = f'<mark style="{MARK_STYLE}">{shown}</mark>', marked + 1
        lines.append(shown)
    return PageView(f"<pre>{chr(10).join(lines)}</pre>", "pdf", page, len(reader.pages),
                    marked)


# --- sanitizing


def sanitize(root) -> None:
    """In place: only allow-listed tags (others unwrapped, dangerous ones removed with their
    content), attributes and style properties; images become "[image]"."""
    for el in list(root.iter()):
        if el is root:
            continue
        if not isinstance(el.tag, str):  # a comment or processing instruction
            _remove(el)
            continue
        tag = el.tag.lower()
        if tag in _DROP or _HIDDEN.search(el.get("style") or ""):
            _remove(el)
        elif tag == "img":
            el.tag, el.text = "span", "[image]"
            _clean_attributes(el, keep=())
        elif tag not in _KEEP:
            el.drop_tag()  # ix:nonFraction, a, ...: the text stays, the tag goes
        else:
            _clean_attributes(el)
    _clean_attributes(root)


def _remove(el) -> None:
    """Drop an element and its content, keeping the text that follows it."""
    parent = el.getparent()
    if parent is None:
        return
    if el.tail:
        previous = el.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + el.tail
        else:
            parent.text = (parent.text or "") + el.tail
    parent.remove(el)


def _clean_attributes(el, keep=_ATTRIBUTES) -> None:
    for name in list(el.attrib):
        if name == "style":
            style = clean_style(el.get("style"))
            if style:
                el.set("style", style)
            else:
                del el.attrib["style"]
        elif name.lower() not in keep:
            del el.attrib[name]


def clean_style(style: str) -> str:
    """Only the allow-listed properties with plain values (no url(), no escapes)."""
    kept = []
    for declaration in style.split(";"):
        name, _, value = declaration.partition(":")
        name, value = name.strip().lower(), value.strip()
        if name in _CSS and value and _CSS_VALUE.match(value) and "expression" not in value:
            kept.append(f"{name}:{value}")
    return ";".join(kept)


def _serialize(root) -> str:
    return etree.tostring(root, encoding="unicode", method="html")


# --- marking


def mark(root, target: str) -> int:
    """Mark `target` in the page: a table row ("label | v1 | v2") or a sentence. Returns how
    many places were marked (0: not found on this page)."""
    if " | " in target:
        return _mark_rows(root, target)
    return _mark_sentence(root, target)


def _mark_rows(root, target: str) -> int:
    label, *values = [c.strip() for c in target.split(" | ")]
    want = _key(label)
    figures = [v for v in values if re.search(r"\d", v)]
    best, rows = -1, []
    for tr in root.iter("tr"):
        cells = [c for c in tr if isinstance(c.tag, str) and c.tag in ("td", "th")]
        texts = [" ".join(c.text_content().split()) for c in cells]
        first = next((t for t in texts if t), "")
        if not want or _key(first) != want:
            continue
        line = " ".join(texts)
        score = sum(1 for f in figures if _figure(f) in line)
        if score > best:
            best, rows = score, [tr]
        elif score == best:
            rows.append(tr)
    for tr in rows:
        _mark_row(tr)
    return len(rows)


def _figure(value: str) -> str:
    return value.strip("$()% ").replace("$", "").strip()


def _mark_row(tr) -> None:
    tr.set("style", ";".join(filter(None, [tr.get("style"), MARK_STYLE])))
    for cell in tr:
        if isinstance(cell.tag, str) and cell.tag in ("td", "th"):
            cell.set("style", ";".join(filter(None, [cell.get("style"), MARK_STYLE])))
            if cell.text_content().strip():
                _wrap_children(cell)


def _wrap_children(el) -> None:
    """Put the content of `el` inside one <mark>."""
    wrapper = etree.Element("mark", style=MARK_STYLE)
    wrapper.text, el.text = el.text, None
    for child in list(el):
        wrapper.append(child)  # moves it, tail included
    el.append(wrapper)


def _mark_sentence(root, sentence: str) -> int:
    """The sentence where one text node holds it, wrapped exactly; else the smallest element
    that holds its start, wrapped whole."""
    words = sentence.split()
    if not words:
        return 0
    pattern = re.compile(r"\s+".join(re.escape(w) for w in words[:40]))
    for el in list(root.iter()):
        if not isinstance(el.tag, str):
            continue
        if el.text and (m := pattern.search(el.text)):
            _wrap_text(el, m, tail=False)
            return 1
        if el is not root and el.tail and (m := pattern.search(el.tail)):
            _wrap_text(el, m, tail=True)
            return 1
    start = _key(" ".join(words[:12]))
    holders = [el for el in root.iter() if isinstance(el.tag, str)
               and start in _key(el.text_content())]
    if not holders:
        return 0
    _wrap_children(holders[-1])  # the last in document order holding it is the innermost
    return 1


def _wrap_text(el, match: re.Match, tail: bool) -> None:
    text = el.tail if tail else el.text
    before, inside, after = text[:match.start()], match.group(0), text[match.end():]
    marked = etree.Element("mark", style=MARK_STYLE)
    marked.text, marked.tail = inside, after
    if tail:
        el.tail = before
        el.addnext(marked)
    else:
        el.text = before
        el.insert(0, marked)


def _key(text: str) -> str:
    return normalize(text).replace("(", "").replace(")", "").strip()


def _marked_text(text: str, marks: list[str]) -> tuple[str, int]:
    """Escaped text with each sentence mark wrapped in <mark>."""
    shown, n = html_lib.escape(text), 0
    for m in marks:
        if " | " in m:
            continue
        piece = html_lib.escape(m.strip())
        if piece and piece in shown:
            shown, n = shown.replace(piece, f'<mark style="{MARK_STYLE}">{piece}</mark>', 1), n + 1
    return shown, n


def _text_table(grid: list[list[str]], marks: list[str]) -> tuple[str, int]:
    labels = {_key(m.split(" | ")[0]) for m in marks if " | " in m}
    rows, n = [], 0
    for row in grid:
        if row and _key(row[0]) in labels and _key(row[0]):
            cells = "".join(f'<td><mark style="{MARK_STYLE}">{html_lib.escape(c)}</mark></td>'
                            for c in row)
            n += 1
        else:
            cells = "".join(f"<td>{html_lib.escape(c)}</td>" for c in row)
        rows.append(f"<tr>{cells}</tr>")
    return "<table>" + "".join(rows) + "</table>", n
