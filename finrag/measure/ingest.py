"""`python -m finrag.measure.ingest`: the raw embedding rate beside the whole build's rate.

Both figures are taken on the bundled sample's chunk texts (what a build embeds), in chunks per
second, with the model already loaded: raw is one `Embedder.encode` call over every text; end
to end is `build` of the sample into a fresh data dir with a fresh embedding cache (reading in
worker processes, embedding, writing and publishing the index). Raw is timed before and after
the build, and `ratio` is end to end over the mean of the two; `read_s` is reading and chunking
alone (cold caches). On a GPU, fp32 and fp16 are measured apart and the cosine of each fp16
vector to its fp32 twin is reported (minimum and median). `load` is the 1-minute load average
before and after: the machine may be shared, so read the figures with it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from finrag.config import Settings


def sample_texts(work: Path, workers: int | None) -> list[str]:
    """The texts a build of the bundled sample embeds, in build order."""
    from finrag.embed import TokenCounter
    from finrag.ingest.parallel import read_filings
    from finrag.ingest.read import locate
    from finrag.ingest.sample import unpack_sample
    from finrag.views import dense_text

    jobs = [(u, None, None) for u in locate([unpack_sample(work / "sample")])]
    read = read_filings(jobs, TokenCounter().count, _fresh(work / "read"), workers)
    return list(dict.fromkeys(dense_text(c) for _, chunks, _ in read for c in chunks))


def raw_rate(embedder, texts: list[str]) -> tuple[float, np.ndarray]:
    """Chunks per second of one `encode` call over all `texts` (after a warm-up call), and the
    vectors. One call lets sentence-transformers sort every text by length, so its batches
    carry the least padding: the best rate this model reaches on these texts."""
    embedder.encode(texts[: embedder.batch_size * 4])
    _sync(embedder)
    started = time.perf_counter()
    vectors = embedder.encode(texts)
    _sync(embedder)
    return len(texts) / (time.perf_counter() - started), vectors


def build_rate(embedder, work: Path, workers: int | None) -> dict:
    """Chunks per second of a whole build of the sample, fresh data dir and embedding cache."""
    from finrag.embed import TokenCounter
    from finrag.ingest.build import build
    from finrag.ingest.sample import unpack_sample

    sample = unpack_sample(work / "sample")
    settings = Settings(data_dir=_fresh(work / "build"), qdrant_url=None)
    started = time.perf_counter()
    report = build([sample], settings, embedder, TokenCounter().count, workers=workers)
    seconds = time.perf_counter() - started
    return {"chunks": report.totals()["chunks"], "embedded": report.embedded,
            "seconds": round(seconds, 2), "chunks_per_s": round(report.embedded / seconds, 1)}


def run(workers: int | None, device: str | None) -> dict:
    from finrag.embed import Embedder

    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="finrag-ingest-bench-") as tmp:
        work = Path(tmp)
        started = time.perf_counter()
        texts = sample_texts(work, workers)
        read_s = time.perf_counter() - started
        embedder = Embedder(device=device)
        out = {"device": embedder.device, "texts": len(texts), "workers": workers or "cpus",
               "read_s": round(read_s, 2)}
        rate, vectors = raw_rate(embedder, texts)
        out.update(precision=embedder.precision, batch=embedder.batch_size,
                   raw_chunks_per_s=round(rate, 1))
        if embedder.device != "cpu":
            out.update(_fp32_beside(texts, device, vectors, embedder.precision))
        out["build"] = build_rate(embedder, work, workers)
        after, _ = raw_rate(embedder, texts)  # again: on a shared machine the load drifts
        out["raw_after_chunks_per_s"] = round(after, 1)
    out["ratio"] = round(out["build"]["chunks_per_s"] * 2 / (rate + after), 3)
    out["load"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    return out


def _fp32_beside(texts, device, vectors: np.ndarray, precision: str) -> dict:
    """The fp32 rate at batch 256 and 1024, and how close the kept precision's vectors are."""
    from finrag.embed import Embedder

    out = {}
    for batch in (256, 1024):
        fp32 = Embedder(device=device, fp16=False, batch_size=batch)
        rate, full = raw_rate(fp32, texts)
        out[f"fp32_batch{batch}_chunks_per_s"] = round(rate, 1)
    cosines = np.sum(full * vectors, axis=1)
    out[f"{precision}_vs_fp32_cosine"] = {"min": round(float(cosines.min()), 5),
                                          "median": round(float(np.median(cosines)), 5)}
    return out


def _sync(embedder) -> None:
    if embedder.device != "cpu":
        import torch

        torch.cuda.synchronize()


def _fresh(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=False)
    return path


def report_text(r: dict) -> str:
    lines = [f"device {r['device']} ({r['precision']}, batch {r['batch']}), {r['texts']} texts, "
             f"reading workers: {r['workers']} (reading and chunking the sample: {r['read_s']} s)",
             f"raw embedding:      {r['raw_chunks_per_s']:,.1f} chunks/s before the build, "
             f"{r['raw_after_chunks_per_s']:,.1f} after"]
    for key, value in r.items():
        if key.startswith("fp32_batch"):
            lines.append(f"{key.replace('_chunks_per_s', '')} raw: {value:,.1f} chunks/s")
        if key.endswith("_vs_fp32_cosine"):
            lines.append(f"{key}: min {value['min']}, median {value['median']}")
    b = r["build"]
    lines += [f"build end to end:   {b['chunks_per_s']:,.1f} chunks/s ({b['embedded']} embedded "
              f"of {b['chunks']} chunks in {b['seconds']} s)",
              f"end to end / raw:   {r['ratio']:.1%} of the mean raw rate "
              f"(load {r['load'][0]} -> {r['load'][1]})"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m finrag.measure.ingest", description=__doc__)
    parser.add_argument("--workers", type=int, help="reading processes (default: one per core)")
    parser.add_argument("--device", help="cpu or cuda (default: a GPU when torch sees one)")
    parser.add_argument("--json", action="store_true", help="print a JSON report")
    args = parser.parse_args(argv)
    if args.workers is not None and args.workers < 1:
        print(f"error: --workers must be 1 or more, got {args.workers}", file=sys.stderr)
        return 1
    result = run(args.workers, args.device)
    print(json.dumps(result, indent=2) if args.json else report_text(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
