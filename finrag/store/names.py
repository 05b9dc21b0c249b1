"""Collection names on a shared Qdrant server, namespaced by the data directory that made them.

Several data directories can keep their vectors on one server (two teams; the FinanceBench
evaluation's own data dir, which inherits FINRAG_QDRANT_URL). Each data directory records a
random id in `data-dir-id.json`, created by its first server build and kept across
generations, and names every collection it creates `finrag-<id>-gen-NNNNNN` (and its facts
`finrag-<id>-gen-NNNNNN-facts`). The alias `finrag-<id>` names the published one: readers that
have only the server open the index by that name (finrag.remote). A data directory deletes only
collections of its own namespace (`owns`).

The file also records where the data directory was when the id was made. A data directory found
elsewhere (copied, or moved) takes a new id at its next build: a copy and its original then
never share a namespace, so one's garbage collection cannot drop the other's collections. The
price of a move is that the collections of the generations built before it are left on the
server (`finrag-<old id>-*`, safe to delete by hand once nothing serves them).
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path

ID_FILE = "data-dir-id.json"
PREFIX = "finrag-"


def collection_name(data_dir_id: str, generation: str) -> str:
    return f"{PREFIX}{data_dir_id}-{generation}"


def index_alias(data_dir_id: str) -> str:
    """The name readers give to reach this data directory's published index on the server
    (FINRAG_QDRANT_INDEX): an alias switched to each new generation's collection."""
    return f"{PREFIX}{data_dir_id}"


def published_alias(backend: dict) -> str | None:
    """The alias readers with only the server give for the generation a manifest's `backend`
    describes; None for the embedded engine, or a server generation written before its points
    carried their payloads (readers by name could not read it)."""
    if backend.get("kind") == "server" and backend.get("payloads"):
        return index_alias(backend["data_dir_id"])
    return None


def owns(data_dir_id: str | None, collection: str) -> bool:
    """The collection is in this data directory's namespace (created by it)."""
    return bool(data_dir_id) and collection.startswith(f"{PREFIX}{data_dir_id}-")


def data_dir_id(data_dir: Path, *, create: bool = False) -> str | None:
    """This data directory's id: None when it has none (or was copied or moved since the id was
    made) and `create` is False; a new one recorded in the data dir when `create` is True."""
    here = str(data_dir.resolve())
    try:
        recorded = json.loads((data_dir / ID_FILE).read_text())
        if recorded.get("path") == here and recorded.get("id"):
            return str(recorded["id"])
    except (FileNotFoundError, ValueError, AttributeError):
        pass
    if not create:
        return None
    new = secrets.token_hex(6)
    _write_atomically(data_dir / ID_FILE, json.dumps({"id": new, "path": here}) + "\n")
    return new


def _write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
