"""Ask: search the filings, read the question, and answer it from the index's statement facts.

`ask(searcher, question, filters)` runs the normal hybrid search (its fused hits are the
passages shown with every answer), parses the question against the indexed companies
(finrag.question), loads the facts of the company and fiscal years it needs (finrag.index
`Index.facts`) and answers from them (finrag.answer). `ask_json` is the stable `--json` shape.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field, replace

from finrag import cover, narrate, passage, series
from finrag.answer import Answer, Outcome, answer
from finrag.citing import label
from finrag.companies import companies_of, short_name
from finrag.models import Filters, Hit, SearchResult
from finrag.other_totals import other_totals
from finrag.present import edgar_url
from finrag.question import AVERAGED_BALANCE_METRICS, Question, parse


@dataclass
class Asked:
    question: Question
    outcome: Outcome
    search: SearchResult
    citations: list[dict] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)

    @property
    def answer(self) -> Answer | None:
        return self.outcome.answer


_FACTS: OrderedDict = OrderedDict()
_FACTS_KEPT = 16
_FACTS_LOCK = threading.Lock()


def _facts(index, ticker: str, filed: tuple[int, ...], periods: tuple[int, ...],
           statements: tuple[str, ...] = ()) -> list:
    """The company's facts for these period years, from filings of `filed` (empty = any), on
    these statements (empty = all); the last few lookups are kept, as an analyst asks several
    questions about one company."""
    key = (index.identity, ticker, filed, periods, statements)
    with _FACTS_LOCK:  # the app serves several sessions from threads
        if key in _FACTS:
            _FACTS.move_to_end(key)
            return _FACTS[key]
    facts = index.facts(tickers=[ticker], fiscal_years=filed, period_fiscal_years=periods,
                        statements=statements)
    with _FACTS_LOCK:
        _FACTS[key] = facts
        while len(_FACTS) > _FACTS_KEPT:
            _FACTS.popitem(last=False)
    return facts


def years_needed(q: Question) -> list[int]:
    """The fiscal years whose figures the answer may read."""
    years = set(q.years)
    if q.date:
        years.add(int(q.date[:4]))
        years.add(int(q.date[:4]) - 1)  # a year ending in January may be the prior fiscal year
    if q.change and len(q.years) == 1:
        years.add(q.years[0] - 1)
    if q.metric in AVERAGED_BALANCE_METRICS or q.formula_text or q.unknown_metric:
        years |= {y - 1 for y in list(years)}  # an average balance needs the year before
    if q.judgement is not None and years:  # a direction or a three-year stability
        years |= {max(years) - 1, max(years) - 2}
    return sorted(years)


def ask(searcher, question: str, filters: Filters | None = None, top_k: int = 10,
        **search_kw) -> Asked:
    """Search, then answer from the facts; the answer never depends on the passages."""
    filters = filters or Filters()
    result = searcher.search(question, filters, top_k, **search_kw)
    t0 = time.perf_counter()
    index = searcher.index
    companies, filed = companies_of(index)
    q = parse(result.query, companies, filters)
    defaulted = None
    inferred = _company_from_passages(q, result)
    if inferred:
        q = replace(q, tickers=(inferred,))
    which = cover.asks(result.query)
    if which and len(q.tickers) == 1:  # the securities its cover registers
        outcome = _registered(index, result, q, which, companies)
        if outcome is not None:
            asked = Asked(q, outcome, result)
            asked.timings_ms = {"answer": (time.perf_counter() - t0) * 1000}
            return asked
    outcome = series.across(q, lambda t, ys, st: _facts(index, t, tuple(filters.fiscal_years),
                                                        ys, st), companies, filed, filters)
    if outcome is not None:  # a series, peers or a ranking across companies
        asked = Asked(q, outcome, result, citations(index, outcome.answer) if outcome.answer
                      else [])
        asked.timings_ms = {"answer": (time.perf_counter() - t0) * 1000}
        return asked
    if q.wants_facts and len(q.tickers) == 1 and not q.years and not q.date:
        years = [y for y in filed.get(q.tickers[0], []) if not filters.fiscal_years
                 or y in filters.fiscal_years]
        if years:
            q = replace(q, years=(years[-1],))
            defaulted = years[-1]
    kind = passage.form(result.query)
    if kind == passage.CAUSE:
        q = _the_change(q)
    facts = []
    if q.wants_facts and len(q.tickers) == 1:
        facts = _facts(index, q.tickers[0], tuple(filters.fiscal_years), tuple(years_needed(q)))
    name = companies.get(q.tickers[0], "") if len(q.tickers) == 1 else ""
    try:
        outcome = answer(q, facts, short_name(name) or (q.tickers[0] if q.tickers else ""))
    except (ArithmeticError, ValueError, KeyError, TypeError) as exc:  # never cost the passages
        outcome = Outcome(None, f"No answer: finrag could not read the facts ({exc}).")
    in_words = kind in (passage.LIST, passage.AMOUNT)
    if kind == passage.CAUSE or (in_words and outcome.answer is None
                                 and not q.asks_for_something):
        outcome = _narrated(index, result, q, _named_years(result), kind, outcome, companies)
    elif (kind == passage.LIST and not q.asks_for_something and outcome.answer is not None
          and passage.names_things(result.query) and not _named_years(result)
          and _a_total_of(outcome.answer, result.query)):
        # "What are Verizon's reportable segments?" asks for names, not the figure of a line
        # printed by that name ("Total reportable segments"): the sentence stating them first
        told = _narrated(index, result, q, (), kind, Outcome(None, None), companies)
        outcome = told if told.answer is not None else outcome
    elif outcome.answer is not None and q.items:  # the filing's own, different total beside it
        outcome.answer.other_totals = other_totals(outcome.answer, q.items[0],
                                                   result.fused) or None
    elif outcome.answer is None and q.wants_facts:
        outcome.reason = (outcome.reason or "") + cause(q, _named_years(result), filters,
                                                        companies, filed)
    if inferred and outcome.answer is not None:
        outcome.answer.text += (f" (company {inferred} read from the passages:"
                                " the question names none)")
    if defaulted and outcome.answer is not None:
        outcome.answer.text += (f" (fiscal {defaulted}, the latest indexed:"
                                " the question names no year)")
    asked = Asked(q, outcome, result)
    if outcome.answer is not None:
        asked.citations = citations(index, outcome.answer)
    asked.timings_ms = {"answer": (time.perf_counter() - t0) * 1000}
    return asked


def _named_years(result: SearchResult) -> tuple[int, ...]:
    """The years the question itself names (the parsed question's may be the filter's)."""
    return parse(result.query).years


def _the_change(q: Question) -> Question:
    """A "why did it change" question about a figure: the change over its year and the one
    before, which the filing's sentences then explain."""
    if not q.asks_for_something or q.judgement or q.ranking or len(q.years) != 1:
        return q
    return replace(q, change=True, years=(q.years[0] - 1, q.years[0]))


_NEIGHBOURS = 3  # the passages whose pages are read on when none of them answers


def _narrated(index, result: SearchResult, q: Question, named: tuple[int, ...], kind: str,
              figure: Outcome, companies: dict[str, str]) -> Outcome:
    """The filing's sentences that answer a question asked in words (finrag.narrate), from
    the filings of the company and fiscal years the question names (a FY2018 10-K does not say
    what drove FY2022's margin; another company's passage never answers); none where the
    question names no company the index holds."""
    from finrag.tokens import tokenize

    names = set()
    for t in set(q.tickers) | set(result.filters.tickers):
        names |= {t.lower(), *tokenize(companies.get(t, ""))}
    hits = [h for h in result.fused if h.chunk.ticker in q.tickers
            and (not named or h.chunk.fiscal_year in named)]
    quotes = passage.quotes(result.query, hits, names, kind)
    shown = {h.chunk_id for h in result.fused}
    if kind == passage.LIST and quotes:  # a list goes on past the passage that starts it
        more = _around(index, [q.hit for q in quotes[:2]], shown)
        cut = _continued(index, [q.hit for q in quotes[:2]])
        if more or cut:
            quotes = passage.quotes(result.query, [cut.get(h.chunk_id, h) for h in hits + more],
                                    names, kind)
    elif not quotes:  # the sentence may sit beside the best passages: a table's explanation
        more = _around(index, hits[:_NEIGHBOURS], shown)  # is often its own chunk
        if more:
            quotes = passage.quotes(result.query, hits + more, names, kind)
    return narrate.narrate(result.query, kind, figure, quotes, result.fused,
                           narrate.generator_from_env)


def _a_total_of(a: Answer, question: str) -> bool:
    """Whether the figure is a "Total ..." line the question did not ask a total of: "What
    are Verizon's reportable segments?" met "Total reportable segments"."""
    label = (a.figures[0].fact.line_label if a.figures else "").lower()
    return label.startswith("total") and "total" not in question.lower()


def _continued(index, hits: list[Hit]) -> dict[str, Hit]:
    """Each passage that stops inside a list (its text ends in ";" or ":") with the next chunk
    of its filing joined on, so the list reads to its end: PepsiCo's seven divisions, "as
    follows: 1) ...; 5) Europe, ...;" in one chunk and "6) ...; 7) ..." in the next."""
    out: dict[str, Hit] = {}
    for hit in hits:
        c = hit.chunk
        if not (c.filing_key and c.page and c.text.rstrip().endswith((";", ":"))):
            continue
        pages = index.page_chunks(c.filing_key, (c.page, c.page + 1))
        at = next((i for i, p in enumerate(pages) if p.chunk_id == c.chunk_id), None)
        if at is not None and at + 1 < len(pages):
            joined = c.model_copy(update={"text": f"{c.text.rstrip()} {pages[at + 1].text}"})
            out[c.chunk_id] = hit.model_copy(update={"chunk": joined})
    return out


def _registered(index, result: SearchResult, q: Question, which: str,
                companies: dict[str, str]):
    """The cover-page answer (finrag.cover) from the first pages of the company's filing among
    the passages: of the year the question names, else the latest; None where none is there."""
    named = _named_years(result)
    hits = [h for h in result.fused if h.chunk.ticker == q.tickers[0] and h.chunk.filing_key
            and (not named or h.chunk.fiscal_year in named)]
    if not hits:
        return None
    latest = max(h.chunk.fiscal_year for h in hits)
    key = next(h.chunk.filing_key for h in hits if h.chunk.fiscal_year == latest)
    return narrate.registered(which, index.page_chunks(key, _COVER_PAGES),
                              short_name(companies.get(q.tickers[0], "")),
                              yes_no=passage.form(result.query) == passage.YES_NO,
                              exchange=cover.exchange_named(result.query))


_COVER_PAGES = (1, 2, 3)  # where a 10-K's cover page, and its Section 12(b) table, is printed


def _around(index, hits: list[Hit], shown: set[str]) -> list[Hit]:
    """The other chunks of the passages' pages and the pages after them, ranked as the
    passage they follow: the rest of a list stated over a page break, or the sentences that
    explain the table search found."""
    out: dict[str, Hit] = {}
    for hit in hits:
        c = hit.chunk
        if not c.filing_key or c.page is None:
            continue
        for chunk in index.page_chunks(c.filing_key, (c.page, c.page + 1)):
            if chunk.chunk_id not in shown and chunk.chunk_id not in out:
                out[chunk.chunk_id] = Hit(chunk_id=chunk.chunk_id, rank=hit.rank,
                                          score=0.0, chunk=chunk)
    return list(out.values())


def cause(q: Question, named_years: tuple[int, ...], filters: Filters,
          companies: dict[str, str], filed: dict[str, list[int]]) -> str:
    """What the index or the filters lack that the question asked for, and the way out: the
    companies indexed, a fiscal-year filter that excludes the year named, the years indexed."""
    if not q.tickers:
        return f" Indexed companies: {', '.join(sorted(companies))}." if companies else ""
    if len(q.tickers) != 1:
        return ""
    ticker, have = q.tickers[0], filed.get(q.tickers[0], [])
    shown = ", ".join(str(y) for y in have) or "none"
    # a 10-K prints its year and up to two before it: only a later year is out of a filter's reach
    excluded = [y for y in named_years if filters.fiscal_years
                and y > max(filters.fiscal_years)]
    if excluded:
        return (f" The fiscal-year filter ({', '.join(map(str, filters.fiscal_years))}) "
                f"excludes fiscal {', '.join(map(str, excluded))}, which the question names: "
                f"clear it to answer from {ticker}'s fiscal {shown} 10-Ks.")
    missing = [y for y in named_years if not any(y <= f <= y + 2 for f in have)]
    if missing:
        return (f" {ticker}'s 10-K for fiscal {', '.join(map(str, missing))} is not indexed "
                f"(indexed: fiscal {shown}).")
    return ""


def _company_from_passages(q: Question, result: SearchResult) -> str | None:
    """The company of a question that names none but names a line only it prints ('iPhone net
    sales'): every one of the top five passages that holds all such words is that company's,
    and at least two do."""
    from finrag.lineitems import normalize

    if q.tickers or not q.asks_for_something or not q.rest:
        return None
    holding = {h.chunk_id: h.chunk.ticker for h in result.fused[:5]
               if set(q.rest) <= set(normalize(h.chunk.text).split())}
    tickers = set(holding.values())
    return tickers.pop() if len(holding) >= 2 and len(tickers) == 1 else None


def citations(index, a: Answer) -> list[dict]:
    """One citation per figure: where it is printed and the filing on EDGAR."""
    ids = sorted({f.fact.chunk_id for f in a.figures if f.fact.chunk_id})
    chunks = index.chunks(ids) if ids else {}
    out = []
    for fig in a.figures:
        f = fig.fact
        chunk = chunks.get(f.chunk_id or "")
        url = getattr(chunk, "url", None) or (edgar_url(chunk) if chunk is not None else None)
        out.append({"ticker": f.ticker, "fiscal_year": fig.fiscal_year,
                    "line_label": label(f.line_label),
                    "statement": f.statement, "page": f.page,
                    "page_label": f.page_label or getattr(chunk, "page_label", None), "url": url})
    return out


def ask_json(asked: Asked, passages: list[dict]) -> dict:
    """The documented `ask --json` shape."""
    a = asked.answer
    body = None
    if a is not None:
        body = {"kind": a.kind, "value": a.value, "unit": a.unit, "text": a.text,
                "fiscal_year": a.fiscal_year, "formula": a.formula, "values": a.values,
                "change_pct": a.change_pct, "verdict": a.verdict, "citations": asked.citations,
                "points": series.points_json(a, asked.citations), "growth": a.growth,
                "missing": a.missing, "sentences": a.sentences, "other_totals": a.other_totals}
    return {"question": asked.search.query, "answer": body, "reason": asked.outcome.reason,
            "passages": passages}
