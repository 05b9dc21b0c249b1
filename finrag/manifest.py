"""What an index's manifest must say for this finrag to read it (format, model, tokenizer,
phrase list), and the error a reader gets when it cannot: shared by the local index
(finrag.index) and the server reader (finrag.remote), below both."""

from __future__ import annotations

from finrag.config import MODEL_NAME
from finrag.tokens import TOKENIZER_VERSION
from finrag.vocabulary import PHRASES_FINGERPRINT

# 3: the dense vector embeds `dense_text` (the page's title lines above the chunk), not the bare
# chunk text, and the chunk table has a page column; an index of format 2 is refused with the
# rebuild command
# 4: the vector store keeps page-context vectors (`page_context_vectors`), not the bare embeddings
# 5: chunk payloads carry `page_label` (the printed page number) and `document` (the 10-K's file
# name on EDGAR), and page footers no longer reach chunk texts; a format-4 index is refused with
# the rebuild command
# 6: chunks.sqlite has a `facts` table: the statement facts extracted at ingest (`Index.facts`)
# 7: BM25 lives in the engine as sparse vectors beside the dense ones (named "dense" and "bm25");
# no bm25/ arrays; chunk and fact tables indexed by filing (in-place updates)
# 8: an in-place update's tables are a delta over the last ones written whole (`base.sqlite`,
# `open_table`). A format-7 generation (whole tables) reads the same and is still read; a
# finrag of format 7 refuses a format-8 one instead of reading its delta alone
FORMAT_VERSION = 8
READABLE_FORMATS = {7, 8}


class IndexUnavailable(RuntimeError):
    """The index is missing or cannot be used; the message says what to do, `reason` only why
    (for a caller that fixes it by itself)."""

    def __init__(self, message: str, *, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason or message


NO_INDEX_HINT = "run `python -m ingest build --sample` (or `python -m ingest build PATH...`)"


def check_manifest(manifest: dict, where: str) -> dict:
    """The manifest, if this finrag reads what it describes (format, model, tokenizer);
    IndexUnavailable naming `where` and the rebuild command otherwise."""
    expected = {"format": FORMAT_VERSION, "model": MODEL_NAME, "tokenizer": TOKENIZER_VERSION,
                "phrases": PHRASES_FINGERPRINT}
    for key, want in expected.items():
        if manifest.get(key) != want and not (key == "format"
                                               and manifest.get(key) in READABLE_FORMATS):
            reason = (f"{where} was built with {key}={manifest.get(key)!r}, "
                      f"this finrag uses {want!r}")
            raise IndexUnavailable(
                f"{reason}: rebuild it with `python -m ingest build --rebuild ...`", reason=reason
            )
    return manifest
