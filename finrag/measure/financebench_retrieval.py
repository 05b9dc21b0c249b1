"""FinanceBench retrieval: every question through the normal search path, scored per method
(dense, BM25, fused) by page-hit@k, MRR and nDCG against its evidence pages
(finrag.measure.retrieval_metrics), and the hit@k curve as a PNG. The questions are
finrag.measure.financebench's."""

from __future__ import annotations

from pathlib import Path

from finrag.measure.financebench import Question, filters_for
from finrag.measure.retrieval_metrics import CURVE_DEPTH, METHODS, MethodScores, result_outcomes


def evaluate(searcher, questions: list[Question], mode: str, k: int = 10, auto: bool = False,
             **search_kw) -> dict:
    """Run every question through the normal search path; the report `--json` prints. `auto`:
    the company / fiscal year each question names become filters, as in the app and CLIs
    (finrag.autofilter), where `mode` sets none."""
    from finrag.autofilter import auto_filters
    from finrag.companies import companies_of

    overall = {m: MethodScores() for m in METHODS}
    by_type: dict[str, dict[str, MethodScores]] = {}
    misses = []
    for q in questions:
        filters = filters_for(q, mode)
        if auto:
            filters = auto_filters(q.question, filters, *companies_of(searcher.index)).filters
        result = searcher.search(q.question, filters, top_k=max(k, CURVE_DEPTH), **search_kw)
        outcomes = result_outcomes(result, q.evidence)
        kind = by_type.setdefault(q.question_type or "unknown",
                                  {m: MethodScores() for m in METHODS})
        for m in METHODS:
            overall[m].outcomes.append(outcomes[m])
            kind[m].outcomes.append(outcomes[m])
        fused = outcomes["fused"]
        if not (fused.rank and fused.rank <= k):
            misses.append({
                "financebench_id": q.financebench_id,
                "question": q.question,
                "doc_name": q.document.doc_name,
                # 0-based, as in the data
                "evidence_pages": sorted(p - 1 for p in q.evidence_pages),
                "fused_pages": [p - 1 if p else None for _, p in fused.pages[:k]],
                "fused_docs": [Path(name).stem for name, _ in fused.pages[:k]],
            })
    return {
        "questions": len(questions),
        "filter": mode,
        "auto_filters": auto,
        "k": k,
        "search": {key: list(v) if isinstance(v, tuple) else v for key, v in search_kw.items()},
        "methods": {m: overall[m].summary(k) for m in METHODS},
        "by_type": {
            t: {"questions": len(s["fused"].outcomes),
                "methods": {m: s[m].summary(k) for m in METHODS}}
            for t, s in sorted(by_type.items())
        },
        "curve": {m: overall[m].curve() for m in METHODS},
        "misses": misses,
    }


def plot(report: dict, path: Path) -> None:
    """A PNG of hit@k, k = 1..20, one line per method."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4), dpi=120)
    for method, curve in report["curve"].items():
        ax.plot(range(1, len(curve) + 1), curve, marker="o", markersize=3, label=method)
    ax.set_xlabel("k (chunks)")
    ax.set_ylabel("page hit@k")
    ax.set_ylim(0, 1)
    ax.set_xticks(range(0, len(next(iter(report["curve"].values()))) + 1, 5))
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    ax.set_title(f"FinanceBench, {report['questions']} questions, filter: {report['filter']}")
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
