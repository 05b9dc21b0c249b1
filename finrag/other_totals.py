"""A different total the filing states in its own words for the figure answered.

A statement line is one definition of an item; the company's prose may use its own. Meta's FY2024
cash flow statement prints "Purchases of property and equipment" of $37,256 million, while its
MD&A says "Capital expenditures, including principal payments on finance leases, were $39.23
billion for the year ended December 31, 2024". Shown side by side without a word, the two look
like a wrong answer. `other_totals` finds such sentences among the passages shown with the answer
so the app and the CLI can quote them beside it, as the company's own definition.

Only a dollar figure that is the item's own line (no segment, no narrower line the question
named) from the year's own 10-K gets one. A sentence counts only when it is in that filing,
names the same line item (`finrag.lineitems`) with no word before it that narrows it
("Automotive revenues"), names no fiscal year but the answer's (a sentence naming none, none
but its passage's: an MD&A paragraph on the year's cash flows), and states a dollar amount with
its scale ("$39.23 billion") as the item's total ("<item>, ..., were $X", "$X of <item>"; not an
authorization, a ceiling, a change, a plan or expectation, or one of amounts listed
"respectively") that differs from the figure by more than rounding but by less than a third
(another year's total or a part is not a definition of this one). Anything less sure is left
out: no note is better than a wrong one.
"""

from __future__ import annotations

import re

from finrag.book import SCALE, convert
from finrag.lineitems import LineItem, find_items, label_matches, normalize
from finrag.models import Hit
from finrag.narrate import sentence_citation
from finrag.passage import sentences

_AMOUNT = re.compile(r"\$\s?(\d[\d,]*(?:\.\d+)?)\s*(thousand|million|billion)\b", re.I)
_UNITS = {"thousand": "USD thousands", "million": "USD millions", "billion": "USD billions"}
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
# the item's words, then (a clause between commas) a verb or "of", then the amount: "Capital
# expenditures, including ..., were $39.23 billion"; or the amount, then "of" and the item
_ITEM_THEN_AMOUNT = re.compile(r"(?:\s*,[^,$]{0,100},)?\s+(?:were|was|totaled|totalled|"
                               r"amounted to|of)\s+(?:approximately\s+|about\s+)?")
_AMOUNT_THEN_ITEM = re.compile(r"\s+(?:of|in)\s+(?:our\s+|total\s+)?")
# an amount that is not the item's total: an authorization or a ceiling, amounts listed for
# several items ("respectively"), a change
_NOT_A_TOTAL = re.compile(r"\brespectively\b|\bauthori[sz]|\bup to\b|\b(?:increased|"
                          r"decreased|grew|rose|fell|declined)\s+(?:by\s+)?\$|\b(?:expect|"
                          r"anticipate|plan|estimate|forecast|project|intend)\w*\b|\bwill\b|"
                          r"\brange\b|\bguidance\b", re.I)
# the word before the item's words, where it may stand without narrowing it: "Automotive
# revenues" is a segment's line, not the company's own revenue
_BEFORE = {"", "total", "our", "the", "consolidated", "its", "of", "in", "for", "by", "and",
           "with", "were", "was", "had", "on"}
ROUNDING = 0.01  # "$37.3 billion" for $37,256 million is the same total, rounded
NEAR = 1 / 3  # a definition adds or leaves out a part, not most of the total
MAX_NOTES = 2


def other_totals(answer, item: LineItem, hits: list[Hit]) -> list[dict]:
    """{text, value, unit, citation} for each sentence among `hits` that states `item` for the
    answer's fiscal year at another total (in the answer's unit), best ranked first."""
    if (answer.kind != "stated" or len(answer.figures) != 1 or answer.value is None
            or answer.unit not in SCALE):  # a dollar amount, not per share, a ratio or days
        return []
    fact = answer.figures[0].fact
    if fact.dims or not (fact.concept in item.concepts or label_matches(item, fact.line_label)):
        return []  # a narrower line ("iPhone" net sales) than the item the sentences name
    out, seen = [], set()
    for hit in hits:
        chunk = hit.chunk
        if (chunk.ticker != fact.ticker or chunk.fiscal_year != fact.fiscal_year
                or chunk.fiscal_year != answer.fiscal_year):  # a comparative: another year's
            continue
        # a sentence naming no year speaks of the year its passage names, when it names one
        passage_years = {int(y) for y in _YEAR.findall(chunk.text)}
        for sentence in sentences(chunk.text):
            years = {int(y) for y in _YEAR.findall(sentence)} or passage_years
            if not years <= {answer.fiscal_year}:
                continue
            value = _stated(sentence, item, answer.unit)
            if value is None or sentence in seen or not _differs(value, answer.value):
                continue
            seen.add(sentence)
            out.append({"text": sentence, "value": value, "unit": answer.unit,
                        "citation": sentence_citation(chunk)})
    return out[:MAX_NOTES]


def _stated(sentence: str, item: LineItem, unit: str) -> float | None:
    """The amount the sentence gives `item`, in `unit`; None where it gives none."""
    if not _AMOUNT.search(sentence) or _NOT_A_TOTAL.search(sentence):
        return None  # cheap checks first: most sentences state no dollar amount
    text = normalize(sentence)
    spans = []  # where the item's words stand in the sentence as printed
    for start, end, found in find_items(text):
        words = r"\W+".join(map(re.escape, text[start:end].split()))
        at = re.search(words, sentence, re.I) if found.key == item.key else None
        before = re.findall(r"[\w']+", sentence[:at.start()]) if at else []
        if at and (before[-1].lower() if before else "") in _BEFORE:
            spans.append((at.start(), at.end()))
    if not spans:
        return None
    for m in _AMOUNT.finditer(sentence):
        if any(_ITEM_THEN_AMOUNT.fullmatch(sentence, e, m.start())
               or _AMOUNT_THEN_ITEM.fullmatch(sentence, m.end(), s) for s, e in spans):
            number = float(m.group(1).replace(",", ""))
            return convert(number, _UNITS[m.group(2).lower()], unit)
    return None


def _differs(value: float, answered: float) -> bool:
    if not answered:
        return False
    gap = abs(value - answered) / abs(answered)
    return ROUNDING < gap < NEAR
