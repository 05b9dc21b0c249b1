"""Where documents are embedded: the device, the batch, and fp16 only where it stays exact."""

from __future__ import annotations

import numpy as np
import pytest

from finrag.embed import Embedder
from finrag.gpu_precision import FP16_PROBES, fp16_agrees
from finrag.gpu_precision import half_if_close as _half_if_close


def _unit(rows: np.ndarray) -> np.ndarray:
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def _tilted(vectors: np.ndarray, cosine: float) -> np.ndarray:
    """Each vector turned towards an orthogonal direction until its cosine is `cosine`."""
    other = np.roll(vectors, 1, axis=1)
    other -= np.sum(other * vectors, axis=1, keepdims=True) * vectors
    other = _unit(other)
    return cosine * vectors + np.sqrt(1 - cosine**2) * other


def test_fp16_is_kept_only_within_cosine_0999_of_fp32():
    full = _unit(np.random.default_rng(0).normal(size=(5, 384)))
    assert fp16_agrees(full, _tilted(full, 0.9995))
    assert not fp16_agrees(full, _tilted(full, 0.998))
    broken = full.copy()
    broken[2, 7] = np.nan
    assert not fp16_agrees(full, broken)


class DriftingModel:
    """A stand-in for a GPU model whose half precision drifts by `cosine`."""

    def __init__(self, cosine: float) -> None:
        self.cosine, self.dtype = cosine, "fp32"
        self.full = _unit(np.random.default_rng(1).normal(size=(len(FP16_PROBES), 384)))

    def encode(self, texts, **_):
        return self.full if self.dtype == "fp32" else _tilted(self.full, self.cosine)

    def half(self):
        self.dtype = "fp16"

    def float(self):
        self.dtype = "fp32"


@pytest.mark.parametrize(("cosine", "kept"), [(0.99999, "fp16"), (0.99, "fp32")])
def test_a_gpu_model_falls_back_to_fp32_when_fp16_drifts(cosine, kept):
    model = DriftingModel(cosine)
    assert _half_if_close(model, 256) == kept
    assert model.dtype == kept


def test_the_device_and_batch_follow_the_setting(monkeypatch):
    monkeypatch.delenv("FINRAG_EMBED_DEVICE", raising=False)
    assert (Embedder(device="cpu").device, Embedder(device="cpu").batch_size) == ("cpu", 16)
    monkeypatch.setenv("FINRAG_EMBED_DEVICE", "cuda")
    assert (Embedder().device, Embedder().batch_size) == ("cuda", 256)
    assert Embedder(batch_size=64).batch_size == 64


@pytest.mark.slow  # imports torch
def test_without_a_gpu_documents_embed_on_the_cpu(monkeypatch):
    import torch

    monkeypatch.delenv("FINRAG_EMBED_DEVICE", raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert Embedder().device == "cpu"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert Embedder().device == "cuda"


def test_a_pickled_embedder_counts_tokens_in_another_process_without_its_model():
    import pickle

    embedder = Embedder(device="cpu")
    texts = ["Total net sales | 391,035", "Item 7. Management's Discussion and Analysis"]
    want = embedder.count_tokens(texts)
    copy = pickle.loads(pickle.dumps(embedder.count_tokens))
    assert copy(texts) == want
    assert copy.__self__._model is None and copy.__self__.device == "cpu"
