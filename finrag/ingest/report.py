"""What a build or a removal reports, per filing and in all, and the error that stops one."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class FilingReport:
    path: str
    status: str  # "ok" | "failed" | "skipped"
    ticker: str = ""
    cik: str = ""
    company: str = ""
    fiscal_year: int | None = None
    period_end: str | None = None
    accession: str = ""
    error: str = ""
    chunks: int = 0
    new_chunks: int = 0
    chunk_types: dict = field(default_factory=dict)
    sections: list = field(default_factory=list)
    facts: int = 0
    facts_seconds: float = 0.0  # time the fact stage took for this filing
    facts_error: str = ""  # the fact stage failed (the filing's chunks are still indexed)


@dataclass
class BuildReport:
    filings: list[FilingReport]
    generation: str | None
    published: bool
    seconds: float
    embedded: int  # texts embedded in this run (cache misses)
    steps: dict = field(default_factory=dict)  # seconds per step (finrag.steps)

    def totals(self) -> dict:
        return {
            "filings": len(self.filings),
            "chunks": sum(f.chunks for f in self.filings),
            "new_chunks": sum(f.new_chunks for f in self.filings),
            "failed": sum(f.status == "failed" for f in self.filings),
        }

    def to_json(self) -> dict:
        return {
            "filings": [vars(f) for f in self.filings],
            "totals": self.totals(),
            "generation": self.generation,
            "published": self.published,
            "seconds": round(self.seconds, 3),
            "steps": self.steps,
            "embedded": self.embedded,
        }


@dataclass
class RemoveReport:
    removed: list[dict]  # {"path", "filing_key", "ticker", "fiscal_year", "chunks"}
    errors: list[str]  # one line per path that names no indexed filing
    generation: str | None
    published: bool
    seconds: float
    steps: dict = field(default_factory=dict)  # seconds per step (finrag.steps)

    def to_json(self) -> dict:
        return {"removed": self.removed, "errors": self.errors, "generation": self.generation,
                "published": self.published, "seconds": round(self.seconds, 3),
                "steps": self.steps}


class BuildError(RuntimeError):
    """A fatal problem with the run itself (not with one input file)."""
