"""Half precision on a GPU only where it agrees with full precision: a GPU model's vectors of a
few document-like probe texts, fp16 against fp32, each within FP16_MIN_COSINE."""

from __future__ import annotations

import numpy as np

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


def half_if_close(model, batch_size: int) -> str:
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
