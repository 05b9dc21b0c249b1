"""The one BM25 tokenizer, used at index and at query time; its fingerprint is saved with the index.

Built for filings: lower-case, NFKC; keeps "sg&a", "r&d", "s&p", "10-k", "3m", "1a" (of
"Item 1A") as single tokens; "$1,577", "1,577" and "(1,577)" all become "1577"; "12%" -> "12";
"fy2018" -> "2018"; possessive "'s" dropped; a light, conservative plural rule ("revenues" ->
"revenue", "liabilities" -> "liability", "expenses" -> "expense"; words ending in "ss", "us",
"is" and a short list of exceptions untouched); English function words dropped, finance words
("net", "income", "cost", "total", "other", "interest", "current", "long", "short") kept.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

_TOKEN = re.compile(
    r"""
    [a-z0-9]+(?:&[a-z0-9]+)+           # sg&a  r&d  s&p  at&t
    | \d+-?[a-z][a-z0-9]*\b            # codes: 1a  3m  10-k  8-k
    | \$?\(?\d[\d,]*(?:\.\d+)?\)?%?    # numbers: $1,577  (1,577)  3.5  12%
    | [a-z][a-z0-9]*(?:-[a-z0-9]+)*     # words, hyphenated words
    """,
    re.VERBOSE,
)
_SEPARATORS = str.maketrans({"\u2019": "'", "\u2018": "'", "\u2013": "-", "\u2014": " ",
                             "\u00a0": " "})
STOPWORDS = frozenset(
    """a an and are as at be been being but by can could did do does for from had has have he
    her his how i if in into is it its itself may might more most must of on or our ours she
    should so such than that the their them then there these they this those to too us was we
    were what when where which while who whom why will with would you your also any each""".split()
)
_NO_STEM = frozenset("sales news series analysis basis gross loss less process plus us its "
                     "thus various previous always perhaps".split())


def tokenize(text: str) -> list[str]:
    text = unicodedata.normalize("NFKC", text or "").translate(_SEPARATORS).lower()
    text = re.sub(r"'s\b", "", text)
    out: list[str] = []
    for raw in _TOKEN.findall(text):
        out.extend(_normalize(raw))
    return [t for t in out if t and t not in STOPWORDS]


def _normalize(raw: str) -> list[str]:
    if raw[0].isdigit() or raw[0] in "$(":
        number = raw.strip("$()%").replace(",", "")
        return [number.rstrip(".")] if number else []
    if raw.startswith("fy") and raw[2:].isdigit() and len(raw) == 6:
        return [raw[2:]]
    if "-" in raw and not _is_code(raw):
        parts = raw.split("-")
        return [_stem(p) for p in parts if p]
    return [_stem(raw)]


def _is_code(token: str) -> bool:
    """'10-k', '8-k', 's-1': a hyphenated token with a digit stays whole."""
    return any(ch.isdigit() for ch in token)


def _stem(word: str) -> str:
    if len(word) <= 3 or word in _NO_STEM or not word.endswith("s") or word[-2] in "su'i":
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    return word[:-1]


# Text that exercises every rule above: its tokens are part of the fingerprint, so a change of
# behaviour (not only of the pattern or the word lists) makes an older index refuse to open.
_PROBE = ("Revenues, Liabilities & SG&A: $1,577 (1,577) 3.5 12% FY2018 10-K 8-K Item 1A 3M R&D "
          "the company's businesses' classes taxes matches wishes analysis sales gross long-term "
          "non-cash \u2019s \u2013 \u2014 caf\u00e9 ﬁnance")


def _fingerprint() -> str:
    parts = [_TOKEN.pattern, " ".join(sorted(STOPWORDS)), " ".join(sorted(_NO_STEM)),
             " ".join(tokenize(_PROBE))]
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:12]


TOKENIZER_VERSION = f"finance-{_fingerprint()}"  # saved with every BM25 index
