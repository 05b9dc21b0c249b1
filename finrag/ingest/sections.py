"""Cut a 10-K's blocks into its Items (Item 1, 1A, ..., 16), from the document's own headings.

A heading is a block that starts with "Item 7." / "ITEM 1A —" / "Part II, Item 5:" and is short
(or, in PDFs where the heading runs into its first paragraph, starts with the item's standard
title). A heading split over two blocks ("Item 7." then "Management's Discussion ...") takes its
title from the next block. The table of contents is skipped: a run of 3 or more headings with
almost no text between them, whose items come again later, is a TOC (a TOC laid out as a table
with page numbers is a table block and never a heading). Items then come out in document order,
each at most once: a heading is kept only if its item comes after the last one kept.
Blocks before the first Item form the "Cover" section. A "PART II" line just before a heading
opens that heading's section. Titles come from the heading, else the standard 10-K title.

Limits: filings organised around a cross-reference index instead of Item headings (some banks
and conglomerates) come out as one "Cover" section or few Items; an Item whose heading is only
an image or a table with numbers is not found and its text stays in the previous section.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from finrag.models import Block

STANDARD_TITLES = {
    "1": "Business",
    "1A": "Risk Factors",
    "1B": "Unresolved Staff Comments",
    "1C": "Cybersecurity",
    "2": "Properties",
    "3": "Legal Proceedings",
    "4": "Mine Safety Disclosures",
    "5": "Market for Registrant's Common Equity, Related Stockholder Matters and Issuer "
         "Purchases of Equity Securities",
    "6": "[Reserved]",
    "7": "Management's Discussion and Analysis of Financial Condition and Results of Operations",
    "7A": "Quantitative and Qualitative Disclosures About Market Risk",
    "8": "Financial Statements and Supplementary Data",
    "9": "Changes in and Disagreements with Accountants on Accounting and Financial Disclosure",
    "9A": "Controls and Procedures",
    "9B": "Other Information",
    "9C": "Disclosure Regarding Foreign Jurisdictions that Prevent Inspections",
    "10": "Directors, Executive Officers and Corporate Governance",
    "11": "Executive Compensation",
    "12": "Security Ownership of Certain Beneficial Owners and Management and Related "
          "Stockholder Matters",
    "13": "Certain Relationships and Related Transactions, and Director Independence",
    "14": "Principal Accountant Fees and Services",
    "15": "Exhibits and Financial Statement Schedules",
    "16": "Form 10-K Summary",
}
COVER = "Cover"
COVER_TITLE = "Cover page"
HEADING_MAX_CHARS = 250  # a longer block is a heading only if it starts with the standard title
TOC_GAP_CHARS = 120  # less text than this between two headings: they may be TOC entries
TOC_MIN_RUN = 3

_HEADING = re.compile(
    r"^(?:\d{1,3}\s+)?(?:part\s+[ivx]+\s*[,.:;\-–—]?\s*)?items?\s*(\d{1,2})\s*([a-c])?(?:\s*\(t\))?"
    r"(?:\s*(?:and|&|,)\s*\d{1,2}[a-c]?)?"
    r"(?:\s*[.:\-–—]+\s*|\s+(?=(?-i:[A-Z\"“\[(]))|\s*$)(.*)$",
    re.I | re.S,
)
_ANOTHER_ITEM = re.compile(r"\bitems?\s+\d{1,2}[a-c]?\b", re.I)
_PART = re.compile(r"^part\s+[ivx]+\s*[.:]?\s*$", re.I)


@dataclass
class Section:
    item: str  # "Item 1A" (canonical: "Item " + number + upper letter) or "Cover"
    title: str  # "Risk Factors"
    blocks: list[Block]


@dataclass
class _Heading:
    index: int  # block index
    item: str  # "1A"
    title: str
    gap: int = 0  # chars of text until the next heading candidate


def split_sections(blocks: list[Block]) -> list[Section]:
    """The filing's sections in document order: Cover, then each Item found once."""
    headings = _keep_in_order(_drop_toc(_measure_gaps(_candidates(blocks), blocks)))
    return _cut(blocks, headings)


def item_order(item: str) -> tuple[int, str]:
    """Sort key of an item number like '7A'."""
    match = re.match(r"(\d+)([A-Z]?)", item)
    return (int(match.group(1)), match.group(2)) if match else (99, "")


def _candidates(blocks: list[Block]) -> list[_Heading]:
    found = []
    for i, block in enumerate(blocks):
        heading = _parse_heading(block, blocks[i + 1] if i + 1 < len(blocks) else None)
        if heading:
            found.append(_Heading(i, *heading))
    return found


def _parse_heading(block: Block, following: Block | None) -> tuple[str, str] | None:
    """(item, title) if the block is an Item heading."""
    if block.kind != "text":
        return None
    match = _HEADING.match(block.text.strip())
    if not match:
        return None
    item = match.group(1).lstrip("0") + (match.group(2) or "").upper()
    if item not in STANDARD_TITLES:
        return None
    rest = match.group(3).strip()
    if len(block.text) <= HEADING_MAX_CHARS and _ANOTHER_ITEM.search(rest):
        return None  # a TOC line: "Business 1 Item 1A."
    if len(block.text) > HEADING_MAX_CHARS:
        return (item, STANDARD_TITLES[item]) if _starts_with_title(rest, item) else None
    if not rest and following is not None and following.kind == "text":
        rest = following.text if len(following.text) <= HEADING_MAX_CHARS else ""
    return item, _clean_title(rest, item)


def _starts_with_title(text: str, item: str) -> bool:
    words = re.findall(r"[a-z]+", STANDARD_TITLES[item].lower())[:3]
    return re.findall(r"[a-z]+", text.lower().replace("’", "'"))[: len(words)] == words


def _clean_title(text: str, item: str) -> str:
    """The heading's own title, trimmed; the standard title when it is missing or odd."""
    title = re.sub(r"\s+", " ", text).strip(" .:-–—|")
    title = re.sub(r"\s*\|?\s*\d{1,3}$", "", title)  # a TOC page number
    if not title or len(title) > 200 or not re.search(r"[A-Za-z]", title):
        return STANDARD_TITLES[item]
    standard = _letters(STANDARD_TITLES[item])
    if standard.startswith(_letters(title)) and standard != _letters(title):
        return STANDARD_TITLES[item]  # a title cut short, as PDFs do ("Ris", "Legal")
    if title.isupper():
        return STANDARD_TITLES[item] if _starts_with_title(title, item) else title.title()
    return title


def _letters(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower())


def _measure_gaps(headings: list[_Heading], blocks: list[Block]) -> list[_Heading]:
    """Record how much text lies between each heading and the next (its title excluded)."""
    for n, heading in enumerate(headings):
        end = headings[n + 1].index if n + 1 < len(headings) else len(blocks)
        text = sum(len(b.text) for b in blocks[heading.index + 1:end])
        heading.gap = max(text - len(heading.title), 0)
    return headings


def _drop_toc(headings: list[_Heading]) -> list[_Heading]:
    """In runs of closely packed headings that are mostly repeated later (a TOC, or a
    Part's mini-TOC), drop the entries whose item comes again."""
    dropped: set[int] = set()
    n = 0
    while n < len(headings):
        end = n
        while end < len(headings) and headings[end].gap < TOC_GAP_CHARS:
            end += 1
        run = headings[n:end + 1] if end < len(headings) else headings[n:end]
        if len(run) >= TOC_MIN_RUN and _repeated_later(run, later := headings[end + 1:]):
            again = {h.item for h in later}
            dropped.update(h.index for h in run if h.item in again)
        n = end + 1
    return [h for h in headings if h.index not in dropped]


def _repeated_later(run: list[_Heading], later: list[_Heading]) -> bool:
    items = {h.item for h in run}
    again = items & {h.item for h in later}
    return len(again) * 2 >= len(items)


def _keep_in_order(headings: list[_Heading]) -> list[_Heading]:
    """The longest run of headings whose items increase through the document; among equally
    long ones, the one with most headings followed by real text, then the earliest.

    Dynamic programming over headings; the best chain ending at each item is kept per item,
    so a heading looks at ~23 items rather than every earlier heading (a hostile file with
    100k "Item 7" lines stays linear)."""
    best: list[tuple[int, int, int]] = []  # (count, substantive, previous index)
    top: dict[tuple[int, str], tuple[int, int, int]] = {}  # item -> (count, substantive, -index)
    for i, heading in enumerate(headings):
        order = item_order(heading.item)
        substantive = int(heading.gap >= TOC_GAP_CHARS)
        before = [top[key] for key in top if key < order]
        if before:  # the longest, most substantive earlier chain; the earliest among equals
            count, subs, minus_j = max(before)
            score = (count + 1, subs + substantive, -minus_j)
        else:
            score = (1, substantive, -1)
        best.append(score)
        top[order] = max(top.get(order, score[:2] + (-i,)), score[:2] + (-i,))
    if not best:
        return []
    i = max(range(len(best)), key=lambda n: (best[n][:2], -n))
    chain = []
    while i != -1:
        chain.append(headings[i])
        i = best[i][2]
    return chain[::-1]


def _cut(blocks: list[Block], headings: list[_Heading]) -> list[Section]:
    starts = [_section_start(blocks, h.index) for h in headings]
    sections = []
    if not starts or starts[0] > 0:
        sections.append(Section(COVER, COVER_TITLE, blocks[: starts[0] if starts else None]))
    for n, heading in enumerate(headings):
        end = starts[n + 1] if n + 1 < len(starts) else len(blocks)
        sections.append(Section(f"Item {heading.item}", heading.title, blocks[starts[n]:end]))
    return [s for s in sections if s.blocks or s.item != COVER]


def _section_start(blocks: list[Block], index: int) -> int:
    """A 'PART II' line right before a heading belongs to that heading's section."""
    if index > 0 and blocks[index - 1].kind == "text" and _PART.match(blocks[index - 1].text):
        return index - 1
    return index
