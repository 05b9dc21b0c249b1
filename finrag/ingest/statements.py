"""Which financial statement a table belongs to.

Read from the title lines printed above the table on its page ("CONSOLIDATED BALANCE SHEETS",
"Consolidated Statements of Cash Flows", "STATEMENTS OF OPERATIONS"). A table on a page that
opens with a table (a statement running over a page break, its title on the page before) takes
the statement of the table that ended the page before. Anything else (notes, MD&A, schedules)
is "other". Which fiscal year a period falls in is finrag.ingest.fiscal's rule.
"""
from __future__ import annotations

import re

from finrag.models import Block

TITLE_BLOCKS = 6  # text blocks looked at above a table, on its page
TITLE_MAX = 160  # a longer text block is body text, not a title line
TITLE_LINE_MAX = 200  # a title line naming a statement is shorter

_STATEMENTS = (
    ("balance", re.compile(r"balance\s*sheets?|statements?\s*of\s*(consolidated\s*)?financial\s*"
                           r"(position|condition)", re.I)),
    ("cash_flow", re.compile(r"statements?\s*of\s*(consolidated\s*)?cash\s*flows?|"
                             r"cash\s*flows?\s*statements?", re.I)),
    ("equity", re.compile(r"statements?\s*of\s*[\w\s,'’()-]{0,60}?\b(equity|(stock|share)"
                          r"(holders|owners)['’]?\s*(equity|investment|deficit))", re.I)),
    ("comprehensive", re.compile(r"statements?\s*of\s*(consolidated\s*)?comprehensive\s*"
                                 r"(income|loss|earnings)", re.I)),
    ("income", re.compile(r"statements?\s*of\s*(consolidated\s*)?(operations|income|earnings|"
                          r"(net\s*)?loss)|income\s*statements?", re.I)),
)


def statement_of(title: str) -> str:
    """"income" | "balance" | "cash_flow" | "equity" | "other" for one title line. The line
    must read as a title: short, not a sentence (nothing but capitalised words, such as the
    company's name, before the statement's name), so "recorded on the consolidated balance
    sheets as follows:" is not one. A statement of comprehensive income is "other" (it is not
    the income statement), unless the title names both ("Income and Comprehensive Income")."""
    title = _NAVIGATION.sub("", " ".join(title.split()))
    if len(title) > TITLE_LINE_MAX or title.endswith(":"):
        return "other"
    found = [(kind, m) for kind, pattern in _STATEMENTS if (m := pattern.search(title))]
    found = [(kind, m) for kind, m in found if _title_prefix(title[: m.start()])
             and not _NOT_A_TITLE_END.match(title[m.end():])]
    if not found:
        return "other"
    kinds = [kind for kind, _ in found]
    if kinds[0] == "comprehensive":
        return "income" if "income" in kinds else "other"
    return kinds[0]


def _title_prefix(text: str) -> bool:
    """Words before a statement's name in a title: a company name, "Consolidated", "(continued)"."""
    words = re.findall(r"[A-Za-z][\w'’&.-]*", text)
    return all(w[0].isupper() or w.lower() in _SMALL_WORDS for w in words)


# What follows a statement's name in a heading that is not the statement itself:
# "Balance Sheet and Working Capital Measures", "Cash flow data"
_NOT_A_TITLE_END = re.compile(r"\s*((and|&)\s+(?!comprehensive|stockholders|shareholders|"
                              r"changes|redeemable|equity)|data\b|information\b|measures\b|"
                              r"highlights\b|summary\b|items\b)", re.I)

# a PDF's link back to the index, printed above every statement page:
# "Index to Consolidated Financial Statements Consolidated Balance Sheets"
_NAVIGATION = re.compile(r"^(?:table\s+of\s+contents|index\s+to\s+(?:the\s+)?(?:consolidated\s+)?"
                         r"financial\s+statements(?:\s+and\s+supplementary\s+data)?)\s*", re.I)

_SMALL_WORDS = {"and", "of", "the", "inc.", "inc", "co.", "corp.", "subsidiaries", "its",
                "consolidated", "combined", "company"}


def table_statements(blocks: list[Block]) -> dict[int, str]:
    """block index -> statement, for every table block of a document."""
    out: dict[int, str] = {}
    last_table: int | None = None
    for i, block in enumerate(blocks):
        if block.kind != "table":
            continue
        lines = title_lines(blocks, i)
        kind = next((k for k in map(statement_of, lines) if k != "other"), "other")
        if kind == "other" and last_table is not None and _continues(blocks, last_table, i):
            kind = out[last_table]
        out[i] = kind
        last_table = i
    return out


def title_lines(blocks: list[Block], i: int) -> list[str]:
    """The short text lines above table `i` on its page (nearest first, up to the previous
    table), then the table's own leading rows that hold one cell only (a title set in the
    table's first row)."""
    page = blocks[i].page
    lines: list[str] = []
    j = i - 1
    while j >= 0 and len(lines) < TITLE_BLOCKS:
        block = blocks[j]
        if block.page != page or block.kind == "table":
            break
        if len(block.text) <= TITLE_MAX:
            lines.append(block.text)
        j -= 1
    for row in (blocks[i].rows or [])[:3]:
        cells = [c for c in row if c.strip()]
        if len(cells) != 1:
            break
        lines.append(cells[0])
    return lines


def _continues(blocks: list[Block], previous: int, i: int) -> bool:
    """Table `i` opens its page, and table `previous` ended the page before (nothing but short
    lines, such as "See accompanying notes", between them)."""
    page = blocks[i].page
    if page is None or blocks[previous].page != page - 1 or blocks[i - 1].page == page:
        return False
    return all(len(b.text) <= 60 for b in blocks[previous + 1:i])
