"""Analysts' words -> the words 10-K statements use, for query expansion.

Analysts ask for "capex", "COGS", "working capital" or "the cash flow statement"; filings print
"Purchases of property, plant and equipment", "Cost of sales", current assets and liabilities,
"Consolidated Statements of Cash Flows". Neither retriever bridges that gap on its own (BM25
needs shared words; a small sentence model does not know that "DPO" needs accounts payable).
This table is general finance knowledge — definitions as a textbook or an analyst's handbook
gives them, for filings at large — not tuned to any question, company or benchmark page.

`expand(query)` returns the line-item phrases for every term the query uses, in table order,
each once, then the title of each statement those items are printed on ("gross margin" ->
"consolidated statements of operations income"); the searcher appends them to the query (for
BM25 and for the dense query) and shows them to the user.
"""

from __future__ import annotations

import hashlib
import re

from finrag.tokens import tokenize

# The statement a line item is printed on, added once to a query that asks for the item or a
# ratio built from it: the statement's title heads its page (and every chunk's BM25 text carries
# its page's title), so the query finds the page the figures are on, not a passage that only
# mentions them.
IS = "consolidated statements of operations income"
BS = "consolidated balance sheets"
CF = "consolidated statements of cash flows"

# term pattern (regex over the lower-cased query, word-bounded) -> statement wording, and the
# statements those line items are printed on. First the statements themselves:
_STATEMENTS: list[tuple[str, str, tuple[str, ...]]] = [
    (r"balance sheets?|statements? of financial (?:position|condition)",
     "consolidated balance sheets total assets total liabilities shareholders equity", ()),
    (r"income statements?|statements? of (?:income|operations|earnings)|p&l|profit and loss",
     "consolidated statements of operations income net revenue", ()),
    (r"cash ?flows? statements?|statements? of cash ?flows?",
     "consolidated statements of cash flows operating activities investing activities", ()),
]
# then line items and the ratios built from them:
_LINE_ITEMS: list[tuple[str, str, tuple[str, ...]]] = [
    (r"capex|capital expenditures?|capital spending|capital intensive|capital intensity",
     "purchases of property plant and equipment capital expenditures", (CF,)),
    (r"pp&e|ppe|ppne|fixed assets?",
     "property plant and equipment net", (BS,)),
    (r"cogs|cost of goods sold",
     "cost of sales cost of revenue cost of goods sold", (IS,)),
    (r"gross margins?|gross profit",
     "gross profit gross margin net sales cost of sales", (IS,)),
    (r"operating margins?|operating profit|ebit|operating income",
     "operating income net revenue", (IS,)),
    (r"ebitda",
     "operating income depreciation and amortization", (IS,)),
    (r"d&a|depreciation",
     "depreciation and amortization", (CF,)),
    (r"working capital|current ratio|liquidity ratio",
     "total current assets total current liabilities", (BS,)),
    (r"quick ratio|acid test",
     "cash and cash equivalents marketable securities accounts receivable"
     " total current liabilities",
     (BS,)),
    (r"free cash ?flows?|fcf",
     "net cash provided by operating activities purchases of property and equipment", (CF,)),
    (r"operating cash ?flows?|cash (?:flow )?from operations",
     "net cash provided by operating activities", (CF,)),
    (r"inventory turnover|days inventory|dio",
     "inventories cost of sales", (IS, BS)),
    (r"days payable|dpo|payables? turnover",
     "accounts payable cost of sales inventories", (IS, BS)),
    (r"days sales outstanding|dso|receivables? turnover",
     "accounts receivable net revenue", (IS, BS)),
    (r"asset turnover|return on assets|roa",
     "total assets net income revenue", (IS, BS)),
    (r"return on equity|roe",
     "net income total shareholders equity", (IS, BS)),
    (r"debt to equity|leverage ratio|total debt|net debt",
     "long-term debt current portion of long-term debt short-term borrowings", (BS,)),
    (r"interest coverage",
     "interest expense operating income", (IS,)),
    (r"effective tax rate|tax rate",
     "effective tax rate provision for income taxes income before income taxes", ()),
    (r"eps|earnings per share",
     "earnings per share basic diluted net income", (IS,)),
    (r"dividends?|payout ratio",
     "dividends paid cash dividends declared per share", ()),
    (r"buybacks?|share repurchases?|repurchased shares|stock repurchases?",
     "repurchases of common stock treasury stock", ()),
    (r"revenue growth|top line|cagr",
     "total net revenue net sales", ()),
    (r"net margin|bottom line|net profit",
     "net income net revenue", (IS,)),
    (r"r&d",
     "research and development", ()),
    (r"sg&a",
     "selling general and administrative", ()),
    (r"m&a|acquisitions?",
     "acquisitions business combinations", ()),
    (r"segments?",
     "segment information reportable segments", ()),
    (r"headcount",
     "employees", ()),
    (r"lawsuits?|litigation|legal (?:proceedings|matters)",
     "legal proceedings litigation contingencies", ()),
]
# Narrative subjects: what analysts ask about in words and how a 10-K's Items and notes word it
# (Item 1 Business, Item 1A Risk Factors, Item 3 Legal Proceedings, the contingencies and
# business-combination notes). Not line items, so they add no indexed word pairs.
_TOPICS: list[tuple[str, str, tuple[str, ...]]] = [
    (r"customers?|clients?|buyers",
     "customers significant portion of our revenues derived from", ()),
    (r"geograph(?:y|ies|ic)|regions?|countries|where (?:\w+ )?(?:operates?|does business)",
     "geographic areas regions international operations segments", ()),
    (r"legal (?:battles?|actions?|cases?|disputes?|issues?)|sued|court cases?",
     "legal proceedings litigation contingencies lawsuits filed against", ()),
    (r"industry|industries|line of business",
     "business overview industry products we operate", ()),
    (r"competitors?|competition|compete",
     "competition competitors compete", ()),
    (r"suppliers?|supply chain|raw materials?",
     "suppliers raw materials sources supply", ()),
    (r"production rates?|production plans?|manufacturing capacity",
     "production rates production increase", ()),
    (r"cyclical(?:ity)?|seasonal(?:ity)?",
     "cyclical seasonal economic conditions demand", ()),
    (r"acquired|bought|purchased (?:companies|businesses)",
     "acquisitions business combinations acquired", ()),
]
_TABLE = _STATEMENTS + _LINE_ITEMS + _TOPICS
_COMPILED = [(re.compile(rf"(?<![\w&])(?:{pattern})(?![\w&])"), words, homes)
             for pattern, words, homes in _TABLE]


def pair(first: str, second: str) -> str:
    """The BM25 term of two adjacent tokens; "_" is never part of a token, so it is unique."""
    return f"{first}_{second}"


def _pairs(words: str) -> set[str]:
    tokens = tokenize(words)
    return {pair(a, b) for a, b in zip(tokens, tokens[1:])}


# Adjacent token pairs of the line items' wording ("current_liability", "property_plant").
# BM25 indexes each chunk's occurrences of them as extra terms, and a query asks for the pairs
# of its expansions, so a page printing "Total current liabilities" as a line item outscores one
# with "total", "current" and "liabilities" scattered over it. Pairs of the statement titles are
# left out: every chunk's BM25 text already carries its page's title, so doubling them would lift
# every statement page of every filing alike. Only these pairs are indexed, so the BM25
# vocabulary grows by their number, not by every word pair of every chunk. The index records
# their fingerprint; a change to the wording asks for a rebuild.
PHRASES = frozenset(set().union(*(_pairs(w) for _, w, _ in _LINE_ITEMS))
                    - set().union(*(_pairs(t) for t in (IS, BS, CF))))
PHRASES_FINGERPRINT = hashlib.sha256(" ".join(sorted(PHRASES)).encode()).hexdigest()[:12]


def phrase_terms(tokens: list[str]) -> list[str]:
    """The vocabulary's pairs found among adjacent `tokens`, in order, repeats kept."""
    return [t for t in (pair(a, b) for a, b in zip(tokens, tokens[1:])) if t in PHRASES]


def _found(query: str) -> list[tuple[str, tuple[str, ...]]]:
    """(statement wording, its statements) of each analyst's term in `query`, in table order."""
    text = query.lower().replace("-", " ").replace("\u2019", "'")
    return [(words, homes) for pattern, words, homes in _COMPILED if pattern.search(text)]


def homes(query: str) -> list[str]:
    """The statements (IS, BS, CF) that print the line items `query` names, in table order."""
    return list(dict.fromkeys(h for _, hs in _found(query) for h in hs))


def expand(query: str) -> list[str]:
    """The statement wording for each analyst's term in `query` (in table order, each once),
    then the statements those line items are printed on (each once)."""
    found = _found(query)
    phrases = [words for words, _ in found]
    statements = dict.fromkeys(h for _, homes in found for h in homes
                               if not any(h in words for words in phrases))
    return phrases + list(statements)
