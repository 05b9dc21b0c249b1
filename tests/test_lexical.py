"""BM25 in the engine: the scores the embedded engine and a Qdrant server return are the BM25
formula's (Lucene idf) on the same tokens, and filters apply before the top-k."""

import zlib

import numpy as np
import pytest
from qdrant_client import QdrantClient

from finrag.lexical import average_length, document_vector, query_vector, term_id
from finrag.models import Filters
from finrag.store.base import StorePoint
from finrag.store.edge import EdgeStore
from finrag.store.server import ServerStore
from finrag.tokens import tokenize

K1, B = 1.5, 0.75


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> list[list[str]]:
    from finrag.ingest.read import read_filing  # real paragraphs of a real 10-K
    from finrag.ingest.sample import unpack_sample

    root = unpack_sample(tmp_path_factory.mktemp("lex")) / "sec-edgar-filings"
    unit = root / "AAPL" / "10-K" / "0000320193-24-000123"
    blocks = [b.text for b in read_filing(unit).blocks if len(b.text) > 200][:300]
    assert len(blocks) > 100
    return [tokenize(t) for t in blocks]


def _reference(corpus, query) -> np.ndarray:
    """BM25 with Lucene's idf, written out from the formula, one document at a time."""
    n, avgdl = len(corpus), np.mean([len(d) for d in corpus])
    out = np.zeros(n)
    for term in query:
        df = sum(term in d for d in corpus)
        idf = np.log(1 + (n - df + 0.5) / (df + 0.5))
        for i, doc in enumerate(corpus):
            tf = doc.count(term)
            if tf:
                out[i] += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * len(doc) / avgdl))
    return out


def _points(corpus):
    avgdl = average_length(map(len, corpus))
    rng = np.random.default_rng(0)
    return [StorePoint(f"c{i:04d}", rng.normal(size=4).astype(np.float32),
                       document_vector(doc, avgdl),
                       {"ticker": "EVEN" if i % 2 == 0 else "ODD", "fiscal_year": 2024,
                        "chunk_type": "narrative", "filing_key": f"f{i % 3}"})
            for i, doc in enumerate(corpus)]


@pytest.fixture(scope="module", params=["edge", "server"])
def store(request, corpus, tmp_path_factory):
    if request.param == "edge":
        s = EdgeStore.create(tmp_path_factory.mktemp("edge") / "vectors", 4)
    else:
        s = ServerStore.create(QdrantClient(location=":memory:"), "lex", 4)
    s.upsert(_points(corpus))
    s.finish()
    yield s
    s.close()


QUERIES = (["net", "sale"], ["iphone", "revenue", "2024"], ["risk", "supply", "chain"],
           ["revenue", "revenue", "tax"])  # a repeated term counts again


@pytest.mark.parametrize("query", QUERIES, ids=lambda q: "-".join(q))
def test_engine_scores_are_bm25_with_lucene_idf(store, corpus, query):
    want = _reference(corpus, query)
    got = dict(store.search_terms(query_vector(query), Filters(), len(corpus)))
    assert len(got) == int((want > 0).sum())  # only documents sharing a term come back
    for cid, score in got.items():
        assert score == pytest.approx(want[int(cid[1:])], rel=1e-4)


def test_filtered_search_is_the_top_k_of_the_filtered_subset(store, corpus):
    query = ["net", "sale", "service"]
    scores = _reference(corpus, query)
    odd = [i for i in range(1, len(corpus), 2) if scores[i] > 0]
    brute = sorted(odd, key=lambda i: (-round(scores[i], 6), f"c{i:04d}"))[:10]
    got = store.search_terms(query_vector(query), Filters(tickers=["ODD"]), 10)
    assert [cid for cid, _ in got] == [f"c{i:04d}" for i in brute]


def test_idf_counts_the_whole_index_not_the_filtered_part(store, corpus):
    query = ["revenue"]
    whole = dict(store.search_terms(query_vector(query), Filters(), len(corpus)))
    odd = store.search_terms(query_vector(query), Filters(tickers=["ODD"]), len(corpus))
    assert odd and all(score == pytest.approx(whole[cid]) for cid, score in odd)


def test_deleting_a_filing_takes_its_points_out_of_both_legs(corpus, tmp_path):
    s = EdgeStore.create(tmp_path / "v", 4)
    s.upsert(_points(corpus))
    s.delete_filings(["f1"])
    left = s.search_terms(query_vector(["revenue"]), Filters(), len(corpus))
    assert left and all(int(cid[1:]) % 3 != 1 for cid, _ in left)
    assert s.count() == sum(i % 3 != 1 for i in range(len(corpus)))
    s.close()


def test_edge_cases(store, corpus):
    assert store.search_terms(query_vector([]), Filters(), 5) == []
    assert store.search_terms(query_vector(["zzzunseen"]), Filters(), 5) == []
    assert store.search_terms(query_vector(["revenue"]), Filters(tickers=["NONE"]), 5) == []
    assert average_length([]) == 1.0 and average_length([0, 0]) == 1.0
    assert average_length(iter([3, 5])) == 4.0  # counts, streamed


def test_terms_sharing_a_dimension_add_up_instead_of_repeating_it():
    pair = ("foster", "theextension")  # a CRC-32 collision met in real filings
    assert term_id(pair[0]) == term_id(pair[1]) == zlib.crc32(b"foster")
    dims, weights = document_vector([pair[0], pair[1], "other"], 3.0)
    assert len(dims) == len(set(dims)) == 2  # the engine refuses a repeated dimension
    alone, _ = document_vector([pair[0], "other"], 2.0)
    assert dims == alone
    q_dims, q_counts = query_vector([pair[0], pair[1]])
    assert q_dims == [term_id(pair[0])] and q_counts == [2.0]
