"""The part of a typed question that asks, apart from the sentences that instruct.

Analysts' questions often come wrapped: "Answer the following question as if you are an equity
research analyst ... According to the details clearly outlined within the P&L statement, what is
the FY2015 D&A % margin for AMD (in units of percents)? Round your answer to one decimal place."
Filings almost never use such words, so BM25 gives them a high IDF and matches them in the
wrong places, and a reader of the question must not take them for a line's name. They are
recognised by their form, not by a word list:

- where the text holds a question (a sentence ending in "?"), the other sentences instruct,
  except one that defines the metric ("... is defined as", "define ... as", "... = ...");
- in the question sentence, a lead-in before the question word ("According to the balance
  sheet, what is ...", "Here's the question: what ...") frames it where it names a statement
  or document, or names nothing (no proper noun after its first word); "Among the derivatives
  Verizon used, which ..." and "If we exclude M&A, which ..." keep theirs;
- a parenthesis that starts with "in" states the unit or rounding ("(in USD millions)").

Text without a question mark ("Tesla R&D expense 2024") is all question.
"""

from __future__ import annotations

import re

# a sentence ends at ? . or !, but not at an abbreviation ("in the U.S. in 2024", "Apple Inc. and")
_SENTENCE = re.compile(r"(?<=[?.!])(?<![A-Z]\.[A-Z]\.)(?<!Inc\.)(?<!Corp\.)(?<!\bCo\.)"
                       r"\s+(?=[A-Za-z(\"'])")
_DEFINES = re.compile(r"\b(?:defined|calculated|computed|measured) as\b|\b(?:define|calculate|"
                      r"compute)\b[^.?!]{1,60}?\bas\b(?! if\b)|\w\s?=\s?\S", re.IGNORECASE)
_QUESTION_WORD = (r"(?:what|how|which|who|whom|whose|when|where|why|is|are|was|were|does|do|did|"
                  r"has|have|had|can|could|will|would|should)")
_LEAD_IN = re.compile(rf"^[^?]*?[,:]\s+(?={_QUESTION_WORD}\b)", re.IGNORECASE)
_UNIT_PARENS = re.compile(r"\(\s*in\s[^()]*\)", re.IGNORECASE)
_SOURCE = re.compile(r"statements?\b|balance sheets?|p&l|10-?k|filings?|reports?|questions?",
                     re.IGNORECASE)
_PROPER = re.compile(r"(?<=\s)[A-Z0-9][\w&.'-]*")


def question_part(text: str) -> str:
    """`text` without its instruction sentences, lead-ins and unit parentheses."""
    text = " ".join((text or "").split())
    sentences = _SENTENCE.split(text)
    if not any(s.rstrip().endswith("?") for s in sentences):
        return text
    kept = []
    for s in sentences:
        if s.rstrip().endswith("?"):
            kept.append(_without_lead_in(s))
        elif _DEFINES.search(s):
            kept.append(s)
    return _UNIT_PARENS.sub(" ", " ".join(kept)).strip() or text


def _without_lead_in(sentence: str) -> str:
    m = _LEAD_IN.match(sentence)
    if m is None:
        return sentence
    lead = m.group(0)
    if _SOURCE.search(lead) or not _PROPER.search(lead):
        return sentence[m.end():]
    return sentence
