"""The fiscal-year rules, in one place: a fiscal year ends on its nominal date give or take a
week (52/53-week years, SPILLOVER_DAYS).

The fiscal year of a 10-K from its period of report (`fiscal_year_from_period`): the one rule
that `ingest download` (which filings a `--years` asks for) and the reader (a filing without
`dei:DocumentFiscalYearFocus`) both use, so the two never disagree on a filing's year.

The fiscal year of a period inside a filing (`period_fiscal_year`): the company's own. Fiscal
years end on the anniversaries of the filing's period end (give or take a week, for 52/53-week
years), and the filing's own fiscal year names the one ending at its period end; a period ending
on or before an anniversary (+ a week) belongs to the fiscal year ending there. So Walmart's
(FY2025, ends 2025-01-31) period ending 2024-01-31 is fiscal 2024, Home Depot's (FY2024, ends
2025-02-02) ending 2024-01-28 is fiscal 2023, Apple's quarter ending 2023-12-30 is fiscal 2024.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

SPILLOVER_DAYS = 7  # a 52/53-week year may end up to a week after its nominal month end
SLACK = timedelta(days=SPILLOVER_DAYS)  # so it ends up to a week either side of its anniversary


def fiscal_year_from_period(period_end: date, fiscal_year_end_mmdd: str | None = None) -> int:
    """The fiscal year of a period of report, for filings without `dei:DocumentFiscalYearFocus`.

    Rule: the calendar year of the period end, except a period ending in the first 7 days of
    January or February (a 52/53-week year that ran past its nominal month end) belongs to
    the previous year: JNJ 2023-01-01 -> 2022, LDOS 2025-01-03 -> 2024, HD 2025-02-02 -> 2024.
    `fiscal_year_end_mmdd` (the header's FISCAL YEAR END, EDGAR's `fiscalYearEnd`) vetoes the
    spill-over when it lies far (> 7 days) from the period, as in a transition period. Agrees
    with dei on every filing here that has both (NVDA 2024-01-28 -> 2024, WMT/CRM 2025-01-31 ->
    2025, AAPL 2019-09-28 -> 2019). Known limits, from the companies' own naming: retailers
    whose year ends late in January and who name it by the year it began (HD 2024-01-28 =
    "fiscal 2023", LOW, DG, KR) come out one year high; BBY/DELL (2024-02-03 = "fiscal 2024")
    one year low. An explicit override or dei fact avoids both.
    """
    spill = period_end.month in (1, 2) and period_end.day <= SPILLOVER_DAYS
    if spill and fiscal_year_end_mmdd and not _near(period_end, fiscal_year_end_mmdd):
        spill = False
    return period_end.year - 1 if spill else period_end.year


def period_date(text: str) -> date | None:
    """'2023-09-30' or '20230930' (EDGAR's reportDate, the header's CONFORMED PERIOD OF
    REPORT) -> date, else None."""
    digits = str(text).replace("-", "").strip()
    if not re.fullmatch(r"\d{8}", digits):
        return None
    try:
        return date(int(digits[:4]), int(digits[4:6]), int(digits[6:]))
    except ValueError:
        return None


def _near(period_end: date, mmdd: str) -> bool:
    """True if month-day `mmdd` lies within a week of the period end (across a year end)."""
    try:
        month, day = int(mmdd[:2]), min(int(mmdd[2:]), 28 if mmdd[:2] == "02" else 31)
        candidates = [date(period_end.year + k, month, day) for k in (-1, 0, 1)]
    except ValueError:
        return True
    return min(abs((c - period_end).days) for c in candidates) <= SPILLOVER_DAYS + 3


def period_fiscal_year(end: str | date | None, filing_end: str | date | None,
                       filing_year: int) -> int | None:
    """The company's fiscal year of a period ending `end`, given that the filing's fiscal
    year `filing_year` ends on `filing_end`. None when either date is missing or unreadable."""
    end, anchor = _as_date(end), _as_date(filing_end)
    if end is None or anchor is None:
        return None
    k = end.year - anchor.year - 2
    while _anniversary(anchor, k) + SLACK < end:
        k += 1
    return filing_year + k


def _anniversary(anchor: date, years: int) -> date:
    try:
        return anchor.replace(year=anchor.year + years)
    except ValueError:  # 29 February
        return anchor.replace(year=anchor.year + years, day=28)


def _as_date(value) -> date | None:
    if value is None or isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value)[:10])
    except ValueError:
        return None
