"""`python -m finrag eval financebench|figures`: retrieval and answer quality on a benchmark,
each on an index of the benchmark's own files (eval_index.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from finrag.commands import query
from finrag.commands.eval_index import build_eval_index, cache_problem, refuse_foreign_index
from finrag.config import K_EACH, RRF_K, TOP_K, Settings

EXIT_OK = 0


def register(sub) -> None:
    e = sub.add_parser("eval", help="retrieval and answer quality on a benchmark").add_subparsers(
        required=True, metavar="{financebench,figures,series,narrative}")
    g = e.add_parser("figures", help="answers right / wrong / unanswered on figure questions")
    g.add_argument("--questions", type=Path, required=True, help="figures .jsonl")
    g.add_argument("--filter", default="none", choices=["filing", "ticker", "none"],
                   help="filters set with each question (default none: it names its company)")
    g.add_argument("--data-dir", type=Path, help="index cache (default: <data dir>/figures)")
    g.add_argument("--json", action="store_true")
    g.set_defaults(run=run_figures)
    s = e.add_parser("series", help="series, peer and ranking answers, right / wrong / "
                     "unanswered per kind and point precision")
    s.add_argument("--questions", type=Path, required=True, help="series key .jsonl "
                   "(finrag/measure/keys/series.dev.jsonl)")
    s.add_argument("--filings", type=Path, default=Path("../shared/data/filings/sec-edgar-filings"),
                   help="the folder the key's filings are under")
    s.add_argument("--data-dir", type=Path, help="index cache (default: <data dir>/series)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(run=run_series)
    n = e.add_parser("narrative", help="page-hit@k and MRR per method, and where the answer "
                     "quotes from, on narrative questions (causes, lists, yes / no)")
    n.add_argument("--questions", type=Path, required=True, help="narrative key .jsonl "
                   "(finrag/measure/keys/narrative.dev.jsonl)")
    n.add_argument("--data", type=Path, default=Path("../shared/data"),
                   help="the folder the key's filing paths are under")
    n.add_argument("--filter", default="filing", choices=["filing", "ticker", "none"])
    n.add_argument("--k", type=int, default=TOP_K)
    n.add_argument("--no-answers", action="store_true", help="search only: do not ask")
    n.add_argument("--no-route", action="store_true",
                   help="no section vote (MD&A for a why question: finrag.routing)")
    n.add_argument("--data-dir", type=Path, help="index cache (default: <data dir>/narrative)")
    n.add_argument("--json", action="store_true")
    n.set_defaults(run=run_narrative)
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
    f.add_argument("--no-route", action="store_true",
                   help="no section vote (MD&A for a why question: finrag.routing)")
    f.add_argument("--fuse-by", choices=("page", "chunk"), default="page",
                   help="fuse the two lists page by page (default) or chunk by chunk")
    f.add_argument("--data-dir", type=Path, help="index cache (default: <data dir>/financebench)")
    f.add_argument("--no-auto-filters", action="store_true", help=query.AUTO_HELP)
    f.add_argument("--plot", type=Path, help="write a PNG of hit@k, k = 1..20")
    f.add_argument("--answers", action="store_true",
                   help="score the answers to the metrics-generated questions instead of pages")
    f.add_argument("--judged", type=Path, metavar="KEY",
                   help="score the answers to the questions a judged key (.jsonl) covers: "
                        "verdicts, figures, extracts")
    f.add_argument("--json", action="store_true")
    f.set_defaults(run=run_financebench)


def run_financebench(args) -> int:
    """Index the PDFs the questions need (ingest's normal path, cached), then score each method."""
    from finrag.embed import Embedder
    from finrag.measure import financebench, financebench_retrieval
    from finrag.search import HybridSearcher

    if not 1 <= args.k <= 100:
        raise ValueError(f"--k {args.k}: choose 1 to 100")
    weights = query.parse_weights(args.weights)
    questions, skipped = financebench.load(args.questions, args.pdfs, args.doc_index)
    for line in skipped:
        print(f"skipped {line}", file=sys.stderr)
    key = None
    if args.judged:
        from finrag.measure.judged import load_key

        key = load_key(args.judged)
        questions = [q for q in questions if q.financebench_id in key]
        if not questions:
            raise ValueError(f"{args.judged}: no key for any question of {args.questions}")
    elif args.answers:  # only the metrics-generated questions are answered: index their PDFs
        questions = [q for q in questions if q.question_type == "metrics-generated"]
        if not questions:
            raise ValueError(f"{args.questions}: no metrics-generated question to answer")
    data_dir = args.data_dir or Settings.from_env().data_dir / "financebench"
    settings = Settings.from_env(data_dir)
    embedder = Embedder()
    docs = {q.document.pdf: q.document for q in questions}
    overrides = {pdf: {"ticker": d.ticker, "fiscal_year": d.fiscal_year} for pdf, d in docs.items()}
    refuse_foreign_index(settings.data_dir, args.pdfs)
    problem = cache_problem(settings)
    if problem:
        print(f"note: {problem}; rebuilding it from the PDFs", file=sys.stderr)
    report = build_eval_index(sorted(docs), settings, embedder, overrides=overrides,
                              rebuild=bool(problem))
    searcher = HybridSearcher(settings, embedder)
    if key is not None:
        return _judged_answers(args, searcher, questions, key, report)
    if args.answers:
        return _financebench_answers(args, searcher, questions, report)
    try:
        result = financebench_retrieval.evaluate(searcher, questions, args.filter, args.k,
                                                 auto=not args.no_auto_filters,
                                                 k_each=max(args.k_each, 20), rrf_k=args.rrf_k,
                                                 weights=weights, expand=not args.no_expand,
                                                 route=not args.no_route,
                                                 fuse_by=args.fuse_by)
    finally:
        searcher.close()
    result["index"] = {"generation": report.generation, "documents": len(docs),
                       "chunks": report.totals()["chunks"], "build_s": round(report.seconds, 1)}
    if args.plot:
        financebench_retrieval.plot(result, args.plot)
    print(json.dumps(result, indent=2) if args.json else _retrieval_table(result))
    return EXIT_OK


def _financebench_answers(args, searcher, questions, report) -> int:
    from finrag.measure.answer_tally import table
    from finrag.measure.financebench_answers import score_financebench

    records = [{"question": q, "answer": q.answer} for q in questions]  # metrics-generated only
    return _answers(args, searcher, score_financebench, records, report, table,
                    f"FinanceBench metrics-generated answers, filter {args.filter}")


def _judged_answers(args, searcher, questions, key, report) -> int:
    from finrag.measure.judged import score_judged, table

    records = [{"question": q, "key": key[q.financebench_id]} for q in questions]
    return _answers(args, searcher, score_judged, records, report, table,
                    f"FinanceBench judged answers ({args.judged.name}), filter {args.filter}")


def _answers(args, searcher, score, records, report, table, title: str) -> int:
    """Ask every question, then print the tally (or its --json)."""
    try:
        result = score(searcher, records, args.filter)
    finally:
        searcher.close()
    result["index"] = {"generation": report.generation, "chunks": report.totals()["chunks"]}
    print(json.dumps(result, indent=2) if args.json else table(result, title))
    return EXIT_OK


def run_figures(args) -> int:
    """Index the filings the questions name (cached in the data dir), then ask each question."""
    from finrag.measure.answer_tally import table
    from finrag.measure.figures import load_figures, score_figures

    questions = load_figures(args.questions)
    missing = sorted({str(q.filing) for q in questions if not q.filing.is_file()})
    if missing:
        raise ValueError(f"{missing[0]}: filing named by {args.questions} not found")
    settings = Settings.from_env(args.data_dir or Settings.from_env().data_dir / "figures")
    report, searcher = _indexed(sorted({q.filing.parent for q in questions}), settings)
    try:
        result = score_figures(searcher, questions, args.filter)
    finally:
        searcher.close()
    result["index"] = {"generation": report.generation, "chunks": report.totals()["chunks"]}
    print(json.dumps(result, indent=2) if args.json else table(
        result, f"Figure questions ({args.questions.name}), filter {args.filter}"))
    return EXIT_OK


def run_series(args) -> int:
    """Index the filings the key names (cached in the data dir), then ask each question."""
    from finrag.measure.answer_tally import table
    from finrag.measure.series_eval import load_key, score_series

    questions = load_key(args.questions)
    folders = sorted({args.filings / f for q in questions for f in q.filings})
    missing = [str(f) for f in folders if not f.is_dir()]
    if missing:
        raise ValueError(f"{missing[0]}: filing named by {args.questions} not found")
    settings = Settings.from_env(args.data_dir or Settings.from_env().data_dir / "series")
    report, searcher = _indexed(folders, settings)
    try:
        result = score_series(searcher, questions)
    finally:
        searcher.close()
    result["index"] = {"generation": report.generation, "chunks": report.totals()["chunks"]}
    p = result["points"]
    print(json.dumps(result, indent=2) if args.json else table(
        result, f"Series, peer and ranking questions ({args.questions.name})") + (
        f"\npoints: {p['right']} right, {p['wrong']} wrong, {p['absent']} absent; "
        f"precision {p['precision']}"))
    return EXIT_OK


def run_narrative(args) -> int:
    """Index the filings the key names (cached in the data dir), then search and ask each."""
    from finrag.measure import narrative_eval

    if not 1 <= args.k <= 100:
        raise ValueError(f"--k {args.k}: choose 1 to 100")
    questions = narrative_eval.load_key(args.questions)
    folders = narrative_eval.filing_folders(questions, args.data)
    missing = [str(f) for f in folders if not f.is_dir()]
    if missing:
        raise ValueError(f"{missing[0]}: filing named by {args.questions} not found")
    settings = Settings.from_env(args.data_dir or Settings.from_env().data_dir / "narrative")
    report, searcher = _indexed(folders, settings)
    try:
        result = narrative_eval.evaluate(searcher, questions, args.filter, args.k,
                                         answers=not args.no_answers, route=not args.no_route)
    finally:
        searcher.close()
    result["index"] = {"generation": report.generation, "chunks": report.totals()["chunks"]}
    print(json.dumps(result, indent=2) if args.json else narrative_eval.table(result))
    return EXIT_OK


def _indexed(folders, settings):
    """The build report of an eval's own index of `folders` (cached in its data dir; rebuilt
    where this finrag cannot read it) and a searcher over it."""
    from finrag.embed import Embedder
    from finrag.search import HybridSearcher

    embedder = Embedder()
    report = build_eval_index(folders, settings, embedder, rebuild=bool(cache_problem(settings)))
    return report, HybridSearcher(settings, embedder)


def _retrieval_table(r: dict) -> str:
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
