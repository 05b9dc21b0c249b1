"""`python -m finrag canary`: run the canary queries; exit 1 if one fails."""

from __future__ import annotations

import json
from pathlib import Path

from finrag.commands import query

EXIT_OK, EXIT_FAIL = 0, 1


def register(sub) -> None:
    c = sub.add_parser("canary", help="run the canary queries; exit 1 if one fails")
    c.add_argument("--file", type=Path, help="canary TOML (default: the bundled canaries)")
    c.add_argument("--data-dir", type=Path)
    c.add_argument("--json", action="store_true")
    c.set_defaults(run=run)


def run(args) -> int:
    from finrag.canary import DEFAULT_FILE, load_canaries

    canaries = load_canaries(args.file or DEFAULT_FILE)
    searcher = query.searcher_for(args.data_dir)
    results = [_run_one(searcher, c) for c in canaries]
    passed = sum(r.passed for r in results)
    if args.json:
        print(json.dumps({"canaries": [r.model_dump() for r in results], "passed": passed,
                          "failed": len(results) - passed}, indent=2))
    else:
        for r in results:
            _print_canary(r)
        print(f"{passed} passed, {len(results) - passed} failed")
    return EXIT_OK if passed == len(results) else EXIT_FAIL


def _run_one(searcher, canary):
    from finrag.canary import run_canary
    from finrag.search import QueryError

    try:
        return run_canary(searcher, canary)
    except QueryError as exc:
        raise ValueError(f"canary {canary.name!r}: {exc}") from None


def _print_canary(r) -> None:
    print(f"{'PASS' if r.passed else 'FAIL'}  {r.name}: {r.query}")
    for method in ("dense", "bm25", "fused"):
        tops = ", ".join(f"{h['ticker']} FY{h['fiscal_year']} {h['section']}"
                         for h in getattr(r, method))
        print(f"      {method:5} top-3: {tops or '-'}")
    for failure in r.failures:
        print(f"      reason: {failure}")
