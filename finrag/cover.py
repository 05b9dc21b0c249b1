"""The securities a 10-K's cover page registers under Section 12(b) of the Exchange Act: each
class's title, trading symbol and exchange, read from the cover's own table ("Title of each
class | Trading Symbol(s) | Name of each exchange on which registered").

Every 10-K prints that table on its first page, so "Which debt securities are registered to
trade on a national securities exchange under 3M's name?" is answered from the filing itself:
the notes it lists, or none where the cover registers only stock. `asks(question)` says whether
a question asks this and which classes ("debt", "equity" or "all"); `registered(text)` reads
the table from the cover's text, whether it keeps its rows (HTML) or runs them together (PDF)
(finrag.narrate `registered` quotes its rows as the answer). Pure: no index, no model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

DEBT, EQUITY, ALL = "debt", "equity", "all"

_MARKET = (r"(?<!foreign )(?<!currency )\b(?:exchanges?|nasdaq|nyse)\b(?! rates?)"
           r"(?![- ]traded)")
# "registered" of securities: not "registered holders", "registered public accounting firm"
_REGISTERED = r"\bregistered\b(?!\s+(?:holders?|owners?|public|independent|trademarks?))"
_ASKS = re.compile(
    rf"{_REGISTERED}.*\b(?:securit|notes?\b|stock|shares|exchange|12\s*\(b\))|"
    rf"\bsecurit\w*\b.*{_REGISTERED}|"
    rf"\b(?:listed|traded|trades?)\b.*{_MARKET}|{_MARKET}.*\b(?:listed|traded|trades?)\b|"
    r"\b(?:trading|ticker) symbols?\b", re.IGNORECASE)
_DEBT_Q = re.compile(r"\b(?:debt|notes|bonds|debentures)\b", re.IGNORECASE)
_EQUITY_Q = re.compile(r"\b(?:stock|shares|equity)\b", re.IGNORECASE)

_START = re.compile(r"(?<!are\s)registered\s*pursuant\s*to\s*section\s*12\s*\(\s*b\s*\)"
                    r"\s*of\s*the\s*(?:securities\s*exchange\s*)?act(?:\s*of\s*1934)?\s*:?",
                    re.IGNORECASE)
_END = re.compile(r"securities\s*registered\s*pursuant\s*to\s*section\s*12\s*\(\s*g\s*\)|"
                  r"indicate\s*by\s*check\s*mark|\bnote:", re.IGNORECASE)
_HEADERS = re.compile(
    r"securities\s*registered\s*pursuant\s*to\s*section\s*12\s*\(\s*b\s*\)\s*of\s*the\s*"
    r"(?:securities\s*exchange\s*)?act\s*(?:\(\s*continued\s*\))?\s*:?|"  # over a page
    r"\(?\s*title\s*of\s*each\s*class\s*\)?|"
    r"\(?\s*trading\s*symbols?\s*(?:\(\s*s\s*\))?\s*\)?|"
    r"\(?\s*name\s*of\s*(?:each\s*)?exchange\s*(?:on|of)\s*w\s*h\s*i\s*c\s*h\s*"
    r"r\s*e\s*g\s*i\s*s\s*t\s*e\s*r\s*e\s*d\s*\)?", re.IGNORECASE)
_SYMBOL_HEADER = re.compile(r"trading\s*symbol", re.IGNORECASE)
# the exchanges a 10-K's cover names, with the forms they are printed in
_EXCHANGE = re.compile(
    r"(?:The\s+)?(?:New\s*York\s*Stock\s*Exchange(?:\s*,?\s*(?:Inc\.|LLC))?|"
    r"Chicago\s*Stock\s*Exchange(?:\s*,?\s*Inc\.)?|"
    r"NASDAQ(?:\s*Stock\s*Market(?:\s*LLC)?)?(?:\s*Global\s*(?:Select\s*)?Market)?|"
    r"NYSE(?:\s*(?:Chicago|Arca|American|Texas))?|"
    r"(?:SIX|SWX)\s*Swiss\s*Exchange|London\s*Stock\s*Exchange|Euronext\s*\w+)"
    r"(?:\s*\(\s*(?:NYSE|NASDAQ\s*Global\s*Select\s*Market|Nasdaq\s*Global\s*Select\s*Market)"
    r"\s*\))?", re.IGNORECASE)
# where a class's title starts: stock, depositary shares, a rate or floating-rate note, a
# rate preferred (a rate inside a depositary share's title does not start one)
_TITLE = re.compile(
    r"(?:Class\s*[A-C]\s*)?(?:Common|Capital|Ordinary)\s*(?:Stock|Shares?)\b|"
    r"Depositary\s*Shares|"
    r"(?<!share of )(?<!shares of )(?<![\d.])(?:\d+(?:\.\d+)?\s*%|Floating\s*Rate)\s+"
    r"(?:[\w-]+\s+){0,6}?(?:Notes|Debentures|Bonds|Preferred)\b", re.IGNORECASE)
_BARE_SYMBOL = re.compile(r"[A-Z][A-Z0-9./-]*")
_DEBT = re.compile(r"\b(?:notes|debentures|bonds)\b", re.IGNORECASE)
# a trading symbol printed after the title: "KO26C", "VZ 24B", "WFC.PRL", "BA-PRA", "AUKF/27", "—"
_SYMBOL = re.compile(r"\s+(?:[\u2014\u2013-]|"
                     r"[A-Z][A-Z0-9]*[a-z]?(?:[./-][A-Z0-9]+)?(?:\s\d{2}[A-Z]?)?)$")


@dataclass(frozen=True)
class Security:
    title: str  # as printed: "1.875% Notes Due 2026"
    symbol: str = ""  # "KO26"; "" where the cover prints none
    exchanges: tuple[str, ...] = field(default_factory=tuple)
    row: str = ""  # the row's words as printed, for quoting and marking on the page

    @property
    def debt(self) -> bool:
        return bool(_DEBT.search(self.title)) and "preferred" not in self.title.lower()


def asks(question: str) -> str | None:
    """DEBT, EQUITY or ALL where the question asks which securities the company has registered
    on an exchange; None otherwise."""
    if not _ASKS.search(question):
        return None
    if _DEBT_Q.search(question):
        return DEBT
    equity = _EQUITY_Q.search(question) and ("securit" not in question.lower()
                                              or "equity" in question.lower())
    return EQUITY if equity else ALL


def block(text: str) -> str | None:
    """The cover's Section 12(b) table as one line of text, headers removed; None where the
    text holds no such table. "" where it says none is registered."""
    flat = " ".join(text.split())
    start = _START.search(flat)
    if start is None:
        return None
    rest = flat[start.end():]
    end = _END.search(rest)
    return rest[:end.start() if end else 6000].strip()


def registered(text: str) -> list[Security] | None:
    """The classes the cover registers under Section 12(b), in the cover's order; [] where it
    registers none; None where the text holds no Section 12(b) table."""
    found = block(text)
    if found is None:
        return None
    with_symbols = bool(_SYMBOL_HEADER.search(found))
    body = " ".join(_HEADERS.sub(" ", found).split())
    starts = sorted({m.start() for m in _TITLE.finditer(body)} | _after_exchanges(body))
    out = []
    for i, at in enumerate(starts):
        piece = body[at:starts[i + 1] if i + 1 < len(starts) else len(body)].strip(" ,;")
        if not piece:
            continue
        row = _security(piece, with_symbols)
        if out and _BARE_SYMBOL.fullmatch(row.title):  # the same class on another exchange
            last = out.pop()
            row = Security(last.title, last.symbol, last.exchanges + row.exchanges,
                           f"{last.row} {row.row}")
        out.append(row)
    if any(not s.exchanges for s in out):  # printed in columns: the titles, then the exchanges
        out = [Security(s.title, s.symbol, (), s.title) for s in out]  # cannot be paired
    return out


def _after_exchanges(body: str) -> set[int]:
    """Where a row starts that no title pattern knows ("Guarantee of Medium-Term Notes ..."):
    after an exchange's name (or a run of them) with more words following."""
    out, runs = set(), list(_EXCHANGE.finditer(body))
    for m, nxt in zip(runs, runs[1:] + [None]):
        gap = body[m.end():nxt.start()] if nxt is not None else body[m.end():]
        if gap.strip(" ,;()"):  # not another exchange of the same row
            out.add(m.end() + len(gap) - len(gap.lstrip(" ,;")))
    return out


def _security(piece: str, with_symbols: bool) -> Security:
    """One row: the title up to its exchange, the symbol printed before the exchange."""
    exchanges = list(_EXCHANGE.finditer(piece))
    title_part = piece[:exchanges[0].start()].strip() if exchanges else piece
    row = piece[:exchanges[-1].end()].strip() if exchanges else piece
    symbol = ""
    m = _SYMBOL.search(title_part) if with_symbols and exchanges else None
    if m is not None:
        symbol = m.group(0).strip()
        title_part = title_part[:m.start()].strip()
    return Security(title=title_part.strip(" ,;"),
                    symbol="" if symbol in "\u2014\u2013-" else symbol,
                    exchanges=tuple(dict.fromkeys(" ".join(e.group(0).split())
                                                  for e in exchanges)),
                    row=row)


_NAMED_EXCHANGE = {"nyse": re.compile(r"\bnyse\b|new york stock exchange", re.I),
                   "nasdaq": re.compile(r"\bnasdaq\b", re.I),
                   "chicago": re.compile(r"\bchicago\b", re.I)}


def exchange_named(question: str) -> str | None:
    """The exchange a question names ("Is Nike's stock listed on the NYSE?"), or None."""
    return next((name for name, pattern in _NAMED_EXCHANGE.items()
                 if pattern.search(question)), None)


def on_exchange(security: Security, name: str) -> bool | None:
    """Whether the class is listed on the named exchange; None where the cover pairs no
    exchange with it (printed in columns)."""
    if not security.exchanges:
        return None
    return any(_NAMED_EXCHANGE[name].search(e) for e in security.exchanges)


def wanted(securities: list[Security], which: str) -> list[Security]:
    if which == DEBT:
        return [s for s in securities if s.debt]
    if which == EQUITY:
        return [s for s in securities if not s.debt]
    return list(securities)

