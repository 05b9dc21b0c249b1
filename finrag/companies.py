"""The companies of an index and the ways a question names them.

A company's name comes from its filing's cover page; a PDF's cover, read as text, may carry the
header printed before the name ("... Commission file number 1-9595 ____ BEST BUY CO., INC.").
`cover_name` takes that off (one rule for the question parser, the auto-filters and the
answers), `company_names` gives the ways an analyst writes it ("home depot", "walmart",
"p&g"), `short_name` the one an answer shows, and `companies_of` what an index holds.
"""

from __future__ import annotations

import re

from finrag.lineitems import normalize

# what a cover page prints before the company's name, where the reader took it along
_COVER = re.compile(r".*(?:_{3,}|(?:commission )?file (?:number|no\.?)\s*:?\s*[\d-]+)\s*",
                    re.IGNORECASE | re.DOTALL)


def cover_name(name: str) -> str:
    """The company's name without the cover-page text read before it ('... Commission file
    number 1-9595 ____ BEST BUY CO., INC.' -> 'BEST BUY CO., INC.')."""
    name = _COVER.sub("", name).strip() or name
    if re.search(r"\d{3}", name):  # a header's other numbers: '... 001-34028 AMERICAN WATER'
        name = re.split(r"\d{3,}[\d-]*", name)[-1].strip() or name
    return name


# words that begin company names but say nothing about which company on their own
_GENERIC_NAME_WORDS = frozenset("""
general american international united national first new southern northern eastern western
union global federal capital financial consolidated standard universal royal central pacific
atlantic public service services energy health the cost
""".split())
_SUFFIXES = re.compile(r"\b(?:inc|incorporated|corp|corporation|co|company|companies|ltd|limited|"
                       r"plc|llc|lp|sa|nv|ag|se|holdings?|group|com|the|de|del|new|cl a|class a)\b")


def company_names(name: str) -> list[str]:
    """The normalized ways a question may name a company: its short name ('Home Depot' of
    'HOME DEPOT, INC.'), its distinctive first word ('walmart'), initials around '&' ('p&g')."""
    name = cover_name(name)
    short = " ".join(_SUFFIXES.sub(" ", normalize(name).replace("'s", "")).split())
    short = re.sub(r"\([^)]*\)", "", short).strip()
    names = [short] if short else []
    words = short.split()
    if len(words) > 1 and len(words[0]) >= 4 and words[0] not in _GENERIC_NAME_WORDS:
        names.append(words[0])
    if "&" in words:
        parts = [w for w in words if w != "&"]
        names.append("&".join(w[0] for w in parts[:2]))
    if len(words) >= 2 and all(w.isalpha() for w in words):
        joined = "".join(words)
        names.append(joined)  # "coca cola" -> "cocacola"
    return [n for n in dict.fromkeys(names) if n]


def short_name(name: str) -> str:
    """The company's short name as an answer shows it ('Home Depot'), or '' where the cover
    page was read badly."""
    names = company_names(name)
    if not names or len(names[0]) > 40 or re.search(r"\d{3,}", name):
        return ""
    return " ".join(_cased(w) for w in names[0].split())


def _cased(word: str) -> str:
    """A word of a name read in lower case, as printed: "Resorts", and "3M" (a word with a
    digit is an initialism)."""
    if not word.islower():
        return word
    return word.upper() if any(ch.isdigit() for ch in word) else word.capitalize()


_COMPANIES: dict[str, tuple[dict[str, str], dict[str, list[int]]]] = {}


def companies_of(index) -> tuple[dict[str, str], dict[str, list[int]]]:
    """ticker -> company name, and ticker -> fiscal years of its filings, for one generation."""
    key = index.identity  # which generation of which index (Index, RemoteIndex)
    if key not in _COMPANIES:
        facets = index.facets()
        years: dict[str, list[int]] = {}
        for cell in facets["filings"]:
            years.setdefault(cell["ticker"], []).append(cell["fiscal_year"])
        _COMPANIES.clear()
        _COMPANIES[key] = (facets["companies"], {t: sorted(y) for t, y in years.items()})
    return _COMPANIES[key]

