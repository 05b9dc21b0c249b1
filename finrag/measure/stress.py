"""`python -m finrag stress`: concurrent query clients against the searcher, optionally while a
forced full rebuild of the same sources runs in another process.

Each client is a process with its own `HybridSearcher` and embedder (one model thread each):
Qdrant edge's `query()` holds the GIL (the model's forward pass releases it), so threads in one
process would mostly share one core, and the app and `finrag search` are separate processes
anyway. Clients
load the model and open the index first, then start together and cycle a fixed list of queries
(the canary questions, each with its filters and without) until told to stop.

With `reingest`, `python -m ingest build --rebuild <the index's own sources>` runs beside them;
with `in_place`, the index's last filing is removed, added back and re-ingested unchanged
(`ingest remove`, `ingest build`, `ingest build`: in-place updates); `steps` runs any such
sequence of ingest commands. A thread notes when CURRENT names each new generation, and the
report says when each client first answered from the last one, whether any query started after
a publish was answered by an older generation, and whether two answers to one query from one
generation ever differed.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from finrag.config import Settings
from finrag.index import NO_INDEX_HINT, Index, IndexUnavailable, current_generation
from finrag.models import Filters

REAL_EMBEDDER = "finrag.embed:Embedder"
POLL_S = 0.005  # how often the publish watcher reads CURRENT
REPO = Path(__file__).resolve().parents[2]
ACCESSION_MARKERS = ("full-submission.txt", "primary-document.html", "filing-details.html")


@dataclass(frozen=True)
class Query:
    text: str
    filters: Filters


@dataclass(frozen=True)
class Answer:
    client: int
    query: int  # index into the query list
    start: float  # wall clock (time.time()) when the call began
    ms: float
    generation: str
    hits: int  # fused hits
    digest: str  # the fused chunk ids, hashed
    error: str = ""


def default_queries() -> list[Query]:
    """The canary questions with their filters, then the same questions unfiltered."""
    from finrag.canary import DEFAULT_FILE, load_canaries

    canaries = load_canaries(DEFAULT_FILE)
    both = [Query(c.query, c.filters()) for c in canaries] + [
        Query(c.query, Filters()) for c in canaries]
    return list({(q.text, q.filters.model_dump_json()): q for q in both}.values())


def run_stress(data_dir: Path | None, clients: int = 4, seconds: float = 60.0,
               reingest: bool = False, *, in_place: bool = False,
               steps: list[list[str]] | None = None, queries: list[Query] | None = None,
               embedder: str | None = None, rebuild_paths: list[Path] | None = None,
               reingest_after: float | None = None, keep_answers: bool = False) -> dict:
    """Run the load and return the report (see `print_report` for what it holds).

    `embedder` is "module:Class", built in each client (default REAL_EMBEDDER);
    `rebuild_paths` replaces the index's own sources for the re-ingest; `steps` (arguments of
    `python -m ingest`, run one after the other) replaces the re-ingest; `keep_answers` adds
    every answer to the report (for tests)."""
    if clients < 1 or seconds <= 0:
        raise ValueError(f"--clients {clients} / --seconds {seconds}: both must be positive")
    settings = Settings.from_env(data_dir)
    if current_generation(settings.data_dir) is None:
        raise IndexUnavailable(f"no index in {settings.data_dir}: {NO_INDEX_HINT}")
    queries = queries or default_queries()
    opened = _describe(settings)
    reingest = reingest or in_place or bool(steps)
    sources = [str(p) for p in (rebuild_paths or opened["sources"])] if reingest else []
    missing = [s for s in sources if not Path(s).exists()]
    if reingest and not steps and (not sources or missing):
        raise ValueError(f"cannot re-ingest: source {missing[0] if missing else '(none)'} of the "
                         "index is gone; rebuild it with "
                         "`python -m ingest build --rebuild PATH...`")
    if not steps and reingest:
        steps = ([["remove", sources[-1]], ["build", sources[-1]], ["build", sources[-1]]]
                 if in_place else [["build", "--rebuild", *sources]])
    procs = [_Client(i, settings.data_dir, embedder or REAL_EMBEDDER, queries)
             for i in range(clients)]
    try:
        for c in procs:
            c.wait_ready()
        t0 = time.time()
        for c in procs:
            c.send("go")
        build = _reingest(settings, steps, t0, seconds, reingest_after) if reingest else None
        end = t0 + seconds if build is None else max(t0 + seconds, build["ended"] + 2.0)
        time.sleep(max(0.0, end - time.time()))  # (with a re-ingest: some queries after it)
        for c in procs:
            c.send("stop")
        answers = [a for c in procs for a in c.answers()]
        wall = max((a.start + a.ms / 1000 for a in answers), default=t0) - t0
    finally:
        for c in procs:
            c.close()
    report = summarize(answers, queries, wall, build)
    report.update(clients=clients, data_dir=str(settings.data_dir), index=opened["generation"],
                  chunks=opened["chunks"])
    if keep_answers:
        report["answers"] = answers
    return report


def _describe(settings: Settings) -> dict:
    """The published generation, its size, and the sources it was built from (accession
    folders where the document sits in one, else the file itself), read one row per filing
    (every chunk loaded took 7.4 GB in the 1M bench, and would not fit these machines at 3M)."""
    index = Index.open(settings, tables_only=True)
    try:
        docs = {f["source"] for f in index.filings().values() if f["source"]}
        name, size = index.name, index.count()
    finally:
        index.close()
    sources = {doc.parent if _accession_folder(doc.parent) else doc for doc in map(Path, docs)}
    return {"generation": name, "chunks": size, "sources": sorted(sources)}


def _accession_folder(folder: Path) -> bool:
    """A sec-edgar-downloader accession folder (ingest reads it as one unit)."""
    return any((folder / m).exists() for m in ACCESSION_MARKERS) or any(
        folder.glob("full-submission*.txt"))


# --- the re-ingest -------------------------------------------------------------------------


def _reingest(settings, steps: list[list[str]], t0, seconds, after) -> dict:
    """Start the ingest commands `after` seconds in, run them one after the other to the end,
    note when each new generation was published."""
    time.sleep(max(0.0, t0 + (min(5.0, seconds / 10) if after is None else after) - time.time()))
    old = current_generation(settings.data_dir)
    seen: dict[str, float] = {}
    stop = threading.Event()
    watcher = threading.Thread(target=_watch, args=(settings.data_dir, old, seen, stop),
                               daemon=True)
    watcher.start()
    env = _child_env()
    runs = []
    started = time.time()
    for argv in steps:
        cmd = [sys.executable, "-m", "finrag.ingest", *argv, "--data-dir",
               str(settings.data_dir), "--json"]
        began = time.time()
        proc = subprocess.run(cmd, check=False, capture_output=True, text=True, env=env)
        out = _json_of(proc.stdout)
        runs.append({"command": " ".join([argv[0], *(a for a in argv[1:] if a.startswith("-"))]),
                     "exit_code": proc.returncode, "generation": out.get("generation"),
                     "published": out.get("published"), "seconds": round(time.time() - began, 2),
                     "ingest_s": out.get("seconds"),  # the job's own time, without the CLI start
                     "ingest_steps": out.get("steps") or {},  # where that time went
                     "error": _last_line(proc.stderr) if proc.returncode not in (0, 2) else ""})
    ended = time.time()
    stop.set()
    watcher.join()
    generation = runs[-1]["generation"] if runs else None
    failed = next((r for r in runs if r["exit_code"] not in (0, 2)), None)
    return {"sources": len({a for argv in steps for a in argv[1:] if not a.startswith("-")}),
            "exit_code": failed["exit_code"] if failed else 0, "generation": generation,
            "previous": old, "started_s": started - t0, "build_s": ended - started,
            "published": seen.get(generation or "", None), "t0": t0, "ended": ended,
            "error": failed["error"] if failed else "", "steps": runs,
            "publishes": dict(seen)}


def _watch(data_dir: Path, old: str | None, seen: dict, stop: threading.Event) -> None:
    """Record the wall time at which CURRENT first names each new generation."""
    while not stop.is_set():
        name = current_generation(data_dir)
        if name and name != old and name not in seen:
            seen[name] = time.time()
        time.sleep(POLL_S)
    name = current_generation(data_dir)
    if name and name != old:
        seen.setdefault(name, time.time())


def _json_of(stdout: str) -> dict:
    try:
        out = json.loads(stdout)
    except json.JSONDecodeError:
        return {}
    return out if isinstance(out, dict) else {}


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""


# --- one client ----------------------------------------------------------------------------

_CLIENT = "from finrag.measure.stress import client_main; client_main()"


def _child_env() -> dict:
    """The parent's import path (so a test's fake embedder imports too), one torch thread."""
    path = dict.fromkeys([str(REPO), *(p for p in sys.path if p and Path(p).is_dir())])
    return {**os.environ, "PYTHONPATH": os.pathsep.join(path),
            "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"),  # 1 torch thread each
            "TOKENIZERS_PARALLELISM": "false"}


class _Client:
    """One query process, driven by lines on its stdin ("go", "stop"), answering in JSON lines.
    A plain subprocess rather than multiprocessing: spawn would re-run the parent's __main__
    (under pytest that can be a Streamlit script)."""

    def __init__(self, i: int, data_dir: Path, embedder: str, queries: list[Query]) -> None:
        self.i = i
        self.proc = subprocess.Popen([sys.executable, "-c", _CLIENT], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=_child_env())
        self.send(json.dumps({"client": i, "data_dir": str(data_dir), "embedder": embedder,
                              "queries": [[q.text, q.filters.model_dump()] for q in queries]}))

    def send(self, line: str) -> None:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def _read(self, when: str) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"stress client {self.i} exited (code {self.proc.wait()}) {when}")
        message = json.loads(line)
        if message.get("error"):
            raise RuntimeError(f"stress client {self.i} could not start: {message['error']}")
        return message

    def wait_ready(self) -> None:
        self._read("before it was ready")

    def answers(self) -> list[Answer]:
        return [Answer(*row) for row in self._read("before it reported")["answers"]]

    def close(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def client_main() -> None:
    """A client process: read the job, warm up (model, index), then query from "go" to "stop"."""
    from finrag.search import HybridSearcher

    out, sys.stdout = sys.stdout, sys.stderr  # stdout carries the protocol lines only
    job = json.loads(sys.stdin.readline())
    queries = [Query(text, Filters(**f)) for text, f in job["queries"]]
    i = job["client"]
    try:
        module, cls = job["embedder"].split(":")
        model = getattr(importlib.import_module(module), cls)()
        if hasattr(model, "query_cache_size"):  # a cycle of 18 questions would all be cached:
            model.query_cache_size = 0  # every query pays for its embedding, as a new one does
        searcher = HybridSearcher(Settings.from_env(job["data_dir"]), model)
        searcher.search(queries[i % len(queries)].text, queries[i % len(queries)].filters)
    except Exception as exc:  # noqa: BLE001 - reported to the parent as one line
        print(json.dumps({"error": f"{type(exc).__name__}: {exc}"}), file=out, flush=True)
        return
    print(json.dumps({"ready": True}), file=out, flush=True)
    sys.stdin.readline()  # "go"
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.readline(), stop.set()), daemon=True).start()
    answers, n = [], i
    while not stop.is_set():
        answers.append(_ask(searcher, i, n % len(queries), queries[n % len(queries)]))
        n += 1
    searcher.close()
    print(json.dumps({"answers": [list(vars(a).values()) for a in answers]}), file=out, flush=True)


def _ask(searcher, client: int, qi: int, query: Query) -> Answer:
    start, t = time.time(), time.perf_counter()
    try:
        result = searcher.search(query.text, query.filters)
    except Exception as exc:  # noqa: BLE001 - a failed query is a result of the run
        return Answer(client, qi, start, (time.perf_counter() - t) * 1000, "", 0, "",
                      f"{type(exc).__name__}: {exc}")
    ms = (time.perf_counter() - t) * 1000
    ids = "\n".join(h.chunk_id for h in result.fused)
    return Answer(client, qi, start, ms, result.generation, len(result.fused),
                  hashlib.sha1(ids.encode()).hexdigest()[:16])


# --- the report ----------------------------------------------------------------------------


def summarize(answers: list[Answer], queries: list[Query], wall: float, build: dict | None) -> dict:
    errors = [a for a in answers if a.error]
    good = [a for a in answers if not a.error]
    answered = {(a.query, a.generation) for a in good if a.hits}
    # empty where the same generation answered the same query with hits: a half-seen index
    empty = [a for a in good if not a.hits and (a.query, a.generation) in answered]
    ms = np.array([a.ms for a in good]) if good else np.zeros(1)
    report = {
        "queries": len(answers), "failed": len(errors) + len(empty),
        "errors": dict(Counter(a.error for a in errors).most_common(5)), "empty": len(empty),
        "seconds": round(wall, 1), "qps": round(len(answers) / wall, 1) if wall else 0.0,
        **{f"p{p}_ms": round(float(np.percentile(ms, p)), 1) for p in (50, 95, 99)},
        "max_ms": round(float(ms.max()), 1),
        "generations": dict(sorted(Counter(a.generation for a in good).items())),
        "inconsistent": _inconsistent(good), "distinct_queries": len(queries),
        "filtered_queries": sum(not q.filters.is_empty() for q in queries),
        "reingest": _switch(build, good) if build else None,
    }
    return report


def _inconsistent(answers: list[Answer]) -> int:
    """Answers whose fused list differs from the most common one for the same query and
    generation (a search is deterministic, so any is a mix of two states)."""
    groups: dict[tuple, Counter] = {}
    for a in answers:
        groups.setdefault((a.query, a.generation), Counter())[a.digest] += 1
    return sum(sum(c.values()) - c.most_common(1)[0][1] for c in groups.values())


def _switch(build: dict, answers: list[Answer]) -> dict:
    """When the clients moved to the new generation, measured from the publish."""
    out = {k: (round(v, 2) if isinstance(v, float) else v) for k, v in build.items()
           if k not in ("published", "t0", "ended", "publishes")}
    # a query that began after a generation was published, answered by an older one
    stale = [a for a in answers
             if any(a.start > when and a.generation < gen
                    for gen, when in build["publishes"].items())]
    out["stale_after_publish"] = len(stale)
    published = build["published"]
    if published is None:
        return {**out, "published_s": None}
    new = build["generation"]
    first: dict[int, Answer] = {}
    for a in sorted(answers, key=lambda a: a.start):
        if a.generation == new:
            first.setdefault(a.client, a)
    ends = [a.start + a.ms / 1000 - published for a in first.values()]
    out.update(
        published_s=round(published - build["t0"], 2),
        first_answer_ms=round(min(ends) * 1000, 1) if ends else None,
        all_clients_ms=round(max(ends) * 1000, 1) if ends else None,
        clients_switched=len(first),
        swap_query_ms=round(max(a.ms for a in first.values()), 1) if first else None,
    )
    return out


def print_report(r: dict) -> str:
    lines = [
        (f"stress: {r['clients']} clients x {r['seconds']} s on {r['data_dir']} ({r['index']}, "
         f"{r['chunks']:,} chunks); {r['distinct_queries']} queries cycling, "
         f"{r['filtered_queries']} with filters"),
        (f"queries {r['queries']:,} ({r['qps']}/s), failed {r['failed']} "
         f"({sum(r['errors'].values())} errors, {r['empty']} empty), "
         f"{r['inconsistent']} inconsistent answers"),
        f"latency ms: p50 {r['p50_ms']}  p95 {r['p95_ms']}  p99 {r['p99_ms']}  max {r['max_ms']}",
        "generations: " + ", ".join(f"{g} {n:,}" for g, n in r["generations"].items()),
    ]
    lines += [f"  error x{n}: {e}" for e, n in r["errors"].items()]
    b = r["reingest"]
    if b:
        done = "; ".join(f"{s['command']} -> {s['generation'] if s['published'] else 'unchanged'}"
                         f" ({s['seconds']} s, exit {s['exit_code']})" for s in b["steps"])
        head = (f"ingest while serving, from {b['started_s']} s for {b['build_s']} s: {done}")
        if b["error"]:
            head += f" ({b['error']})"
        lines.append(head)
        if b.get("first_answer_ms") is not None:
            lines.append(
                f"  {b['generation']} published; first answer from it {b['first_answer_ms']} ms "
                f"later, {b['clients_switched']}/{r['clients']} clients within "
                f"{b['all_clients_ms']} ms (slowest swap query {b['swap_query_ms']} ms); "
                f"{b['stale_after_publish']} queries started after the publish answered by an "
                "older generation")
        else:
            lines.append("  no new generation was answered from")
    return "\n".join(lines)
