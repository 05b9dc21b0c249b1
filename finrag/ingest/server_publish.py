"""Publishing the current generation to readers that have only the Qdrant server: its manifest
as the collection's state point, the alias on its collection, and (after a grace wait) deleting
the points an in-place update superseded."""

from __future__ import annotations

import time

from finrag.config import Settings
from finrag.faults import crash_point
from finrag.generation import table_facets_at
from finrag.index import GENERATIONS, current_generation, read_manifest
from finrag.store.names import published_alias

# Seconds between publishing an in-place update on a server and deleting the points it
# superseded: a reader resolves its generation before each search and a search takes well
# under a second, so one that began just before the switch still finds its points.
SUPERSEDED_GRACE_S = 5.0


def publish_server(settings: Settings) -> None:
    """Publish the generation CURRENT names to readers that have only the server: its manifest
    as the collection's state point, then the alias (`finrag-<id>`, FINRAG_QDRANT_INDEX) on
    its collection; then delete what an update that died left and, after the grace wait, the
    points this generation superseded. Each step is done only if it is not yet, so a build
    killed after publishing CURRENT is completed by the next run. The generation before stays
    readable on the server for the grace wait only (its directory is kept longer: a reader of
    the data dir may hold it open, but it switches at its next search, as a reader by name
    does)."""
    name = current_generation(settings.data_dir)
    if not settings.qdrant_url or name is None:
        return
    manifest = read_manifest(settings.data_dir, name)
    backend = manifest["backend"]
    alias = published_alias(backend)
    if alias is None:  # the embedded engine, or a server generation from before readers by name
        return
    from finrag.store.base import StoreError
    from finrag.store.clients import client_for
    from finrag.store.server import ServerStore, aliased, point_alias

    client = client_for(settings)
    store = ServerStore(client, backend["collection"])
    try:
        if (store.state(["generation"]) or {}).get("generation") != name:
            if "facets" not in manifest:  # a generation of 2026-12-05 kept them on the server
                manifest = {**manifest, "facets": table_facets_at(
                    settings.data_dir / GENERATIONS / name)}
            store.publish_state(manifest)
            crash_point("stated")
        if store._call("reading aliases", aliased, client, alias) != backend["collection"]:
            point_alias(client, alias, backend["collection"])
        crash_point("aliased")
        if backend.get("versioned"):
            store.roll_back(backend["version"])  # what an update that died left, unpublished
            if store.superseded(backend["version"]):
                time.sleep(SUPERSEDED_GRACE_S)  # readers of the one before may be searching
                store.drop_superseded(backend["version"])
                crash_point("superseded")
    except StoreError as exc:
        raise StoreError(f"{name} is published in {settings.data_dir}, but the server index "
                         f"{alias} could not be pointed at it ({exc}); run the build again "
                         "to finish") from None
