"""A Qdrant server (or cluster) through qdrant-client: set FINRAG_QDRANT_URL to use it.

Tested here against qdrant-client's in-process `:memory:` mode, which speaks the same API; a
congruence test checks it ranks exactly like the embedded engine.

A server may be shared (finrag.store.names): `create` never deletes or overwrites a collection
that exists, and every failure of the server after opening is a one-line `StoreError` naming
the collection.
"""

from __future__ import annotations

import numpy as np
from qdrant_client import QdrantClient, models

from finrag.models import Filters
from finrag.store.base import StoreError, filter_conditions, point_id, ranked

BATCH = 512


class ServerStore:
    def __init__(self, client: QdrantClient, collection: str) -> None:
        self.client = client
        self.collection = collection

    @classmethod
    def create(cls, client: QdrantClient, collection: str, dim: int) -> "ServerStore":
        """A new, empty collection; refuses (StoreError) when the name is taken: finrag never
        overwrites a collection, so another data directory's vectors are never lost to a
        build (a build that died leaves its collection to `drop` by `ingest build` first)."""
        _reachable(client)
        store = cls(client, collection)
        if store._call("checking", client.collection_exists, collection):
            raise StoreError(
                f"Qdrant collection {collection!r} already exists and this build did not create "
                "it; finrag never overwrites a collection: give this data directory a new id "
                "(delete its data-dir-id.json) and rebuild with `python -m ingest build --rebuild`")
        store._call("creating", client.create_collection, collection,
                    vectors_config=models.VectorParams(size=dim, distance=models.Distance.COSINE))
        for field, schema in (("ticker", "keyword"), ("chunk_type", "keyword"),
                              ("fiscal_year", "integer")):
            store._call("indexing", client.create_payload_index, collection, field,
                        field_schema=schema)
        return store

    @classmethod
    def open(cls, client: QdrantClient, collection: str) -> "ServerStore":
        _reachable(client)
        if not client.collection_exists(collection):
            raise ValueError(f"Qdrant collection {collection!r} does not exist: rebuild the index")
        return cls(client, collection)

    @classmethod
    def drop_if_exists(cls, client: QdrantClient, collection: str) -> None:
        """Delete the collection if the server has it; StoreError when the server cannot be
        asked. The caller checks the collection is its own (finrag.store.names.owns)."""
        store = cls(client, collection)
        if store._call("checking", client.collection_exists, collection):
            store.drop()

    def upsert(self, ids: list[str], vectors: np.ndarray, payloads: list[dict]) -> None:
        for start in range(0, len(ids), BATCH):
            points = [
                models.PointStruct(id=point_id(cid), vector=vec.tolist(),
                                   payload={**pl, "chunk_id": cid})
                for cid, vec, pl in zip(ids[start:start + BATCH], vectors[start:start + BATCH],
                                        payloads[start:start + BATCH])
            ]
            self._call("writing", self.client.upsert, self.collection, points=points, wait=True)

    def search(self, vector: np.ndarray, filters: Filters, limit: int) -> list[tuple[str, float]]:
        response = self._call(
            "searching", self.client.query_points, self.collection,
            query=[float(x) for x in vector], query_filter=_filter(filters), limit=limit,
            with_payload=["chunk_id"],
        )
        return ranked([((p.payload or {}).get("chunk_id", ""), p.score) for p in response.points])

    def count(self) -> int:
        return self._call("counting", self.client.count, self.collection, exact=True).count

    def finish(self) -> None:
        pass  # upserts were acknowledged with wait=True

    def close(self) -> None:
        pass  # the client is shared; whoever made it closes it

    def drop(self) -> None:
        self._call("deleting", self.client.delete_collection, self.collection)

    def _call(self, doing: str, method, *args, **kwargs):
        """`method(*args, **kwargs)`; whatever the client raises becomes one StoreError line."""
        try:
            return method(*args, **kwargs)
        except Exception as exc:
            reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise StoreError(
                f"Qdrant collection {self.collection!r}: {doing} failed ({reason}); check the "
                "server at FINRAG_QDRANT_URL (a collection deleted there comes back with "
                "`python -m ingest build --rebuild ...`)"
            ) from None


def _filter(filters: Filters) -> models.Filter | None:
    must = [models.FieldCondition(key=field, match=models.MatchAny(any=list(values)))
            for field, values in filter_conditions(filters)]
    return models.Filter(must=must) if must else None


def _reachable(client: QdrantClient) -> None:
    try:
        client.get_collections()
    except Exception as exc:
        raise ValueError(f"cannot reach Qdrant at {getattr(client, 'init_options', {}).get('url')}"
                         f": {type(exc).__name__}; check FINRAG_QDRANT_URL") from None
