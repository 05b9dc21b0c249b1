"""The query path gives the document path's vectors; the query-vector cache is an exact LRU."""

from __future__ import annotations

import numpy as np
import pytest

from finrag.config import Settings
from finrag.embed import Embedder
from finrag.models import Filters
from finrag.search import HybridSearcher

TEXTS = [
    "research and development expense",
    "How did services revenue change compared to the prior year?",
    "SG&A was $1,577 million (1,577) in Item 1A of the 10-K; 3M and R&D",
    "Net sales | 260,174 | 265,595",
    "café — naïve “quotes” 😀",
    "revenue " * 400,  # longer than the 256-token window: both paths keep its beginning
]


@pytest.mark.slow
def test_query_path_gives_the_document_vectors(real_embedder):
    documents = real_embedder.encode(TEXTS)
    queries = np.stack([real_embedder.encode_query(t) for t in TEXTS])
    assert queries.dtype == np.float32 and queries.shape == documents.shape
    assert np.allclose(np.linalg.norm(queries, axis=1), 1.0, atol=1e-6)
    cosines = (queries * documents).sum(axis=1)
    assert cosines.min() > 0.9999, cosines
    assert np.abs(queries - documents).max() < 1e-5


@pytest.mark.slow
def test_search_reuses_the_cached_query_vector(sample_index):
    embedder = Embedder()
    searcher = HybridSearcher(Settings(data_dir=sample_index, qdrant_url=None), embedder)
    first = searcher.search("services revenue", Filters())
    second = searcher.search("services revenue", Filters(tickers=["AAPL"]))
    assert embedder.query_encodes == 1
    assert first.dense and second.dense
    searcher.close()


class CountingEmbedder(Embedder):
    """The real class with its model call replaced: counts calls, returns a distinct vector."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.calls: list[str] = []

    def _forward(self, text: str) -> np.ndarray:
        self.calls.append(text)
        return np.full(self.dim, len(self.calls), dtype=np.float32)


def test_cache_returns_the_identical_vector_without_encoding_again():
    embedder = CountingEmbedder()
    first = embedder.encode_query("gross margin")
    again = embedder.encode_query("gross margin")
    assert again is first
    assert embedder.calls == ["gross margin"] and embedder.query_encodes == 1
    assert not first.flags.writeable  # one array is shared by every caller: nobody may edit it
    assert embedder.encode_query("gross margin ") is not first  # keyed by the exact text


def test_cache_evicts_the_least_recently_used():
    embedder = CountingEmbedder(query_cache_size=2)
    a = embedder.encode_query("a")
    embedder.encode_query("b")
    assert embedder.encode_query("a") is a  # "a" is now the most recent
    embedder.encode_query("c")  # evicts "b"
    assert embedder.encode_query("a") is a
    embedder.encode_query("b")
    assert embedder.calls == ["a", "b", "c", "b"]


def test_cache_size_zero_always_encodes():
    embedder = CountingEmbedder()
    embedder.encode_query("a")
    embedder.query_cache_size = 0  # as the bench does for its uncached figures
    embedder.encode_query("a")
    embedder.encode_query("a")
    assert embedder.calls == ["a", "a", "a"]


@pytest.mark.parametrize("kwargs", [{"query_cache_size": -1}, {"query_threads": 0},
                                    {"query_runtime": "tensorflow"}])
def test_bad_settings_are_refused_with_the_value(kwargs):
    with pytest.raises(ValueError, match=str(next(iter(kwargs.values())))):
        Embedder(**kwargs)


class WordIds:
    """A stand-in tokenizer: one id per word."""

    def encode(self, text):
        class Encoding:
            ids = [len(w) for w in text.split()]
        return Encoding()


@pytest.mark.slow  # imports torch
def test_a_trace_that_would_change_vectors_is_not_used():
    import torch

    from finrag.query_runtime import frozen as _frozen

    class LengthDependent(torch.nn.Module):  # a trace bakes in the branch of its example input
        def forward(self, ids):
            return ids.float().mean() if ids.shape[1] > 10 else ids.float().sum()

    module = LengthDependent()
    assert _frozen(module, WordIds()) is module


@pytest.mark.slow  # imports torch
def test_an_onnx_export_that_would_change_vectors_is_not_used():
    pytest.importorskip("onnxruntime")
    import torch

    from finrag.query_runtime import export_onnx as _onnx

    class LengthDependent(torch.nn.Module):  # the export bakes in the branch of its example
        def forward(self, ids):
            return (ids.float().mean() if ids.shape[1] > 10 else ids.float().sum()).reshape(1)

    assert _onnx(LengthDependent(), WordIds(), 1) is None


@pytest.mark.slow
def test_query_path_runs_on_onnxruntime_when_installed(real_embedder):
    pytest.importorskip("onnxruntime")
    real_embedder.encode_query("warm up")
    assert real_embedder.query_runtime == "onnxruntime"


@pytest.mark.slow
def test_torch_query_path_is_traced_and_gives_the_same_vectors(real_embedder):
    torch_path = Embedder(query_runtime="torch")
    assert torch_path.query_runtime == "torchscript"
    assert type(torch_path._query_forward.module).__name__ == "RecursiveScriptModule"
    for text in TEXTS:
        assert np.abs(torch_path.encode_query(text) - real_embedder.encode_query(text)).max() < 1e-5


QUERY_IN_A_FRESH_PROCESS = """
import sys, numpy as np
from finrag.embed import Embedder
e = Embedder()
v = e.encode_query("capital expenditures")
np.save(sys.argv[1], v)
print(e.query_runtime, "torch" in sys.modules, "sentence_transformers" in sys.modules)
"""


def _fresh_query(tmp_path, cache_dir, name):
    import os
    import subprocess
    import sys

    env = dict(os.environ, FINRAG_CACHE_DIR=str(cache_dir), HF_HUB_OFFLINE="1")
    out = tmp_path / f"{name}.npy"
    done = subprocess.run([sys.executable, "-c", QUERY_IN_A_FRESH_PROCESS, str(out)], env=env,
                          capture_output=True, text=True, timeout=600, check=True)
    return done.stdout.split(), np.load(out)


@pytest.mark.slow
def test_a_later_process_runs_queries_from_the_cached_export_without_torch(tmp_path,
                                                                           real_embedder):
    cache = tmp_path / "cache"
    first, v1 = _fresh_query(tmp_path, cache, "first")
    assert first == ["onnxruntime", "True", "True"]  # exported with torch, then saved
    second, v2 = _fresh_query(tmp_path, cache, "second")
    assert second == ["onnxruntime", "False", "False"]  # neither torch nor the library loaded
    assert np.array_equal(v1, v2)
    want = real_embedder.encode(["capital expenditures"])[0]
    assert np.abs(v2 - want).max() < 1e-5

    # a damaged export is not used: the next process exports anew instead of failing
    from finrag.onnx_cache import cached_onnx as _cached_onnx

    tokenizer = real_embedder._query_tokenizer
    os_env = {"FINRAG_CACHE_DIR": str(cache)}
    with pytest.MonkeyPatch.context() as mp:
        for key, value in os_env.items():
            mp.setenv(key, value)
        assert _cached_onnx(tokenizer, 1) is not None
        for f in (cache / "onnx").glob("*.onnx"):
            f.write_bytes(b"not a model")
        assert _cached_onnx(tokenizer, 1) is None
