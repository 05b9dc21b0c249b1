"""`python -m finrag stress`: concurrent query clients, optionally across a re-ingest."""

from __future__ import annotations

import json
from pathlib import Path

EXIT_OK, EXIT_FAIL = 0, 1


def register(sub) -> None:
    st = sub.add_parser("stress", help="concurrent query clients, optionally across a re-ingest")
    st.add_argument("--clients", type=int, default=4, help="query processes")
    st.add_argument("--seconds", type=float, default=60.0)
    st.add_argument("--reingest", action="store_true",
                    help="rebuild the index from its sources in another process meanwhile")
    st.add_argument("--in-place", action="store_true",
                    help="meanwhile remove the index's last filing, add it back and re-ingest "
                    "it unchanged (in-place updates)")
    st.add_argument("--data-dir", type=Path)
    st.add_argument("--json", action="store_true")
    st.set_defaults(run=run)


def run(args) -> int:
    from finrag.measure.stress import print_report, run_stress

    report = run_stress(args.data_dir, args.clients, args.seconds, args.reingest,
                        in_place=args.in_place)
    print(json.dumps(report, indent=2) if args.json else print_report(report))
    rebuilt = report["reingest"] is None or report["reingest"]["exit_code"] == 0
    return EXIT_OK if report["failed"] == 0 and rebuilt else EXIT_FAIL
