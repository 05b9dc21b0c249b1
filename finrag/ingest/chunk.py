"""Filing sections -> chunks: narrative passages that fit the model window, and tables.

Narrative: the paragraphs of a section are packed in reading order into passages of at most
`budget` word pieces (the model's 256-token window less a margin), breaking between paragraphs,
else between sentences, else between words, so the chunk text itself is never truncated by
the embedder. (The model embeds it under its page's title lines, `finrag.views.dense_text`,
which the budget does not count: 0.6% of FinanceBench's chunks then run past the window, by a
median of 6 word pieces cut from their end.) Tables: kept whole where they fit, else split by
rows with the caption and header rows repeated on every piece; the text is readable rows
("Net sales | 260,174 | 265,595") and the grid stays in the payload for display.

Chunk ids derive from the filing, the section, the ordinal and the text, so the same filing
always yields the same ids.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator

from finrag.config import MODEL_MAX_TOKENS
from finrag.ingest.sections import Section
from finrag.models import Block, Chunk, Filing
from finrag.tablegrid import header_rows

BUDGET = MODEL_MAX_TOKENS - 16  # margin for rounding between piece counts and joined text
CAPTION_MAX_CHARS = 160
HEADING_LINE_MAX = 90  # a longer line is body text, not a title
_SKIP_HEADING = re.compile(r"^(table of contents|index|\d{1,4}|page \d+)$", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+(?=[\"'(\[]?[A-Z0-9$])")

Counter = Callable[[list[str]], list[int]]


def chunk_filing(filing: Filing, sections: list[Section], count: Counter) -> list[Chunk]:
    """All chunks of a filing, in document order."""
    blocks = [b for s in sections for b in s.blocks]
    headings = page_headings(blocks)
    labels = {b.page: b.page_label for b in blocks if b.page is not None and b.page_label}
    chunks: list[Chunk] = []
    for section in sections:
        for ordinal, (kind, text, grid, page) in enumerate(_section_pieces(section, count)):
            chunk = _make_chunk(filing, section, ordinal, kind, text, grid, page)
            chunk.heading = headings.get(page, "")
            chunk.page_label = labels.get(page)
            chunks.append(chunk)
    return chunks


def page_headings(blocks: list[Block]) -> dict[int, str]:
    """The short title lines each page opens with: company, statement title, units
    ("NETFLIX, INC. CONSOLIDATED BALANCE SHEETS (in thousands)"). A statement's title sits on
    its page only once, above the first rows; every chunk of the page carries it as context.
    A page that opens mid-paragraph has no heading."""
    headings: dict[int, str] = {}
    lines: dict[int, list[str]] = {}
    done: set[int] = set()
    for block in blocks:
        page = block.page
        if page is None or page in done:
            continue
        text = " ".join(block.text.split())
        if block.kind == "text" and _SKIP_HEADING.match(text):
            continue
        if block.kind != "text" or len(text) > HEADING_LINE_MAX or len(lines.get(page, [])) == 3:
            done.add(page)
            continue
        lines.setdefault(page, []).append(text)
    for page, found in lines.items():
        heading = " ".join(found)
        if any(ch.isalpha() for ch in heading):
            headings[page] = heading[:CAPTION_MAX_CHARS]
    return headings


def filing_key(filing: Filing) -> str:
    """The accession, else ticker + fiscal year + form: never a path, so ids survive a move."""
    return filing.accession or f"{filing.ticker}:{filing.fiscal_year}:{filing.form}"


def _make_chunk(filing, section, ordinal, kind, text, grid, page) -> Chunk:
    key = filing_key(filing)
    digest = hashlib.sha256(f"{key}\x1f{section.item}\x1f{ordinal}\x1f{text}".encode()).hexdigest()
    return Chunk(
        chunk_id=digest[:32],
        ticker=filing.ticker,
        cik=filing.cik,
        company=filing.company,
        form=filing.form,
        fiscal_year=filing.fiscal_year,
        period_end=filing.period_end,
        accession=filing.accession,
        document=filing.document,
        section=section.item,
        section_title=section.title,
        chunk_type=kind,
        page=page,
        text=text,
        source=filing.source,
        table=grid,
        filing_key=key,
    )


def _section_pieces(section: Section, count: Counter) -> Iterator[tuple]:
    """(chunk_type, text, grid, page) for each chunk of one section."""
    pending: list[Block] = []
    caption = ""
    for block in section.blocks:
        if block.kind == "table" and block.rows:
            yield from _narrative(pending, count)
            pending = []
            yield from _table(block, caption, count)
            caption = ""
            continue
        text = block.text.strip()
        if not text:
            continue
        pending.append(block)
        caption = text if len(text) <= CAPTION_MAX_CHARS else ""
    yield from _narrative(pending, count)


# --- narrative ---------------------------------------------------------------------------


def _narrative(blocks: list[Block], count: Counter) -> Iterator[tuple]:
    texts = [b.text.strip() for b in blocks]
    sizes = count(texts) if texts else []  # one batch: most paragraphs fit as they are
    units = [(u, b.page) for b, text, size in zip(blocks, texts, sizes)
             for u in _fitting_units(text, count, size)]
    if not units:
        return
    sizes = count([u for u, _ in units])
    current: list[str] = []
    used, page = 0, None
    for (unit, unit_page), size in zip(units, sizes):
        if current and (used + size > BUDGET or unit_page != page):  # one chunk, one page
            yield ("narrative", "\n".join(current), None, page)
            current, used = [], 0
        if not current:
            page = unit_page
        current.append(unit)
        used += size
    if current:
        yield ("narrative", "\n".join(current), None, page)


def _fitting_units(text: str, count: Counter, size: int) -> list[str]:
    """Split a paragraph (of `size` word pieces) into pieces that each fit the budget:
    sentences, then words."""
    if not text:
        return []
    if size <= BUDGET:
        return [text]
    pieces: list[str] = []
    for sentence in _SENTENCE_END.split(text):
        if count([sentence])[0] <= BUDGET:
            pieces.append(sentence)
        else:
            pieces.extend(_split_words(sentence, count))
    return _pack(pieces, count, " ")


def _split_words(text: str, count: Counter) -> list[str]:
    words = text.split()
    sizes = count(words)
    out, current, used = [], [], 0
    for word, size in zip(words, sizes):
        size = max(size - 2, 1)  # a word's own [CLS]/[SEP] are not repeated inside a passage
        if current and used + size > BUDGET - 2:
            out.append(" ".join(current))
            current, used = [], 0
        current.append(word)
        used += size
    if current:
        out.append(" ".join(current))
    return out


def _pack(pieces: list[str], count: Counter, sep: str) -> list[str]:
    """Greedy re-packing of small pieces into units that still fit, checked by a real count."""
    out: list[str] = []
    for piece in pieces:
        if out and count([out[-1] + sep + piece])[0] <= BUDGET:
            out[-1] = out[-1] + sep + piece
        else:
            out.append(piece)
    return out


# --- tables ------------------------------------------------------------------------------


def table_row_text(row: list[str]) -> str:
    return " | ".join(cell for cell in row if cell.strip())


def _table(block: Block, caption: str, count: Counter) -> Iterator[tuple]:
    rows = [r for r in block.rows if any(c.strip() for c in r)]
    if not rows:
        return
    n_head = header_rows(rows)  # periods and unit line, repeated on every part
    head, body = rows[:n_head], rows[n_head:]
    prefix = ([caption] if caption else []) + [table_row_text(r) for r in head]
    lines = [table_row_text(r) for r in body]
    sizes = count(lines) if lines else []
    budget = BUDGET - (count(["\n".join(prefix)])[0] if prefix else 0)
    part: list[int] = []
    used = 0
    for i, size in enumerate(sizes):
        if part and used + size > budget:
            yield _table_piece(prefix, head, body, part, block.page)
            part, used = [], 0
        part.append(i)
        used += size
    if part or not body:
        yield _table_piece(prefix, head, body, part, block.page)


def _table_piece(prefix, head, body, part, page) -> tuple:
    chosen = [body[i] for i in part]
    text = "\n".join(prefix + [table_row_text(r) for r in chosen])
    return ("table", text, head + chosen, page)
