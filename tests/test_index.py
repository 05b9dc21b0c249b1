"""Page-context vectors: what the vector store keeps for each chunk (finrag.index)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import shared_path

from finrag.config import Settings
from finrag.models import Chunk, Filters
from finrag.pagevectors import page_context_vectors


def _chunk(n: int, filing: str, page: int | None) -> Chunk:
    return Chunk(chunk_id=f"c{n}", filing_key=filing, ticker="TSLA", company="Tesla, Inc.",
                 fiscal_year=2024, form="10-K", section="Item 8",
                 section_title="Financial Statements", chunk_type="narrative", text=f"text {n}",
                 page=page)


def _unit(rows) -> np.ndarray:
    v = np.asarray(rows, dtype=np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_chunks_of_one_page_are_pulled_toward_the_page_and_others_keep_their_vector():
    chunks = [_chunk(0, "A", 1), _chunk(1, "A", 1), _chunk(2, "B", 1), _chunk(3, "A", 2),
              _chunk(4, "A", None)]
    raw = _unit([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [0, 1, 1]])
    out = page_context_vectors(chunks, raw, 0.5)
    assert np.allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-6)
    # filing A page 1 holds chunks 0 and 1: each moves halfway toward their normalized mean
    page = _unit([[1, 1, 0]])[0]
    for i in (0, 1):
        want = 0.5 * raw[i] + 0.5 * page
        assert np.allclose(out[i], want / np.linalg.norm(want), atol=1e-6)
    assert float(out[0] @ out[1]) > float(raw[0] @ raw[1]) + 0.5
    # page 1 of filing B is another page; a page of one chunk and an unknown page change nothing
    for i in (2, 3, 4):
        assert np.allclose(out[i], raw[i], atol=1e-6)


def test_weight_zero_keeps_the_embeddings_and_a_filing_does_not_depend_on_the_others():
    rng = np.random.default_rng(0)
    a = [_chunk(i, "A", i % 3) for i in range(9)]
    b = [_chunk(10 + i, "B", i % 2) for i in range(4)]
    raw = _unit(rng.normal(size=(13, 8)))
    assert np.array_equal(page_context_vectors(a + b, raw, 0.0), raw)
    alone = page_context_vectors(a, raw[:9], 0.5)
    together = page_context_vectors(a + b, raw, 0.5)
    assert np.allclose(alone, together[:9], atol=1e-6)
    assert page_context_vectors([], np.zeros((0, 8)), 0.5).shape == (0, 8)
    unpaged = [_chunk(i, "C", None) for i in range(3)]
    assert np.allclose(page_context_vectors(unpaged, raw[:3], 0.5), raw[:3])


@pytest.mark.slow
def test_page_context_puts_a_statement_page_first_for_a_question_about_it(tmp_path, monkeypatch,
                                                                         real_embedder):
    """FinanceBench: two General Mills FY2020 questions answered on its balance sheet and cash
    flow statement pages. Dense search (the real model) on bare chunk embeddings ranks the
    balance sheet below other pages; with page-context vectors both pages come first."""
    import json

    import finrag.config
    from finrag.ingest.build import build
    from finrag.search import HybridSearcher

    root = shared_path("financebench")
    pdf = root / "pdfs" / "GENERALMILLS_2020_10K.pdf"
    questions = [json.loads(line) for line in (root / "questions.dev.jsonl").open()
                 if '"GENERALMILLS_2020_10K"' in line]
    assert len(questions) == 2
    settings = Settings(data_dir=tmp_path / "data", qdrant_url=None)
    overrides = {pdf: {"ticker": "GIS", "fiscal_year": 2020}}
    filters = Filters(tickers=["GIS"], fiscal_years=[2020])

    def dense_ranks() -> list[int | None]:
        searcher = HybridSearcher(settings, real_embedder)
        ranks = []
        for q in questions:
            evidence = {e["evidence_page_num"] + 1 for e in q["evidence"]}  # 0-based in the data
            pages = [h.chunk.page for h in searcher.search(q["question"], filters, top_k=20).dense]
            ranks.append(next((i for i, p in enumerate(pages, 1) if p in evidence), None))
        searcher.close()
        return ranks

    monkeypatch.setattr(finrag.config, "PAGE_CONTEXT", 0.0)
    build([pdf], settings, real_embedder, real_embedder.count_tokens, overrides=overrides)
    bare = dense_ranks()
    monkeypatch.undo()
    build([pdf], settings, real_embedder, real_embedder.count_tokens, overrides=overrides,
          rebuild=True)  # every vector from the embedding cache
    with_context = dense_ranks()
    assert with_context == [1, 1], (bare, with_context)
    assert bare != with_context, bare  # the bare embeddings rank the balance sheet lower
