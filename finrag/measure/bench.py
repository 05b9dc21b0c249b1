"""`python -m finrag bench`: build, open and query figures at N chunks, beside the naive stack.

The corpus is real chunk text from an existing index (the bundled sample by default), replicated
to N chunks with varied ticker / fiscal-year metadata; each unique text is embedded once (the
embedding cache of the source index usually has them all). Queries run in a fresh subprocess so
its open time and resident memory are those of a reader that has just started (the model's
import is done before the index is opened and is not counted in `open_s`).

Query figures are uncached: the query-vector cache is off while they are taken, so every search
runs the model. `query_ms_cached` is the same searches again with the cache on (what the app does
when only a filter changes; `cached_same_results` says its fused lists equal the uncached ones),
`answered` counts the queries with a fused answer under each filter, and `embed_paths` times
sentence-transformers' `encode` against the query path on the same queries in the same process.
`load` is the 1-minute load average before and after the query phase: the machine is shared, so
read the figures with it.

`in_place` (after the query phase): one real 10-K of the source index, its embeddings cached,
added to the N-chunk index by `python -m ingest build`, re-ingested unchanged, then removed by
`python -m ingest remove`, while two query processes keep asking (`finrag.measure.stress`);
each step's time is the job's own (`ingest_s`) and with the CLI's start (`wall_s`).

The naive stack on the same data and queries: qdrant-client's local mode (pure-Python, brute
force) for dense, rank-bm25 `get_scores` over every chunk with the filter applied afterwards.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from finrag.config import Settings

QUERIES = [
    "How did services revenue change compared to the prior year?",
    "research and development expense",
    "SG&A expense",
    "supply chain risk",
    "total net sales by product category",
    "gross margin percentage",
    "share repurchase program",
    "cash flows from operating activities",
    "effective tax rate",
    "long-term debt maturities",
    "inventory and purchase commitments",
    "competition risk factors",
    "foreign currency exchange risk",
    "capital expenditures property plant and equipment",
    "number of employees",
    "legal proceedings litigation",
    "segment operating income",
    "dividends declared per share",
    "goodwill impairment",
    "revenue recognition policy",
]
TICKERS = ["AAPL", "MSFT", "NVDA", "TSLA", "HD", "AMZN", "GOOGL", "META", "JPM", "KO"]
YEARS = list(range(2015, 2025))
FILTERS = {
    "ticker_year": {"tickers": ["AAPL"], "fiscal_years": [2015]},
    "ticker": {"tickers": ["AAPL"]},
    "none": {},
}
PHASES = ("embed", "dense", "bm25", "fused")


# --- corpus --------------------------------------------------------------------------------


def source_corpus(source_dir: Path | None):
    """(chunks, vectors, facts) of an existing index, vectors from its embedding cache."""
    from finrag.cache import EmbeddingCache
    from finrag.embed import Embedder
    from finrag.index import Index
    from finrag.views import dense_text

    settings = Settings.from_env(source_dir)
    index = Index.open(settings, tables_only=True)
    chunks = index.all_chunks()
    facts = index.all_facts()
    index.close()
    embedder = Embedder()
    cache = EmbeddingCache(settings.data_dir / "embeddings.sqlite", embedder.name, embedder.dim)
    texts = [dense_text(c) for c in chunks]
    cache.fill(cache.missing(texts), embedder.encode)
    vectors = cache.get(texts)
    cache.close()
    return chunks, vectors, facts


def replicate(chunks, vectors, n: int, shape=None):
    """n chunks cycling the source texts, each copy with its own ticker / year and id, as
    `shape` lays them out (`replicated_filings`, the default, or `company_filings`)."""
    out, parts = [], []
    for copy_chunks, copy_vectors, _ in (shape or replicated_filings)(chunks, vectors, [], n):
        out += copy_chunks
        parts.append(copy_vectors)
    return out, (np.concatenate(parts) if parts else vectors[:0])


def replicate_facts(facts, n: int, s: int):
    """The source's statement facts once per copy of its chunks (`replicate`), periods shifted to
    the copy's fiscal year. One source filing's facts go under the copy's ticker (so its figures
    are a company's own, as `ask` expects); the other filings' under tickers of their own
    ("AAPL1", ...), so the table holds as many facts as that many filings would."""
    return [f for copy in range(-(-n // s)) for f in _copy_facts(facts, copy)]


def copy_source(filing_key: str) -> str:
    """Where a copy says it was read from: a path of its own that names no file. With its
    source filing's path, `ingest remove` of that filing (the in-place phase's last step)
    took out every copy of it too: ~1,400 filings, 770k chunks at 3M, and the next update
    then merged the 10 GB chunk table (the 94-107 s "first add beside queries")."""
    return f"bench-copies/{filing_key.replace(':', '-')}"


def replicated_filings(chunks, vectors, facts, n: int):
    """`replicate` and `replicate_facts` one copy at a time, (chunks, vectors, facts) each: what
    the index is written from (`build_index`), so the bench holds one copy, not N chunks. Past
    100 copies a ticker and year come round again: such copies share a filing key, and the
    writer adds them (no `replace`)."""
    s = len(chunks)
    for copy in range(-(-n // s)):
        ticker = TICKERS[copy % len(TICKERS)]
        year = YEARS[(copy // len(TICKERS)) % len(YEARS)]
        ids = range(copy * s, min(n, (copy + 1) * s))
        out = [chunks[i - copy * s].model_copy(update={
            "chunk_id": hashlib.sha256(f"bench{i}".encode()).hexdigest()[:32], "ticker": ticker,
            "fiscal_year": year, "filing_key": f"{ticker}:{year}", "accession": "",
            "source": copy_source(f"{ticker}:{year}")})
            for i in ids]
        yield out, vectors[:len(out)], _copy_facts(facts, copy)


def company_filings(chunks, vectors, facts, n: int):
    """The corpus shaped as the S&P 500's 10-Ks (`--companies`): each copy of one source filing
    is one company's 10-K of one fiscal year, ten years a company (2015-2024), so a company
    holds ~10 filings (~4,300 chunks of the sample) and a company-year one, as real ones do,
    instead of `replicated_filings`' ten tickers, each holding a tenth of the corpus. The first
    companies are TICKERS, each copying its own source filing where the source has one (AAPL
    the sample's Apple 10-Ks, so `ASKS` and `NARRATIVE` ask Apple's words and figures), the
    others "C0010", ... copying the sources in turn. (chunks, vectors, facts) per filing, n
    chunks in all (the last filing cut)."""
    keys = list(dict.fromkeys(c.filing_key for c in chunks))
    rows = {k: [i for i, c in enumerate(chunks) if c.filing_key == k] for k in keys}
    own = {k: [f for f in facts if f.filing_key == k] for k in keys}
    by_ticker: dict[str, list[str]] = {}
    for k in keys:
        by_ticker.setdefault(chunks[rows[k][0]].ticker, []).append(k)
    written, filing = 0, 0
    while written < n:
        company, year = divmod(filing, len(YEARS))
        ticker = TICKERS[company] if company < len(TICKERS) else f"C{company:04d}"
        mine = by_ticker.get(ticker) or [keys[company % len(keys)]]
        key = mine[year % len(mine)]
        # a company of its own name: one copying another's filing is not that company (with
        # the source's name, "Apple" would name every company copying Apple's 10-Ks)
        name = chunks[rows[key][0]].company if ticker in by_ticker else f"Company {ticker}"
        take = rows[key][:n - written]
        fy = YEARS[year]
        fk = f"{ticker}:{fy}"
        out = [chunks[i].model_copy(update={
            "chunk_id": hashlib.sha256(f"bench{written + j}".encode()).hexdigest()[:32],
            "ticker": ticker, "company": name, "fiscal_year": fy, "filing_key": fk,
            "accession": "", "source": copy_source(fk)}) for j, i in enumerate(take)]
        shifted = [f.model_copy(update={
            "ticker": ticker, "fiscal_year": fy, "filing_key": fk, "chunk_id": None,
            "period_fiscal_year": None if f.period_fiscal_year is None
            else f.period_fiscal_year + fy - f.fiscal_year}) for f in own[key]]
        yield out, vectors[take], shifted
        written += len(out)
        filing += 1


def _copy_facts(facts, copy: int) -> list:
    keys = sorted({f.filing_key for f in facts})
    base = TICKERS[copy % len(TICKERS)]
    year = YEARS[(copy // len(TICKERS)) % len(YEARS)]
    out = []
    for f in facts:
        j = keys.index(f.filing_key)
        ticker = base if j == copy % len(keys) else f"{base}{j}"
        shift = year - f.fiscal_year
        out.append(f.model_copy(update={
            "ticker": ticker, "fiscal_year": year, "filing_key": f"{ticker}:{year}",
            "period_fiscal_year": None if f.period_fiscal_year is None
            else f.period_fiscal_year + shift, "chunk_id": None}))
    return out


# --- the project's stack -------------------------------------------------------------------


def build_index(work: Path, filings, writer_memory: float | None = None) -> dict:
    """Write and publish the index of `filings` ((chunks, vectors, facts) batches) under `work`
    holding the writer to `writer_memory` GB (`write_filings`). `writer_peak_mb` is this
    process's peak resident memory when it is done (VmHWM: own memory and mapped files, the
    bench's source corpus included); `writer_peak` splits it, sampled every 0.2 s from another
    process (`_MemoryWatch`: the engine's optimize holds the GIL, so a thread here could not
    sample it)."""
    from finrag.config import EMBED_DIM
    from finrag.embed import MODEL_NAME
    from finrag.generation import publish, write_filings

    settings = Settings(data_dir=work / "data", qdrant_url=None)
    t0 = time.perf_counter()
    with _MemoryWatch() as watch:
        path = write_filings(settings, "gen-000001", filings, MODEL_NAME, EMBED_DIM,
                             writer_memory=writer_memory)
        publish(settings.data_dir, "gen-000001")
    build_s = time.perf_counter() - t0
    disk = sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
    manifest = json.loads((path / "manifest.json").read_text())
    backend = manifest["backend"]
    return {"build_s": round(build_s, 2), "disk_mb": round(disk / 2**20, 1),
            "indexed_chunks": manifest["chunks"], "facts": manifest["facts"],
            "build_rate": round(manifest["chunks"] / build_s, 1),
            "writer_peak_mb": _rss_mb("VmHWM"), "writer_peak": watch.peaks,
            "writer_memory_gb": backend.get("writer_memory_gb"),
            "segment_points": backend.get("segment_points"),
            "sealed_segments": backend.get("sealed_segments"),
            "optimize_s": backend.get("optimize_s"),
            "indexed_vectors": backend.get("indexed_vectors")}


class _MemoryWatch:
    """Samples this process's resident memory every 0.2 s from a child process while the
    block runs; `peaks`: the largest total (own + mapped files, MB) and its split, and the
    largest own and mapped each."""

    CODE = """
import json, os, sys, time
pid, out = sys.argv[1], sys.argv[2]
peak = {"total_mb": 0, "own_mb_at_total": 0, "mapped_mb_at_total": 0, "own_mb": 0, "mapped_mb": 0}
while not os.path.exists(out + ".stop"):
    try:
        f = {k: int(v.split()[0]) / 1024 for k, _, v in (line.partition(":") for line in
             open(f"/proc/{pid}/status")) if k in ("RssAnon", "RssFile", "RssShmem")}
    except OSError:
        break
    own, mapped = f["RssAnon"], f["RssFile"] + f["RssShmem"]
    if own + mapped > peak["total_mb"]:
        peak.update(total_mb=own + mapped, own_mb_at_total=own, mapped_mb_at_total=mapped)
    peak["own_mb"], peak["mapped_mb"] = max(peak["own_mb"], own), max(peak["mapped_mb"], mapped)
    time.sleep(0.2)
json.dump({k: round(v, 1) for k, v in peak.items()}, open(out, "w"))
"""

    def __enter__(self):
        self._out = Path(tempfile.mkstemp(prefix="finrag-bench-mem-")[1])
        self._proc = subprocess.Popen([sys.executable, "-c", self.CODE, str(os.getpid()),
                                       str(self._out)])
        self.peaks: dict = {}
        return self

    def __exit__(self, *exc) -> None:
        stop = Path(f"{self._out}.stop")
        stop.touch()
        self._proc.wait()
        stop.unlink()
        self.peaks = json.loads(self._out.read_text() or "{}")
        self._out.unlink()


def query_phase(data_dir: Path, queries: list[str]) -> dict:
    """Run in a fresh process: open the index, run every query under every filter."""
    from finrag.embed import QUERY_CACHE_SIZE, Embedder
    from finrag.models import Filters
    from finrag.search import HybridSearcher

    load_before = round(os.getloadavg()[0], 2)
    embedder = Embedder(query_cache_size=0)  # uncached figures: every search runs the model
    embedder.encode(["warm up"])  # model import and load are not part of the index open
    embedder.encode_query("warm up")
    searcher = HybridSearcher(Settings(data_dir=data_dir, qdrant_url=None), embedder)
    t0 = time.perf_counter()
    _ = searcher.index
    open_s = time.perf_counter() - t0
    answers: dict[str, list] = {name: [] for name in FILTERS}
    out = {name: _timed_searches(searcher, queries, Filters(**spec), answers[name])
           for name, spec in FILTERS.items()}
    encodes = embedder.query_encodes
    embedder.query_cache_size = QUERY_CACHE_SIZE
    filters = Filters(**FILTERS["ticker_year"])
    for q in queries:
        searcher.search(q, filters)  # fills the cache, as a first search in the app does
    cached_answers: list = []
    cached = {"ticker_year": _timed_searches(searcher, queries, filters, cached_answers)}
    if embedder.query_encodes != encodes + len(set(queries)):
        raise RuntimeError("bench: the cached pass ran the model; its figures would be wrong")
    asks = _timed_asks(searcher)
    asks["across"] = _timed_across(searcher)
    asks["narrative"] = _timed_narrative(searcher)
    rss_mb = _rss_mb()  # before `_embed_paths` loads a second, torch-only copy of the model
    return {"open_s": round(open_s, 3), "rss_mb": rss_mb, "rss_anon_mb": _rss_mb("RssAnon"),
            "rss_file_mb": _rss_mb("RssFile"), "query_ms": out, "ask_ms": asks,
            "query_ms_cached": cached, "query_runtime": embedder.query_runtime,
            "answered": {name: sum(bool(a) for a in v) for name, v in answers.items()},
            "cached_same_results": cached_answers == answers["ticker_year"],
            "embed_paths": _embed_paths(embedder, queries),
            "load": [load_before, round(os.getloadavg()[0], 2)]}


ASKS = ["research and development expense 2015", "gross margin 2015", "capex 2015",
        "inventory turnover 2015", "How did revenue change from 2014 to 2015?",
        "free cash flow 2015", "diluted EPS 2015", "current ratio 2015"]  # the first copy is FY2015


# five companies over five fiscal years (the copies of 2015-2018 and their 2014 comparatives)
ACROSS = "Revenue of AAPL, MSFT, NVDA, TSLA and HD from 2014 to 2018"


# "why" questions answered with the filing's own sentences (finrag.passage), on the AAPL copies
NARRATIVE = ["What drove Apple's gross margin change in 2015?",
             "What drove Apple's services net sales increase in 2015?"]


def _timed_narrative(searcher, runs: int = 3) -> dict:
    """A question asked in words end to end (search, the change from the facts, the sentences
    chosen from the passages), with the facts read from the index every time."""
    from finrag import ask as asking

    times, quoted = [], 0
    for _ in range(runs):
        for q in NARRATIVE:
            asking._FACTS.clear()
            t = time.perf_counter()
            a = asking.ask(searcher, q)
            times.append((time.perf_counter() - t) * 1000)
            quoted += bool(a.answer is not None and a.answer.sentences)
    return {"questions": NARRATIVE, "total": _pcts(times), "quoted": quoted,
            "asked": len(times)}


def _timed_across(searcher, runs: int = 5) -> dict:
    """A five-year, five-company question end to end (search, parse, facts, points, citations),
    with the facts read from the index every time."""
    from finrag import ask as asking

    times, points = [], 0
    for _ in range(runs):
        asking._FACTS.clear()
        t = time.perf_counter()
        a = asking.ask(searcher, ACROSS)
        times.append((time.perf_counter() - t) * 1000)
        points = len(a.answer.points) if a.answer is not None and a.answer.points else 0
    return {"question": ACROSS, "total": _pcts(times), "points": points}


def _timed_asks(searcher) -> dict:
    """What `ask` adds to a search (parse, facts, answer, citations), with the facts read from
    the index every time (`cold`) and from its small cache of recent lookups (`warm`)."""
    from finrag import ask as asking
    from finrag.models import Filters

    filters = Filters(tickers=[FILTERS["ticker"]["tickers"][0]])
    asking.ask(searcher, ASKS[0], filters)  # the companies map is read once per generation
    cold, warm, answered = [], [], 0
    for q in ASKS:
        asking._FACTS.clear()
        a = asking.ask(searcher, q, filters)
        cold.append(a.timings_ms["answer"])
        answered += a.outcome.answer is not None
        warm.append(asking.ask(searcher, q, filters).timings_ms["answer"])
    return {"cold": _pcts(cold), "warm": _pcts(warm), "questions": len(ASKS),
            "answered": answered}


def _timed_searches(searcher, queries: list[str], filters, answers: list) -> dict:
    """Each phase's p50/p95 over the queries; each query's fused chunk ids go to `answers`."""
    searcher.search(queries[0], filters)  # first query warms caches
    samples = {p: [] for p in PHASES}
    for q in queries:
        t = time.perf_counter()
        r = searcher.search(q, filters)
        samples["fused"].append((time.perf_counter() - t) * 1000)
        answers.append([h.chunk_id for h in r.fused])
        for p in ("embed", "dense", "bm25"):
            samples[p].append(r.timings_ms[p])
    return {p: _pcts(v) for p, v in samples.items()}


def _embed_paths(embedder, queries: list[str]) -> dict:
    """sentence-transformers `encode` (what search used before the query path) vs the uncached
    query path, and the query path on torch alone (when the default one is ONNX Runtime): same
    queries, same process, in alternating rounds so all see the same load."""
    from finrag.embed import Embedder

    embedder.query_cache_size = 0
    paths = {"st_encode": lambda q: embedder.encode([q]), "query_path": embedder.encode_query}
    if embedder.query_runtime == "onnxruntime":
        paths["query_path_torch"] = Embedder(query_cache_size=0, query_runtime="torch").encode_query
    samples = {name: [] for name in paths}
    for _ in range(2):
        for name, encode in paths.items():
            encode(queries[0])  # each path sets its own torch thread count first
            for q in queries:
                t = time.perf_counter()
                encode(q)
                samples[name].append((time.perf_counter() - t) * 1000)
    out = {name: _pcts(v) for name, v in samples.items()}
    out["speedup_p50"] = round(out["st_encode"]["p50"] / out["query_path"]["p50"], 2)
    if "query_path_torch" in out:
        out["onnx_speedup_p50"] = round(
            out["query_path_torch"]["p50"] / out["query_path"]["p50"], 2)
    return out


# --- the naive stack -----------------------------------------------------------------------


def naive_phase(work: Path, chunks, vectors, queries: list[str]) -> dict:
    from qdrant_client import QdrantClient, models
    from rank_bm25 import BM25Okapi

    from finrag.embed import Embedder

    t0 = time.perf_counter()
    client = QdrantClient(path=str(work / "naive-qdrant"))
    client.create_collection("c", vectors_config=models.VectorParams(
        size=vectors.shape[1], distance=models.Distance.COSINE))
    for start in range(0, len(chunks), 2048):
        part = range(start, min(start + 2048, len(chunks)))
        client.upsert("c", points=[models.PointStruct(
            id=i, vector=vectors[i].tolist(),
            payload={"ticker": chunks[i].ticker, "fiscal_year": chunks[i].fiscal_year})
            for i in part], wait=True)
    bm25 = BM25Okapi([re.findall(r"\w+", c.text.lower()) for c in chunks])
    build_s = time.perf_counter() - t0
    tickers = np.array([c.ticker for c in chunks])
    years = np.array([c.fiscal_year for c in chunks])
    embedder = Embedder()
    out = {}
    for name, spec in FILTERS.items():
        samples = {p: [] for p in PHASES}
        for q in queries:
            t = time.perf_counter()
            vec = embedder.encode([q])[0]
            t1 = time.perf_counter()
            client.query_points("c", query=vec.tolist(), limit=50,
                                query_filter=_naive_filter(models, spec))
            t2 = time.perf_counter()
            scores = bm25.get_scores(re.findall(r"\w+", q.lower()))
            keep = np.ones(len(chunks), bool)
            if spec.get("tickers"):
                keep &= np.isin(tickers, spec["tickers"])
            if spec.get("fiscal_years"):
                keep &= np.isin(years, spec["fiscal_years"])
            rows = np.flatnonzero(keep)
            rows[np.argsort(-scores[rows], kind="stable")[:50]]
            t3 = time.perf_counter()
            for p, v in zip(PHASES, (t1 - t, t2 - t1, t3 - t2, t3 - t)):
                samples[p].append(v * 1000)
        out[name] = {p: _pcts(v) for p, v in samples.items()}
    client.close()
    return {"build_s": round(build_s, 2), "query_ms": out}


def _naive_filter(models, spec):
    must = []
    if spec.get("tickers"):
        must.append(models.FieldCondition(key="ticker", match=models.MatchAny(any=spec["tickers"])))
    if spec.get("fiscal_years"):
        must.append(models.FieldCondition(
            key="fiscal_year", match=models.MatchAny(any=spec["fiscal_years"])))
    return models.Filter(must=must) if must else None


# --- the run -------------------------------------------------------------------------------


def run_bench(n: int, *, queries: int = 50, work_dir: Path | None = None,
              source_dir: Path | None = None, naive: bool = True, naive_queries: int = 10,
              in_place: bool = True, writer_memory: float | None = None,
              companies: bool = False) -> dict:
    if n < 1:
        raise ValueError(f"--chunks must be at least 1, got {n}")
    qs = (QUERIES * (queries // len(QUERIES) + 1))[:queries]
    work = Path(work_dir or tempfile.mkdtemp(prefix="finrag-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    source_chunks, source_vectors, source_facts = source_corpus(source_dir)
    shape = company_filings if companies else replicated_filings
    report = {"chunks": n, "shape": "companies" if companies else "tickers",
              **build_index(work, shape(source_chunks, source_vectors, source_facts, n),
                            writer_memory)}
    if report["indexed_chunks"] != n:
        raise RuntimeError(f"bench: {report['indexed_chunks']:,} chunks indexed of {n:,}; its "
                           "figures would not be those of its size")
    report.update(_subprocess_query_phase(work / "data", qs))
    if in_place:
        report["in_place"] = in_place_phase(work / "data", source_dir)
    if naive:
        chunks, vectors = replicate(source_chunks, source_vectors, n, shape)
        report["naive"] = naive_phase(work, chunks, vectors, qs[:naive_queries])
        ours = report["query_ms"]["ticker_year"]["fused"]["p50"]
        theirs = report["naive"]["query_ms"]["ticker_year"]["fused"]["p50"]
        report["speedup_fused_p50"] = round(theirs / ours, 1) if ours else None
    return report


IN_PLACE_TARGET = 600  # chunks of a typical 10-K: the source filing closest to it is used


def in_place_phase(data_dir: Path, source_dir: Path | None, *, embedder: str | None = None,
                   clients: int = 2) -> dict:
    """Add one source filing to the index, re-ingest it unchanged, remove it, while `clients`
    query processes run; the steps' times and the queries' outcome."""
    import shutil

    from finrag.index import Index
    from finrag.measure.stress import run_stress

    source = Settings.from_env(source_dir)
    index = Index.open(source, tables_only=True)
    try:
        filings = index.filings()
    finally:
        index.close()
    key = min(filings, key=lambda k: abs(filings[k]["chunks"] - IN_PLACE_TARGET))
    path = filings[key]["source"]
    shutil.copy(source.data_dir / "embeddings.sqlite", data_dir / "embeddings.sqlite")
    for cache in ("reads.sqlite", "facts-cache.sqlite"):  # a re-run reads from these too
        if (source.data_dir / cache).exists():
            shutil.copy(source.data_dir / cache, data_dir / cache)
    steps = [["build", path], ["build", path], ["remove", path]]
    alone = [_ingest_step(data_dir, argv) for argv in steps]
    report = run_stress(data_dir, clients=clients, seconds=1.0, steps=steps,
                        embedder=embedder, reingest_after=1.0)
    loaded = report["reingest"]["steps"]
    names = ("add", "unchanged", "remove")
    after = Index.open(Settings(data_dir=data_dir, qdrant_url=None), tables_only=True)
    try:
        chunks_after = len(after)  # as before the phase: only the filing added was removed
    finally:
        after.close()
    return {"filing": f"{filings[key]['ticker']} FY{filings[key]['fiscal_year']}",
            "chunks_after": chunks_after,
            "filing_chunks": filings[key]["chunks"],
            "alone": {n: r for n, r in zip(names, alone)},
            **{n: {"ingest_s": r["ingest_s"], "wall_s": r["seconds"],
                   "published": r["published"], "exit_code": r["exit_code"],
                   "steps": r.get("ingest_steps") or {}}
               for n, r in zip(names, loaded)},
            "clients": clients, "queries": report["queries"], "failed": report["failed"],
            "stale_after_publish": report["reingest"]["stale_after_publish"],
            "p50_ms": report["p50_ms"], "p95_ms": report["p95_ms"]}


def _ingest_step(data_dir: Path, argv: list[str]) -> dict:
    """One `python -m ingest` command with nothing else running: its own and its wall time."""
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "finrag.ingest", *argv, "--data-dir",
                           str(data_dir), "--json"], capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if proc.returncode:
        raise RuntimeError(f"bench: ingest {argv[0]} failed: "
                           f"{proc.stderr.strip().splitlines()[-1:]}")
    out = json.loads(proc.stdout)
    return {"ingest_s": out["seconds"], "wall_s": round(wall, 2), "published": out["published"],
            "steps": out.get("steps") or {}}


def _subprocess_query_phase(data_dir: Path, queries: list[str]) -> dict:
    code = ("import json,sys; from finrag.measure.bench import query_phase; "
            "from pathlib import Path; "
            "print(json.dumps(query_phase(Path(sys.argv[1]), json.loads(sys.argv[2]))))")
    env = {**os.environ, "FINRAG_QDRANT_URL": ""}
    out = subprocess.run([sys.executable, "-c", code, str(data_dir), json.dumps(queries)],
                         capture_output=True, text=True, env=env, check=False)
    if out.returncode:
        raise RuntimeError(f"bench query phase failed: {out.stderr.strip().splitlines()[-1:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _pcts(values: list[float]) -> dict:
    return {"p50": round(float(np.percentile(values, 50)), 2),
            "p95": round(float(np.percentile(values, 95)), 2)}


def _rss_mb(field: str = "VmRSS") -> float:
    """Resident memory: all of it (VmRSS), or the process's own (RssAnon) or the mapped files'
    pages (RssFile: the index files the engine maps, pages the kernel shares between readers
    and can take back)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def print_report(r: dict) -> str:
    lines = [f"chunks {r['chunks']:,}: build {r['build_s']} s, {r.get('build_rate', '?')} "
             f"chunks/s (HNSW optimize {r['optimize_s']} s, "
             f"{r['indexed_vectors']:,} vectors indexed; writer peak RSS "
             f"{r.get('writer_peak_mb', '?')} MB), disk {r['disk_mb']} MB, "
             f"open {r['open_s']} s, RSS {r['rss_mb']} MB ({r['rss_anon_mb']} MB the process's "
             f"own, {r['rss_file_mb']} MB of mapped index files); load average {r['load'][0]} -> "
             f"{r['load'][1]} over the query phase"]
    if r.get("writer_peak"):
        w = r["writer_peak"]
        lines.append(f"writer peak (sampled) {w['total_mb']} MB: {w['own_mb_at_total']} MB own +"
                     f" {w['mapped_mb_at_total']} MB of mapped files; writer memory setting "
                     f"{r.get('writer_memory_gb')} GB, {r.get('sealed_segments')} segments of at "
                     f"most ~{r.get('segment_points') or 0:,} points")
    stacks = [("finrag", r["query_ms"]), ("cached", r["query_ms_cached"])]
    stacks += [("naive", r["naive"]["query_ms"])] if "naive" in r else []
    for label, q in stacks:
        lines.append(f"{label:7} {'filter':12}" + "".join(f"{p:>18}" for p in PHASES))
        for name, phases in q.items():
            lines.append(f"{'':7} {name:12}" + "".join(
                f"{phases[p]['p50']:>8.2f} / {phases[p]['p95']:>7.2f}" for p in PHASES))
    lines.append("(ms, p50 / p95 per query; finrag = query vector cache off, cached = on)")
    e = r["embed_paths"]
    lines.append(f"one query's embedding, same queries: sentence-transformers encode "
                 f"{e['st_encode']['p50']} / {e['st_encode']['p95']} ms, query path "
                 f"({r.get('query_runtime', 'torch')}) {e['query_path']['p50']} / "
                 f"{e['query_path']['p95']} ms ({e['speedup_p50']}x at p50)")
    if "query_path_torch" in e:
        lines.append(f"the query path on torch (TorchScript): {e['query_path_torch']['p50']} / "
                     f"{e['query_path_torch']['p95']} ms; ONNX Runtime is "
                     f"{e['onnx_speedup_p50']}x faster at p50")
    if "ask_ms" in r:
        a = r["ask_ms"]
        lines.append(f"ask adds (parse, facts, answer; {r.get('facts', 0):,} facts indexed): "
                     f"p50 / p95 {a['cold']['p50']} / {a['cold']['p95']} ms with the facts read "
                     f"from the index, {a['warm']['p50']} / {a['warm']['p95']} ms from its cache "
                     f"of recent lookups ({a['answered']} of {a['questions']} answered)")
        if "across" in a:
            x = a["across"]
            lines.append(f"five companies x five years ('{x['question']}', {x['points']} points):"
                         f" p50 / p95 {x['total']['p50']} / {x['total']['p95']} ms end to end"
                         " (search, facts read from the index, points, citations)")
        if "narrative" in a:
            x = a["narrative"]
            lines.append(f"why questions answered with quotes ({x['quoted']} of {x['asked']} "
                         f"quoted): p50 / p95 {x['total']['p50']} / {x['total']['p95']} ms end "
                         "to end (search, the change from the facts, sentences chosen)")
    if "in_place" in r:
        u = r["in_place"]

        def steps(d):
            return ", ".join(f"{name} {d[name]['ingest_s']} s ({d[name]['wall_s']} s with the "
                             "CLI's start)" for name in ("add", "unchanged", "remove"))

        lines.append(f"in place at {r['chunks']:,} chunks, {u['filing']} ({u['filing_chunks']} "
                     f"chunks, embeddings cached): alone {steps(u['alone'])}")
        lines.append(f"  again with {u['clients']} query processes asking: {steps(u)}; "
                     f"{u['queries']} queries, {u['failed']} failed, p50 / p95 {u['p50_ms']} / "
                     f"{u['p95_ms']} ms")
    if "speedup_fused_p50" in r:
        lines.append(f"naive build {r['naive']['build_s']} s; fused p50 speedup over naive "
                     f"(ticker+year filter): {r['speedup_fused_p50']}x")
    return "\n".join(lines)
