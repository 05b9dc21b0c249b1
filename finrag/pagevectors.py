"""Page-context vectors: each chunk's embedding pulled toward the mean embedding of its page."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from scipy import sparse

from finrag.models import Chunk


def page_codes(pages: Iterable[tuple[str, int | None]]) -> np.ndarray:
    """(filing key, page) of each chunk -> a small integer per distinct page of a filing, in
    first-seen order; -1 where the page is unknown."""
    codes: dict[tuple[str, int], int] = {}
    return np.fromiter((-1 if p is None else codes.setdefault((f, p), len(codes))
                        for f, p in pages), dtype=np.int64)


def page_context_vectors(chunks: list[Chunk], vectors: np.ndarray, weight: float) -> np.ndarray:
    """What the vector store keeps for each chunk: its embedding blended with the mean
    embedding of the chunks on its page (same filing, same page), renormalized:
    normalize((1 - weight) x own + weight x normalize(page mean)).

    A page is what an analyst reads as one unit. A statement's rows are split into several
    chunks, and most of them say nothing of what the statement is about ("Total 10,524 |
    9,430"); a narrative page's chunks share its topic. Pulling each chunk toward its page
    lets a question about the page find all of its chunks, while the chunk's own words still
    decide which of them ranks first. A chunk whose page is unknown keeps its own vector.
    Each page depends only on its own chunks, so the vectors of a filing do not change when
    other filings are added or removed."""
    vectors = np.asarray(vectors, dtype=np.float32)
    if not len(chunks) or weight == 0:
        return vectors
    page = page_codes((c.filing_key, c.page) for c in chunks)
    known = page >= 0
    if not known.any():
        return vectors
    rows = np.flatnonzero(known)
    members = sparse.csr_matrix((np.ones(len(rows), dtype=np.float32), (page[rows], rows)),
                                shape=(int(page.max()) + 1, len(chunks)))  # page x chunk
    pages = np.asarray(members @ vectors)
    pages /= np.maximum(np.linalg.norm(pages, axis=1, keepdims=True), 1e-12)
    context = pages[np.maximum(page, 0)]
    context[~known] = vectors[~known]  # an unknown page: the chunk is its own context
    out = (1 - weight) * vectors + weight * context
    out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
    return out
