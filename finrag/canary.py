"""Canary queries: known questions with known good answers, run from the CLI and the app.

A canary file (TOML) holds `[[canary]]` tables: a name, a query, optional filters, and an
`expect` table: some hit within the first `within` of `method` ("fused" by default) must match
every given field (ticker, fiscal_year, section, chunk_type) and contain every `contains` string
(case-insensitive). A canary fails with the reasons when no hit qualifies.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from finrag.models import ChunkType, Filters, Hit
from finrag.present import hit_record

DEFAULT_FILE = Path(__file__).with_name("canaries.toml")


class _Strict(BaseModel):
    """A key the schema does not know is an error: a typo such as `ticker =` for `tickers =`
    would otherwise run that canary unfiltered and pass."""

    model_config = ConfigDict(extra="forbid")


class Expect(_Strict):
    method: Literal["fused", "dense", "bm25"] = "fused"
    within: int = Field(3, ge=1, le=50)
    ticker: str | None = None
    fiscal_year: int | None = None
    section: str | None = None
    chunk_type: ChunkType | None = None
    contains: list[str] = Field(default_factory=list)


class Canary(_Strict):
    name: str
    query: str
    tickers: list[str] = Field(default_factory=list)
    fiscal_years: list[int] = Field(default_factory=list)
    chunk_types: list[ChunkType] = Field(default_factory=list)
    k: int = 10
    expect: Expect = Field(default_factory=Expect)

    def filters(self) -> Filters:
        return Filters(tickers=self.tickers, fiscal_years=self.fiscal_years,
                       chunk_types=self.chunk_types)


class CanaryFile(_Strict):
    """A whole canary file: `[[canary]]` tables and nothing else."""

    canary: list[Canary] = Field(default_factory=list)


class CanaryResult(BaseModel):
    name: str
    query: str
    passed: bool
    failures: list[str]
    checked: str = ""  # what the canary checks, in words
    seen: str = ""  # what the search returned for it, in words
    dense: list[dict]
    bm25: list[dict]
    fused: list[dict]


def load_canaries(path: Path = DEFAULT_FILE) -> list[Canary]:
    """The canaries of a TOML file; any problem is a ValueError of one line naming the file,
    the place in it and what is wrong."""
    path = Path(path)
    try:
        return CanaryFile.model_validate(tomllib.loads(path.read_text(encoding="utf-8"))).canary
    except FileNotFoundError:
        raise ValueError(f"canary file {path} not found") from None
    except IsADirectoryError:
        raise ValueError(f"canary file {path}: Is a directory; give a .toml file") from None
    except UnicodeDecodeError:
        raise ValueError(f"canary file {path} is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"canary file {path} is invalid: {str(exc).splitlines()[0]}") from None
    except ValidationError as exc:
        raise ValueError(f"canary file {path}{_problem(exc.errors()[0])}") from None


def _problem(err: dict) -> str:
    """Pydantic's first error as ': <where>: <what>'."""
    loc = list(err["loc"])
    if loc == ["canary"]:
        return " is invalid: write each canary as [[canary]]"
    where = {1: "the file", 3: "a canary"}.get(len(loc), ".".join(map(str, loc[2:-1])))
    if err["type"] == "extra_forbidden":
        known = {"the file": CanaryFile, "a canary": Canary}.get(where, Expect).model_fields
        return f": unknown key {loc[-1]!r} in {where} (known: {', '.join(known)})"
    field = ".".join(str(part) for part in loc[2:]) or "a canary"
    return f" is invalid: {field}: {err['msg']}"


def run_canary(searcher, canary: Canary) -> CanaryResult:
    result = searcher.search(canary.query, canary.filters(),
                             top_k=max(canary.k, canary.expect.within))
    hits = getattr(result, canary.expect.method)[: canary.expect.within]
    failures = _filter_violations(result, canary.filters())
    if not any(_qualifies(h, canary.expect) for h in hits):
        failures.append(_why_not(hits, canary.expect))
    return CanaryResult(
        name=canary.name, query=canary.query, passed=not failures, failures=failures,
        checked=checked(canary), seen=seen(hits, canary.expect),
        dense=[summary(h) for h in result.dense[:3]],
        bm25=[summary(h) for h in result.bm25[:3]],
        fused=[summary(h) for h in result.fused[:3]],
    )


def checked(canary: Canary) -> str:
    """What a canary checks: "a hit in the fused top 3 of AAPL, FY2023, Item 7, containing
    'services' (searched with ticker AAPL, year 2023)"."""
    e = canary.expect
    want = [v for v in (e.ticker, e.fiscal_year and f"FY{e.fiscal_year}", e.section, e.chunk_type)
            if v]
    want += [f"containing {', '.join(repr(s) for s in e.contains)}"] if e.contains else []
    f = canary.filters()
    scope = [f"{name} {', '.join(map(str, values))}" for name, values in
             (("ticker", f.tickers), ("year", f.fiscal_years), ("type", f.chunk_types)) if values]
    return (f"a hit in the {e.method} top {e.within}" + (f" of {', '.join(want)}" if want else "")
            + f" (searched with {'; '.join(scope) if scope else 'no filter'})")


def seen(hits: list[Hit], expect: Expect) -> str:
    """What came back: the first qualifying hit, else the hits that were checked."""
    match = next((h for h in hits if _qualifies(h, expect)), None)
    if match is not None:
        return f"{expect.method} #{match.rank}: {_said(match)}"
    return "; ".join(f"#{h.rank} {_said(h)}" for h in hits) or "no hits"


def _said(h: Hit) -> str:
    c = h.chunk
    page = f" p. {c.page_label}" if c.page_label else (f" page {c.page}" if c.page else "")
    return f"{c.ticker} FY{c.fiscal_year} {c.section}{page}".strip()


def summary(hit: Hit) -> dict:
    return hit_record(hit, text_limit=160)


def _qualifies(hit: Hit, expect: Expect) -> bool:
    c = hit.chunk
    fields = {"ticker": c.ticker, "fiscal_year": c.fiscal_year, "section": c.section,
              "chunk_type": c.chunk_type}
    if any(getattr(expect, k) is not None and getattr(expect, k) != v for k, v in fields.items()):
        return False
    text = c.text.lower()
    return all(s.lower() in text for s in expect.contains)


def _filter_violations(result, filters: Filters) -> list[str]:
    bad = [h for lst in (result.dense, result.bm25, result.fused) for h in lst
           if not filters.matches(h.chunk.payload())]
    return [f"{len(bad)} hits break the canary's filters"] if bad else []


def _why_not(hits: list[Hit], expect: Expect) -> str:
    want = {k: v for k, v in expect.model_dump().items()
            if k not in ("method", "within") and v not in (None, [])}
    got = "; ".join(f"#{h.rank} {h.chunk.ticker} FY{h.chunk.fiscal_year} {h.chunk.section}"
                    for h in hits) or "no hits"
    return f"no {expect.method} top-{expect.within} hit matches {want} (got: {got})"
