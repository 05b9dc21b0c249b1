"""A published index read from a Qdrant server alone: what an app replica opens when it has the
server's URL and the index's name (FINRAG_QDRANT_URL, FINRAG_QDRANT_INDEX) and no data directory.

A server build keeps everything a reader needs with its points (finrag.generation): each chunk's
whole payload in its point, the statement facts in a vectorless collection beside it, and the
published generation's manifest, with the coverage facets, in the collection's state point. The
index's name is a collection alias (`finrag-<data dir id>`, finrag.store.names), switched to
each new collection a whole build writes; an in-place update changes the collection under
versioned visibility and publishes by rewriting the state point (finrag.store.server). The
reader reads the state point through the alias (one request: which collection, which
generation) and sees that generation's points only. `RemoteIndex` answers the reading calls
`Index` answers (lookup, chunks, page_chunks, facts, facets, is_stale), so search and ask run on
either.
"""

from __future__ import annotations

from collections.abc import Iterable

from qdrant_client import models

from finrag.config import Settings
from finrag.facts import Fact
from finrag.manifest import IndexUnavailable, check_manifest
from finrag.models import Chunk
from finrag.store.base import StoreError
from finrag.store.clients import client_for
from finrag.store.server import ServerStore, _reachable, aliased

PAGE = 1024  # points per request when reading facts


class RemoteIndex:
    """The generation a server alias names, opened read-only."""

    def __init__(self, settings: Settings, alias: str, store: ServerStore,
                 manifest: dict) -> None:
        self.settings = settings
        self.alias = alias
        self.vectors = store
        self.manifest = manifest
        self.name = manifest["generation"]
        # the generation too: in-place updates publish several generations in one collection
        self.identity = f"{settings.qdrant_url}#{store.collection}@{self.name}"

    @classmethod
    def open(cls, settings: Settings) -> RemoteIndex:
        """The generation `settings.qdrant_index` names on the server at `settings.qdrant_url`;
        IndexUnavailable (one line, what to do) when there is none or this finrag cannot read
        it; ValueError (naming the URL) when the server cannot be reached."""
        alias = settings.qdrant_index
        if not settings.qdrant_url:
            raise IndexUnavailable(f"FINRAG_QDRANT_INDEX={alias} names an index on a Qdrant "
                                   "server: set FINRAG_QDRANT_URL to that server's address")
        client = client_for(settings)
        _reachable(client)  # ValueError naming the URL: the server, not the index, is missing
        probe = ServerStore(client, alias)
        collection = probe._call("reading aliases", aliased, client, alias)
        if collection is None:
            raise IndexUnavailable(
                f"no index named {alias!r} on the Qdrant server at {settings.qdrant_url}: "
                "`python -m ingest build` with FINRAG_QDRANT_URL set prints the name of the "
                "index it publishes (`finrag-...`); set FINRAG_QDRANT_INDEX to it")
        manifest = probe.state() or _metadata_manifest(probe, collection)
        where = f"index {alias!r} on {settings.qdrant_url}"
        if not manifest:
            raise IndexUnavailable(f"{where} names collection {collection!r}, which has no "
                                   "published finrag generation: rebuild it with `python -m "
                                   "ingest build --rebuild ...`")
        manifest = check_manifest(manifest, where)
        backend = manifest["backend"]
        store = ServerStore.open(client, backend["collection"], backend.get("version"))
        return cls(settings, alias, store, manifest)

    def is_stale(self) -> bool:
        """Another generation is published under the alias now: one small request (the state
        point's generation, through the alias). A server that does not answer keeps the open
        generation served: the search itself then says what failed, in one line."""
        try:
            now = ServerStore(self.vectors.client, self.alias).state(["generation"])
        except Exception:  # noqa: BLE001 - any client failure: not a reason to switch
            return False
        return bool(now) and now.get("generation") != self.name

    def __len__(self) -> int:
        return int(self.manifest["chunks"])

    def chunks(self, chunk_ids: list[str]) -> dict[str, Chunk]:
        """The chunks of these ids (unknown ids are left out)."""
        return {cid: Chunk.model_validate_json(p["chunk"])
                for cid, p in self._payloads(chunk_ids, ["chunk_id", "chunk"], "chunk").items()}

    def page_chunks(self, filing_key: str, pages: Iterable[int]) -> list[Chunk]:
        """The chunks on these pages of one filing in the document's order, as
        `Index.page_chunks` gives them (a collection built before 2026-12-08 keeps no order:
        page by page, then by id)."""
        pages = sorted({int(p) for p in pages})
        if not pages:
            return []
        wanted = self.vectors.visible([
            models.FieldCondition(key="filing_key", match=models.MatchValue(value=filing_key)),
            models.FieldCondition(key="page", match=models.MatchAny(any=pages))])
        records, offset = [], None
        while True:
            page, offset = self.vectors._call(
                "reading chunks", self.vectors.client.scroll, self.vectors.collection,
                scroll_filter=wanted, limit=PAGE, offset=offset,
                with_payload=["chunk", "order", "page", "chunk_id"], with_vectors=False)
            records += [r.payload for r in page if r.payload and "chunk" in r.payload]
            if offset is None:
                break
        records.sort(key=lambda p: (p.get("order", 10**9), p.get("page") or 0, p["chunk_id"]))
        return [Chunk.model_validate_json(p["chunk"]) for p in records]

    def lookup(self, chunk_ids: list[str]) -> dict[str, tuple[str, str]]:
        """chunk id -> (text signature, page key), as `Index.lookup` gives them."""
        return {cid: (p["signature"],
                      cid if p.get("page") is None else f"{p['filing_key']}\x1f{p['page']}")
                for cid, p in self._payloads(
                    chunk_ids, ["chunk_id", "signature", "filing_key", "page"],
                    "signature").items()}

    def facts(self, tickers: Iterable[str] = (), fiscal_years: Iterable[int] = (),
              period_fiscal_years: Iterable[int] = (), statements: Iterable[str] = (),
              concepts: Iterable[str] = ()) -> list[Fact]:
        """The statement facts `Index.facts` gives for the same arguments, in document order."""
        must = [models.FieldCondition(key=field, match=models.MatchAny(any=values))
                for field, values in (("ticker", [t.strip().upper() for t in tickers]),
                                      ("fiscal_year", [int(y) for y in fiscal_years]),
                                      ("period_fiscal_year", [int(y) for y in period_fiscal_years]),
                                      ("statement", list(statements)),
                                      ("concept", list(concepts)))
                if values]
        wanted = self.vectors.visible(must)
        client, collection = self.vectors.client, self.vectors.facts_collection
        records, offset = [], None
        while True:
            page, offset = self.vectors._call(
                "reading facts", client.scroll, collection, scroll_filter=wanted, limit=PAGE,
                offset=offset, with_payload=["row", "fact"], with_vectors=False)
            records += page
            if offset is None:
                break
        records.sort(key=lambda r: r.payload["row"])
        return [Fact.model_validate_json(r.payload["fact"]) for r in records]

    def facets(self) -> dict:
        """What is indexed (`Index.facets`), as the build recorded it in the manifest."""
        return self.manifest["facets"]

    def close(self) -> None:
        self.vectors.close()

    def _payloads(self, chunk_ids: list[str], fields: list[str],
                  required: str) -> dict[str, dict]:
        """chunk id -> the asked payload fields of the point this generation sees for it;
        `required` is one every such point has (a field may be null, so not `page`)."""
        ids = list(dict.fromkeys(chunk_ids))
        out: dict[str, dict] = {}
        for start in range(0, len(ids), PAGE):
            part = ids[start:start + PAGE]
            records, _ = self.vectors._call(
                "reading chunks", self.vectors.client.scroll, self.vectors.collection,
                scroll_filter=self.vectors.visible([models.FieldCondition(
                    key="chunk_id", match=models.MatchAny(any=part))]),
                limit=len(part), with_payload=fields, with_vectors=False)
            for record in records:
                payload = record.payload or {}
                if "chunk_id" not in payload or required not in payload:
                    raise StoreError(
                        f"Qdrant collection {self.vectors.collection!r} holds chunks without "
                        "their payloads (built by a finrag before 2026-12-05): rebuild it with "
                        "`python -m ingest build --rebuild ...`")
                out[payload["chunk_id"]] = payload
        return out


def _metadata_manifest(probe: ServerStore, collection: str) -> dict | None:
    """The manifest a build of 2026-12-05 kept in the collection's metadata (before the state
    point); such an index gets its state point from its next build, changed or not."""
    info = probe._call("reading the manifest", probe.client.get_collection, collection)
    return (info.config.metadata or {}).get("finrag")
