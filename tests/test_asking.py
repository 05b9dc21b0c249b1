"""The part of a question that asks: instruction sentences, lead-ins and unit parentheses out,
by their form; a definition and a lead-in naming what is asked about stay."""

from __future__ import annotations

import pytest

from finrag.asking import question_part


@pytest.mark.parametrize("text, part", [
    ("Tesla R&D expense 2024", "Tesla R&D expense 2024"),
    ("What is the FY2016 COGS for Microsoft? Please state answer in USD millions.",
     "What is the FY2016 COGS for Microsoft?"),
    ("Considering the data in the balance sheet, what is Block's FY2016 working capital ratio? "
     "Define working capital ratio as total current assets divided by total current "
     "liabilities. Round your answer to two decimal places.",
     "what is Block's FY2016 working capital ratio? Define working capital ratio as total "
     "current assets divided by total current liabilities."),
    ("How much (in USD billions) did AWK pay in dividends for FY2020?",
     "How much did AWK pay in dividends for FY2020?"),
    ("If we exclude the impact of M&A, which segment dragged down 3M's growth in 2022?",
     "If we exclude the impact of M&A, which segment dragged down 3M's growth in 2022?"),
])
def test_question_part(text, part):
    assert " ".join(question_part(text).split()) == part
