"""What a re-read filing is compared with the index by, and the filings of an index written
whole: a filing is unchanged when its chunks (all but the path they were read from) and its
facts are as indexed."""

from __future__ import annotations

from finrag.facts import Fact
from finrag.models import Chunk


def chunks_by_filing(read) -> dict[str, list[Chunk]]:
    """Chunks by filing; a filing met twice (two files of one accession) keeps the last read."""
    return {chunks[0].filing_key: chunks for _, chunks, _ in read if chunks}


def facts_by_filing(read) -> dict[str, list[Fact]]:
    """Facts by filing, for every filing read (one with no facts replaces its old ones)."""
    return {chunks[0].filing_key: facts for _, chunks, facts in read if chunks}


def stored(chunk: Chunk) -> str:
    """What a re-read chunk is compared by: everything stored, metadata included (a corrected
    company name changes no chunk id but must still reach the index), except the path it was
    read from (the same filing read from a copied or moved folder is unchanged)."""
    return chunk.model_dump_json(exclude={"source"})


def chunk_keys(chunks: list[Chunk]) -> set[str]:
    return {stored(c) for c in chunks}


def fact_keys(facts: list[Fact]) -> set[str]:
    return {f.model_dump_json() for f in facts}


def count_new(read, is_new, unchanged) -> None:
    """Each report's new chunks (ids not indexed before); a filing read OK whose chunks and
    facts are all as indexed is "skipped"."""
    for report, chunks, _ in read:
        report.new_chunks = sum(map(is_new, chunks))
        if report.status == "ok" and chunks and unchanged(chunks[0].filing_key):
            report.status = "skipped"  # already indexed, unchanged


def whole_filings(old: list[Chunk], old_facts: list[Fact], fresh: dict[str, list[Chunk]],
             fresh_facts: dict[str, list[Fact]], drop=()) -> list[tuple[list[Chunk], list[Fact]]]:
    """Each filing's (chunks, facts) of an index written whole: the published filings not
    re-read (nor in `drop`), in their order, then every filing read; a chunk id met before
    stays with the filing that had it first."""
    gone = set(fresh) | set(drop)
    chunks: dict[str, list[Chunk]] = {}
    facts: dict[str, list[Fact]] = {}
    for c in old:
        if c.filing_key not in gone:
            chunks.setdefault(c.filing_key, []).append(c)
    for f in old_facts:
        if f.filing_key not in gone:
            facts.setdefault(f.filing_key, []).append(f)
    chunks.update(fresh)
    facts.update(fresh_facts)
    seen: set[str] = set()
    out = []
    for key in dict.fromkeys([*chunks, *facts]):
        kept = [c for c in chunks.get(key, []) if c.chunk_id not in seen]
        seen.update(c.chunk_id for c in kept)
        out.append((kept, facts.get(key, [])))
    return out
