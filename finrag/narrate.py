"""The answer to a question asked in words: the filing's own sentences (finrag.passage), led by
the change a "why" question is about where the facts give it, and optionally phrased by a chat
model (finrag.generate) when FINRAG_LLM_URL names one.

`registered(which, chunks, company)` answers which securities a filing's cover registers
(finrag.cover), each row quoted and cited, "none" where it registers none of the kind asked.

`narrate(asked_text, figure, quotes, hits)` is pure apart from the optional generator call: it
turns the quotes into an `Answer` of kind "passage" (or "generated") with `sentences`
[{text, citation}], or gives the reason there is none.
"""

from __future__ import annotations

import os

from finrag import cover
from finrag.answer import Answer, Outcome
from finrag.models import Chunk, Hit
from finrag.passage import CAUSE, Quote
from finrag.present import edgar_url, page_words

NO_QUOTE = {
    CAUSE: "no sentence in the top passages gives the cause",
    "list": "no sentence in the top passages states what the question asks for",
}


def sentence_citation(chunk: Chunk) -> dict:
    """Where a quoted sentence is printed: company, fiscal year, Item, printed page, link."""
    return {"ticker": chunk.ticker, "company": chunk.company, "fiscal_year": chunk.fiscal_year,
            "section": chunk.section, "section_title": chunk.section_title,
            "page": chunk.page, "page_label": chunk.page_label,
            "page_words": page_words(chunk.page_label, chunk.page),
            "chunk_id": chunk.chunk_id, "url": getattr(chunk, "url", None) or edgar_url(chunk)}


def cite_words(c: dict) -> str:
    """"Home Depot FY2024, Item 7, p. 30"."""
    where = ", ".join(p for p in (c["section"], c["page_words"]) if p)
    return f"{c['company'] or c['ticker']} FY{c['fiscal_year']}" + (f", {where}" if where else "")


def narrate(question: str, kind: str, figure: Outcome, quotes: list[Quote],
            hits: list[Hit], generator=None) -> Outcome:
    """The passage answer; `figure` is the figure outcome (the change a cause question is
    about, or none). `generator`: `finrag.generate.LLMSettings`, None (extractive), or a
    callable giving (settings or None, why not)."""
    lead = figure.answer
    if not quotes:
        why = NO_QUOTE.get(kind, NO_QUOTE["list"])
        found = f" The figure: {lead.text}." if lead is not None else ""
        return Outcome(None, f"No answer: {why}; see the passages.{found}")
    sentences = [{"text": q.text, "citation": sentence_citation(q.hit.chunk)} for q in quotes]
    answer_kind, note = "passage", ""
    if callable(generator):  # read the settings only where a passage answer is given
        generator, note = generator()
    if generator is not None:
        written, note = _written(question, lead, quotes, hits, generator)
        if written:
            sentences, answer_kind = written, "generated"
    quoted = " ".join(f"\u201c{s['text']}\u201d ({cite_words(s['citation'])})" for s in sentences)
    text = f"{lead.text}. {quoted}" if lead is not None else quoted
    first = quotes[0].hit.chunk
    answer = Answer(answer_kind, lead.value if lead is not None else None,
                    lead.unit if lead is not None else "", text,
                    lead.fiscal_year if lead is not None else first.fiscal_year,
                    formula=lead.formula if lead is not None else None,
                    values=lead.values if lead is not None else None,
                    figures=lead.figures if lead is not None else [], sentences=sentences)
    return Outcome(answer, note or None)


def generator_from_env():
    """The configured generator or None, and what is wrong with a bad setting ("" if nothing)."""
    if not os.environ.get("FINRAG_LLM_URL"):
        return None, ""
    from finrag.generate import GeneratorError, LLMSettings

    try:
        return LLMSettings.from_env(), ""
    except GeneratorError as exc:
        return None, f"{exc}; the filing's own sentences are shown."


def _written(question: str, lead: Answer | None, quotes: list[Quote], hits: list[Hit],
             settings) -> tuple[list[dict], str]:
    """The model's sentences that survive the checks, or [] and why the quotes stand."""
    from finrag.generate import GeneratorError, write

    passages = list({q.hit.chunk_id: q.hit.chunk for q in quotes}.values())
    passages += [h.chunk for h in hits if h.chunk_id not in {p.chunk_id for p in passages}]
    try:
        gen = write(question, passages, lead.text if lead is not None else "", settings)
    except GeneratorError as exc:
        return [], f"{exc}; the filing's own sentences are shown."
    if not gen.sentences:
        return [], (f"The generator ({gen.model}) wrote nothing its passages support; the "
                    "filing's own sentences are shown.")
    by_id = {p.chunk_id: p for p in passages}
    return [{"text": w.text, "citation": sentence_citation(by_id[w.chunk_id])}
            for w in gen.sentences], ""


_KINDS = {cover.DEBT: ("debt security", "debt securities"),
          cover.EQUITY: ("class of stock", "classes of stock"),
          cover.ALL: ("class of securities", "classes of securities")}


_EXCHANGES = {"nyse": "the New York Stock Exchange", "nasdaq": "Nasdaq",
              "chicago": "the Chicago Stock Exchange"}


def registered(which: str, chunks: list[Chunk], company: str, yes_no: bool = False,
               exchange: str | None = None) -> Outcome | None:
    """The classes of `which` that the cover on `chunks` (a filing's first pages, in order)
    registers, each row quoted with its citation; "none" (verdict) where it registers none of
    them, quoting what it does register; None where the chunks hold no Section 12(b) table.
    `yes_no`: the question asks whether there are any ("Does 3M have debt securities
    registered?"): the verdict is "yes" with the rows, or "no". `exchange`: only the classes
    listed there ("... listed on the NYSE?"); no answer where the cover pairs no exchange with
    its classes."""
    found = cover.registered("\n".join(c.text for c in chunks))
    if found is None:  # no chunks, or no Section 12(b) table on them
        return None
    rows = cover.wanted(found, which)
    if exchange:
        listed = [cover.on_exchange(r, exchange) for r in rows]
        if None in listed:
            return None  # printed in columns: which exchange lists which class is not said
        rows = [r for r, on in zip(rows, listed) if on]
    first = chunks[0]
    one, many = _KINDS[which]
    filing = f"{company or first.ticker}'s FY{first.fiscal_year} 10-K"
    if rows:
        lead = (f"{'Yes' if yes_no else 'Registered under Section 12(b)'} \u2014 {filing} lists "
                f"{len(rows)} {one if len(rows) == 1 else many} on its cover"
                + (" under Section 12(b)" if yes_no else ""))
    elif exchange:
        lead = (f"{'No' if yes_no else 'None'} \u2014 {filing} lists no {many} on "
                f"{_EXCHANGES[exchange]}" + ("; its cover lists these" if found else ""))
    else:
        lead = (f"{'No' if yes_no else 'None'} \u2014 {filing} registers no {many} under "
                "Section 12(b) of the Exchange Act" + ("; its cover lists only these" if found
                                                      else ""))
    shown = rows or found
    sentences = [{"text": s.row, "citation": sentence_citation(_holding(s, chunks))}
                 for s in shown]
    quoted = " ".join(f"\u201c{s['text']}\u201d" for s in sentences)
    text = f"{lead}: {quoted}" if quoted else lead
    verdict = ("yes" if rows else "no") if yes_no else (None if rows else "none")
    return Outcome(Answer("passage", None, "", text, first.fiscal_year, sentences=sentences,
                          verdict=verdict), None)


def _holding(security: cover.Security, chunks: list[Chunk]) -> Chunk:
    """The chunk its row is printed in (where its title starts)."""
    head = " ".join(security.title.split())[:30]
    return next((c for c in chunks if head in " ".join(c.text.split())), chunks[0])
