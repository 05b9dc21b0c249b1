"""Filters read from the question: the company and fiscal year it names become search filters.

"Home Depot total debt" searches Home Depot's filings only; "Apple's FY24 services revenue"
searches Apple's FY2024 10-K. The question is read by the same parser the answers use
(`finrag.question.parse`), against the indexed companies. A filter the user set is never
changed: tickers are added only when none is chosen, years only when none is chosen. A year is
added only where the chosen companies have that year's 10-K indexed (a year the index lacks
would empty the result); none for a figure across years or companies (a series, peers, a
ranking), whose points come from later 10-Ks' comparative columns too. The app shows what was
added and lets the user remove it; the CLIs take `--no-auto-filters`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from finrag.companies import cover_name
from finrag.models import Filters
from finrag.question import across, parse


@dataclass(frozen=True)
class AutoFilters:
    filters: Filters  # what to search with: the user's filters plus what the question named
    tickers: tuple[str, ...] = ()  # tickers added from the question
    years: tuple[int, ...] = ()  # fiscal years added from the question
    skipped_years: tuple[int, ...] = field(default=())  # named, but no such 10-K is indexed

    @property
    def added(self) -> bool:
        return bool(self.tickers or self.years)

    def describe(self) -> str:
        """'HD · FY2024' — what the question added, in words fit to show; '' when nothing."""
        return " · ".join([*self.tickers, *(f"FY{y}" for y in self.years)])


def auto_filters(question: str, filters: Filters, companies: dict[str, str],
                 filed: dict[str, list[int]]) -> AutoFilters:
    """`filters` plus the company and fiscal years `question` names (see the module doc);
    `companies` is ticker -> name and `filed` ticker -> fiscal years, of the index."""
    q = parse(question, {t: cover_name(n) for t, n in companies.items()}, None)
    tickers = () if filters.tickers else tuple(q.tickers)
    chosen = list(filters.tickers) or list(tickers) or list(filed)
    indexed = {y for t in chosen for y in filed.get(t, [])}
    years: tuple[int, ...] = ()
    skipped: tuple[int, ...] = ()
    if not filters.fiscal_years and across(q) is None:
        years = tuple(y for y in q.years if y in indexed)
        skipped = tuple(y for y in q.years if y not in indexed)
    if not tickers and not years:
        return AutoFilters(filters, skipped_years=skipped)
    merged = Filters(tickers=list(filters.tickers) or list(tickers),
                     fiscal_years=list(filters.fiscal_years) or list(years),
                     chunk_types=list(filters.chunk_types))
    return AutoFilters(merged, tickers, years, skipped)
