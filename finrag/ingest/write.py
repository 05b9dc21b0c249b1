"""Embedding a build's chunks through the persistent cache (committed batch by batch, so a
killed run resumes) and writing a generation of them, whole or as an update, then publishing it."""

from __future__ import annotations

import numpy as np

from finrag.cache import EmbeddingCache
from finrag.faults import crash_point
from finrag.generation import publish, write_filings, write_update
from finrag.index import Index
from finrag.ingest.generations import next_name
from finrag.steps import step
from finrag.views import dense_text


def embed(settings, embedder, chunks, progress) -> int:
    cache = EmbeddingCache(settings.data_dir / "embeddings.sqlite", embedder.name, embedder.dim)
    try:
        todo = cache.missing([dense_text(c) for c in chunks])
        if progress:
            progress.embedding(len(todo), len(chunks))
        cache.fill(todo, embedder.encode, on_batch=lambda n: on_embedded(progress, n))
    finally:
        cache.close()
    return len(todo)


def on_embedded(progress, n: int) -> None:
    if progress:
        progress.embedded(n)
    crash_point("embed")  # after the batch is committed to the cache


def publish_whole(settings, model: tuple[str, int], batches, *, replace: bool = False,
                  writer_memory: float | None = None) -> str:
    """A generation of `batches` ((chunks, vectors, facts) of whole filings), published;
    `replace`: a batch holding a filing written before replaces it; `writer_memory`: GB the
    write may hold (`write_filings`)."""
    name = next_name(settings.data_dir)
    write_filings(settings, name, batches, model[0], model[1], replace=replace,
                  writer_memory=writer_memory)
    publish(settings.data_dir, name)
    crash_point("published")
    return name


def with_vectors(settings, filings: list, model: tuple[str, int]):
    """Each of `filings` ((chunks, facts)) with its chunks' embeddings (from the cache), taken
    off the list as it is handed on, so that a filing written is a filing let go."""
    cache = EmbeddingCache(settings.data_dir / "embeddings.sqlite", *model)
    try:
        filings.reverse()
        while filings:
            chunks, facts = filings.pop()
            yield chunks, _cached(cache, chunks, model[1]), facts
    finally:
        cache.close()


def publish_update(settings, base: Index, drop: list[str], chunks, facts) -> str:
    vectors = _vectors(settings, chunks, (base.manifest["model"], base.manifest["dim"]))
    name = next_name(settings.data_dir)
    write_update(settings, base, name, drop, chunks, vectors, facts)
    with step("publish"):
        publish(settings.data_dir, name)
    crash_point("published")
    return name


def _vectors(settings, chunks, model: tuple[str, int]) -> np.ndarray:
    """The chunks' embeddings by `model` (name, dimension), all in the cache (`embed` ran
    first; a removal's remaining chunks were embedded when they were indexed)."""
    cache = EmbeddingCache(settings.data_dir / "embeddings.sqlite", *model)
    try:
        return _cached(cache, chunks, model[1])
    finally:
        cache.close()


def _cached(cache: EmbeddingCache, chunks, dim: int) -> np.ndarray:
    if not chunks:
        return np.zeros((0, dim), dtype=np.float32)
    return cache.get([dense_text(c) for c in chunks])
