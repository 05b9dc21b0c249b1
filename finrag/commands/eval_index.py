"""The index an evaluation runs on: built from the benchmark's own files into a data dir of its
own (cached there, rebuilt when this finrag cannot read it), never mixed into an analyst's."""

from __future__ import annotations

import sys
from pathlib import Path


def build_eval_index(sources, settings, embedder, overrides=None, rebuild: bool = False):
    """Index `sources` (ingest's normal path: unchanged filings are kept), saying on stderr
    which could not be indexed; the build report."""
    from finrag.ingest.build import build  # the CLI is a surface: it wires ingest and search
    from finrag.ingest.progress import Progress

    with Progress(enabled=sys.stderr.isatty()) as progress:
        report = build(sources, settings, embedder, embedder.count_tokens,
                       overrides=overrides, progress=progress, rebuild=rebuild)
    for f in report.filings:
        if f.status == "failed":
            print(f"not indexed: {f.error}", file=sys.stderr)
    return report


def refuse_foreign_index(data_dir: Path, pdfs: Path) -> None:
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


def cache_problem(settings) -> str | None:
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
