"""The BM25 tokenizer, rule by rule."""

import time

import pytest

from finrag.tokens import tokenize


@pytest.mark.parametrize("text, tokens", [
    ("SG&A expenses", ["sg&a", "expense"]),
    ("R&D", ["r&d"]),
    ("S&P 500", ["s&p", "500"]),
    ("Annual Report on Form 10-K", ["annual", "report", "form", "10-k"]),
    ("Item 1A. Risk Factors", ["item", "1a", "risk", "factor"]),
    ("3M Company", ["3m", "company"]),
    ("$1,577", ["1577"]),
    ("(1,577)", ["1577"]),
    ("1,577", ["1577"]),
    ("rate of 3.5% and 12%", ["rate", "3.5", "12"]),
    ("FY2018 revenues", ["2018", "revenue"]),
    ("Apple’s liabilities", ["apple", "liability"]),
    ("sales analysis gross loss", ["sales", "analysis", "gross", "loss"]),
    ("the net income of the other current long-term interest",
     ["net", "income", "other", "current", "long", "term", "interest"]),
    ("Tesla\x00R&D\x07expense", ["tesla", "r&d", "expense"]),
    ("", []),
])
def test_rules(text, tokens):
    assert tokenize(text) == tokens


def test_query_and_document_numbers_meet():
    assert set(tokenize("net sales $260,174")) <= set(tokenize("Net sales | 260,174 | 265,595"))


def test_huge_input_is_linear():
    t = time.perf_counter()
    assert len(tokenize("revenue grew 5% " * 10_000)) == 30_000
    assert time.perf_counter() - t < 2.0
