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


def test_a_trace_that_would_change_vectors_is_not_used():
    import torch

    from finrag.embed import _frozen

    class LengthDependent(torch.nn.Module):  # a trace bakes in the branch of its example input
        def forward(self, ids):
            return ids.float().mean() if ids.shape[1] > 10 else ids.float().sum()

    module = LengthDependent()
    assert _frozen(module, WordIds()) is module


def test_an_onnx_export_that_would_change_vectors_is_not_used():
    pytest.importorskip("onnxruntime")
    import torch

    from finrag.embed import _onnx

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
