"""Answers counted right, wrong or unanswered, overall and by question type (with the share of
right answers citing the right page, where a question set knows its pages), and the table
printed for them: shared by the figure, FinanceBench and judged answer evaluations."""

from __future__ import annotations


def summarize(rows: list[dict]) -> dict:
    def counts(rs: list[dict]) -> dict:
        n = len(rs)
        right = sum(r["outcome"] == "right" for r in rs)
        wrong = sum(r["outcome"] == "wrong" for r in rs)
        answered = right + wrong
        out = {"questions": n, "right": right, "wrong": wrong, "unanswered": n - answered,
               "right_share": round(right / n, 3) if n else 0.0,
               "precision": round(right / answered, 3) if answered else None}
        paged = [r for r in rs if r["outcome"] == "right" and r.get("page_right") is not None]
        if paged:
            out["page_right_share"] = round(sum(r["page_right"] for r in paged) / len(paged), 3)
        return out

    types = sorted({r["type"] for r in rows})
    return {"overall": counts(rows),
            "by_type": {t: counts([r for r in rows if r["type"] == t]) for t in types}}


def table(report: dict, title: str) -> str:
    lines = [title, (f"{'set':24}{'n':>4}{'right':>7}{'wrong':>7}{'none':>6}{'right%':>8}"
                     f"{'precision':>10}{'page ok':>9}")]
    for name, c in [("all", report["overall"])] + list(report["by_type"].items()):
        prec = "-" if c["precision"] is None else f"{c['precision']:.2f}"
        page = f"{c['page_right_share']:.2f}" if "page_right_share" in c else "-"
        lines.append(f"{name:24}{c['questions']:>4}{c['right']:>7}{c['wrong']:>7}"
                     f"{c['unanswered']:>6}{c['right_share']:>8.2f}{prec:>10}{page:>9}")
    for r in report["rows"]:
        if r["outcome"] != "right":
            got = r["value"] if r["value"] is not None else (r.get("reason") or "")[:110]
            lines.append(f"  {r['outcome']:10} {r['id']}: {r['question'][:70]!r} -> {got}")
    return "\n".join(lines)
