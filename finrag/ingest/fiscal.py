"""The fiscal year of a 10-K from its period of report: the one rule that `ingest download`
(which filings a `--years` asks for) and the reader (a filing without
`dei:DocumentFiscalYearFocus`) both use, so the two never disagree on a filing's year."""

from __future__ import annotations

import re
from datetime import date

SPILLOVER_DAYS = 7  # a 52/53-week year may end up to a week after its nominal month end


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
