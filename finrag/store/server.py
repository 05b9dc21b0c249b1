"""A Qdrant server (or cluster) through qdrant-client: set FINRAG_QDRANT_URL to use it.

Tested here against qdrant-client's in-process `:memory:` mode, which speaks the same API; a
congruence test checks it ranks exactly like the embedded engine.
"""

from __future__ import annotations

import numpy as np
from qdrant_client import QdrantClient, models

from finrag.models import Filters
from finrag.store.base import filter_conditions, point_id, ranked

BATCH = 512


class ServerStore:
    def __init__(self, client: QdrantClient, collection: str) -> None:
        self.client = client
        self.collection = collection

    @classmethod
    def create(cls, client: QdrantClient, collection: str, dim: int) -> "ServerStore":
        _reachable(client)
        if client.collection_exists(collection):
            client.delete_collection(collection)  # a leftover of a build that died
        client.create_collection(collection, vectors_config=models.VectorParams(
            size=dim, distance=models.Distance.COSINE))
        for field, schema in (("ticker", "keyword"), ("chunk_type", "keyword"),
                              ("fiscal_year", "integer")):
            client.create_payload_index(collection, field, field_schema=schema)
        return cls(client, collection)

    @classmethod
    def open(cls, client: QdrantClient, collection: str) -> "ServerStore":
        _reachable(client)
        if not client.collection_exists(collection):
            raise ValueError(f"Qdrant collection {collection!r} does not exist: rebuild the index")
        return cls(client, collection)

    def upsert(self, ids: list[str], vectors: np.ndarray, payloads: list[dict]) -> None:
        for start in range(0, len(ids), BATCH):
            points = [
                models.PointStruct(id=point_id(cid), vector=vec.tolist(),
                                   payload={**pl, "chunk_id": cid})
                for cid, vec, pl in zip(ids[start:start + BATCH], vectors[start:start + BATCH],
                                        payloads[start:start + BATCH])
            ]
            self.client.upsert(self.collection, points=points, wait=True)

    def search(self, vector: np.ndarray, filters: Filters, limit: int) -> list[tuple[str, float]]:
        response = self.client.query_points(
            self.collection, query=[float(x) for x in vector], query_filter=_filter(filters),
            limit=limit, with_payload=["chunk_id"],
        )
        return ranked([(p.payload["chunk_id"], p.score) for p in response.points])

    def count(self) -> int:
        return self.client.count(self.collection, exact=True).count

    def finish(self) -> None:
        pass  # upserts were acknowledged with wait=True

    def close(self) -> None:
        pass  # the client is shared; whoever made it closes it

    def drop(self) -> None:
        self.client.delete_collection(self.collection)


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
