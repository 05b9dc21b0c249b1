"""A search query's forward pass: the model's tokenizer, one forward pass of the same weights
under `torch.inference_mode`, mean pooling and normalization, i.e. what sentence-transformers
does for this model minus its per-call overhead, on one thread. Exported to ONNX once and run by
ONNX Runtime (faster than torch on one core for a query); without onnxruntime, or if its
vectors differed from torch's, traced and frozen with TorchScript. Either way the vectors equal
`encode`'s within ~2e-7 (tested). Nothing here imports torch until a forward pass is built."""

from __future__ import annotations

import numpy as np

from finrag.onnx_cache import PROBE, cached_onnx, onnx_session, save_export


def query_forward(tokenizer, threads: int, runtime: str, cpu_model):
    """token ids -> normalized float32 vector, with the weights inside sentence-transformers
    (the same ones `encode` uses), after checking that its pipeline is the one reproduced
    here. ONNX Runtime when it is installed, allowed (`runtime` "auto") and gives the same
    vectors as torch; else torch, traced and frozen (or eager). A cached export
    (finrag.onnx_cache) is used without loading torch; `cpu_model()` loads the CPU model."""
    if runtime == "auto":
        session = cached_onnx(tokenizer, threads)
        if session is not None:
            return OnnxForward(session)
    model = cpu_model()
    kinds = [type(m).__name__ for m in model]
    if kinds != ["Transformer", "Pooling", "Normalize"] or _pooling_mode(model[1]) != "mean":
        raise RuntimeError(f"query path expects Transformer + mean Pooling + Normalize, "
                           f"the model has {kinds}")
    module = mean_pooled(model[0].auto_model)
    if runtime == "auto":
        session = export_onnx(module, tokenizer, threads)
        if session is not None:
            return OnnxForward(session)
    return TorchForward(frozen(module, tokenizer), threads)


class TorchForward:
    def __init__(self, module, threads: int) -> None:
        self.module, self.threads = module, threads
        self.runtime = "eager" if module.__class__.__name__ == "MeanPooled" else "torchscript"

    def __call__(self, ids: list[int]) -> np.ndarray:
        import torch

        use_threads(self.threads)
        with torch.inference_mode():
            vector = self.module(torch.tensor([ids]))
        return vector.numpy().astype(np.float32, copy=True)


class OnnxForward:
    runtime = "onnxruntime"

    def __init__(self, session) -> None:
        self.session = session

    def __call__(self, ids: list[int]) -> np.ndarray:
        vector = self.session.run(None, {"ids": np.array([ids], dtype=np.int64)})[0]
        return np.asarray(vector, dtype=np.float32).copy()


def export_onnx(module, tokenizer, threads: int):
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
        session = onnx_session(exported, threads)
        with torch.inference_mode():
            for probe in (PROBE, "net sales by product category and geography " * 30):
                want = module(ids(probe)).numpy()
                got = session.run(None, {"ids": ids(probe).numpy()})[0]
                if got.shape != want.shape or np.abs(got - want).max() > 1e-5:
                    return None
            save_export(exported, module(ids(PROBE)).numpy())
    except Exception:  # no exporter for this model, or a session that cannot load: use torch
        return None
    finally:
        hf_logging.set_verbosity(verbosity)
    return session


def frozen(module, tokenizer):
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


def use_threads(n: int) -> None:
    """Set torch's intra-op thread count (process-wide; a no-op when it is already n)."""
    import torch

    if torch.get_num_threads() != n:
        torch.set_num_threads(n)


def mean_pooled(transformer):
    """The transformer, then mean pooling over one unpadded sequence, then L2 normalization
    (a module, so TorchScript can trace it whole; defined here so importing this module does
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
