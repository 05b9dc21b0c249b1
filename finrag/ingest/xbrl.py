"""Inline-XBRL facts of one HTML filing: every printed `ix:nonFraction`, exact.

For each fact: its concept (`name`), its context's period (start/end or instant) and explicit
dimension members, its unit (`unitRef` -> measures), `scale`, `sign="-"`, `decimals` and the
number as displayed (read by its `format`: ixt num-dot-decimal, num-comma-decimal,
fixed-zero / zero-dash, numwordsen). The value is kept in the unit the filing prints it in:
a fact with scale 6 printed "23,783" is 23783 "USD millions" (sign="-" negates it).

Where it is printed: the document is read a second time by the reader's own block walk
(`finrag.ingest.read.html.html_to_blocks`), with each fact's displayed text swapped for a numeric
marker, so every fact lands on exactly the page and table row the reader gives the chunks, with no
second copy of the page-splitting rules. Facts the reader never prints (inside `ix:header` /
`ix:hidden`, or `display:none`) get no page and are left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from finrag.ingest.read.decode import _decode, _wide_to_utf8
from finrag.ingest.read.html import _parse_html, html_to_blocks
from finrag.ingest.read.sgml import _main_document
from finrag.models import Block

MARK = "86420"  # marker = MARK + 7-digit fact number: reads as a number to the table logic
_MARK = re.compile(MARK + r"(\d{7})")
_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}
_WORDS.update({"no": 0, "none": 0, "thirty": 30, "forty": 40, "fifty": 50})
_SCALE_WORDS = {3: "thousands", 6: "millions", 9: "billions"}


@dataclass
class XbrlFact:
    """One printed `ix:nonFraction`, before it becomes a `finrag.facts.Fact`."""

    concept: str
    value: float  # in the printed unit, sign applied
    unit: str  # "USD millions", "USD per share", "shares", "percent", ...
    period_start: str | None
    period_end: str | None
    dims: list[str]
    decimals: str | None
    printed: str  # as printed: its table cell ("(23,783)"), else the tagged text ("23,783")
    shown: str = ""  # the tagged text alone ("23,783")
    page: int | None = None
    block: int | None = None  # index of the reader block it is printed in
    row: list[str] = field(default_factory=list)  # its table row's cells (markers removed)
    context_text: str = ""  # for a fact in running text: the words just before it
    cell: str = ""  # its table cell, marker and all ("(8642000000012)")
    label: str = ""  # its row's label as printed, or the words before it in running text


def has_inline_xbrl(path: Path) -> bool:
    """True if the document carries inline-XBRL numeric facts (a cheap byte search)."""
    try:
        raw = path.read_bytes()
    except OSError:
        return False
    return re.search(rb"ix:nonfraction", raw, re.I) is not None  # no lower-cased copy


def read_xbrl_facts(path: Path) -> tuple[list[XbrlFact], list[Block]]:
    """The printed numeric facts of one inline-XBRL document, and the reader's blocks of the
    marked copy (same pages and rows as the chunks; markers instead of the facts' numbers)."""
    root = _parse_html(path, _document_text(path))
    contexts, units = _contexts(root), _units(root)
    facts: list[XbrlFact] = []
    for el in list(root.iter("ix:nonfraction")):
        fact = _fact(el, contexts, units)
        if fact is None:
            continue
        _mark(el, len(facts))
        facts.append(fact)
    blocks = html_to_blocks(root)
    _place(facts, blocks)
    for fact in facts:
        if fact.cell and not _has_words(fact.cell):  # as its cell prints it: "(23,783)"
            fact.printed = unmark(fact.cell, facts)
        fact.label = row_label(fact.row, facts) if fact.row else fact.context_text
    return [f for f in facts if f.page is not None or f.block is not None], blocks


def _document_text(path: Path) -> str:
    text = _decode(_wide_to_utf8(path.read_bytes()))
    if re.search(r"<SEC-(DOCUMENT|HEADER)>", text[:4000]):
        text = _main_document(text)  # the 10-K document of a full submission
    return text


# --- contexts and units ----------------------------------------------------------------------


@dataclass(frozen=True)
class _Context:
    start: str | None
    end: str | None
    dims: tuple[str, ...]


def _contexts(root) -> dict[str, _Context]:
    out: dict[str, _Context] = {}
    for ctx in root.iter("xbrli:context"):
        dates = {el.tag.split(":")[-1]: (el.text or "").strip()
                 for el in ctx.iter("xbrli:startdate", "xbrli:enddate", "xbrli:instant")}
        dims = []
        for m in ctx.iter("xbrldi:explicitmember"):
            dims.append(f"{m.get('dimension')}={(m.text or '').strip()}")
        for m in ctx.iter("xbrldi:typedmember"):
            dims.append(f"{m.get('dimension')}={' '.join(m.text_content().split())}")
        end = dates.get("enddate") or dates.get("instant")
        out[ctx.get("id")] = _Context(dates.get("startdate"), end, tuple(sorted(dims)))
    return out


def _units(root) -> dict[str, str]:
    """unit id -> "iso4217:USD" or "iso4217:USD/xbrli:shares"."""
    out: dict[str, str] = {}
    for unit in root.iter("xbrli:unit"):
        num = [m.text.strip() for m in unit.iter("xbrli:unitnumerator") for m in
               m.iter("xbrli:measure") if m.text]
        den = [m.text.strip() for m in unit.iter("xbrli:unitdenominator") for m in
               m.iter("xbrli:measure") if m.text]
        if num or den:
            out[unit.get("id")] = f"{'*'.join(num)}/{'*'.join(den)}"
        else:
            out[unit.get("id")] = "*".join(m.text.strip() for m in unit.iter("xbrli:measure")
                                           if m.text)
    return out


def printed_unit(measure: str, scale: int) -> tuple[str, int]:
    """(unit name, remaining power of ten) for an XBRL measure shown at `scale`:
    ("iso4217:USD", 6) -> ("USD millions", 0); ("iso4217:USD/xbrli:shares", 0) ->
    ("USD per share", 0); ("xbrli:pure", -2) -> ("percent", 0); odd scales stay as powers."""
    local = [m.split(":")[-1] for m in measure.split("/")]
    if len(local) == 2 and local[1].lower() == "shares":
        base, word_ok = f"{local[0]} per share", False
    elif len(local) == 2:
        base, word_ok = f"{local[0]} per {local[1]}", False
    else:
        base, word_ok = local[0], True
    if base.lower() == "pure":
        if scale == -2:
            return "percent", 0
        return "pure", scale
    if scale == 0:
        return base, 0
    if word_ok and scale in _SCALE_WORDS:
        return f"{base} {_SCALE_WORDS[scale]}", 0
    return base, scale


# --- one fact --------------------------------------------------------------------------------


def _fact(el, contexts: dict[str, _Context], units: dict[str, str]) -> XbrlFact | None:
    ctx = contexts.get(el.get("contextref") or "")
    shown = " ".join(el.text_content().split())
    number = displayed_number(shown, el.get("format") or "")
    if ctx is None or number is None:
        return None
    try:
        scale = int(el.get("scale") or 0)
    except ValueError:
        scale = 0
    unit, power = printed_unit(units.get(el.get("unitref") or "", "pure"), scale)
    value = number * (10 ** power) * (-1 if el.get("sign") == "-" else 1)
    return XbrlFact(
        concept=el.get("name") or "", value=value, unit=unit, period_start=ctx.start,
        period_end=ctx.end, dims=list(ctx.dims), decimals=el.get("decimals"), printed=shown,
        shown=shown,
    )


def displayed_number(text: str, fmt: str) -> float | None:
    """The number an `ix:nonFraction` displays, read by its transformation format; None when
    it cannot be read (a format this reader does not know, or text that is not a number)."""
    fmt = fmt.split(":")[-1].lower().replace("-", "")
    text = text.strip()
    if fmt in ("fixedzero", "zerodash", "nocontent") or (not fmt and text in "-–—"):
        return 0.0
    if fmt == "numwordsen":
        words = text.lower().replace("-", " ").split()
        if len(words) == 1 and words[0] in _WORDS:
            return float(_WORDS[words[0]])
        return None
    digits = text
    if fmt in ("numcommadecimal", "numdotcomma"):
        digits = text.replace(".", "").replace(" ", "").replace(",", ".")
    elif fmt in ("", "numdotdecimal", "numdotdecimalin", "numcommadot", "numspacedot"):
        digits = text.replace(",", "").replace(" ", "")
    else:
        return None
    if text in ("-", "–", "—"):
        return 0.0
    digits = re.sub(r"[^\d.]", "", digits)
    try:
        return float(digits)
    except ValueError:
        return None


# --- where each fact is printed --------------------------------------------------------------


def _mark(el, number: int) -> None:
    """Swap the fact's displayed text for its marker (children dropped, tail kept)."""
    tail = el.tail
    for child in list(el):
        el.remove(child)
    el.text = f"{MARK}{number:07d}"
    el.tail = tail


def _place(facts: list[XbrlFact], blocks: list[Block]) -> None:
    """Give each fact the page, block and table row its marker landed in."""
    for b, block in enumerate(blocks):
        if block.kind == "table" and block.rows:
            for row in block.rows:
                for cell in row:
                    for n in map(int, _MARK.findall(cell)):
                        if n < len(facts) and facts[n].block is None:
                            facts[n].page, facts[n].block = block.page, b
                            facts[n].row = row
                            facts[n].cell = cell
            continue
        for m in _MARK.finditer(block.text):
            n = int(m.group(1))
            if n < len(facts) and facts[n].block is None:
                facts[n].page, facts[n].block = block.page, b
                facts[n].context_text = _words_before(block.text, m.start())


def _words_before(text: str, at: int, words: int = 12) -> str:
    before = _MARK.sub("", text[:at])  # (other facts' numbers dropped: they are not placed yet)
    return " ".join(before.split()[-words:])


def row_label(row: list[str], facts: list[XbrlFact]) -> str:
    """The row's label as printed: its first cell with words in it, numbers tagged inside it
    put back ("Accounts receivable, net of allowances of $ 985 and $ 1,000")."""
    for cell in row:
        if _has_words(cell):
            return unmark(cell, facts).strip()
    return ""


def _has_words(cell: str) -> bool:
    return bool(re.search(r"[A-Za-z]", _MARK.sub("", cell)))


def unmark(text: str, facts: list[XbrlFact]) -> str:
    """Text with each marker put back as its fact's displayed number."""
    return _MARK.sub(lambda m: facts[int(m.group(1))].shown
                     if int(m.group(1)) < len(facts) else "", text)
