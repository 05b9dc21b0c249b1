"""BM25 over token lists: term weights precomputed into a sparse matrix, filter-aware search.

Build computes, once, the BM25 weight of every (term, document) pair into a CSC matrix, so a
query is a sum of a few sparse columns. Search takes a row mask (the filter) and ranks only the
rows that pass it, with IDF and average length from the whole index. Scores agree with
rank-bm25's BM25Okapi for `idf="okapi"` (tested); the default `idf="lucene"`,
log(1 + (N - df + 0.5) / (df + 0.5)), is never negative, so common words cannot be floored up to
outweigh content words the way BM25Okapi's epsilon floor lets them on real filings.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
from scipy import sparse

from finrag.tokens import TOKENIZER_VERSION

PARAMS_FILE = "params.index.json"


class BM25Index:
    def __init__(self, matrix: sparse.csc_matrix, vocab: dict[str, int], params: dict) -> None:
        self.matrix = matrix
        self.vocab = vocab
        self.params = params
        self.k1, self.b = params["k1"], params["b"]
        self.idf_variant = params["idf"]

    @property
    def n_docs(self) -> int:
        return self.matrix.shape[0]

    @classmethod
    def build(cls, docs: list[list[str]], *, k1: float = 1.5, b: float = 0.75,
              idf: str = "lucene", epsilon: float = 0.25,
              tokenizer: str = TOKENIZER_VERSION) -> BM25Index:
        if k1 < 0 or not 0 <= b <= 1:
            raise ValueError(f"need k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}")
        if idf not in ("lucene", "okapi"):
            raise ValueError(f"idf must be 'lucene' or 'okapi', got {idf!r}")
        vocab: dict[str, int] = {}
        rows, cols, tfs = [], [], []
        lengths = np.array([len(d) for d in docs], dtype=np.float64)
        for row, doc in enumerate(docs):
            for term, tf in Counter(doc).items():
                rows.append(row)
                cols.append(vocab.setdefault(term, len(vocab)))
                tfs.append(tf)
        n = len(docs)
        params = {"k1": k1, "b": b, "idf": idf, "epsilon": epsilon, "tokenizer": tokenizer,
                  "n_docs": n}
        if not tfs:
            return cls(sparse.csc_matrix((n, 0), dtype=np.float32), vocab, params)
        rows_a, cols_a, tf_a = np.array(rows), np.array(cols), np.array(tfs, dtype=np.float64)
        df = np.bincount(cols_a, minlength=len(vocab))
        idf_values = _idf(df, n, idf, epsilon)
        avgdl = lengths.mean() or 1.0
        norm = k1 * (1 - b + b * lengths[rows_a] / avgdl)
        weights = idf_values[cols_a] * tf_a * (k1 + 1) / (tf_a + norm)
        matrix = sparse.csc_matrix((weights.astype(np.float32), (rows_a, cols_a)),
                                   shape=(n, len(vocab)))
        return cls(matrix, vocab, params)

    def scores(self, query_tokens: list[str]) -> np.ndarray:
        """BM25 score of every row (repeated query terms count again, as in rank-bm25)."""
        out = np.zeros(self.n_docs, dtype=np.float64)
        m = self.matrix
        for term in query_tokens:
            col = self.vocab.get(term)
            if col is None:
                continue
            start, end = m.indptr[col], m.indptr[col + 1]
            out[m.indices[start:end]] += m.data[start:end]
        return out

    def search(self, query_tokens: list[str], top_k: int,
               mask: np.ndarray | None = None) -> list[tuple[int, float]]:
        """(row, score) best first among rows passing `mask`; score ties by lower row."""
        if top_k < 1 or self.n_docs == 0:
            return []
        scores = self.scores(query_tokens)
        keep = scores > 0
        if mask is not None:
            keep &= mask
        rows = np.flatnonzero(keep)
        if rows.size > top_k:
            part = np.argpartition(-scores[rows], top_k - 1)[:top_k]
            cutoff = scores[rows[part]].min()
            rows = rows[scores[rows] >= cutoff]  # keep ties at the cut, sorted below
        order = np.lexsort((rows, -scores[rows]))[:top_k]
        return [(int(rows[i]), float(scores[rows[i]])) for i in order]

    def save(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        m = self.matrix
        np.save(directory / "data.npy", m.data)
        np.save(directory / "indices.npy", m.indices)
        np.save(directory / "indptr.npy", m.indptr)
        (directory / "vocab.json").write_text(json.dumps(self.vocab))
        (directory / PARAMS_FILE).write_text(json.dumps(
            {**self.params, "n_terms": m.shape[1]}, indent=2, sort_keys=True))

    @classmethod
    def load(cls, directory: Path, expect_tokenizer: str | None = None) -> BM25Index:
        try:
            params = json.loads((directory / PARAMS_FILE).read_text())
        except FileNotFoundError:
            raise ValueError(f"no BM25 index in {directory}") from None
        if expect_tokenizer and params.get("tokenizer") != expect_tokenizer:
            raise ValueError(
                f"BM25 index in {directory} was built with tokenizer {params.get('tokenizer')!r},"
                f" this finrag uses {expect_tokenizer!r}: rebuild the index"
            )
        arrays = [np.load(directory / f"{name}.npy", mmap_mode="r")
                  for name in ("data", "indices", "indptr")]
        matrix = sparse.csc_matrix(tuple(arrays), shape=(params["n_docs"], params["n_terms"]))
        vocab = json.loads((directory / "vocab.json").read_text())
        return cls(matrix, vocab, params)


def _idf(df: np.ndarray, n: int, variant: str, epsilon: float) -> np.ndarray:
    if variant == "lucene":
        return np.log1p((n - df + 0.5) / (df + 0.5))
    idf = np.log((n - df + 0.5) / (df + 0.5))  # rank-bm25 BM25Okapi, with its epsilon floor
    return np.where(idf < 0, epsilon * idf.mean(), idf)
