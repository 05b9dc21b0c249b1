"""HybridSearcher: dense and BM25 retrieval under the same filters, fused by weighted RRF.

Both retrievers apply the filters before taking their top `k_each`: the vector store gets the
payload filter inside its query; BM25 scores only the rows that pass (with IDF and average
length from the whole index). Near-duplicates (the same text in several filings or tables) are
collapsed before fusion so they cannot fill the top-k: in each retriever's list, the chunks with
the same normalized text keep only the best-ranked one, under its own id, page and score. A hit
shown (and a page voted for) is always one its retriever returned; two retrievers that ranked
different copies vote for different chunks.
"""

from __future__ import annotations

import re
import threading
import time
import unicodedata
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from finrag.asking import question_part
from finrag.config import K_EACH, MODEL_MAX_TOKENS, RRF_K, TOP_K, Settings
from finrag.fusion import rrf
from finrag.index import Index
from finrag.lexical import query_vector
from finrag.models import Chunk, Filters, Hit, SearchResult
from finrag.published import open_index
from finrag.routing import WEIGHT as ROUTE_WEIGHT
from finrag.routing import holds, routes
from finrag.store.base import StoreError
from finrag.tokens import tokenize
from finrag.vocabulary import expand as expand_query
from finrag.vocabulary import phrase_terms

MAX_QUERY_CHARS = 2000
NO_MATCH = "No indexed chunk matches these filters."
# C0 and C1 controls, and lone surrogates (bytes in argv that were not UTF-8): the model's
# tokenizer refuses a string holding one
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


class QueryError(ValueError):
    """A query or search setting that cannot be run; the message says why."""


def clean_query(query: str) -> str:
    text = _CONTROL.sub(" ", unicodedata.normalize("NFKC", query or ""))
    text = " ".join(text.split())
    if not text:
        raise QueryError("the question is empty: type a few words, e.g. 'services revenue'")
    if len(text) > MAX_QUERY_CHARS:
        raise QueryError(
            f"the question is {len(text):,} characters long; keep it under {MAX_QUERY_CHARS:,}"
        )
    return text


class HybridSearcher:
    """Answers queries from the published index; picks up a newer generation on its own."""

    def __init__(self, settings: Settings, embedder, *, overlap: bool = True) -> None:
        """`overlap`: run the query's model pass on a worker thread while this thread scores
        BM25 (onnxruntime and torch release the GIL in the forward pass); False runs one after
        the other. Results are the same either way."""
        self.settings = settings
        self.embedder = embedder
        self.overlap = overlap
        self._index: Index | None = None
        # Generations replaced by a newer one and not closed yet. One is closed when no query
        # holds it (`_queries`) and it is not `_grace`, the last one retired, which stays open
        # one swap longer for callers of `index` outside a query (the app's facets).
        self._retired: list[Index] = []
        self._grace: Index | None = None
        self._queries: dict[Index, int] = {}  # generation -> queries running on it
        self._lock = threading.Lock()
        self._workers: ThreadPoolExecutor | None = None

    @property
    def index(self) -> Index:
        with self._lock:
            return self._current()

    def search(self, query: str, *args, **kwargs) -> SearchResult:
        """`_search` (arguments below) on the generation published when the query starts: the
        query holds it to the end, however many generations are published meanwhile."""
        with self._lock:
            index = self._current()
            self._queries[index] = self._queries.get(index, 0) + 1
        try:
            return self._search(index, query, *args, **kwargs)
        finally:
            with self._lock:
                self._queries[index] -= 1
                if not self._queries[index]:
                    del self._queries[index]
                self._close_idle()

    def _current(self) -> Index:
        """The generation to serve (the lock is held): the published one, opened on first use
        and again when CURRENT names another."""
        if self._index is None:
            self._index = open_index(self.settings)
        elif self._index.is_stale():
            fresh = open_index(self.settings)
            self._retire(grace=True)
            self._index = fresh
        return self._index

    def _retire(self, *, grace: bool) -> None:
        """Retire the served generation (the lock is held); `grace`: keep it open one swap
        longer even when no query holds it."""
        if self._index is not None:
            self._retired.append(self._index)
        self._grace = self._index if grace else None
        self._index = None
        self._close_idle()

    def _close_idle(self) -> None:
        """Close every retired generation that no query holds, but the grace one."""
        for index in [i for i in self._retired if i is not self._grace and i not in self._queries]:
            self._retired.remove(index)
            index.close()

    def _search(
        self,
        index: Index,
        query: str,
        filters: Filters | None = None,
        top_k: int = TOP_K,
        *,
        k_each: int = K_EACH,
        rrf_k: int = RRF_K,
        weights: tuple[float, float] = (1.0, 1.0),
        expand: bool = True,
        fuse_by: str = "page",
        route: bool = True,
    ) -> SearchResult:
        """`expand`: add the statement wording of analysts' terms (finrag.vocabulary) to the
        query of both retrievers; the added phrases are in `result.expansions`.
        `fuse_by`: "page" (default) fuses the two lists by page, one fused hit per page of a
        filing, each retriever voting with its best-ranked chunk on that page; "chunk" fuses
        chunk by chunk. The dense and BM25 lists are chunk lists either way.
        `route`: give the candidates printed where the question is answered (MD&A for a "why
        did it change", the statements of the line items it names: finrag.routing) a third,
        half-weight vote; `result.routed` says which places."""
        filters = filters or Filters()
        text = clean_query(query)
        _check_settings(top_k, k_each, rrf_k, fuse_by, weights)
        result = SearchResult(query=text, filters=filters, generation=index.name,
                              expansions=expand_query(text) if expand else [],
                              routed=list(routes(text)) if route else [])
        if len(index) == 0:
            result.message = NO_MATCH
            return result
        k_each = min(k_each, len(index))  # no more candidates than chunks (and no overflow)
        timings: dict[str, float] = {}
        asked = " ".join([text, *result.expansions])
        vector = self._start_embedding(asked, timings)  # a Future while the model runs
        bm25 = self._bm25(index, bm25_tokens(text, result.expansions), filters, k_each, timings)
        too_long = self._too_long(text)
        dense = self._dense(index, vector, filters, k_each, timings)
        if not dense:  # the dense leg returns some chunk of any that pass the filters
            result.message = NO_MATCH
            return result
        self._assemble(result, index, dense, bm25, top_k, rrf_k, weights, fuse_by, timings)
        result.timings_ms = timings
        if too_long:
            result.message = (
                f"The question is longer than the model's {MODEL_MAX_TOKENS}-token window: "
                "dense search used its beginning, BM25 all of it."
            )
        return result

    def close(self) -> None:
        """Close every generation now, but one a query still runs on: that one when it ends."""
        with self._lock:
            self._retire(grace=False)
        if self._workers is not None:
            self._workers.shutdown(wait=False)
            self._workers = None

    # --- retrievers ------------------------------------------------------------------------

    def _start_embedding(self, text, timings):
        """The query vector, or (overlap on, vector not cached) a Future of it from a worker."""
        cached = getattr(self.embedder, "cached_query", None)
        if not self.overlap or (cached is not None and cached(text) is not None):
            return self._embed(text, timings)
        with self._lock:
            if self._workers is None:
                self._workers = ThreadPoolExecutor(max_workers=4, thread_name_prefix="finrag-embed")
            workers = self._workers
        return workers.submit(self._embed, text, timings)

    def _embed(self, text, timings) -> np.ndarray:
        t0 = time.perf_counter()
        encode_query = getattr(self.embedder, "encode_query", None)  # cached, fast path
        vector = encode_query(text) if encode_query else self.embedder.encode([text])[0]
        timings["embed"] = (time.perf_counter() - t0) * 1000
        return vector

    def _dense(self, index, vector, filters, k_each, timings) -> list[tuple[str, float]]:
        if isinstance(vector, Future):
            vector = vector.result()
        t1 = time.perf_counter()
        hits = index.vectors.search(vector, filters, k_each)
        timings["dense"] = (time.perf_counter() - t1) * 1000
        return hits

    def _bm25(self, index, tokens, filters, k_each, timings) -> list[tuple[str, float]]:
        t0 = time.perf_counter()
        hits = index.vectors.search_terms(query_vector(tokens), filters, k_each)
        timings["bm25"] = (time.perf_counter() - t0) * 1000
        return hits

    def _too_long(self, text: str) -> bool:
        counter = getattr(self.embedder, "count_tokens", None)
        return bool(counter) and counter([text])[0] > MODEL_MAX_TOKENS

    # --- fusion and hydration --------------------------------------------------------------

    def _assemble(self, result, index, dense, bm25, top_k, rrf_k, weights, fuse_by,
                  timings) -> None:
        t0 = time.perf_counter()
        candidates = list({cid for cid, _ in dense + bm25})
        known = index.lookup(candidates)
        _check_known(index, candidates, known)
        signatures = {cid: signature for cid, (signature, _) in known.items()}
        dense, bm25 = _collapse(dense, signatures), _collapse(bm25, signatures)
        lists = {"dense": [c for c, _ in dense], "bm25": [c for c, _ in bm25]}
        wts = {"dense": weights[0], "bm25": weights[1]}
        chunks: dict[str, Chunk] = {}
        if result.routed:  # the candidates' sections are needed: hydrate them all
            chunks = index.chunks(list(known))
            voting = {n: ids for n, ids in lists.items() if wts[n] > 0}  # a 0 weight: no say
            lists["section"] = _in_places(voting, chunks, result.routed)
            wts["section"] = ROUTE_WEIGHT
        fused = rrf(
            lists, k=rrf_k, weights=wts, top_k=top_k,
            groups={cid: page for cid, (_, page) in known.items()} if fuse_by == "page"
            else None,
        )
        shown = {c for c, _ in dense[:top_k] + bm25[:top_k]} | {f.chunk_id for f in fused}
        if not chunks:
            chunks = index.chunks(sorted(shown))  # hydrate only what is shown
        result.dense = _hits(dense[:top_k], chunks)
        result.bm25 = _hits(bm25[:top_k], chunks)
        result.fused = [
            Hit(
                chunk_id=f.chunk_id, rank=i, score=f.score, chunk=chunks[f.chunk_id],
                dense_rank=f.ranks.get("dense"), bm25_rank=f.ranks.get("bm25"),
                dense_contribution=f.contributions.get("dense", 0.0),
                bm25_contribution=f.contributions.get("bm25", 0.0),
                section_contribution=f.contributions.get("section", 0.0),
            )
            for i, f in enumerate(fused, start=1)
        ]
        timings["fuse"] = (time.perf_counter() - t0) * 1000


def _in_places(lists: dict[str, list[str]], chunks: dict[str, Chunk],
               places: list[str]) -> list[str]:
    """The candidates of both lists printed in a routed place, best rank in either first."""
    best: dict[str, int] = {}
    for ids in lists.values():
        for rank, cid in enumerate(ids):
            best[cid] = min(rank, best.get(cid, rank))
    return [cid for cid in sorted(best, key=lambda c: (best[c], c))
            if cid in chunks and holds(chunks[cid], places)]


def bm25_tokens(text: str, expansions: list[str]) -> list[str]:
    """The query's own tokens (repeats count, as typed) less its instruction sentences
    (`finrag.asking`: "Round your answer to two decimal places."), then each expansion token
    not already asked for, once, then each expansion's statement-wording pairs
    ("current_liability"), once: an expansion widens the query without outweighing what the
    user typed, and prefers pages that print its line items as phrases. Pairs of the user's own
    words are not asked for: measured with every word pair indexed, alone they lowered
    FinanceBench's fused MRR (filing filter .68 -> .66) and beside the expansion's pairs they
    added nothing (.721 -> .719)."""
    own = tokenize(question_part(text)) or tokenize(text)
    seen = set(own)
    extra = []
    each = [tokenize(e) for e in expansions]
    for token in [t for ts in each for t in ts] + [t for ts in each for t in phrase_terms(ts)]:
        if token not in seen:
            seen.add(token)
            extra.append(token)
    return own + extra


def _check_known(index: Index, candidates: list[str], known: dict) -> None:
    """Every chunk the vector store returned is one of this generation's: a Qdrant collection
    overwritten by another writer (another data directory's older finrag, say) is a StoreError
    naming it, not a KeyError when the hits are looked up."""
    unknown = next((cid for cid in sorted(candidates) if cid not in known), None)
    if unknown is not None:
        where = index.manifest["backend"].get("collection") or index.path / "vectors"
        raise StoreError(
            f"the vector store {where} returned chunk {unknown!r}, which index {index.name} does "
            "not hold: something else overwrote it; rebuild the index with "
            "`python -m ingest build --rebuild ...`")


FUSE_BY = ("page", "chunk")


def _check_settings(top_k: int, k_each: int, rrf_k: int, fuse_by: str,
                    weights: tuple[float, float] = (1.0, 1.0)) -> None:
    if fuse_by not in FUSE_BY:
        raise QueryError(f"fuse_by must be one of {', '.join(FUSE_BY)}, got {fuse_by!r}")
    if not 1 <= top_k <= 100:
        raise QueryError(f"results per list must be between 1 and 100, got {top_k}")
    if k_each < top_k:
        raise QueryError(f"k_each ({k_each}) must be at least the number of results ({top_k})")
    if rrf_k < 0:
        raise QueryError(f"rrf_k must be 0 or more, got {rrf_k}")
    if not any(w > 0 for w in weights):
        raise QueryError(f"weights (dense, bm25) = {tuple(weights)}: both are 0, so nothing would "
                         "be fused; give one a weight above 0")


def _collapse(ranked: list[tuple[str, float]],
              signatures: dict[str, str]) -> list[tuple[str, float]]:
    """The list without its later copies: of the chunks with the same text signature, only the
    best-ranked one stays, with its own id and score (a chunk without a signature stays)."""
    seen: set[str] = set()
    out = []
    for cid, score in ranked:
        sig = signatures.get(cid)
        if sig is None or sig not in seen:
            if sig is not None:
                seen.add(sig)
            out.append((cid, score))
    return out


def _hits(ranked: list[tuple[str, float]], chunks: dict[str, Chunk]) -> list[Hit]:
    return [
        Hit(chunk_id=cid, rank=i, score=float(score), chunk=chunks[cid])
        for i, (cid, score) in enumerate(ranked, start=1)
    ]
