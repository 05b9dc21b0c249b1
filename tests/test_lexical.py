"""BM25: scores equal rank-bm25 on the same tokens; filters applied before top-k."""

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from finrag.lexical import BM25Index
from finrag.tokens import TOKENIZER_VERSION, tokenize


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> list[list[str]]:
    from finrag.ingest.read import read_filing  # real paragraphs of a real 10-K
    from finrag.ingest.sample import unpack_sample

    root = unpack_sample(tmp_path_factory.mktemp("lex")) / "sec-edgar-filings"
    unit = root / "AAPL" / "10-K" / "0000320193-24-000123"
    blocks = [b.text for b in read_filing(unit).blocks if len(b.text) > 200][:300]
    assert len(blocks) > 100
    return [tokenize(t) for t in blocks]


def test_okapi_scores_equal_rank_bm25(corpus):
    ours = BM25Index.build(corpus, idf="okapi")
    ref = BM25Okapi(corpus, k1=1.5, b=0.75, epsilon=0.25)
    for query in (["net", "sale"], ["iphone", "revenue", "2024"], ["risk", "supply", "chain"]):
        assert np.allclose(ours.scores(query), ref.get_scores(query), rtol=1e-5, atol=1e-6)


def test_lucene_idf_by_the_formula(corpus):
    index = BM25Index.build(corpus)
    n = len(corpus)
    df = sum("revenue" in d for d in corpus)
    doc = next(i for i, d in enumerate(corpus) if "revenue" in d)
    tf, dl = corpus[doc].count("revenue"), len(corpus[doc])
    avgdl = np.mean([len(d) for d in corpus])
    idf = np.log(1 + (n - df + 0.5) / (df + 0.5))
    want = idf * tf * 2.5 / (tf + 1.5 * (0.25 + 0.75 * dl / avgdl))
    assert index.scores(["revenue"])[doc] == pytest.approx(want, rel=1e-5)


def test_masked_search_is_top_k_of_the_masked_subset(corpus):
    index = BM25Index.build(corpus)
    rng = np.random.default_rng(7)
    mask = rng.random(len(corpus)) < 0.2
    query = ["net", "sale", "service"]
    scores = index.scores(query)
    brute = sorted((i for i in np.flatnonzero(mask) if scores[i] > 0),
                   key=lambda i: (-scores[i], i))[:10]
    assert [r for r, _ in index.search(query, 10, mask)] == brute


def test_idf_comes_from_the_whole_index():
    docs = [["rare", "x"], ["common", "x"], ["common", "y"], ["common", "z"]]
    index = BM25Index.build(docs)
    only_common = np.array([False, True, True, True])
    full = index.scores(["common"])[1]
    assert index.search(["common"], 1, only_common)[0][1] == pytest.approx(full)


def test_edge_cases():
    index = BM25Index.build([["a", "b"], ["b", "c"]])
    assert index.search([], 5) == []
    assert index.search(["zzz"], 5) == []
    assert index.search(["b"], 5, np.array([False, False])) == []
    assert len(index.search(["b"], 50)) == 2  # top_k larger than the corpus
    assert BM25Index.build([]).search(["a"], 5) == []


def test_save_load_roundtrip_and_tokenizer_check(tmp_path, corpus):
    index = BM25Index.build(corpus)
    index.save(tmp_path / "bm25")
    loaded = BM25Index.load(tmp_path / "bm25", expect_tokenizer=TOKENIZER_VERSION)
    assert loaded.search(["net", "sale"], 10) == index.search(["net", "sale"], 10)
    with pytest.raises(ValueError, match="tokenizer"):
        BM25Index.load(tmp_path / "bm25", expect_tokenizer="other-v9")
