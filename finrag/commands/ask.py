"""`python -m finrag ask`: the figure a question asks for, its citations and the passages."""

from __future__ import annotations

import json
from pathlib import Path

from finrag.commands import query
from finrag.commands.search import hit_cell
from finrag.config import TOP_K
from finrag.pointtable import lines

EXIT_OK = 0


def register(sub) -> None:
    a = sub.add_parser("ask", help="answer a question with the figure from the filing")
    a.add_argument("question")
    a.add_argument("--ticker", action="append", default=[], help="repeatable")
    a.add_argument("--year", action="append", default=[], help="fiscal year, repeatable")
    a.add_argument("--k", type=int, default=TOP_K, help="passages shown")
    a.add_argument("--data-dir", type=Path)
    a.add_argument("--json", action="store_true")
    a.add_argument("--no-auto-filters", action="store_true", help=query.AUTO_HELP)
    a.set_defaults(run=run)


def run(args) -> int:
    from finrag.ask import ask, ask_json

    filters = query.parse_filters(args.ticker, args.year, [])
    searcher = query.searcher_for(args.data_dir)
    query.warn_unknown(searcher, filters)
    filters = query.with_auto_filters(searcher, args.question, filters, not args.no_auto_filters)
    asked = ask(searcher, args.question, filters, args.k)
    if args.json:
        print(json.dumps(ask_json(asked, query.search_json(asked.search)["fused"]), indent=2))
    else:
        print_answer(asked)
    return EXIT_OK


def print_answer(asked) -> None:
    a = asked.answer
    if a is None:
        print(f"No answer. {asked.outcome.reason}")
    elif a.sentences:  # the filing's own sentences (or a model's, checked against them)
        from finrag.narrate import cite_words

        lead = a.text[:a.text.find("\u201c")].strip()
        if lead:
            print(lead)
        print("written by a model from the passages:" if a.kind == "generated"
              else "the filing says:")
        for s in a.sentences:
            c = s["citation"]
            print(f"  \u201c{s['text']}\u201d\n    \u2014 {cite_words(c)}"
                  + (f" {c['url']}" if c["url"] else ""))
        if asked.outcome.reason:
            print(f"note: {asked.outcome.reason}")
        print_citations(asked.citations)
    else:
        print(a.text)
        if a.points:  # a series, peers or a ranking: the table
            print("\n".join(lines(a)))
        if a.formula and a.formula not in a.text and a.kind != "verdict":  # a verdict's text
            # holds each year's formula
            print(f"formula: {a.formula}")
        print_citations(asked.citations)
        print_other_totals(a.other_totals or [])
    print("passages:")
    for h in asked.search.fused:
        head = hit_cell(h, 140, asked.search.routed)[0]
        print("  " + head + " " + " ".join(h.chunk.text.split())[:100])


def print_other_totals(notes: list[dict]) -> None:
    from finrag.narrate import cite_words

    if notes:
        print("the filing also states another total, in its own words:")
    for n in notes:
        c = n["citation"]
        print(f"  \u201c{n['text']}\u201d\n    \u2014 {cite_words(c)}"
              + (f" {c['url']}" if c["url"] else ""))


def print_citations(citations: list[dict]) -> None:
    for c in citations:
        page = f"p. {c['page_label']}" if c["page_label"] else f"page {c['page']}"
        print(f"  - {c['ticker']} FY{c['fiscal_year']} '{c['line_label']}', {c['statement']}, "
              f"{page}" + (f" {c['url']}" if c["url"] else ""))
