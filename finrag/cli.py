"""`python -m finrag search|canary|eval|bench`: thin argparse surface over the library."""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
import textwrap
from pathlib import Path

from finrag.config import K_EACH, RRF_K, TOP_K, Settings

EXIT_OK, EXIT_FAIL = 0, 1


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return args.run(args)
    except (RuntimeError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_FAIL


class _Parser(argparse.ArgumentParser):
    """argparse whose usage errors are one line and exit 1, like every other bad input."""

    def error(self, message: str):
        self.exit(EXIT_FAIL, f"error: {message} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m finrag", description="Search indexed 10-Ks.")
    sub = p.add_subparsers(required=True, metavar="{search,ask,canary,eval,bench,stress}")

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
    s.add_argument("--fuse-by", choices=("page", "chunk"), default="page",
                   help="fuse the two lists page by page (default) or chunk by chunk")
    s.add_argument("--data-dir", type=Path)
    s.add_argument("--json", action="store_true")
    s.add_argument("--no-auto-filters", action="store_true", help=AUTO_HELP)
    s.set_defaults(run=_search)

    a = sub.add_parser("ask", help="answer a question with the figure from the filing")
    a.add_argument("question")
    a.add_argument("--ticker", action="append", default=[], help="repeatable")
    a.add_argument("--year", action="append", default=[], help="fiscal year, repeatable")
    a.add_argument("--k", type=int, default=TOP_K, help="passages shown")
    a.add_argument("--data-dir", type=Path)
    a.add_argument("--json", action="store_true")
    a.add_argument("--no-auto-filters", action="store_true", help=AUTO_HELP)
    a.set_defaults(run=_ask)

    c = sub.add_parser("canary", help="run the canary queries; exit 1 if one fails")
    c.add_argument("--file", type=Path, help="canary TOML (default: the bundled canaries)")
    c.add_argument("--data-dir", type=Path)
    c.add_argument("--json", action="store_true")
    c.set_defaults(run=_canary)

    b = sub.add_parser("bench", help="latency, memory and build figures at N chunks")
    b.add_argument("--chunks", type=int, default=10_000)
    b.add_argument("--queries", type=int, default=50)
    b.add_argument("--work-dir", type=Path, help="where to build (default: a temp dir)")
    b.add_argument("--source-dir", type=Path, help="index whose chunk texts to replicate")
    b.add_argument("--no-naive", action="store_true", help="skip the naive baseline")
    b.add_argument("--no-in-place", action="store_true",
                   help="skip adding, re-ingesting and removing a filing in place")
    b.add_argument("--json", action="store_true")
    b.set_defaults(run=_bench)

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
    st.set_defaults(run=_stress)

    e = sub.add_parser("eval", help="retrieval and answer quality on a benchmark").add_subparsers(
        required=True, metavar="{financebench,figures}")
    g = e.add_parser("figures", help="answers right / wrong / unanswered on figure questions")
    g.add_argument("--questions", type=Path, required=True, help="figures .jsonl")
    g.add_argument("--filter", default="none", choices=["filing", "ticker", "none"],
                   help="filters set with each question (default none: it names its company)")
    g.add_argument("--data-dir", type=Path, help="index cache (default: <data dir>/figures)")
    g.add_argument("--json", action="store_true")
    g.set_defaults(run=_eval_figures)
    f = e.add_parser("financebench", help="page-hit@k, MRR, nDCG per method on FinanceBench")
    f.add_argument("--questions", type=Path, required=True, help="questions .jsonl")
    f.add_argument("--pdfs", type=Path, required=True, help="folder of the 10-K PDFs")
    f.add_argument("--doc-index", type=Path, required=True, help="doc_name -> ticker, year CSV")
    f.add_argument("--filter", default="filing", choices=["filing", "ticker", "none"])
    f.add_argument("--k", type=int, default=TOP_K)
    f.add_argument("--k-each", type=int, default=K_EACH, help="candidates per retriever")
    f.add_argument("--rrf-k", type=int, default=RRF_K)
    f.add_argument("--weights", default="1,1", help="dense,bm25 RRF weights")
    f.add_argument("--no-expand", action="store_true", help="no finance-vocabulary expansion")
    f.add_argument("--fuse-by", choices=("page", "chunk"), default="page",
                   help="fuse the two lists page by page (default) or chunk by chunk")
    f.add_argument("--data-dir", type=Path, help="index cache (default: <data dir>/financebench)")
    f.add_argument("--no-auto-filters", action="store_true", help=AUTO_HELP)
    f.add_argument("--plot", type=Path, help="write a PNG of hit@k, k = 1..20")
    f.add_argument("--answers", action="store_true",
                   help="score the answers to the metrics-generated questions instead of pages")
    f.add_argument("--json", action="store_true")
    f.set_defaults(run=_eval_financebench)
    return p


AUTO_HELP = ("don't turn the company and fiscal year the question names into filters "
             "(they are, by default, where no --ticker / --year is given)")


def with_auto_filters(searcher, question: str, filters, enabled: bool = True, quiet: bool = False):
    """`filters` plus the company / fiscal year the question names (finrag.autofilter); says on
    stderr what was added."""
    from finrag.ask import companies_of
    from finrag.autofilter import auto_filters

    if not enabled:
        return filters
    companies, filed = companies_of(searcher.index)
    auto = auto_filters(question, filters, companies, filed)
    if auto.added and not quiet:
        print(f"note: filters from the question: {auto.describe()} (--no-auto-filters to search "
              "without them)", file=sys.stderr)
    return auto.filters


def searcher_for(data_dir: Path | None):
    from finrag.embed import Embedder
    from finrag.search import HybridSearcher

    return HybridSearcher(Settings.from_env(data_dir), Embedder())


def parse_filters(tickers: list[str], years: list[str], chunk_types: list[str]):
    from finrag.models import Filters

    bad = [y for y in years if not y.strip().isdigit() or not 1990 <= int(y) <= 2100]
    if bad:
        raise ValueError(f"--year {bad[0]!r} is not a fiscal year like 2023")
    return Filters(tickers=tickers, fiscal_years=[int(y) for y in years], chunk_types=chunk_types)


def _search(args) -> int:
    filters = parse_filters(args.ticker, args.year, args.chunk_type)
    weights = _weights(args.weights)
    searcher = searcher_for(args.data_dir)
    _warn_unknown(searcher, filters)
    filters = with_auto_filters(searcher, args.query, filters, not args.no_auto_filters)
    result = searcher.search(args.query, filters, args.k, k_each=args.k_each,
                             rrf_k=args.rrf_k, weights=weights, expand=not args.no_expand,
                             fuse_by=args.fuse_by)
    if args.json:
        print(json.dumps(search_json(result), indent=2))
    else:
        _print_columns(result)
    return EXIT_OK


def _ask(args) -> int:
    from finrag.ask import ask, ask_json

    filters = parse_filters(args.ticker, args.year, [])
    searcher = searcher_for(args.data_dir)
    _warn_unknown(searcher, filters)
    filters = with_auto_filters(searcher, args.question, filters, not args.no_auto_filters)
    asked = ask(searcher, args.question, filters, args.k)
    if args.json:
        print(json.dumps(ask_json(asked, search_json(asked.search)["fused"]), indent=2))
    else:
        _print_answer(asked)
    return EXIT_OK


def _print_answer(asked) -> None:
    a = asked.answer
    if a is None:
        print(f"No answer. {asked.outcome.reason}")
    else:
        print(a.text)
        if a.formula and a.formula not in a.text:
            print(f"formula: {a.formula}")
        for c in asked.citations:
            page = f"p. {c['page_label']}" if c["page_label"] else f"page {c['page']}"
            print(f"  - {c['ticker']} FY{c['fiscal_year']} '{c['line_label']}', {c['statement']}, "
                  f"{page}" + (f" {c['url']}" if c["url"] else ""))
    print("passages:")
    for h in asked.search.fused:
        print("  " + _cell(h, 140)[0] + " " + " ".join(h.chunk.text.split())[:100])


def _weights(text: str) -> tuple[float, float]:
    try:
        dense, bm25 = (float(x) for x in text.split(","))
    except ValueError:
        raise ValueError(f"--weights {text!r}: give two numbers, dense,bm25, e.g. 1,1") from None
    if not (math.isfinite(dense) and math.isfinite(bm25)) or dense < 0 or bm25 < 0:
        raise ValueError(f"--weights {text!r}: weights must be finite numbers >= 0")
    if dense == 0 and bm25 == 0:
        raise ValueError(f"--weights {text!r}: both are 0, so nothing would be fused; "
                         "give one a weight above 0, e.g. 0,1 for BM25 alone")
    return dense, bm25


def _warn_unknown(searcher, filters) -> None:
    companies = searcher.index.facets()["companies"]
    unknown = [t for t in filters.tickers if t not in companies]
    if unknown:
        known = ", ".join(sorted(companies)) or "none"
        print(f"note: ticker {', '.join(unknown)} is not indexed (indexed: {known})",
              file=sys.stderr)


def search_json(result) -> dict:
    from finrag.present import hit_record

    return {"query": result.query, "filters": result.filters.model_dump(),
            "dense": [hit_record(h) for h in result.dense],
            "bm25": [hit_record(h) for h in result.bm25],
            "fused": [hit_record(h, fused=True) for h in result.fused],
            "message": result.message, "expansions": result.expansions,
            "generation": result.generation,
            "timings_ms": {k: round(v, 2) for k, v in result.timings_ms.items()}}


def _print_columns(result) -> None:
    if result.message:
        print(result.message)
    if result.expansions:
        print("also searched for: " + "; ".join(result.expansions))
    width = max(30, (shutil.get_terminal_size((150, 20)).columns - 6) // 3)
    columns = [("DENSE", result.dense), ("BM25", result.bm25), ("FUSED (RRF)", result.fused)]
    cells = [[_cell(h, width) for h in hits] for _, hits in columns]
    print(" | ".join(f"{name:<{width}}" for name, _ in columns))
    print("-+-".join("-" * width for _ in columns))
    for i in range(max((len(c) for c in cells), default=0)):
        block = [c[i] if i < len(c) else [""] for c in cells]
        for line in range(max(len(b) for b in block)):
            print(" | ".join(f"{(b[line] if line < len(b) else ''):<{width}}" for b in block))
        print("-+-".join("-" * width for _ in columns))


def _cell(hit, width: int) -> list[str]:
    c = hit.chunk
    head = f"#{hit.rank} {c.ticker} FY{c.fiscal_year} {c.section} {c.chunk_type[0].upper()}"
    if c.page_label:
        head += f" p.{c.page_label}"
    elif c.page:
        head += f" file-p{c.page}"
    if hit.dense_rank is not None or hit.bm25_rank is not None:
        head += f" [d{hit.dense_rank or '-'} b{hit.bm25_rank or '-'}]"
    snippet = " ".join(c.text.split())[: width * 3]
    return [head[:width]] + textwrap.wrap(snippet, width)[:3]


def _canary(args) -> int:
    canaries = _load_canaries(args.file)
    searcher = searcher_for(args.data_dir)
    results = [_run_canary(searcher, c) for c in canaries]
    passed = sum(r.passed for r in results)
    if args.json:
        print(json.dumps({"canaries": [r.model_dump() for r in results], "passed": passed,
                          "failed": len(results) - passed}, indent=2))
    else:
        for r in results:
            _print_canary(r)
        print(f"{passed} passed, {len(results) - passed} failed")
    return EXIT_OK if passed == len(results) else EXIT_FAIL


def _run_canary(searcher, canary):
    from finrag.canary import run_canary
    from finrag.search import QueryError

    try:
        return run_canary(searcher, canary)
    except QueryError as exc:
        raise ValueError(f"canary {canary.name!r}: {exc}") from None


def _load_canaries(path: Path | None):
    from finrag.canary import DEFAULT_FILE, load_canaries

    return load_canaries(path or DEFAULT_FILE)


def _print_canary(r) -> None:
    print(f"{'PASS' if r.passed else 'FAIL'}  {r.name}: {r.query}")
    for method in ("dense", "bm25", "fused"):
        tops = ", ".join(f"{h['ticker']} FY{h['fiscal_year']} {h['section']}"
                         for h in getattr(r, method))
        print(f"      {method:5} top-3: {tops or '-'}")
    for failure in r.failures:
        print(f"      reason: {failure}")


def _eval_financebench(args) -> int:
    """Index the PDFs the questions need (ingest's normal path, cached), then score each method."""
    from finrag.embed import Embedder
    from finrag.ingest.build import (
        build,  # the CLI is a surface: it wires ingest and search together
    )
    from finrag.ingest.progress import Progress
    from finrag.measure import financebench
    from finrag.search import HybridSearcher

    if not 1 <= args.k <= 100:
        raise ValueError(f"--k {args.k}: choose 1 to 100")
    weights = _weights(args.weights)
    questions, skipped = financebench.load(args.questions, args.pdfs, args.doc_index)
    for line in skipped:
        print(f"skipped {line}", file=sys.stderr)
    if args.answers:  # only the metrics-generated questions are answered: index their PDFs only
        questions = [q for q in questions if q.question_type == "metrics-generated"]
        if not questions:
            raise ValueError(f"{args.questions}: no metrics-generated question to answer")
    data_dir = args.data_dir or Settings.from_env().data_dir / "financebench"
    settings = Settings.from_env(data_dir)
    embedder = Embedder()
    docs = {q.document.pdf: q.document for q in questions}
    overrides = {pdf: {"ticker": d.ticker, "fiscal_year": d.fiscal_year} for pdf, d in docs.items()}
    _refuse_foreign_index(settings.data_dir, args.pdfs)
    problem = _cache_problem(settings)
    if problem:
        print(f"note: {problem}; rebuilding it from the PDFs", file=sys.stderr)
    with Progress(enabled=sys.stderr.isatty()) as progress:
        report = build(sorted(docs), settings, embedder, embedder.count_tokens,
                       overrides=overrides, progress=progress, rebuild=bool(problem))
    for f in report.filings:
        if f.status == "failed":
            print(f"not indexed: {f.error}", file=sys.stderr)
    searcher = HybridSearcher(settings, embedder)
    if args.answers:
        return _financebench_answers(args, searcher, questions, report)
    try:
        result = financebench.evaluate(searcher, questions, args.filter, args.k,
                                       auto=not args.no_auto_filters,
                                       k_each=max(args.k_each, 20), rrf_k=args.rrf_k,
                                       weights=weights, expand=not args.no_expand,
                                       fuse_by=args.fuse_by)
    finally:
        searcher.close()
    result["index"] = {"generation": report.generation, "documents": len(docs),
                       "chunks": report.totals()["chunks"], "build_s": round(report.seconds, 1)}
    if args.plot:
        financebench.plot(result, args.plot)
    print(json.dumps(result, indent=2) if args.json else _eval_table(result))
    return EXIT_OK


def _financebench_answers(args, searcher, questions, report) -> int:
    from finrag.measure.figures import score_financebench, table

    records = [{"question": q, "answer": q.answer} for q in questions]  # metrics-generated only
    try:
        result = score_financebench(searcher, records, args.filter)
    finally:
        searcher.close()
    result["index"] = {"generation": report.generation, "chunks": report.totals()["chunks"]}
    print(json.dumps(result, indent=2) if args.json else table(
        result, f"FinanceBench metrics-generated answers, filter {args.filter}"))
    return EXIT_OK


def _eval_figures(args) -> int:
    """Index the filings the questions name (cached in the data dir), then ask each question."""
    from finrag.embed import Embedder
    from finrag.ingest.build import build
    from finrag.ingest.progress import Progress
    from finrag.measure.figures import load_figures, score_figures, table
    from finrag.search import HybridSearcher

    questions = load_figures(args.questions)
    missing = sorted({str(q.filing) for q in questions if not q.filing.is_file()})
    if missing:
        raise ValueError(f"{missing[0]}: filing named by {args.questions} not found")
    settings = Settings.from_env(args.data_dir or Settings.from_env().data_dir / "figures")
    embedder = Embedder()
    folders = sorted({q.filing.parent for q in questions})
    with Progress(enabled=sys.stderr.isatty()) as progress:
        report = build(folders, settings, embedder, embedder.count_tokens, progress=progress,
                       rebuild=bool(_cache_problem(settings)))
    for f in report.filings:
        if f.status == "failed":
            print(f"not indexed: {f.error}", file=sys.stderr)
    searcher = HybridSearcher(settings, embedder)
    try:
        result = score_figures(searcher, questions, args.filter)
    finally:
        searcher.close()
    result["index"] = {"generation": report.generation, "chunks": report.totals()["chunks"]}
    print(json.dumps(result, indent=2) if args.json else table(
        result, f"Figure questions ({args.questions.name}), filter {args.filter}"))
    return EXIT_OK


def _refuse_foreign_index(data_dir: Path, pdfs: Path) -> None:
    """The eval adds the benchmark's PDFs to the index in its data dir, and rebuilds it when
    this finrag cannot read it: pointed at an analyst's own index, it would mix the benchmark
    into it or drop its filings. Only an index of PDFs from the benchmark's folder (by file
    name, so the directory it was run from does not matter) is the eval's own."""
    from finrag.index import IndexUnavailable, indexed_sources

    try:
        sources = indexed_sources(data_dir)
    except IndexUnavailable as exc:
        raise ValueError(f"--data-dir {data_dir}: {exc.reason}; give the eval a directory of "
                         "its own") from None
    ours = {p.name for p in Path(pdfs).glob("*.pdf")}
    foreign = [s for s in sources if Path(s).name not in ours]
    if foreign:
        raise ValueError(
            f"--data-dir {data_dir} holds an index of other filings ({len(foreign)}, e.g. "
            f"{foreign[0]}): the eval would add the benchmark to it; give the eval a directory "
            "of its own (default: <data dir>/financebench)"
        )


def _cache_problem(settings) -> str | None:
    """Why the evaluation's own cached index cannot be used by this finrag (another format,
    model or tokenizer, or a damaged manifest), else None. It holds only the benchmark's PDFs,
    so such an index is rebuilt from them."""
    from finrag.index import IndexUnavailable, current_generation, read_manifest

    name = current_generation(settings.data_dir)
    try:
        if name is not None:
            read_manifest(settings.data_dir, name)
    except IndexUnavailable as exc:
        return exc.reason  # why, without the advice to rebuild: the eval rebuilds it itself
    return None


def _eval_table(r: dict) -> str:
    k = r["k"]
    cols = ["hit@1", "hit@5", f"hit@{k}", f"mrr@{k}", f"ndcg@{k}", "median_ms"]
    lines = [(f"FinanceBench: {r['questions']} questions, filter {r['filter']}, "
              f"{r['index']['chunks']} chunks from {r['index']['documents']} PDFs"),
             f"{'method':8}" + "".join(f"{c:>11}" for c in dict.fromkeys(cols))]
    for group, methods in [("", r["methods"])] + [
            (f"  {t} ({v['questions']})", v["methods"]) for t, v in r["by_type"].items()]:
        if group:
            lines.append(group)
        for m, s in methods.items():
            lines.append(f"{m:8}" + "".join(f"{s[c]:>11}" for c in dict.fromkeys(cols)))
    lines.append(f"{len(r['misses'])} questions with no fused hit in the top {k}")
    return "\n".join(lines)


def _bench(args) -> int:
    from finrag.measure.bench import print_report, run_bench

    report = run_bench(args.chunks, queries=args.queries, work_dir=args.work_dir,
                       source_dir=args.source_dir, naive=not args.no_naive,
                       in_place=not args.no_in_place)
    print(json.dumps(report, indent=2) if args.json else print_report(report))
    return EXIT_OK


def _stress(args) -> int:
    from finrag.measure.stress import print_report, run_stress

    report = run_stress(args.data_dir, args.clients, args.seconds, args.reingest,
                        in_place=args.in_place)
    print(json.dumps(report, indent=2) if args.json else print_report(report))
    rebuilt = report["reingest"] is None or report["reingest"]["exit_code"] == 0
    return EXIT_OK if report["failed"] == 0 and rebuilt else EXIT_FAIL
