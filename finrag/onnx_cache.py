"""The exported ONNX query model kept on disk (`onnx_cache_dir()`), keyed by the SHA-256 of the
model's weights and the export settings, with a probe vector checked on load: a later process
(a CLI, the app) runs queries without importing torch or sentence-transformers at all."""

from __future__ import annotations

import hashlib
import io
import json
import os
import tempfile
from functools import cache
from pathlib import Path

import numpy as np

from finrag.config import MODEL_MAX_TOKENS
from finrag.model import model_path

ONNX_EXPORT = "opset17-meanpool-v1"  # part of the cached model's key: bump when the export changes
PROBE = "revenue"  # the text whose vector is stored beside a cached export and checked on load


def onnx_session(model_bytes_or_path, threads: int):
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


def cached_onnx(tokenizer, threads: int):
    """The session of a cached export whose probe vector still matches, or None (no cache,
    no onnxruntime, an unreadable or different file: the caller exports anew)."""
    try:
        key = _export_key()
        path = onnx_cache_dir() / f"{key}.onnx"
        want = np.load(onnx_cache_dir() / f"{key}.probe.npy")
        session = onnx_session(str(path), threads)
        got = session.run(None, {"ids": np.array([tokenizer.encode(PROBE).ids], dtype=np.int64)})
        if got[0].shape != want.shape or np.abs(got[0] - want).max() > 1e-6:
            return None
    except Exception:  # missing, damaged or foreign file, or no onnxruntime
        return None
    return session


def save_export(exported: bytes, probe_vector: np.ndarray) -> None:
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
