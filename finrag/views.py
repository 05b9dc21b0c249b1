"""What each retriever sees of a chunk: BM25's text and terms, the model's text, and the
signature that finds the same text printed twice."""

from __future__ import annotations

import hashlib

from finrag.models import Chunk
from finrag.tokens import tokenize
from finrag.vocabulary import phrase_terms


def bm25_text(chunk: Chunk) -> str:
    """What BM25 indexes: the chunk text with its provenance words (company, year, Item) and
    its page's title lines (a statement's name sits only above its first rows)."""
    return (f"{chunk.company} {chunk.ticker} {chunk.fiscal_year} {chunk.section_title} "
            f"{chunk.heading}\n{chunk.text}")


def bm25_terms(chunk: Chunk) -> list[str]:
    """BM25's terms for a chunk: the tokens of `bm25_text`, then the line-item pairs
    among them (`finrag.vocabulary.PHRASES`)."""
    tokens = tokenize(bm25_text(chunk))
    return tokens + phrase_terms(tokens)


def dense_text(chunk: Chunk) -> str:
    """What the model embeds: the chunk under its page's title lines ("CONSOLIDATED STATEMENTS
    OF INCOME (Millions)"), so every chunk of a statement page, not only its first, says which
    statement its rows belong to. A chunk that already opens with the title is embedded as is."""
    heading = " ".join(chunk.heading.split())
    if not heading or " ".join(chunk.text.split()).startswith(heading[:40]):
        return chunk.text  # its title lines are its first lines (joined by newlines there)
    return f"{heading}\n{chunk.text}"


def text_signature(text: str) -> str:
    """Same text up to case and white space -> same signature (near-duplicate detection)."""
    return hashlib.sha1(" ".join(text.lower().split()).encode()).hexdigest()
