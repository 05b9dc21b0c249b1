"""Which generations a data dir keeps: the next one's name, what a build that died left (never
published: deleted), and garbage collection of the old ones with their Qdrant collections."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from finrag.config import Settings
from finrag.faults import crash_point
from finrag.index import GENERATIONS, current_generation, generation_number
from finrag.store.names import collection_name, data_dir_id, owns

KEEP_GENERATIONS = 2  # the published one and the one before (a reader may still hold it)


def next_name(data_dir: Path) -> str:
    """One past every generation there, temporary ones included (one whose collection could not
    be deleted yet is kept, and its name stays taken)."""
    root = data_dir / GENERATIONS
    names = [p.name.removeprefix(".tmp-") for p in root.glob("*gen-*")]
    return f"gen-{max((generation_number(n) for n in names), default=0) + 1:06d}"


def remove_leftovers(settings: Settings) -> None:
    """What a build that died leaves never became visible; delete it: temporary generations,
    and finished ones it did not live to publish (numbered after the published one). Left in
    place, the next garbage collection would keep such an orphan as "the one before" and delete
    the generation readers were actually serving."""
    data_dir = settings.data_dir
    for tmp in (data_dir / GENERATIONS).glob(".tmp-*"):
        drop_generation(settings, tmp)
    current = generation_number(current_generation(data_dir) or "gen-000000")
    for gen in (data_dir / GENERATIONS).glob("gen-*"):
        if generation_number(gen.name) > current:
            drop_generation(settings, gen)


def collect_garbage(settings: Settings) -> None:
    """Delete all but the last KEEP_GENERATIONS generations (the published one and the one
    before). Run after `publish_server`: what the server serves must never be collected here."""
    current = current_generation(settings.data_dir)
    root = settings.data_dir / GENERATIONS
    gens = sorted(p for p in root.glob("gen-*") if p.name != current)
    for old in gens[: max(0, len(gens) - (KEEP_GENERATIONS - 1))]:
        drop_generation(settings, old)
        crash_point("gc")


def drop_generation(settings: Settings, path: Path) -> None:
    """Delete a generation, and its Qdrant collection when this data directory created it
    (finrag.store.names): a collection of another data directory, or of one made before
    collections were namespaced, stays on the server. When the server cannot be asked, the
    generation stays too, so the next build retries and its collection is not forgotten."""
    collection = _own_collection(settings, path)
    if collection:
        from finrag.store.base import StoreError
        from finrag.store.clients import client_for
        from finrag.store.server import ServerStore

        try:
            ServerStore.drop_if_exists(client_for(settings), collection)
        except (StoreError, ValueError):
            return
    shutil.rmtree(path, ignore_errors=True)


def _own_collection(settings: Settings, path: Path) -> str | None:
    """The Qdrant collection of generation `path` if this data directory created it and no
    other generation of it reads it (updates share their base's collection), else None. Its
    manifest names it; a generation that died before writing one (`.tmp-gen-...`) had its
    collection named in this data directory's namespace."""
    if not settings.qdrant_url:
        return None
    own = data_dir_id(settings.data_dir)
    collection = _collection_of(path)
    if collection is None and own:
        collection = collection_name(own, path.name.removeprefix(".tmp-"))
    others = {_collection_of(p) for p in (settings.data_dir / GENERATIONS).glob("*gen-*")
              if p != path}
    return collection if owns(own, collection or "") and collection not in others else None


def _collection_of(path: Path) -> str | None:
    """The collection generation `path`'s manifest names (None: no manifest, or no server)."""
    try:
        return json.loads((path / "manifest.json").read_text())["backend"].get("collection")
    except (OSError, ValueError, KeyError, AttributeError):
        return None
