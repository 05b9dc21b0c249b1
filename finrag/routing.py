"""Where in a 10-K a question is answered, for the questions whose place the form fixes.

A "why did it change" question is answered in Management's Discussion and Analysis (Item 7):
Regulation S-K Item 303 requires it to describe the reasons for material changes in the line
items, so the sentences that give a change's cause are printed there, whatever the company.
Search gives the chunks of the routed Items a third, half-weight vote in the fusion, among the
candidates the two retrievers found; it adds no candidate and filters nothing out.

Measured (docs/measurements.md, 2026-12-07 night): on the 12 cause questions of the narrative
key fused MRR@10 .600 -> .767, hit@10 .917 -> 1.0; FinanceBench filing filter hit@10 .894 ->
.936. Routing other topics to their Items (employees and competition to Item 1, lawsuits to
Item 3, dividends to Item 5) was measured too and not kept: narrative MRR .633 -> .626.
"""

from __future__ import annotations

from finrag import passage

MDNA = "Item 7"
WEIGHT = 0.5  # of the section vote, against 1.0 for each retriever


def routes(query: str) -> tuple[str, ...]:
    """The Items that answer `query`, or () where its form fixes none."""
    return (MDNA,) if passage.form(query) == passage.CAUSE else ()
