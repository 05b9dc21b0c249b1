"""A persistent cache of embeddings keyed by (model, text), shared by every index generation.

Re-ingesting a filing, or resuming a build that was killed, re-embeds nothing already embedded:
vectors are committed in batches as they are computed, so a killed build loses at most one batch.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable
from pathlib import Path

import numpy as np


def text_key(model: str, text: str) -> str:
    return hashlib.sha256(f"{model}\x1f{text}".encode()).hexdigest()


class EmbeddingCache:
    def __init__(self, path: Path, model: str, dim: int) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.model, self.dim = model, dim
        self._db = sqlite3.connect(path, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vec BLOB)")

    def missing(self, texts: list[str]) -> list[str]:
        """Distinct texts with no cached vector, in first-seen order."""
        have = self._lookup({text_key(self.model, t) for t in texts})
        seen, out = set(), []
        for t in texts:
            k = text_key(self.model, t)
            if k not in have and k not in seen:
                seen.add(k)
                out.append(t)
        return out

    def fill(self, texts: list[str], encode: Callable[[list[str]], np.ndarray],
             batch: int = 256, on_batch: Callable[[int], None] | None = None) -> None:
        """Embed the texts in batches, committing each batch."""
        for start in range(0, len(texts), batch):
            part = texts[start : start + batch]
            vectors = np.asarray(encode(part), dtype=np.float32)
            self._db.executemany(
                "INSERT OR REPLACE INTO vectors VALUES (?, ?)",
                ((text_key(self.model, t), v.tobytes()) for t, v in zip(part, vectors)),
            )
            self._db.commit()
            if on_batch:
                on_batch(len(part))

    def get(self, texts: list[str]) -> np.ndarray:
        keys = [text_key(self.model, t) for t in texts]
        found = self._lookup(set(keys))
        missing = [t for t, k in zip(texts, keys) if k not in found]
        if missing:
            raise KeyError(f"{len(missing)} texts have no cached embedding")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, k in enumerate(keys):
            out[i] = np.frombuffer(found[k], dtype=np.float32)
        return out

    def close(self) -> None:
        self._db.close()

    def _lookup(self, keys: set[str]) -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        ordered = sorted(keys)
        for start in range(0, len(ordered), 900):
            part = ordered[start : start + 900]
            marks = ",".join("?" * len(part))
            for k, v in self._db.execute(
                f"SELECT key, vec FROM vectors WHERE key IN ({marks})", part
            ):
                found[k] = v
        return found
