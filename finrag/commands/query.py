"""What the query commands (search, ask, canary) share: opening the searcher, reading the
filter options, the filters the question names, and a search result as JSON."""

from __future__ import annotations

import math
import sys
from pathlib import Path

from finrag.config import Settings

AUTO_HELP = ("don't turn the company and fiscal year the question names into filters "
             "(they are, by default, where no --ticker / --year is given)")


def searcher_for(data_dir: Path | None):
    from finrag.embed import Embedder
    from finrag.search import HybridSearcher

    return HybridSearcher(Settings.from_env(data_dir), Embedder())


def parse_filters(tickers: list[str], years: list[str], chunk_types: list[str]):
    from finrag.models import Filters

    bad = [y for y in years if not y.strip().isdigit() or not 1990 <= int(y) <= 2100]
    if bad:
        raise ValueError(f"--year {bad[0]!r} is not a fiscal year like 2023")
    return Filters(tickers=tickers, fiscal_years=[int(y) for y in years], chunk_types=chunk_types)


def parse_weights(text: str) -> tuple[float, float]:
    try:
        dense, bm25 = (float(x) for x in text.split(","))
    except ValueError:
        raise ValueError(f"--weights {text!r}: give two numbers, dense,bm25, e.g. 1,1") from None
    if not (math.isfinite(dense) and math.isfinite(bm25)) or dense < 0 or bm25 < 0:
        raise ValueError(f"--weights {text!r}: weights must be finite numbers >= 0")
    if dense == 0 and bm25 == 0:
        raise ValueError(f"--weights {text!r}: both are 0, so nothing would be fused; "
                         "give one a weight above 0, e.g. 0,1 for BM25 alone")
    return dense, bm25


def warn_unknown(searcher, filters) -> None:
    companies = searcher.index.facets()["companies"]
    unknown = [t for t in filters.tickers if t not in companies]
    if unknown:
        known = ", ".join(sorted(companies)) or "none"
        print(f"note: ticker {', '.join(unknown)} is not indexed (indexed: {known})",
              file=sys.stderr)


def with_auto_filters(searcher, question: str, filters, enabled: bool = True, quiet: bool = False):
    """`filters` plus the company / fiscal year the question names (finrag.autofilter); says on
    stderr what was added."""
    from finrag.autofilter import auto_filters
    from finrag.companies import companies_of

    if not enabled:
        return filters
    companies, filed = companies_of(searcher.index)
    auto = auto_filters(question, filters, companies, filed)
    if auto.added and not quiet:
        print(f"note: filters from the question: {auto.describe()} (--no-auto-filters to search "
              "without them)", file=sys.stderr)
    return auto.filters


def search_json(result) -> dict:
    from finrag.present import hit_record

    return {"query": result.query, "filters": result.filters.model_dump(),
            "dense": [hit_record(h) for h in result.dense],
            "bm25": [hit_record(h) for h in result.bm25],
            "fused": [hit_record(h, fused=True) for h in result.fused],
            "message": result.message, "expansions": result.expansions,
            "routed": result.routed,
            "generation": result.generation,
            "timings_ms": {k: round(v, 2) for k, v in result.timings_ms.items()}}
