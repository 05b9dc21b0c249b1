"""Where in a 10-K a question is answered, where the question's form or its line items fix it.

- A "why did it change" question is answered in Management's Discussion and Analysis (Item 7):
  Regulation S-K Item 303 requires it to describe the reasons for material changes, so the
  sentences that give a change's cause are printed there, whatever the company.
- A question about the securities the company has registered on an exchange is answered on
  the cover page: Form 10-K's cover lists each class registered under Section 12(b) of the
  Exchange Act (finrag.cover), whatever the company.
- A question naming line items (working capital, capital expenditure, gross margin) is answered
  on the statements that print them (finrag.vocabulary's homes of each item): their pages
  are known by the statement's title in the page heading ("CONSOLIDATED BALANCE SHEETS"; not
  "Off-balance sheet arrangements").

Search gives the candidates printed in a routed place a third, half-weight vote in the fusion,
among those the two retrievers found: it adds no candidate and filters nothing out.

Measured (docs/measurements.md, 2026-12-07 night), filing filter, fused MRR@10: the narrative
key's 12 cause questions .600 -> .767 (MD&A; two questions' worth, the whole key .633 -> .675,
within noise); FinanceBench's 47 dev questions .714 -> .719 (MD&A) -> .771 (and the
statements; its metrics questions .884 -> .966). Routing other topics to their Items
(employees and competition to Item 1, lawsuits to Item 3, dividends to Item 5) was measured
and not kept.
"""

from __future__ import annotations

import re

from finrag import cover, passage, vocabulary
from finrag.models import Chunk

MDNA = "Item 7"
COVER = "Cover"  # finrag.ingest.sections names what precedes Item 1 so
WEIGHT = 0.5  # of the place's vote, against 1.0 for each retriever
STATEMENTS = {  # vocabulary's statement -> (its name here, its pages' heading)
    # the statement's own title; not a heading that mentions one ("Off-balance sheet
    # arrangements", "Supplemental balance sheet information", "Balance sheet components")
    vocabulary.IS: ("income statement", re.compile(
        r"statements? of (?:consolidated )?(?:comprehensive )?(?:operations|income|earnings)"
        r"|income statements?", re.IGNORECASE)),
    vocabulary.BS: ("balance sheet", re.compile(
        r"(?<!off[- ])balance sheets?(?! (?:information|components|arrangements|data|details))"
        r"|statements? of (?:consolidated )?financial (?:position|condition)", re.IGNORECASE)),
    vocabulary.CF: ("cash flow statement", re.compile(
        r"statements? of (?:consolidated )?cash flows?", re.IGNORECASE)),
}
_BY_NAME = {name: heading for name, heading in STATEMENTS.values()}


def routes(query: str) -> tuple[str, ...]:
    """The places that answer `query`: "Item 7" and / or statement names; () where none."""
    out = [MDNA] if passage.form(query) == passage.CAUSE else []
    out += [COVER] if cover.asks(query) else []
    out += [STATEMENTS[h][0] for h in vocabulary.homes(query) if h in STATEMENTS]
    return tuple(dict.fromkeys(out))


def holds(chunk: Chunk, places: tuple[str, ...] | list[str]) -> bool:
    """Whether `chunk` is printed in one of the routed places."""
    return any((chunk.section or "") == p if p not in _BY_NAME
               else bool(_BY_NAME[p].search(chunk.heading or "")) for p in places)


def why(chunk: Chunk, places: tuple[str, ...] | list[str]) -> str:
    """In words, why a routed place lifted `chunk` ("" where it did not)."""
    if MDNA in places and chunk.section == MDNA:
        return f"a 10-K explains its changes in {MDNA} (MD&A)"
    if COVER in places and chunk.section == COVER:
        return "a 10-K's cover lists the securities registered under Section 12(b)"
    hit = next((p for p in places if p in _BY_NAME and _BY_NAME[p].search(chunk.heading or "")),
               None)
    return f"the {hit} prints the line items asked about" if hit else ""
