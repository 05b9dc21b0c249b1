"""Printed page labels: the page number a page prints in its foot or head ("35", "F-7", "iv").

A 10-K's page index (its position in the file) and the number printed on the page differ: the
cover and the table of contents are not numbered, and financial-statement pages may be "F-7". An
analyst checks a citation against the printed number, so each page gets `page_label`.

Where the label is: in the last block of the page (the page foot), else in its first (the
page head). It is a bare label ("35", "35.", "- 35 -", "Page 35", "iv", "F-7") or a running
footer or header, a short line that repeats on every page with only the number changing:
"Apple Inc. | 2024 Form 10-K | 35", "Fiscal 2024 Form 10-K | 35" (a one-row layout table),
"Fiscal 2024 Form 10-K iii", "57 MASTERCARD 2024 FORM 10-K", "The Procter & Gamble Company 17".

The rules, general to filings and not to any company:
- A bare number in a page's last block is its page number, and so is a foot line naming the
  form ("MASTERCARD 2019 FORM 10-K 111", a footer whose year is misprinted on one page), as the
  readers have always dropped them; a bare lower-case roman numeral ("iv") counts like a
  running footer, below.
- Anything else counts only where the same line, less its number (its "template"), stands in the
  same place (foot or head) on at least `MIN_RUNNING` pages. That tells a running footer from a
  heading that happens to end in a number ("NOTE 7", "PART II" are never templates).
- A group's labels must run forwards: most of its numeric labels larger than the one on the page
  before. A group that jumps about (table cells, figures) labels nothing.
- The foot wins over the head; a page without either has no label (None), never a guess.
The blocks that are only a page mark are dropped from the text, so a footer never reaches a chunk.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

from finrag.models import Block

MIN_RUNNING = 3  # pages a running footer or header must appear on to count as one
MAX_MARK_CHARS = 100  # a page foot or head is a short line
ROMAN = "<roman>"  # the template of a bare roman label: one group, needing MIN_RUNNING pages

_ROMAN = r"(?=[ivxlc])c{0,3}(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})"
_NUMERIC = r"[A-Z]{1,2}-\d{1,3}|\d{1,3}"  # "F-7", "S-1", "35"
_BARE = re.compile(rf"(?:page\s+)?[-–—]?\s*(?:(?P<label>{_NUMERIC})|(?P<roman>(?-i:{_ROMAN})))"
                   r"\.?\s*[-–—]?", re.I)  # "35", "- 35 -", "Page 35", "35."
_SEP = r"[\s|·•\-–—]"
_AT_END = re.compile(rf"(?P<rest>.{{2,90}}?){_SEP}+(?:page\s+)?"
                     rf"(?P<label>{_NUMERIC}|(?-i:{_ROMAN}))", re.I)  # "Form 10-K | iii" too
_AT_START = re.compile(rf"(?:page\s+)?(?P<label>{_NUMERIC}){_SEP}+(?P<rest>.{{2,90}})", re.I)
_NOT_TEMPLATE = re.compile(r"^(part|item|note|section|schedule|exhibit|article|table|step|"
                           r"level|tier|phase|class|series|total|year|fiscal year|quarter|"
                           r"q[1-4]|fy)\b", re.I)


@dataclass(frozen=True)
class Mark:
    """A line that may be a page mark: its label, and the rest of the line (lower-cased,
    without separators at its ends; "" for a bare label)."""

    label: str
    template: str


def page_mark(text: str) -> Mark | None:
    """The page label a short line prints, if it is shaped like a page foot or head."""
    text = " ".join(text.replace("\u200b", "").split())
    if not text or len(text) > MAX_MARK_CHARS:
        return None
    if m := _BARE.fullmatch(text):
        if m.group("roman"):  # lower case only ("iv"); "X" and "I" are check marks and headings
            return Mark(m.group("roman"), ROMAN)
        return Mark(_clean_label(m.group("label")), "")
    for shape in (_AT_END, _AT_START):
        if (m := shape.fullmatch(text)) and (template := _template(m.group("rest"))):
            return Mark(_clean_label(m.group("label")), template)
    return None


def _clean_label(label: str) -> str:
    return label.upper() if "-" in label else label


def _template(rest: str) -> str | None:
    rest = rest.strip(" |·•-–—").lower()
    if not re.search(r"[a-z]", rest) or _NOT_TEMPLATE.match(rest):
        return None
    return rest


@dataclass(frozen=True)
class _Candidate:
    page: int  # position in the list of pages
    where: str  # "foot" or "head"
    mark: Mark


def label_pages(pages: list[list[Block]]) -> list[list[Block]]:
    """Pages (each a list of blocks, in order) with `page_label` set on every block and the
    blocks that are only a page mark removed. The caller has set `page` already."""
    candidates = [c for n, page in enumerate(pages) for c in _candidates(n, page)]
    accepted = _accepted(candidates)
    out: list[list[Block]] = []
    for n, page in enumerate(pages):
        foot, head = accepted.get((n, "foot")), accepted.get((n, "head"))
        label = (foot or head).label if (foot or head) else None
        keep = page[(1 if head and len(page) > 1 else 0): (len(page) - 1 if foot else len(page))]
        for block in keep:
            block.page_label = label
        out.append(keep)
    return out


def _candidates(n: int, page: list[Block]) -> list[_Candidate]:
    found = []
    if page and (mark := _block_mark(page[-1])):
        found.append(_Candidate(n, "foot", mark))
    if len(page) > 1 and (mark := _block_mark(page[0])):
        found.append(_Candidate(n, "head", mark))
    return found


def _block_mark(block: Block) -> Mark | None:
    """A text block, or a one-row table of at most three cells (a footer laid out as a table)."""
    if block.kind == "table" and (not block.rows or len(block.rows) != 1
                                  or sum(1 for c in block.rows[0] if c.strip()) > 3):
        return None
    return page_mark(block.text)


def _accepted(candidates: list[_Candidate]) -> dict[tuple[int, str], Mark]:
    groups: dict[tuple[str, str], list[_Candidate]] = {}
    for c in candidates:
        groups.setdefault((c.where, c.mark.template), []).append(c)
    accepted: dict[tuple[int, str], Mark] = {}
    for (where, template), members in groups.items():
        alone = where == "foot" and (template == "" or "10-k" in template)
        if (len(members) >= MIN_RUNNING or alone) and _runs_forwards(members):
            accepted.update({(c.page, c.where): c.mark for c in members})
    return accepted


def _runs_forwards(members: list[_Candidate]) -> bool:
    """True when most consecutive plain-number labels of a group increase (fewer than three
    numbers: nothing to judge, True)."""
    numbers = [int(c.mark.label) for c in members if c.mark.label.isdigit()]
    steps = list(pairwise(numbers))
    if len(steps) < 2:
        return True
    return sum(b > a for a, b in steps) * 2 > len(steps)


class PdfEdges:
    """Collects, while pypdf extracts a page's text (`visitor_text`), the page's lowest and
    highest line as printed. pypdf returns text in content-stream order, which need not be the
    order on paper: Medicis's 1999 10-K has its page number in the middle of each page's text,
    glued to a sentence. Its position on the page says where it is."""

    def __init__(self) -> None:
        self.fragments: list[tuple[float, float, str]] = []  # (y, x, text)

    def visit(self, text, cm, tm, font_dict, font_size) -> None:
        text = text.strip()
        if text:
            x = cm[0] * tm[4] + cm[2] * tm[5] + cm[4]
            y = cm[1] * tm[4] + cm[3] * tm[5] + cm[5]
            self.fragments.append((y, x, text))

    def lines(self) -> tuple[str | None, str | None]:
        """(head, foot): the text of the highest and the lowest line (fragments within 2
        points of the same height, left to right); None when the page has no text."""
        if not self.fragments:
            return None, None
        top = max(y for y, _, _ in self.fragments)
        bottom = min(y for y, _, _ in self.fragments)
        return self._line(top), self._line(bottom)

    def _line(self, y: float) -> str:
        row = sorted((x, t) for fy, x, t in self.fragments if abs(fy - y) <= 2)
        return " ".join(t for _, t in row)
