"""Settings read once from the environment; every surface passes them down explicitly."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
MODEL_MAX_TOKENS = 256  # the model's window (word pieces, including [CLS] and [SEP])
EMBED_DIM = 384

RRF_K = 60  # Cormack et al. 2009; ranks count from 1
K_EACH = 50  # candidates each retriever contributes to fusion
TOP_K = 10
# Each chunk's stored vector: (1 - w) x its own embedding + w x its page's mean embedding,
# normalized (finrag.pagevectors.page_context_vectors). 0.5 = the chunk and its page weigh the same.
PAGE_CONTEXT = 0.5


@dataclass(frozen=True)
class Settings:
    data_dir: Path = field(default_factory=lambda: Path(os.environ.get("FINRAG_DATA_DIR", "data")))
    qdrant_url: str | None = field(
        default_factory=lambda: os.environ.get("FINRAG_QDRANT_URL") or None)
    qdrant_api_key: str | None = field(
        default_factory=lambda: os.environ.get("FINRAG_QDRANT_API_KEY") or None
    )
    # The name of a published index on the server at qdrant_url (`finrag-<id>`, printed by
    # `ingest build`): readers then read everything from the server and nothing local. Read
    # from FINRAG_QDRANT_INDEX by `from_env` only, so settings made for a data dir ignore it.
    qdrant_index: str | None = None

    @classmethod
    def from_env(cls, data_dir: str | Path | None = None) -> Settings:
        """The environment's settings; a data directory given explicitly (a CLI's --data-dir)
        names a local index, so FINRAG_QDRANT_INDEX does not apply to it."""
        s = cls()
        if data_dir is not None:
            return cls(data_dir=Path(data_dir), qdrant_url=s.qdrant_url,
                       qdrant_api_key=s.qdrant_api_key)
        return cls(data_dir=s.data_dir, qdrant_url=s.qdrant_url, qdrant_api_key=s.qdrant_api_key,
                   qdrant_index=os.environ.get("FINRAG_QDRANT_INDEX") or None)
