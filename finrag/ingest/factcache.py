"""A cache of extracted facts, so a re-run does not parse a filing's HTML a second time.

The fact stage reads an inline-XBRL document again (contexts, units, the marked block walk):
about 0.2-0.7 s per large filing, as much as reading and chunking it. The cache maps (the
document's bytes, the filing's metadata, the fact code and the reader's own source) to the
facts before they are tied to chunks, so a change to the file, to an override or to any of
that code is a miss and a stale fact can never be served. One sqlite file in the data dir
(or in FINRAG_PARSE_CACHE_DIR: `finrag.ingest.readcache.cache_path`); a damaged entry is a
miss.
"""

from __future__ import annotations

import hashlib
import pickle
import sqlite3
from functools import cache
from pathlib import Path

from finrag.facts import Fact
from finrag.ingest.readcache import cache_path
from finrag.models import Filing

FACT_MODULES = ("facts", "xbrl", "tables", "statements", "chunk")


@cache
def code_fingerprint() -> str:
    """Hash of the source of every module whose code decides the facts: the reader's (its own
    fingerprint, records included) and the fact stage's."""
    import importlib

    from finrag.ingest.readcache import code_digest, reader_fingerprint

    modules = [importlib.import_module(f"finrag.ingest.{name}") for name in FACT_MODULES]
    return code_digest(*modules, importlib.import_module("finrag.facts")) + reader_fingerprint()


class FactCache:
    def __init__(self, path: Path) -> None:
        self._db = sqlite3.connect(cache_path(path), timeout=30)  # workers share the file
        self._db.execute("CREATE TABLE IF NOT EXISTS facts (key TEXT PRIMARY KEY, value BLOB)")

    @staticmethod
    def key(filing: Filing) -> str | None:
        try:
            content = hashlib.sha256(Path(filing.source).read_bytes()).hexdigest()
        except OSError:
            return None
        meta = filing.model_dump_json(exclude={"blocks", "source"})
        return hashlib.sha256(f"{code_fingerprint()}\x1f{content}\x1f{meta}".encode()).hexdigest()

    def get(self, key: str) -> list[Fact] | None:
        try:
            row = self._db.execute("SELECT value FROM facts WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error:
            return None
        if row is None:
            return None
        try:
            facts = pickle.loads(row[0])
        except Exception:  # a damaged or incompatible entry: extract again
            return None
        if not isinstance(facts, list) or not all(isinstance(f, Fact) for f in facts):
            return None
        return facts

    def put(self, key: str, facts: list[Fact]) -> None:
        """Keep the facts; a cache that cannot be written (a full disk) is only a cache."""
        try:
            with self._db:
                self._db.execute("INSERT OR REPLACE INTO facts VALUES (?, ?)",
                                 (key, pickle.dumps(facts, protocol=pickle.HIGHEST_PROTOCOL)))
        except sqlite3.Error:
            pass

    def close(self) -> None:
        self._db.close()
