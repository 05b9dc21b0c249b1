"""A Qdrant server (or cluster) through qdrant-client: set FINRAG_QDRANT_URL to use it.

Tested here against qdrant-client's in-process `:memory:` mode, which speaks the same API; a
congruence test checks it ranks exactly like the embedded engine.

A server may be shared (finrag.store.names): `create` never deletes or overwrites a collection
that exists, and every failure of the server after opening is a one-line `StoreError` naming
the collection.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass

import numpy as np
from qdrant_client import QdrantClient, models

from finrag.models import Filters
from finrag.store.base import (
    DENSE,
    PAYLOAD_INDEXES,
    POINT_NAMESPACE,
    SPARSE,
    StoreError,
    StorePoint,
    filter_conditions,
    point_id,
    ranked,
)

BATCH = 512
FACTS_SUFFIX = "-facts"  # the collection beside a generation's points that holds its facts
# The facts collection's payload indexes: the lookups an answer makes (finrag.remote.facts)
FACT_INDEXES = {"ticker": "keyword", "fiscal_year": "integer", "period_fiscal_year": "integer",
                "filing_key": "keyword"}
# Versioned visibility (ServerStore): the fields readers and updates filter by, and the chunk id
# a reader by name looks its candidates up by
VERSION_INDEXES = {"chunk_id": "keyword", "born": "integer", "until": "integer"}
# The point that holds the published generation's manifest (no vectors: no search returns it)
STATE_ID = str(uuid.uuid5(POINT_NAMESPACE, "finrag published generation"))


@dataclass(frozen=True)
class Layout:
    """How a new collection is spread over a cluster. Fixed when the collection is created
    (Qdrant cannot reshard a self-hosted collection later). The defaults are Qdrant's own and
    right for one node; for a cluster see docs/cluster/ (e.g. 6 shards, 2 replicas, writes
    acknowledged by 1 replica so one lost node does not stop a build)."""

    shard_number: int = 1
    replication_factor: int = 1
    write_consistency_factor: int = 1

    ENV = {"shard_number": "FINRAG_QDRANT_SHARDS",
           "replication_factor": "FINRAG_QDRANT_REPLICATION_FACTOR",
           "write_consistency_factor": "FINRAG_QDRANT_WRITE_CONSISTENCY"}

    def __post_init__(self) -> None:
        for name, variable in self.ENV.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{variable} must be a whole number of 1 or more, got {value!r}")
        if self.write_consistency_factor > self.replication_factor:
            raise ValueError(
                f"FINRAG_QDRANT_WRITE_CONSISTENCY ({self.write_consistency_factor}) cannot exceed "
                f"FINRAG_QDRANT_REPLICATION_FACTOR ({self.replication_factor}): a write could "
                "never be acknowledged by that many replicas")

    @classmethod
    def from_env(cls) -> Layout:
        """The layout the FINRAG_QDRANT_* variables ask for; unset ones keep the defaults."""
        given = {}
        for name, variable in cls.ENV.items():
            text = os.environ.get(variable, "").strip()
            if text:
                try:
                    given[name] = int(text)
                except ValueError:
                    raise ValueError(f"{variable} must be a whole number of 1 or more, "
                                     f"got {text!r}") from None
        return cls(**given)


class ServerStore:
    """A generation on the server: its chunks' points (both legs, and each chunk's whole payload,
    so a reader needs nothing but the URL), a vectorless collection beside it for the statement
    facts, and the published generation's manifest in a vectorless state point.

    Versions: a whole build writes a new collection; an in-place update changes the published
    collection under versioned visibility. Each point written by an update carries `born` (the
    generation's number) and has an id of its own; the points of a filing it takes out get
    `until` (the same number) and stay. A reader of generation V (`version`) sees the points
    with `born <= V` (or none) and not `until <= V`, so it never sees a write of a later
    generation; superseded points are deleted once readers have moved on (`drop_superseded`),
    and what a build that died wrote is undone by the next (`roll_back`)."""

    keeps_payloads = True  # finrag.generation stores each chunk whole in its point

    def __init__(self, client: QdrantClient, collection: str,
                 version: int | None = None) -> None:
        self.client = client
        self.collection = collection
        self.facts_collection = collection + FACTS_SUFFIX
        self.version = version  # the generation a reader sees; None: every point

    @classmethod
    def create(cls, client: QdrantClient, collection: str, dim: int,
               layout: Layout | None = None) -> ServerStore:
        """A new, empty collection, sharded and replicated as `layout` says (default: from the
        environment, `Layout.from_env`); refuses (StoreError) when the name is taken: finrag
        never overwrites a collection, so another data directory's vectors are never lost to a
        build (a build that died leaves its collection to `drop` by `ingest build` first)."""
        layout = layout or Layout.from_env()
        _reachable(client)
        store = cls(client, collection)
        taken = [name for name in (collection, store.facts_collection)
                 if store._call("checking", client.collection_exists, name)]
        if taken:
            raise StoreError(
                f"Qdrant collection {taken[0]!r} already exists and this build did not create "
                "it; finrag never overwrites a collection: give this data directory a new id "
                "(delete its data-dir-id.json) and rebuild with `python -m ingest build --rebuild`")
        spread = {"shard_number": layout.shard_number,
                  "replication_factor": layout.replication_factor,
                  "write_consistency_factor": layout.write_consistency_factor}
        store._call("creating", client.create_collection, collection,
                    vectors_config={DENSE: models.VectorParams(size=dim,
                                                               distance=models.Distance.COSINE)},
                    sparse_vectors_config={SPARSE: models.SparseVectorParams(
                        modifier=models.Modifier.IDF)}, **spread)
        for field, schema in {**PAYLOAD_INDEXES, **VERSION_INDEXES}.items():
            store._call("indexing", client.create_payload_index, collection, field,
                        field_schema=schema)
        store._call("creating", client.create_collection, store.facts_collection,
                    vectors_config={}, **spread)
        for field, schema in {**FACT_INDEXES, **VERSION_INDEXES}.items():
            if field != "chunk_id":
                store._call("indexing", client.create_payload_index, store.facts_collection,
                            field, field_schema=schema)
        return store

    @classmethod
    def open(cls, client: QdrantClient, collection: str,
             version: int | None = None) -> ServerStore:
        _reachable(client)
        if not client.collection_exists(collection):
            raise ValueError(f"Qdrant collection {collection!r} does not exist: rebuild the index")
        return cls(client, collection, version)

    @classmethod
    def drop_if_exists(cls, client: QdrantClient, collection: str) -> None:
        """Delete the collection and its facts collection, those the server has; StoreError
        when the server cannot be asked. The caller checks the collection is its own
        (finrag.store.names.owns)."""
        cls(client, collection).drop()

    def upsert(self, points: list[StorePoint]) -> None:
        """Write points; one whose payload has `born` (an update's) gets an id of its own."""
        for start in range(0, len(points), BATCH):
            batch = [
                models.PointStruct(
                    id=point_id(p.chunk_id, p.payload.get("born")),
                    vector={DENSE: p.dense.tolist(),
                            SPARSE: models.SparseVector(indices=p.terms[0], values=p.terms[1])},
                    payload={**p.payload, "chunk_id": p.chunk_id})
                for p in points[start:start + BATCH]]
            self._call("writing", self.client.upsert, self.collection, points=batch, wait=True)

    def write_facts(self, facts: list[dict]) -> None:
        """Statement facts, each a vectorless point: its filter fields, its place in document
        order (`row`: a whole build's id) and the whole record (`fact`); an update's facts carry
        `born` and an id made of it and the row."""
        for start in range(0, len(facts), BATCH):
            batch = [models.PointStruct(id=_fact_id(f), vector={}, payload=f)
                     for f in facts[start:start + BATCH]]
            self._call("writing facts", self.client.upsert, self.facts_collection, points=batch,
                       wait=True)

    def publish_state(self, manifest: dict) -> None:
        """Make `manifest`'s generation the one this collection serves: one point written, so a
        reader by name sees the old generation or the new one (finrag.remote reads it first)."""
        self._call("publishing", self.client.upsert, self.collection, wait=True,
                   points=[models.PointStruct(id=STATE_ID, vector={}, payload=manifest)])

    def state(self, fields: list[str] | bool = True) -> dict | None:
        """The published generation's manifest (`fields` of it), None when there is none."""
        records = self._call("reading the manifest", self.client.retrieve, self.collection,
                             ids=[STATE_ID], with_payload=fields, with_vectors=False)
        return (records[0].payload or None) if records else None

    def retire(self, filing_keys: list[str], version: int) -> None:
        """Take these filings' points and facts out of generation `version` and later ones
        (`until`); readers of earlier generations still see them."""
        if not filing_keys:
            return
        current = models.Filter(
            must=[models.FieldCondition(key="filing_key",
                                        match=models.MatchAny(any=list(filing_keys)))],
            must_not=[models.FieldCondition(key="until", range=models.Range(lte=version))])
        for name in (self.collection, self.facts_collection):
            self._call("retiring", self.client.set_payload, name, payload={"until": version},
                       points=current, wait=True)

    def roll_back(self, version: int) -> None:
        """Undo what builds after generation `version` wrote and never published (a build that
        died): their points go, their `until` marks come off."""
        later = models.Filter(must=[models.FieldCondition(key="born",
                                                          range=models.Range(gt=version))])
        marked = models.Filter(must=[models.FieldCondition(key="until",
                                                           range=models.Range(gt=version))])
        for name in (self.collection, self.facts_collection):
            self._call("rolling back", self.client.delete, name, wait=True,
                       points_selector=models.FilterSelector(filter=later))
            self._call("rolling back", self.client.delete_payload, name, keys=["until"],
                       points=marked, wait=True)

    def superseded(self, version: int) -> bool:
        """Some points or facts generation `version` no longer sees are still kept."""
        return any(self._call("counting", self.client.count, name, exact=True,
                              count_filter=_ended_by(version)).count
                   for name in (self.collection, self.facts_collection))

    def drop_superseded(self, version: int) -> None:
        """Delete the points and facts generation `version` no longer sees (`until <= version`):
        what its readers, and those of every later generation, never read."""
        gone = _ended_by(version)
        for name in (self.collection, self.facts_collection):
            self._call("cleaning up", self.client.delete, name, wait=True,
                       points_selector=models.FilterSelector(filter=gone))

    def visible(self, must: list | None = None) -> models.Filter | None:
        """A filter of `must` and what generation `self.version` sees (None: no condition)."""
        must_not = [] if self.version is None else [
            models.FieldCondition(key="born", range=models.Range(gt=self.version)),
            models.FieldCondition(key="until", range=models.Range(lte=self.version))]
        return models.Filter(must=must or None, must_not=must_not) if must or must_not else None

    def search(self, vector: np.ndarray, filters: Filters, limit: int) -> list[tuple[str, float]]:
        response = self._call(
            "searching", self.client.query_points, self.collection,
            query=[float(x) for x in vector], using=DENSE, query_filter=self._filter(filters),
            limit=limit, with_payload=["chunk_id"],
        )
        return ranked([((p.payload or {}).get("chunk_id", ""), p.score) for p in response.points])

    def search_terms(self, terms: tuple[list[int], list[float]], filters: Filters,
                     limit: int) -> list[tuple[str, float]]:
        if not terms[0]:
            return []
        response = self._call(
            "searching", self.client.query_points, self.collection,
            query=models.SparseVector(indices=terms[0], values=terms[1]), using=SPARSE,
            query_filter=self._filter(filters), limit=limit, with_payload=["chunk_id"],
        )
        return ranked([((p.payload or {}).get("chunk_id", ""), p.score) for p in response.points
                       if p.score > 0])

    def count(self) -> int:
        """Chunk points `self.version` sees (the state point holds no chunk)."""
        seen = self.visible() or models.Filter()
        has_chunk = models.IsEmptyCondition(is_empty=models.PayloadField(key="chunk_id"))
        wanted = models.Filter(must=seen.must, must_not=[*(seen.must_not or []), has_chunk])
        return self._call("counting", self.client.count, self.collection, exact=True,
                          count_filter=wanted).count

    def finish(self, *, optimize: bool = True) -> None:
        pass  # upserts were acknowledged with wait=True; the server optimizes by itself

    def close(self) -> None:
        pass  # the client is shared; whoever made it closes it

    def drop(self) -> None:
        for name in (self.collection, self.facts_collection):
            if self._call("checking", self.client.collection_exists, name):
                self._call("deleting", self.client.delete_collection, name)

    def _filter(self, filters: Filters) -> models.Filter | None:
        return self.visible([models.FieldCondition(key=field, match=models.MatchAny(any=values))
                             for field, values in filter_conditions(filters)])

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


def _ended_by(version: int) -> models.Filter:
    """The points an update to generation `version` (or an earlier one) took out."""
    return models.Filter(must=[models.FieldCondition(key="until",
                                                     range=models.Range(lte=version))])


def _fact_id(fact: dict) -> int | str:
    born = fact.get("born")
    return fact["row"] if born is None else str(uuid.uuid5(POINT_NAMESPACE,
                                                           f"fact {fact['row']}@{born}"))


def _reachable(client: QdrantClient) -> None:
    try:
        client.get_collections()
    except Exception as exc:
        raise ValueError(f"cannot reach Qdrant at {getattr(client, 'init_options', {}).get('url')}"
                         f": {type(exc).__name__}; check FINRAG_QDRANT_URL") from None


def point_alias(client: QdrantClient, alias: str, collection: str) -> None:
    """Make `alias` name `collection`, in one request (Qdrant applies the alias changes of one
    request atomically: a reader resolving it sees the old collection or the new one)."""
    store = ServerStore(client, collection)
    changes = []
    if store._call("reading aliases", aliased, client, alias) is not None:
        changes.append(models.DeleteAliasOperation(
            delete_alias=models.DeleteAlias(alias_name=alias)))
    changes.append(models.CreateAliasOperation(
        create_alias=models.CreateAlias(collection_name=collection, alias_name=alias)))
    store._call("publishing", client.update_collection_aliases, change_aliases_operations=changes)


def aliased(client: QdrantClient, alias: str) -> str | None:
    """The collection `alias` names, None when there is no such alias."""
    for description in client.get_aliases().aliases:
        if description.alias_name == alias:
            return description.collection_name
    return None
