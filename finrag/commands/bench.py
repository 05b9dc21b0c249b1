"""`python -m finrag bench`: latency, memory and build figures at N chunks."""

from __future__ import annotations

import json
from pathlib import Path

EXIT_OK = 0


def register(sub) -> None:
    b = sub.add_parser("bench", help="latency, memory and build figures at N chunks")
    b.add_argument("--chunks", type=int, default=10_000)
    b.add_argument("--queries", type=int, default=50)
    b.add_argument("--work-dir", type=Path, help="where to build (default: a temp dir)")
    b.add_argument("--source-dir", type=Path, help="index whose chunk texts to replicate")
    b.add_argument("--no-naive", action="store_true", help="skip the naive baseline")
    b.add_argument("--no-in-place", action="store_true",
                   help="skip adding, re-ingesting and removing a filing in place")
    b.add_argument("--writer-memory", type=float, metavar="GB",
                   help="memory the index's write may hold (default $FINRAG_WRITER_MEMORY_GB "
                   "or 4)")
    b.add_argument("--companies", action="store_true",
                   help="shape the corpus as many companies' 10-Ks (each copy of a source filing "
                   "one company-year, ten years a company) instead of ten tickers")
    b.add_argument("--json", action="store_true")
    b.set_defaults(run=run)


def run(args) -> int:
    from finrag.measure.bench import print_report, run_bench

    report = run_bench(args.chunks, queries=args.queries, work_dir=args.work_dir,
                       source_dir=args.source_dir, naive=not args.no_naive,
                       in_place=not args.no_in_place, writer_memory=args.writer_memory,
                       companies=args.companies)
    print(json.dumps(report, indent=2) if args.json else print_report(report))
    return EXIT_OK
