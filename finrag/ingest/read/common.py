"""What every reader shares: the file names and forms a filing unit is known by, the error a
reader refuses with, the intermediate document a format reader returns, and the text and
table-cell rules the HTML and text readers both use."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from finrag.models import Block

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


@dataclass
class _Doc:
    """One document read: its blocks and the metadata it carries itself."""

    source: Path
    blocks: list[Block]
    meta: dict = field(default_factory=dict)  # dei facts, the document's own SGML header
    cover: dict = field(default_factory=dict)  # guesses from the cover page text


def _label(path: Path) -> str:
    """A short, recognisable name for messages: the last two path parts."""
    parts = Path(path).parts
    return "/".join(parts[-2:]) if len(parts) >= 2 else str(path)


_PAGE_NUMBER = re.compile(r"^(page\s+)?[-–—]?\s*(\d{1,3}|[ivxlc]{1,6})\s*[-–—]?$", re.I)
_FOOTER = re.compile(r"^.{2,90}(\||\s{2,})\s*\d{1,3}$")
def _norm(text: str) -> str:
    """Collapse whitespace (nbsp, zero-width, newlines) to single spaces."""
    text = text.replace("\u200b", "").replace("\ufeff", "")
    return re.sub(r"\s+", " ", text).strip()


_NUMBER = re.compile(r"^[\$€£¥(\-–—]*\s*\d[\d,.]*\s*[)%]*$|^[\$€£¥(]*\d[\d,.]*\s*(x|pts|bps)?\)?$")
_PREFIX = re.compile(r"^(\$|US\$|€|£|¥|\(|\$\(|\(\$)$")
_SUFFIX = re.compile(r"^[)%]+$|^%\)$|^\)%$")
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
