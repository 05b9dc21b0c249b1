"""`python -m finrag search`: dense, BM25 and fused results side by side (or as JSON)."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

from finrag.commands import query
from finrag.config import K_EACH, RRF_K, TOP_K

EXIT_OK = 0


def register(sub) -> None:
    s = sub.add_parser("search", help="dense, BM25 and fused results side by side")
    s.add_argument("query")
    s.add_argument("--ticker", action="append", default=[], help="repeatable")
    s.add_argument("--year", action="append", default=[], help="fiscal year, repeatable")
    s.add_argument("--chunk-type", action="append", default=[], choices=["narrative", "table"])
    s.add_argument("--k", type=int, default=TOP_K, help="results per list")
    s.add_argument("--k-each", type=int, default=K_EACH, help="candidates per retriever")
    s.add_argument("--rrf-k", type=int, default=RRF_K)
    s.add_argument("--weights", default="1,1", help="dense,bm25 RRF weights")
    s.add_argument("--no-expand", action="store_true", help="no finance-vocabulary expansion")
    s.add_argument("--no-route", action="store_true",
                   help="no section vote (MD&A for a why question: finrag.routing)")
    s.add_argument("--fuse-by", choices=("page", "chunk"), default="page",
                   help="fuse the two lists page by page (default) or chunk by chunk")
    s.add_argument("--data-dir", type=Path)
    s.add_argument("--json", action="store_true")
    s.add_argument("--no-auto-filters", action="store_true", help=query.AUTO_HELP)
    s.set_defaults(run=run)


def run(args) -> int:
    filters = query.parse_filters(args.ticker, args.year, args.chunk_type)
    weights = query.parse_weights(args.weights)
    searcher = query.searcher_for(args.data_dir)
    query.warn_unknown(searcher, filters)
    filters = query.with_auto_filters(searcher, args.query, filters, not args.no_auto_filters)
    result = searcher.search(args.query, filters, args.k, k_each=args.k_each,
                             rrf_k=args.rrf_k, weights=weights, expand=not args.no_expand,
                             route=not args.no_route,
                             fuse_by=args.fuse_by)
    if args.json:
        print(json.dumps(query.search_json(result), indent=2))
    else:
        _print_columns(result)
    return EXIT_OK


def _print_columns(result) -> None:
    if result.message:
        print(result.message)
    if result.expansions:
        print("also searched for: " + "; ".join(result.expansions))
    width = max(30, (shutil.get_terminal_size((150, 20)).columns - 6) // 3)
    columns = [("DENSE", result.dense), ("BM25", result.bm25), ("FUSED (RRF)", result.fused)]
    cells = [[hit_cell(h, width, result.routed) for h in hits] for _, hits in columns]
    print(" | ".join(f"{name:<{width}}" for name, _ in columns))
    print("-+-".join("-" * width for _ in columns))
    for i in range(max((len(c) for c in cells), default=0)):
        block = [c[i] if i < len(c) else [""] for c in cells]
        for line in range(max(len(b) for b in block)):
            print(" | ".join(f"{(b[line] if line < len(b) else ''):<{width}}" for b in block))
        print("-+-".join("-" * width for _ in columns))


def hit_cell(hit, width: int, routed: list[str] = ()) -> list[str]:
    """One hit as a column cell: a head line (rank, filing, section, page, ranks, and the routed
    place that lifted it) and a snippet."""
    from finrag.present import lifted

    c = hit.chunk
    head = f"#{hit.rank} {c.ticker} FY{c.fiscal_year} {c.section} {c.chunk_type[0].upper()}"
    if c.page_label:
        head += f" p.{c.page_label}"
    elif c.page:
        head += f" file-p{c.page}"
    if hit.dense_rank is not None or hit.bm25_rank is not None:
        why = lifted(hit, routed)  # finrag.routing's vote, where it counted for the hit
        head += f" [d{hit.dense_rank or '-'} b{hit.bm25_rank or '-'}"
        head += " +MD&A]" if "MD&A" in why else " +statement]" if why else "]"
    snippet = " ".join(c.text.split())[: width * 3]
    return [head[:width]] + textwrap.wrap(snippet, width)[:3]
