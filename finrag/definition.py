"""A formula the question states in its own words, read and computed as stated.

"DPO is defined as: 365 * (average accounts payable between FY2017 and FY2018) / (FY2018 COGS +
change in inventory between FY2017 and FY2018)", "operating cash flow ratio, defined as cash
from operations divided by total current liabilities", "unadjusted EBITDA less capex",
"(net sales minus cost of sales) as a percent of net sales". `read(text)` turns such text into a
`Formula` (operands joined by + - * / and "as a percent of", parentheses kept) or raises
`Unplaced` naming the words it could not place: a formula half read is no formula.

An operand is a line item (`finrag.lineitems`) or a metric finrag computes (EBITDA, free cash
flow...), of a fiscal year ("FY2018 COGS"), averaged over two year ends ("average inventory
between FY2020 and FY2021"), or changed between them ("change in inventory ..."); or a number.
`evaluate(formula, figure_of, metric_of, year)` computes it for one fiscal year, years in the
formula taken relative to the year the question asks about.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from finrag.book import SCALE, Figure, Missing, convert
from finrag.citing import term
from finrag.lineitems import find_items, normalize
from finrag.question import METRIC_PATTERNS

# Metrics an operand may name: the amounts among `finrag.question`'s metrics, in its wording.
OPERAND_METRICS = {k: p for k, p in METRIC_PATTERNS if k in ("ebitda", "fcf", "working_capital",
                                                              "total_debt")}

_STATEMENT = (r"(?:consolidated )?(?:statements? of (?:cash flows?|income|operations|earnings|"
              r"financial position|comprehensive income)|(?:cash flows?|income|p&l|operations) "
              r"statements?|balance sheets?)")
_SOURCE = re.compile(rf"\b(?:as (?:reported|shown|stated|printed) )?(?:from|in|on|per|of|using|"
                     rf"within|according to) (?:the )?{_STATEMENT}")
_YEAR_RANGE = re.compile(r"\b((?:fy|fiscal(?: year)?)\s*'?\d{2,4})\s*-\s*((?:fy|fiscal(?: year)?)?"
                         r"\s*'?\d{2,4})\b")

# symbols and words that join operands, longest first
_OPS = [
    (r"as an? (?:percent(?:age)?|%|share) of|as % of|% of", "%"),
    (r"divided by|/", "/"),
    (r"multiplied by|times|\*|\u00d7", "*"),
    (r"plus|\+|added to", "+"),
    (r"minus|less|net of|subtracting|\u2212|(?<=\s)-(?=\s)|(?<=\))\s*-|-\s*(?=\()", "-"),
]
_OP_RX = re.compile("|".join(f"(?P<o{i}>{p})" for i, (p, _) in enumerate(_OPS)))
_OP_WORDS = {"as", "a", "an", "percent", "percentage", "share", "of", "divided", "by",
             "multiplied", "times", "plus", "added", "to", "minus", "less", "net", "subtracting"}

# words that carry no part of a formula: articles, prepositions, and how a figure is framed
FILLER = frozenset("""
the a an of in on at for from to and its their company company's total amount amounts value
values figure balance balances reported unadjusted annual fiscal year years year's end ending
ended during between as over period line item items
""".split())

_YEAR = re.compile(r"^(?:fy|fiscal(?: year)?)?\s*'?(\d{4}|\d{2})$")


class Unplaced(ValueError):
    """Words of a formula that are neither an operand, an operator nor framing."""


@dataclass(frozen=True)
class Operand:
    key: str  # a line item key, an OPERAND_METRICS key, or "" for a number
    how: str = "at"  # "at" | "average" | "change"
    years: tuple[int, ...] = ()  # absolute fiscal years named with it
    number: float | None = None

    @property
    def is_metric(self) -> bool:
        return self.key in OPERAND_METRICS


@dataclass(frozen=True)
class Formula:
    op: str  # "" for a single operand, else one of + - * / %
    left: Formula | Operand
    right: Formula | Operand | None = None

    def operands(self) -> list[Operand]:
        out = []
        for side in (self.left, self.right):
            if isinstance(side, Operand):
                out.append(side)
            elif side is not None:
                out.extend(side.operands())
        return out

    def years(self) -> set[int]:
        return {y for o in self.operands() for y in o.years}

    def keys(self) -> set[str]:
        return {o.key for o in self.operands() if o.key}


# --- reading ---------------------------------------------------------------------------------

def read(text: str) -> Formula:
    """The formula in `text` (raw question text, any case)."""
    tokens = _tokens(text)
    if not tokens:
        raise Unplaced("no formula")
    parser = _Parser(tokens)
    formula = parser.expr()
    if parser.pos != len(tokens):
        raise Unplaced(f"'{_show(tokens[parser.pos:])}' after the formula")
    if isinstance(formula, Operand):
        formula = Formula("", formula)
    return formula


def read_in(text: str) -> Formula | None:
    """The formula a question writes among its other words ("what is X's FY2021 EBITDA less
    capex?"): the operands that operators join, or None where no operator joins two."""
    tokens = _tokens(text)
    joined = [i for i, t in enumerate(tokens) if t[0] == "op"
              and _back(tokens, i - 1) is not None and _forward(tokens, i + 1) is not None]
    if not joined:
        return None
    start, end = _back(tokens, joined[0] - 1), joined[0] + 1
    while end < len(tokens):
        stop = _forward(tokens, end)
        if stop is None:
            raise Unplaced(f"'{_show(tokens[end:end + 3])}' after an operator")
        end = stop
        while end < len(tokens) and tokens[end][0] == "rp" and _depth(tokens[start:end]) > 0:
            end += 1
        if end < len(tokens) and tokens[end][0] == "op":
            end += 1
            continue
        break
    part = tokens[start:end]
    while part and part[0][0] == "lp" and _depth(part) > 0:
        part = part[1:]
    parser = _Parser(part)
    formula = parser.expr()
    if parser.pos != len(part) or isinstance(formula, Operand):
        raise Unplaced(f"'{_show(part[parser.pos:])}' in the formula")
    return formula


def _depth(tokens) -> int:
    return sum(1 if t[0] == "lp" else -1 if t[0] == "rp" else 0 for t in tokens)


def _back(tokens, j: int) -> int | None:
    """Where the operand (or parenthesized group) ending at `j` starts, or None: its years
    after it, its term or number, and the years and "average" / "change in" before it."""
    if j >= 0 and tokens[j][0] == "rp":
        depth = 0
        for k in range(j, -1, -1):
            depth += {"rp": 1, "lp": -1}.get(tokens[k][0], 0)
            if depth == 0:
                return k
        return None
    k = j
    while k >= 0 and tokens[k][0] == "year":
        k -= 1
    if k < 0 or tokens[k][0] not in ("term", "num"):
        return None
    k -= 1
    while k >= 0 and tokens[k][0] in ("year", "how"):
        k -= 1
    while k >= 0 and tokens[k][0] == "lp":
        k -= 1
    return k + 1


def _forward(tokens, j: int) -> int | None:
    """Where the operand (or group) starting at `j` ends (exclusive), or None."""
    if j < len(tokens) and tokens[j][0] == "lp":
        depth = 0
        for k in range(j, len(tokens)):
            depth += {"lp": 1, "rp": -1}.get(tokens[k][0], 0)
            if depth == 0:
                return k + 1
        return None
    k = j
    while k < len(tokens) and tokens[k][0] in ("how", "year"):
        k += 1
    if k == len(tokens) or tokens[k][0] not in ("term", "num"):
        return None
    k += 1
    while k < len(tokens) and tokens[k][0] == "year":
        k += 1
    return k


def _show(tokens) -> str:
    return " ".join(str(t[1]) for t in tokens)


def _tokens(text: str) -> list[tuple]:
    low = text.lower().replace("\u2019", "'").replace("\u2013", "-").replace("\u2014", "-")
    low = _SOURCE.sub(" ", low)
    low = _YEAR_RANGE.sub(r"\1 to \2", low)
    out: list[tuple] = []
    pos = 0
    for m in _OP_RX.finditer(low):
        out += _operand_tokens(low[pos:m.start()])
        sym = next(sym for i, (_, sym) in enumerate(_OPS) if m.group(f"o{i}"))
        out.append(("op", sym))
        pos = m.end()
    out += _operand_tokens(low[pos:])
    return out


def _operand_tokens(chunk: str) -> list[tuple]:
    """Tokens of the text between two operators: parentheses, numbers, years, operands."""
    out: list[tuple] = []
    for part in re.split(r"([()])", chunk):
        if part in ("(", ")"):
            out.append(("lp" if part == "(" else "rp", part))
            continue
        out += _words_tokens(normalize(part.replace("(", " ").replace(")", " ")))
    return out


def _words_tokens(norm: str) -> list[tuple]:
    if not norm:
        return []
    spans = [(s, e, "item", i.key) for s, e, i in find_items(norm)]
    for key, pattern in OPERAND_METRICS.items():
        for m in re.finditer(rf"(?<![\w&])(?:{pattern})(?![\w&])", norm):
            if not any(s < m.end() and m.start() < e for s, e, *_ in spans):
                spans.append((m.start(), m.end(), "metric", key))
    spans.sort()
    out: list[tuple] = []
    pos = 0
    for s, e, _, key in spans:
        out += _plain(norm[pos:s])
        out.append(("term", key))
        pos = e
    out += _plain(norm[pos:])
    return out


def _plain(text: str) -> list[tuple]:
    out: list[tuple] = []
    words = text.split()
    i = 0
    while i < len(words):
        w = words[i]
        two = " ".join(words[i:i + 2])
        if two in ("fiscal year",) and i + 2 < len(words) and _YEAR.match(words[i + 2]):
            out.append(("year", _year(words[i + 2])))
            i += 3
            continue
        if w in ("fy", "fiscal") and i + 1 < len(words) and _YEAR.match(words[i + 1]):
            out.append(("year", _year(words[i + 1])))
            i += 2
            continue
        if re.fullmatch(r"(?:fy'?\d{2}|fy\d{4}|(?:19|20)\d{2})", w):
            out.append(("year", _year(w)))
        elif re.fullmatch(r"\d+(?:\.\d+)?", w):
            out.append(("num", float(w)))
        elif w in ("average", "avg", "mean"):
            out.append(("how", "average"))
        elif w in ("change", "increase", "decrease") and words[i + 1:i + 2] == ["in"]:
            out.append(("how", "change"))
            i += 1
        elif w not in FILLER:
            out.append(("word", w))
        i += 1
    return out


def _year(w: str) -> int:
    digits = re.sub(r"\D", "", w)
    n = int(digits)
    return n if len(digits) == 4 else 2000 + n


class _Parser:
    """expr := product (('+'|'-') product)*; product := factor (('*'|'/'|'%') factor)*;
    factor := '(' expr ')' | operand."""

    def __init__(self, tokens: list[tuple]) -> None:
        self.tokens = tokens
        self.pos = 0

    def peek(self) -> tuple | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def expr(self):
        node = self.product()
        while (t := self.peek()) and t[0] == "op" and t[1] in "+-":
            self.pos += 1
            node = Formula(t[1], node, self.product())
        return node

    def product(self):
        node = self.factor()
        while (t := self.peek()) and t[0] == "op" and t[1] in "*/%":
            self.pos += 1
            node = Formula(t[1], node, self.factor())
        return node

    def factor(self):
        t = self.peek()
        if t is not None and t[0] == "lp":
            self.pos += 1
            node = self.expr()
            if not (self.peek() and self.peek()[0] == "rp"):
                raise Unplaced("an unclosed parenthesis")
            self.pos += 1
            return self._trailing_years(node)
        return self.operand()

    def _trailing_years(self, node):
        while (t := self.peek()) and t[0] == "year":  # "(...) between FY2019 and FY2020"
            self.pos += 1
        return node

    def operand(self) -> Operand:
        how, years, key, number, unplaced = "at", [], None, None, []
        while (t := self.peek()) and t[0] not in ("op", "rp", "lp"):
            kind, value = t
            if kind == "term" and key is None and number is None:
                key = value
            elif kind == "num" and key is None and number is None and not years:
                number = value
            elif kind == "year":
                years.append(value)
            elif kind == "how" and key is None:
                how = value
            else:
                unplaced.append(str(value))
            self.pos += 1
        if unplaced:
            raise Unplaced(f"'{' '.join(unplaced)}'")
        if number is not None:
            return Operand("", number=number)
        if key is None:
            shown = self.peek()
            raise Unplaced("an operator with nothing to apply it to"
                           + (f" before '{shown[1]}'" if shown else ""))
        return Operand(key, how, tuple(sorted(set(years))))


# --- computing -------------------------------------------------------------------------------

@dataclass
class Value:
    value: float
    unit: str  # an amount unit of SCALE, "ratio", "percent", "number"
    text: str
    figures: list[Figure]


def evaluate(formula: Formula, figure_of: Callable[[str, int], Figure],
             metric_of: Callable[[str, int], Value], year: int, asked_year: int) -> Value:
    """`formula` for fiscal `year`; a year named in the formula counts relative to
    `asked_year` (so a definition for FY2018 computed for FY2017 moves back a year)."""
    if formula.op == "":
        return _operand(formula.left, figure_of, metric_of, year, asked_year)
    a = _side(formula.left, figure_of, metric_of, year, asked_year)
    b = _side(formula.right, figure_of, metric_of, year, asked_year)
    return combine(formula.op, a, b)


def _side(node, figure_of, metric_of, year, asked_year) -> Value:
    if isinstance(node, Operand):
        return _operand(node, figure_of, metric_of, year, asked_year)
    inner = evaluate(node, figure_of, metric_of, year, asked_year)
    if node.op:
        inner.text = f"({inner.text})"
    return inner


def _operand(o: Operand, figure_of, metric_of, year: int, asked_year: int) -> Value:
    if o.number is not None:
        return Value(o.number, "number", f"{o.number:g}", [])
    shift = year - asked_year
    years = [y + shift for y in o.years]
    get = metric_of if o.is_metric else (lambda k, y: _figure_value(figure_of(k, y)))
    if o.how == "at":
        return get(o.key, years[-1] if years else year)
    first, last = (years[0], years[-1]) if len(years) >= 2 else (year - 1, years[-1] if years
                                                                   else year)
    a, b = get(o.key, first), get(o.key, last)
    if o.how == "average":
        v = combine("+", a, b)
        return Value(v.value / 2, v.unit, f"average({a.text}, {b.text})", v.figures)
    return combine("-", b, a)


def _figure_value(f: Figure) -> Value:
    return Value(f.value, f.unit, term(f), [f])


def combine(op: str, a: Value, b: Value) -> Value:
    figures = a.figures + b.figures
    if op in "+-":
        if a.unit != b.unit and not (a.unit in SCALE and b.unit in SCALE):
            raise Missing(f"{a.text} {op} {b.text}: figures in {a.unit} and {b.unit}")
        unit = a.unit
        value = a.value + (1 if op == "+" else -1) * convert(b.value, b.unit, unit) \
            if unit in SCALE else a.value + (1 if op == "+" else -1) * b.value
        return Value(value, unit, f"{a.text} {op} {b.text}", figures)
    if op == "*":
        if a.unit != "number" and b.unit != "number":
            raise Missing(f"{a.text} x {b.text}: a product of two figures")
        unit = b.unit if a.unit == "number" else a.unit
        return Value(a.value * b.value, unit, f"{a.text} x {b.text}", figures)
    den = b.value if not (a.unit in SCALE and b.unit in SCALE) else convert(b.value, b.unit,
                                                                            a.unit)
    if den == 0:
        raise Missing(f"{b.text}: zero, so no ratio")
    if a.unit in SCALE and b.unit in SCALE:
        unit = "ratio"
    elif b.unit == "number":
        unit = a.unit
    elif a.unit == "number" and b.unit in ("ratio", "percent"):
        unit = "number"
    elif a.unit == "number" or a.unit == b.unit:
        unit = "ratio"
    else:
        raise Missing(f"{a.text} / {b.text}: figures in {a.unit} and {b.unit}")
    if op == "%":
        return Value(a.value / den * 100, "percent", f"{a.text} / {b.text} x 100", figures)
    return Value(a.value / den, unit, f"{a.text} / {b.text}", figures)

