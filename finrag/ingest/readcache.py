"""A cache of parsed filings, so a re-run does not parse the same PDF again.

pypdf needs ~14 s for a 115-page 10-K, and every build re-reads every file it is given (to see
whether it changed), so re-running a build over 35 PDFs would spend 8 minutes finding nothing new.
The cache maps (the file's bytes, the metadata overrides, the reader's own source code) to the
`Filing` it produced. A change to the file, to an override or to the reader's code
(`finrag/ingest/read/`, `finrag/ingest/pagelabels.py`, `finrag/ingest/fiscal.py`,
`finrag/models.py`) is a miss, so a stale parse can never be served. Only loose files are
cached (accession folders parse in well under a second). Entries are pickles in one sqlite
file in the data dir, or in FINRAG_PARSE_CACHE_DIR where that is set (`cache_path`: one cache
for every data dir; the test suite parses each sample filing once per session so); a damaged
entry is a miss.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sqlite3
from functools import cache
from pathlib import Path

from finrag.models import Filing

CACHED_SUFFIXES = {".pdf"}
SHARED_DIR_ENV = "FINRAG_PARSE_CACHE_DIR"


def cache_path(path: Path) -> Path:
    """Where the cache file `path` (in a data dir) is kept: there, or under the same name in
    FINRAG_PARSE_CACHE_DIR when that names a directory for the parse caches of every data dir
    (its entries are keyed by content and code, so any data dir's build may use them)."""
    shared = os.environ.get(SHARED_DIR_ENV)
    return Path(shared) / path.name if shared else path


@cache
def reader_fingerprint() -> str:
    """A hash of the reader's source files and of the records it fills: a change to any of
    them is a cache miss (a cached Filing without `page_label` is never served)."""
    from finrag import models
    from finrag.ingest import fiscal, pagelabels, read

    return code_digest(read, pagelabels, fiscal, models)


def code_digest(*modules) -> str:
    """A hash of the modules' source; a package counts with every .py file in it."""
    digest = hashlib.sha256()
    for module in modules:
        path = Path(module.__file__)
        files = sorted(path.parent.glob("*.py")) if path.name == "__init__.py" else [path]
        for file in files:
            digest.update(file.name.encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()[:16]


class ReadCache:
    def __init__(self, path: Path) -> None:
        self._db = sqlite3.connect(cache_path(path), timeout=30)  # workers share the file
        self._db.execute("CREATE TABLE IF NOT EXISTS filings (key TEXT PRIMARY KEY, value BLOB)")

    @staticmethod
    def key(unit: Path, ticker: str | None, fiscal_year: int | None) -> str | None:
        if not unit.is_file() or unit.suffix.lower() not in CACHED_SUFFIXES:
            return None
        try:
            digest = hashlib.sha256(unit.read_bytes()).hexdigest()
        except OSError:  # unreadable: the reader will say so in its own words
            return None
        return f"{reader_fingerprint()}:{digest}:{ticker or ''}:{fiscal_year or ''}"

    def get(self, key: str, source: str) -> Filing | None:
        """The cached parse, as if read from `source` (the same bytes may have moved)."""
        row = self._db.execute("SELECT value FROM filings WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            filing = pickle.loads(row[0])
        except Exception:  # a damaged or incompatible entry: parse again
            return None
        if not isinstance(filing, Filing):
            return None
        return filing.model_copy(update={"source": source})

    def put(self, key: str, filing: Filing) -> None:
        with self._db:
            self._db.execute("INSERT OR REPLACE INTO filings VALUES (?, ?)",
                             (key, pickle.dumps(filing, protocol=pickle.HIGHEST_PROTOCOL)))

    def close(self) -> None:
        self._db.close()
