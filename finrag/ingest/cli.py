"""`python -m ingest download|build|remove|status|fuzz`: a thin argparse surface over ingest."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from finrag.config import Settings

EXIT_OK, EXIT_FATAL, EXIT_PARTIAL = 0, 1, 2


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return args.run(args)
    except KeyboardInterrupt:
        print("interrupted: the published index is unchanged; run the build again to finish",
              file=sys.stderr)
        return EXIT_FATAL
    except (RuntimeError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_FATAL


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m ingest", description="Index 10-K filings.")
    sub = p.add_subparsers(required=True, metavar="{download,build,remove,status,fuzz}")

    d = sub.add_parser("download", help="fetch 10-Ks from SEC EDGAR")
    d.add_argument("--tickers", required=True, help="comma-separated, e.g. AAPL,MSFT")
    d.add_argument("--years", required=True, help="fiscal years, e.g. 2019-2024 or 2023")
    d.add_argument("--email", help="your contact email (SEC requires it in the User-Agent)")
    d.add_argument("--company", default="finrag", help="organisation name for the User-Agent")
    d.add_argument("--dest", default="filings", help="download folder (default: ./filings)")
    d.set_defaults(run=_download)

    b = sub.add_parser("build", help="index filings (sec-edgar-downloader trees or loose files)")
    b.add_argument("paths", nargs="*", type=Path)
    b.add_argument("--sample", action="store_true", help="index the bundled sample filings")
    b.add_argument("--data-dir", type=Path,
                   help="index location (default $FINRAG_DATA_DIR or ./data)")
    b.add_argument("--ticker", help="override the ticker read from the filing")
    b.add_argument("--fiscal-year", type=int, help="override the fiscal year read from the filing")
    b.add_argument("--rebuild", action="store_true",
                   help="start a fresh index from these paths only, every chunk written anew")
    b.add_argument("--if-missing", action="store_true", help="do nothing if an index exists")
    b.add_argument("--json", action="store_true", help="print a JSON report")
    b.add_argument("--workers", type=int, help="processes reading filings "
                   "(default: one per CPU core)")
    b.add_argument("--writer-memory", type=float, metavar="GB",
                   help="memory a whole write may hold, own and mapped files (default "
                   "$FINRAG_WRITER_MEMORY_GB or 4); a larger index is written in segments")
    b.set_defaults(run=_build)

    r = sub.add_parser("remove", help="take out the filings read from these paths")
    r.add_argument("paths", nargs="+", type=Path,
                   help="files or folders as they were given to `ingest build`")
    r.add_argument("--data-dir", type=Path)
    r.add_argument("--json", action="store_true", help="print a JSON report")
    r.set_defaults(run=_remove)

    s = sub.add_parser("status", help="what is indexed")
    s.add_argument("--data-dir", type=Path)
    s.add_argument("--json", action="store_true")
    s.set_defaults(run=_status)

    f = sub.add_parser("fuzz", help="read damaged copies of real filings; exit 1 on any bug")
    f.add_argument("--cases", type=int, default=1000, help="how many cases (default 1000)")
    f.add_argument("--seed", type=int, default=0, help="run seed; case n depends on it and n only")
    f.add_argument("--json", action="store_true", help="print a JSON report")
    f.add_argument("--keep", type=Path, help="leave every case's files in this folder")
    f.set_defaults(run=_fuzz)
    return p


def _download(args) -> int:
    from finrag.ingest.download import DownloadError, download, parse_years

    try:
        years = parse_years(args.years)
        tickers = [t.strip().upper() for t in args.tickers.split(",") if t.strip()]
        saved = download(tickers, years, email=args.email, company=args.company,
                         dest=Path(args.dest))
    except DownloadError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_FATAL
    print(f"downloaded {saved} filings into {args.dest}; index them with "
          f"`python -m ingest build {args.dest}`")
    return EXIT_OK


def _build(args) -> int:
    from finrag.embed import Embedder
    from finrag.index import current_generation, read_manifest
    from finrag.ingest.build import build
    from finrag.ingest.progress import Progress
    from finrag.ingest.sample import unpack_sample

    settings = Settings.from_env(args.data_dir)
    name = current_generation(settings.data_dir)
    if args.if_missing and name and not args.rebuild:
        read_manifest(settings.data_dir, name)  # one this finrag cannot read: an error, the fix
        print(f"index exists in {settings.data_dir}; nothing to do")
        return EXIT_OK
    paths = list(args.paths)
    if args.sample:
        paths.append(unpack_sample(settings.data_dir))
    if not paths:
        print("error: give filing paths to index, or --sample", file=sys.stderr)
        return EXIT_FATAL
    embedder = Embedder()
    with Progress(enabled=not args.json and sys.stderr.isatty()) as progress:
        report = build(paths, settings, embedder, embedder.count_tokens, ticker=args.ticker,
                       fiscal_year=args.fiscal_year, rebuild=args.rebuild, progress=progress,
                       workers=args.workers, writer_memory=args.writer_memory)
    writer = writer_segments(settings, report)
    if args.json:
        print(json.dumps({**report.to_json(), "server_index": server_index(settings),
                          "writer": writer}, indent=2))
    else:
        _print_report(report)
        if writer and writer["held_back"]:
            print(writer["note"])
        _print_server_index(settings)
    return EXIT_PARTIAL if report.totals()["failed"] else EXIT_OK


def server_index(settings: Settings) -> str | None:
    """The name readers with only the server give (FINRAG_QDRANT_INDEX) for this data dir's
    published index, None when it is not on a server."""
    from finrag.index import current_generation, read_manifest
    from finrag.store.names import published_alias

    name = current_generation(settings.data_dir)
    return published_alias(read_manifest(settings.data_dir, name)["backend"]) if name else None


def writer_segments(settings: Settings, report) -> dict | None:
    """How the generation this build wrote whole on the embedded engine was held to the
    writer's memory setting: its segments, and whether it held back (more than one), with a
    line saying so; None for an update, a server, or nothing published."""
    from finrag.index import read_manifest
    from finrag.store.writer_memory import POINT_BYTES, WRITER_BASE_GB

    if not report.published:
        return None
    manifest = read_manifest(settings.data_dir, report.generation)
    backend = manifest["backend"]
    if "updated_from" in manifest or "segment_points" not in backend:
        return None
    sealed = max(1, backend["sealed_segments"])
    whole = WRITER_BASE_GB + manifest["chunks"] * POINT_BYTES / 2**30
    note = (f"writer memory {backend['writer_memory_gb']:g} GB: the engine's "
            f"{manifest['chunks']:,} points were written and optimized as {sealed} segments of "
            f"at most ~{backend['segment_points']:,} (one would have needed ~{whole:.1f} GB)")
    return {"memory_gb": backend["writer_memory_gb"], "segment_points": backend["segment_points"],
            "segments": sealed, "held_back": sealed > 1, "note": note}


def _print_server_index(settings: Settings) -> None:
    alias = server_index(settings)
    if alias:
        print(f"server index {alias}: an app or CLI needs only FINRAG_QDRANT_URL="
              f"{settings.qdrant_url} FINRAG_QDRANT_INDEX={alias}")


def _print_report(report) -> None:
    for f in report.filings:
        if f.status == "failed":
            print(f"FAILED  {f.error}", file=sys.stderr)
        else:
            types = ", ".join(f"{n} {t}" for t, n in sorted(f.chunk_types.items()))
            print(f"{f.status:7} {f.ticker} FY{f.fiscal_year} {f.accession or f.path}: "
                  f"{f.chunks} chunks ({types}), {f.new_chunks} new, {f.facts} facts")
            if f.facts_error:
                print(f"WARNING {f.facts_error}", file=sys.stderr)
    t = report.totals()
    state = f"published {report.generation}" if report.published else "index unchanged"
    print(f"{t['filings']} filings, {t['chunks']} chunks, {t['new_chunks']} new, "
          f"{t['failed']} failed; embedded {report.embedded}; {state} in {report.seconds:.1f}s")


def _remove(args) -> int:
    from finrag.ingest.build import remove

    settings = Settings.from_env(args.data_dir)
    report = remove(args.paths, settings)
    if args.json:
        print(json.dumps({**report.to_json(), "server_index": server_index(settings)}, indent=2))
    else:
        for line in report.errors:
            print(f"error: {line}", file=sys.stderr)
        for f in report.removed:
            print(f"removed {f['ticker']} FY{f['fiscal_year']} {f['filing_key']}: "
                  f"{f['chunks']} chunks ({f['path']})")
        state = f"published {report.generation}" if report.published else "index unchanged"
        print(f"{len(report.removed)} filings removed; {state} in {report.seconds:.1f}s")
        _print_server_index(settings)
    return EXIT_PARTIAL if report.errors else EXIT_OK


def _fuzz(args) -> int:
    import logging

    from finrag.measure.fuzz import fuzz

    logging.getLogger("pypdf").setLevel(logging.CRITICAL)  # damaged PDFs make it chatty
    shown = sys.stderr.isatty() and not args.json
    report = fuzz(args.cases, args.seed, keep=args.keep,
                  progress=_fuzz_progress(args.cases) if shown else None)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        _print_fuzz(report)
    return EXIT_FATAL if report.totals()["bugs"] else EXIT_OK


def _fuzz_progress(total: int):
    def show(outcome) -> None:
        print(f"\rcase {outcome.case + 1}/{total}", end="", file=sys.stderr, flush=True)
        if outcome.case + 1 == total:
            print(file=sys.stderr)
    return show


def _print_fuzz(report) -> None:
    from finrag.measure.fuzz import BUGS

    for o in report.outcomes:
        if o.status not in ("ok", "clean"):
            print(f"BUG {o.status}: case {o.case} {o.mutation} of {o.seed} ({o.detail}): "
                  f"{o.message}", file=sys.stderr)
    print(f"{'mutation':16} {'cases':>5} {'ok':>5} {'clean':>5} {'bugs':>5}")
    for name, row in report.by_mutation().items():
        print(f"{name:16} {row['cases']:5} {row['ok']:5} {row['clean']:5} {row['bugs']:5}")
    t = report.totals()
    bugs = ", ".join(f"{t[kind]} {kind.replace('_', ' ')}" for kind in BUGS)
    print(f"{t['cases']} cases (seed {report.seed}): {t['ok']} ok, {t['clean_failures']} clean "
          f"failures, {t['bugs']} bugs ({bugs}); {report.seconds:.0f} s, "
          f"peak RSS {report.peak_rss_mb} MB")


def _status(args) -> int:
    from finrag.index import Index

    settings = Settings.from_env(args.data_dir)
    if settings.qdrant_index:
        return _server_status(settings, args.json)
    index = Index.open(settings)
    try:
        data = status_json(index)
    finally:
        index.close()
    if args.json:
        print(json.dumps(data, indent=2))
        return EXIT_OK
    print(f"index {data['generation']} in {settings.data_dir}: {data['chunks']} chunks")
    if data["deleted_points"]:
        print(f"  BM25's document counts may still include up to {data['deleted_points']} chunks "
              f"that updates took out ({data['deleted_points'] / max(data['chunks'], 1):.1%} of "
              "the index); `ingest build --rebuild` counts afresh")
    _print_server_index(settings)
    for f in data["filings"]:
        _print_filing(f, data["companies"])
        for source in data["sources"]:
            if (source["ticker"], source["fiscal_year"]) == (f["ticker"], f["fiscal_year"]):
                print(f"         from {source['source']}")
    return EXIT_OK


def _server_status(settings: Settings, as_json: bool) -> int:
    """What a server index by name holds, from its manifest: the generation its alias names,
    its counts and coverage (what a replica serves; the sources are the writer's to list)."""
    from finrag.remote import RemoteIndex

    index = RemoteIndex.open(settings)
    try:
        m = index.manifest
        data = {"server_index": index.alias, "generation": index.name,
                "collection": index.vectors.collection, "chunks": m["chunks"],
                "facts": m["facts"], "model": m["model"], "tokenizer": m["tokenizer"],
                "backend": "server", **m["facets"]}
    finally:
        index.close()
    if as_json:
        print(json.dumps(data, indent=2))
        return EXIT_OK
    print(f"index {data['server_index']} on {settings.qdrant_url}: {data['generation']} "
          f"({data['collection']}), {data['chunks']} chunks, {data['facts']} facts")
    for f in data["filings"]:
        _print_filing(f, data["companies"])
    return EXIT_OK


def _print_filing(f: dict, companies: dict) -> None:
    """One line of `status`: a ticker x fiscal year cell of the coverage facets."""
    print(f"  {f['ticker']:6} FY{f['fiscal_year']}  {f.get('narrative', 0):6} narrative"
          f"  {f.get('table', 0):6} table   {companies.get(f['ticker'], '')}")


def status_json(index) -> dict:
    import hashlib

    from finrag.store.names import published_alias

    ids = index.chunk_ids()
    facets = index.facets()
    return {
        "generation": index.name,
        "chunks": len(ids),
        "chunk_ids_sha256": hashlib.sha256("".join(i + "\n" for i in ids).encode()).hexdigest(),
        "model": index.manifest["model"],
        "tokenizer": index.manifest["tokenizer"],
        "backend": index.manifest["backend"]["kind"],
        "server_index": published_alias(index.manifest["backend"]),
        # chunks in-place updates took out that BM25's idf still counts (embedded engine)
        "deleted_points": index.manifest.get("deleted_points", 0),
        **facets,
        # where each filing was read from: what `python -m ingest remove PATH` takes
        "sources": sorted(({"filing_key": key, "ticker": f["ticker"],
                            "fiscal_year": f["fiscal_year"], "source": f["source"],
                            "chunks": f["chunks"]} for key, f in index.filings().items()),
                          key=lambda r: (r["ticker"], r["fiscal_year"], r["source"])),
    }
