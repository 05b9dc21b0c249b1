"""One index on disk: chunk table + the engine's shard (both retrieval legs) + manifest, published
whole.

Layout of a data directory::

    CURRENT                 name of the published generation (replaced atomically)
    generations/<name>/     one complete, immutable index generation
        manifest.json       format, model, dim, tokenizer version, BM25 parameters, backend, counts
        chunks.sqlite       payloads + the filter columns (ticker, fiscal_year, chunk_type), page,
                            text signature; indexed by chunk id, filing and filters, so a reader
                            reads only the rows of the chunks it shows and loads nothing at open;
                            and the `facts` table (statement facts, by ticker and fiscal year).
                            A generation an update wrote holds here only what changed since
                            the last tables written whole, with the filings it takes out of
                            them (`dropped`), and shares those tables as
        base.sqlite         a hard link to the last chunks.sqlite written whole (`open_table`)
        vectors/            Qdrant edge shard (embedded backend only): per chunk a dense
                            page-context vector and its BM25 terms as a sparse vector, with the
                            filter fields (a server keeps the same points in a collection)
    embeddings.sqlite       cache of vectors by hash of the embedded text (`dense_text`):
                            re-ingesting re-embeds nothing
    build.lock              one build at a time
    data-dir-id.json        (server backend) the id naming this data dir's Qdrant collections,
                            finrag-<id>-gen-NNNNNN (finrag.store.names); on a server the points
                            carry the chunk payloads and the facts and manifest live there too,
                            so readers given its alias need no data dir (finrag.remote)

Readers never see a half-built index: a build writes a new generation under a temporary name
(whole, or from the published one with some filings replaced, sharing its files that no one
writes again and copying the rest), renames it into place,
and only then points CURRENT at it (finrag.generation). A reader keeps
serving the generation it opened and switches when CURRENT names another one
(`Index.is_stale`).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from finrag.config import Settings
from finrag.facts import Fact
from finrag.manifest import NO_INDEX_HINT, IndexUnavailable, check_manifest
from finrag.models import Chunk
from finrag.store.clients import client_for

CURRENT = "CURRENT"
GENERATIONS = "generations"


def current_generation(data_dir: Path) -> str | None:
    try:
        name = (data_dir / CURRENT).read_text().strip()
    except FileNotFoundError:
        return None
    return name or None


def generation_number(name: str) -> int:
    """gen-000042 -> 42 (-1 for a name that is not a generation's)."""
    return int(name[4:]) if name.startswith("gen-") and name[4:].isdigit() else -1


# --- reading -------------------------------------------------------------------------------


def read_manifest(data_dir: Path, name: str) -> dict:
    """A generation's manifest, checked against this finrag (format, model, tokenizer): reads
    only manifest.json, so it is cheap enough to ask before deciding to build."""
    path = data_dir / GENERATIONS / name
    try:
        manifest = json.loads((path / "manifest.json").read_text())
    except (FileNotFoundError, json.JSONDecodeError) as exc:
        reason = f"index generation {path} is damaged ({exc})"
        raise IndexUnavailable(f"{reason}; {NO_INDEX_HINT}", reason=reason) from exc
    return check_manifest(manifest, f"index in {data_dir}")


TABLE, BASE = "chunks.sqlite", "base.sqlite"


def open_table(directory: Path) -> sqlite3.Connection:
    """A generation's chunk and fact tables, read-only. A generation written whole holds them in
    `chunks.sqlite`. One written by an in-place update holds there only what changed since the
    last table written whole, which it shares as `base.sqlite` (a hard link, never written
    again): the rows added since, and the filings taken out of the base (`dropped`). The
    connection shows the two as one `chunks` and one `facts` (temporary views, through which
    a lookup by chunk id, filing or filter still reaches both tables' indexes)."""
    con = sqlite3.connect(f"file:{directory / TABLE}?mode=ro&immutable=1", uri=True,
                          check_same_thread=False)
    if (directory / BASE).exists():
        con.execute("ATTACH DATABASE ? AS base", (f"file:{directory / BASE}?mode=ro&immutable=1",))
        for table in ("chunks", "facts"):
            con.execute(f"CREATE TEMP VIEW {table} AS SELECT * FROM base.{table} WHERE filing_key"
                        f" NOT IN (SELECT filing_key FROM main.dropped)"
                        f" UNION ALL SELECT * FROM main.{table}")
    return con


def has_base(con: sqlite3.Connection) -> bool:
    return any(row[1] == "base" for row in con.execute("PRAGMA database_list"))


def indexed_sources(data_dir: Path) -> list[str]:
    """The source files of the published generation's filings (as they were given to ingest),
    read from its chunk table alone, so it answers for an index of another format too; [] when
    nothing is published. Raises IndexUnavailable when the chunk table cannot be read."""
    name = current_generation(data_dir)
    if name is None:
        return []
    path = data_dir / GENERATIONS / name / TABLE
    try:
        con = open_table(path.parent)
        try:
            rows = con.execute(
                "SELECT DISTINCT json_extract(payload, '$.source') FROM chunks").fetchall()
        finally:
            con.close()
    except sqlite3.Error as exc:
        reason = f"cannot read the chunk table {path} ({exc})"
        raise IndexUnavailable(f"{reason}; {NO_INDEX_HINT}", reason=reason) from exc
    return sorted(r[0] or "" for r in rows)


_GROUPS = "GROUP BY ticker, fiscal_year, chunk_type, company"
FACETS = ("SELECT ticker, company, fiscal_year, chunk_type, COUNT(*) FROM chunks "
          f"{_GROUPS} ORDER BY ticker, fiscal_year, chunk_type, company")
# Over a base and a delta (`open_table`): the base's counts (its covering index) less those of
# its filings taken out (read by filing) plus the delta's, so no base row is read but those.
_COUNTS = "SELECT ticker, company, fiscal_year, chunk_type, {sign}COUNT(*) AS n FROM {rows}"
FACETS_OVER_BASE = (
    "SELECT ticker, company, fiscal_year, chunk_type, SUM(n) FROM ("
    + _COUNTS.format(sign="", rows=f"base.chunks {_GROUPS}") + " UNION ALL "
    + _COUNTS.format(sign="-", rows="base.chunks WHERE filing_key IN (SELECT filing_key FROM"
                     f" main.dropped) {_GROUPS}") + " UNION ALL "
    + _COUNTS.format(sign="", rows=f"main.chunks {_GROUPS}")
    + f") {_GROUPS} HAVING SUM(n) > 0 ORDER BY ticker, fiscal_year, chunk_type, company")


# Each filing's chunk count and first row, from the filing index alone (over a base, summed
# over the two tables: a view's GROUP BY would read the base's rows)
FILINGS = "SELECT filing_key, COUNT(*), MIN(row) FROM chunks GROUP BY filing_key"
FILINGS_OVER_BASE = (
    "SELECT filing_key, SUM(n), MIN(r) FROM (SELECT filing_key, COUNT(*) AS n, MIN(row) AS r"
    " FROM base.chunks WHERE filing_key NOT IN (SELECT filing_key FROM main.dropped)"
    " GROUP BY filing_key UNION ALL SELECT filing_key, COUNT(*), MIN(row) FROM main.chunks"
    " GROUP BY filing_key) GROUP BY filing_key")


def table_facets(db: sqlite3.Connection) -> dict:
    """What a chunk table holds (read from its covering filter index alone): companies by
    ticker, the fiscal years, and per ticker x fiscal year the chunk count of each type."""
    rows = db.execute(FACETS_OVER_BASE if has_base(db) else FACETS).fetchall()
    companies = {t: c for t, c, *_ in rows}
    counts: dict[str, dict] = {}
    for ticker, _, year, kind, n in rows:
        cell = counts.setdefault(f"{ticker} {year}", {"ticker": ticker, "fiscal_year": year})
        cell[kind] = cell.get(kind, 0) + n
    return {
        "companies": companies,
        "fiscal_years": sorted({r[2] for r in rows}),
        "filings": list(counts.values()),
    }


class Index:
    """A published generation, opened read-only."""

    def __init__(self, settings: Settings, name: str, *, tables_only: bool = False) -> None:
        """Opening reads the manifest and opens the chunk table and the engine; nothing is
        loaded per chunk, so it costs the same at any size: a search reads only its candidates'
        rows. `tables_only`: without the engine (what a build needs to compare filings)."""
        self.settings = settings
        self.name = name
        self.path = settings.data_dir / GENERATIONS / name
        self.manifest = read_manifest(settings.data_dir, name)
        if self.manifest.get("tables") == "delta" and not (self.path / BASE).exists():
            reason = f"index generation {self.path} is damaged (its {BASE} is missing)"
            raise IndexUnavailable(f"{reason}; {NO_INDEX_HINT}", reason=reason)
        self._db = open_table(self.path)
        self._current_stat: tuple | None = None  # CURRENT's (inode, mtime, size) when last read
        self._current_name: str | None = None
        self.vectors = None
        if not tables_only:
            self.vectors = self._open_vectors()

    @classmethod
    def open(cls, settings: Settings, *, tables_only: bool = False) -> Index:
        name = current_generation(settings.data_dir)
        if name is None:
            raise IndexUnavailable(f"no index in {settings.data_dir}: {NO_INDEX_HINT}")
        return cls(settings, name, tables_only=tables_only)

    @property
    def identity(self) -> str:
        """The generation's own directory: two data dirs both have a `gen-000001`, and one
        process (the app beside an evaluation, a test run) may read both."""
        return str(self.path.resolve())

    def is_stale(self) -> bool:
        """CURRENT names another generation. Read again only when its inode, mtime or size
        changed (publish replaces it by rename, a new inode): every search asks, and a stat is
        ~10x cheaper than opening and reading the file."""
        path = self.settings.data_dir / CURRENT
        try:
            st = os.stat(path)
        except FileNotFoundError:
            self._current_stat = None
            return False
        key = (st.st_ino, st.st_mtime_ns, st.st_size)
        if key != self._current_stat:
            self._current_name = current_generation(self.settings.data_dir)
            self._current_stat = key
        return self._current_name not in (None, self.name)

    def __len__(self) -> int:
        """Chunks in the generation (the manifest's count, written with it)."""
        n = self.manifest.get("chunks")
        return int(n) if n is not None else self.count()

    def chunks(self, chunk_ids: list[str]) -> dict[str, Chunk]:
        """The chunks of these ids (unknown ids are left out)."""
        return {cid: Chunk.model_validate_json(p)
                for cid, p in self._by_id("chunk_id, payload", chunk_ids)}

    def page_chunks(self, filing_key: str, pages: Iterable[int]) -> list[Chunk]:
        """The chunks on these pages (1-based positions) of one filing, in the order written
        (the document's), e.g. the rest of a list whose start a search found."""
        pages = sorted({int(p) for p in pages})
        if not pages:
            return []
        rows = self._db.execute(
            f"SELECT payload FROM chunks WHERE filing_key = ? AND page IN "
            f"({','.join('?' * len(pages))}) ORDER BY row", [filing_key, *pages]).fetchall()
        return [Chunk.model_validate_json(p) for (p,) in rows]

    def lookup(self, chunk_ids: list[str]) -> dict[str, tuple[str, str]]:
        """chunk id -> (text signature, page key), for collapsing copies of a text and fusing
        by page: equal signatures = the same text up to case and white space; the page key is
        the same for the chunks of one page of one filing, and the chunk id itself where the
        page is unknown, so such a chunk is a unit of its own (unknown ids are left out)."""
        return {cid: (signature, cid if page is None else f"{filing}\x1f{page}")
                for cid, signature, filing, page
                in self._by_id("chunk_id, signature, filing_key, page", chunk_ids)}

    def chunk_ids(self) -> list[str]:
        """Every chunk id of the generation, sorted."""
        return [r[0] for r in self._db.execute("SELECT chunk_id FROM chunks ORDER BY chunk_id")]

    def _by_id(self, columns: str, chunk_ids: list[str]) -> list[tuple]:
        ids, out = list(dict.fromkeys(chunk_ids)), []
        for start in range(0, len(ids), 500):
            part = ids[start:start + 500]
            out += self._db.execute(f"SELECT {columns} FROM chunks WHERE chunk_id IN "
                                    f"({','.join('?' * len(part))})", part).fetchall()
        return out

    def facts(self, tickers: Iterable[str] = (), fiscal_years: Iterable[int] = (),
              period_fiscal_years: Iterable[int] = (), statements: Iterable[str] = (),
              concepts: Iterable[str] = ()) -> list[Fact]:
        """The statement facts of these companies (empty = all), from filings of these fiscal
        years and/or about periods of these fiscal years, on these statements ("income",
        "balance", "cash_flow", "equity", "other"), of these XBRL concepts (each empty = any),
        in document order. A company's FY2024 figure is printed in its FY2024 filing and, as
        the comparative column, in its FY2025 one: ask by `period_fiscal_years` to get both."""
        where, args = [], []
        for column, values in (("ticker", [t.strip().upper() for t in tickers]),
                               ("fiscal_year", [int(y) for y in fiscal_years]),
                               ("period_fiscal_year", [int(y) for y in period_fiscal_years]),
                               ("statement", list(statements)), ("concept", list(concepts))):
            if values:
                where.append(f"{column} IN ({','.join('?' * len(values))})")
                args.extend(values)
        sql = "SELECT payload FROM facts" + (f" WHERE {' AND '.join(where)}" if where else "")
        rows = self._db.execute(sql + " ORDER BY row", args).fetchall()
        return [Fact.model_validate_json(p) for (p,) in rows]

    def all_facts(self) -> list[Fact]:
        return self.facts()

    def filing_chunk_ids(self, filing_keys: Iterable[str]) -> dict[str, set[str]]:
        """filing key -> the ids of its chunks, for the filings asked about that are indexed."""
        return {key: set(payloads) for key, payloads in self.filing_payloads(filing_keys).items()}

    def filing_payloads(self, filing_keys: Iterable[str]) -> dict[str, dict[str, str]]:
        """filing key -> {chunk id: the chunk's stored JSON}, for the filings asked about that
        are indexed (what a build compares a re-read filing with: ids alone miss a change to
        a chunk's metadata, such as the company name)."""
        keys = list(filing_keys)
        out: dict[str, dict[str, str]] = {}
        for start in range(0, len(keys), 500):
            part = keys[start:start + 500]
            for key, cid, payload in self._db.execute(
                    f"SELECT filing_key, chunk_id, payload FROM chunks WHERE filing_key IN "
                    f"({','.join('?' * len(part))})", part):
                out.setdefault(key, {})[cid] = payload
        return out

    def count(self) -> int:
        """Chunks in the generation (from the table: works with `tables_only`)."""
        return self._db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]

    def known(self, chunk_ids: Iterable[str]) -> set[str]:
        """Those of `chunk_ids` the generation holds (from the table)."""
        ids, out = list(chunk_ids), set()
        for start in range(0, len(ids), 500):
            part = ids[start:start + 500]
            out.update(r[0] for r in self._db.execute(
                f"SELECT chunk_id FROM chunks WHERE chunk_id IN ({','.join('?' * len(part))})",
                part))
        return out

    def filing_facts(self, filing_keys: Iterable[str]) -> dict[str, list[Fact]]:
        """filing key -> its facts in document order, for the filings asked about."""
        keys = list(filing_keys)
        out: dict[str, list[Fact]] = {}
        for start in range(0, len(keys), 500):
            part = keys[start:start + 500]
            for key, payload in self._db.execute(
                    f"SELECT filing_key, payload FROM facts WHERE filing_key IN "
                    f"({','.join('?' * len(part))}) ORDER BY row", part):
                out.setdefault(key, []).append(Fact.model_validate_json(payload))
        return out

    def filings(self) -> dict[str, dict]:
        """filing key -> {"source": the file its chunks were read from (as given to ingest),
        "ticker", "fiscal_year", "chunks": how many}."""
        counts = self._db.execute(FILINGS_OVER_BASE if has_base(self._db) else FILINGS
                                  ).fetchall()
        # the rest from each filing's first row (a filing's chunks are read from one file):
        # the counts come from the filing index alone, so only those rows are read
        first = {}
        rows = [row for _, _, row in counts]
        for start in range(0, len(rows), 500):
            part = rows[start:start + 500]
            first.update((r[0], r[1:]) for r in self._db.execute(
                "SELECT row, json_extract(payload, '$.source'), ticker, fiscal_year FROM chunks"
                f" WHERE row IN ({','.join('?' * len(part))})", part))
        return {key: {"source": first[row][0] or "", "ticker": first[row][1],
                      "fiscal_year": first[row][2], "chunks": n} for key, n, row in counts}

    def all_chunks(self) -> list[Chunk]:
        rows = self._db.execute("SELECT payload FROM chunks ORDER BY row").fetchall()
        return [Chunk.model_validate_json(p) for (p,) in rows]

    def facets(self) -> dict:
        """What is indexed: companies by ticker, fiscal years, chunk counts per ticker x year."""
        return table_facets(self._db)

    def close(self) -> None:
        if self.vectors is not None:
            self.vectors.close()
        self._db.close()

    def _open_vectors(self):
        backend = self.manifest["backend"]
        if backend["kind"] == "server":
            from finrag.store.server import ServerStore

            if not self.settings.qdrant_url:
                raise IndexUnavailable(
                    f"index in {self.settings.data_dir} keeps its vectors on a Qdrant server: "
                    "set FINRAG_QDRANT_URL"
                )
            return ServerStore.open(client_for(self.settings), backend["collection"],
                                    backend.get("version"))
        from finrag.store.edge import EdgeStore

        return EdgeStore.open(self.path / "vectors")
