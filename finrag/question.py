"""Understanding a question: which figure it asks for, of which company, for which fiscal years.

`parse(text, companies, filters)` is pure: it reads the line items (`finrag.lineitems`), the
metric built from them (margins, ratios, growth...), the fiscal years ("FY2018", "fiscal 2024",
"FY24", "2019 - 2021", "year end FY2018"), a date ("December 31, 2024"), the unit and rounding
asked ("in USD millions", "percent, one decimal"), the company (its name, short name or ticker,
matched against the indexed companies; else the ticker filter) and, where the question defines
its metric ("DPO is defined as ..."), the items of that definition.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from finrag.asking import question_part
from finrag.companies import company_names
from finrag.lineitems import LineItem, find_items, normalize

MONTHS = ("january february march april may june july august september october november "
          "december").split()


@dataclass(frozen=True)
class Judgement:
    """What a yes / no question asks of its metric: its sign ("positive working capital"), its
    direction over the years ("improving", "increased"), its stability ("consistent"), or a
    threshold a textbook sets ("capital intensive", "liquid")."""

    test: str  # "positive" | "negative" | "up" | "down" | "better" | "worse" | "stable" | "paid"
    # | "capital_intensive" | "liquid" | "high_growth"
    words: str  # the question's words for it
    limit: float | None = None  # the question's own bound ("not fluctuating more than 2%")


@dataclass(frozen=True)
class Ranking:
    """Which of a statement's lines the question ranks: the cash flow activities or the parts
    of revenue (segments, products), by the largest, the smallest, or those above a share."""

    scope: str  # "activities" | "segments" | "products"
    order: str  # "max" | "min" | "share"
    words: str  # the question's word for the lines ("segments", "activities")
    share: float | None = None  # percent of the total, for order "share"


@dataclass(frozen=True)
class Question:
    text: str
    items: tuple[LineItem, ...] = ()  # line items named, in question order
    metric: str | None = None  # a computed metric (METRICS key), None for a stated figure
    years: tuple[int, ...] = ()  # fiscal years named, ascending
    date: str | None = None  # an ISO date named ("as of January 31, 2025")
    unit: str | None = None  # the unit asked: "USD millions", "percent", ...
    decimals: int | None = None  # the rounding asked
    tickers: tuple[str, ...] = ()  # the company: named in the question, else the filter's
    change: bool = False  # asks how a figure changed between fiscal years
    average: bool = False  # asks for an average over the years named
    definition_items: tuple[str, ...] = ()  # items of the question's own definition
    definition_text: str = ""
    rest: tuple[str, ...] = field(default=())  # unexplained words just before the line item
    line_words: tuple[str, ...] = ()  # where no known item is named: words that may name a line
    head: str = ""  # the question before its own definition, lower case, as typed
    formula_text: str = ""  # the question's own definition, as typed ("(cash from ops - capex)")
    unknown_metric: str = ""  # a metric named ("... ratio") that finrag neither knows nor is told
    judgement: Judgement | None = None  # a yes / no question a metric settles
    yes_no: bool = False  # asks yes or no ("Does ...?", "Has ...?")
    ranking: Ranking | None = None  # which line of a set is largest, smallest, above a share
    basis: str = ""  # words asking for another basis than the statements' ("adjusted", "Class A")
    qualifiers: frozenset[str] = frozenset()  # "net" / "gross" said of the line item
    last_n: int | None = None  # "last five years": that many fiscal years to the latest indexed
    since: int | None = None  # "since 2020": fiscal years from it to the latest indexed
    peer_order: str | None = None  # "which company had the highest X": "max" | "min"

    @property
    def asks_for_something(self) -> bool:
        return bool(self.items or self.metric or self.unknown_metric or self.ranking)

    @property
    def wants_facts(self) -> bool:
        """Whether an answer may come from the facts: a figure asked, or a printed line named."""
        return self.asks_for_something or bool(self.line_words)

    @property
    def year(self) -> int | None:
        """The fiscal year asked about: the latest named."""
        return self.years[-1] if self.years else None


# A metric: (key, question pattern over the normalized text). First match wins, so the more
# specific wording comes first ("fixed asset turnover" before "asset turnover").
METRIC_PATTERNS: list[tuple[str, str]] = [
    ("cagr", r"cagr|compound(?:ed)? annual growth(?: rate)?"),
    ("dpo", r"days payables? outstanding|dpo"),
    ("dso", r"days sales outstanding|dso"),
    ("dio", r"days (?:of |in )?inventory(?: outstanding)?|dio"),
    ("inventory_turnover", r"inventory turnover"),
    ("receivables_turnover", r"(?:accounts )?receivables? turnover"),
    ("payables_turnover", r"(?:accounts )?payables? turnover"),
    ("fixed_asset_turnover", r"fixed assets? turnover"),
    ("asset_turnover", r"(?:total )?assets? turnover"),
    ("quick_ratio", r"quick ratio|acid test(?: ratio)?"),
    ("current_ratio", r"current ratio|working capital ratio|liquidity ratio"),
    ("fcf_conversion", r"(?:free cash ?flows?|fcf) conversion(?: rate| ratio)?"),
    ("capital_intensity", r"capital intensity(?: ratio)?|capital intensive"),
    ("total_debt", r"total (?:debt|borrowings)|(?<!term )(?<!net )debt(?= on (?:the |its )?balance"
                   r" sheet|(?: level| load| position)?(?: between| from| in | at |$| \(|\?))"),
    ("working_capital", r"(?:net )?working capital"),
    ("fcf", r"free cash ?flows?|fcf"),
    ("interest_coverage", r"interest coverage(?: ratio)?|times interest earned"),
    ("effective_tax_rate", r"(?:effective )?(?:income )?tax rate"),
    ("roa", r"return on (?:total )?assets|roa"),
    ("roe", r"return on (?:shareholders'? |stockholders'? )?equity|roe"),
    ("payout_ratio", r"(?:dividend )?payout ratio"),
    ("gross_margin", r"gross (?:profit )?(?:% )?margins?"),
    ("ebitda_margin", r"ebitda (?:% )?margins?"),
    ("operating_margin", r"operating (?:income |profit )?(?:% )?margins?|ebit (?:% )?margins?"),
    ("net_margin", r"net (?:income |profit )?(?:% )?margins?|profit margins?"),
    ("ebitda", r"ebitda"),
    ("item_margin", (r"% margin|as a % of (?:total )?(?:net )?(?:revenues?|sales)"
                     r"|as a percent(?:age)? of (?:total )?(?:net )?(?:revenues?|sales)")),
]
_METRICS = [(k, re.compile(rf"(?<![\w&])(?:{p})(?![\w&])")) for k, p in METRIC_PATTERNS]

_CHANGE = re.compile(r"\b(?:chang(?:e|ed|es)|grow(?:th|n)?|grew|increased?|decreased?|declined?|"
                     r"rose|fell|year over year|yoy|y o y)\b")
_VERSUS = re.compile(r"\b(?:vs|versus|against|compared (?:to|with))\b")
_GROWTH = re.compile(r"\b(?:growth|grow|grew|growing)\b")
_AVERAGE = re.compile(r"\b(?:average|mean)\b")
_DEFINITION = re.compile(r"(?:\b(?:is |are )?(?:defined|calculated|computed|measured) as"
                         r"|\b(?:define|calculate|compute) [\w ,&'%()]{1,60}? as\b(?! if\b)"
                         r"|(?<=[\w)]) = )\s*:?\s*(?P<rest>.*)", re.DOTALL)

_UNIT = [
    (re.compile(r"\b(?:usd|us\$|\$|dollars?)?\s*\(?(?:in )?(?:usd |us\$ ?|\$ ?)?"
                r"(thousands|millions|billions)\b"), None),
    (re.compile(r"\bper share\b"), "USD per share"),
    (re.compile(r"\b(?:in )?(?:units? of )?percents?\b|\bpercentage\b|%"), "percent"),
]
_SCALE = {"thousands": "USD thousands", "millions": "USD millions", "billions": "USD billions"}
_DECIMALS = re.compile(r"\b(zero|one|two|three|four|[0-4])\s+decimal")
_WORD_NUM = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4}

# Words of a question's grammar and framing ("what was the company's total ... in fiscal 2024"):
# next to a line item they never name a narrower line. Instructions ("round to one decimal
# place") are not here: `finrag.asking` takes their sentences out first.
FRAMING = frozenset("""
a an the of for in on at as to by from and or with what which who whose how much many is was
were be been are did does do has have had its it this that these those their our your my we you
i me us company company's companies year years annual fiscal fy total amount value figure
number reported net per share shares end ending ended during over period current prior
previous last latest most recent than about approximately roughly all any there they up down
""".split())


# Metrics over an average balance (turnover, days, returns): "average" in their question names
# the metric's own averaging, not an average over years, and they need the prior year's balance.
AVERAGED_BALANCE_METRICS = frozenset({
    "dpo", "dso", "dio", "inventory_turnover", "receivables_turnover", "payables_turnover",
    "asset_turnover", "fixed_asset_turnover", "roa", "roe"})


def across(q: Question) -> str | None:
    """How a question reads across fiscal years or companies: "ranking" (which company had the
    highest X), "peers" (the figure for several companies), "series" (one company over several
    fiscal years); None for one figure of one company, or where such a reading would answer
    only part of the question (an average, a growth rate, a yes / no, its own formula)."""
    if (not (q.metric or len(q.items) == 1) or q.unknown_metric or q.formula_text or q.date
            or q.judgement or q.yes_no or q.ranking or q.average or q.metric == "cagr"):
        return None
    if q.peer_order:
        return "ranking"
    if len(q.tickers) >= 2:
        return "peers"
    if q.last_n or q.since or len(q.years) > 2 or (len(q.years) == 2 and not q.change):
        return "series"  # a change between two years is the change's own answer
    return None


def parse(text: str, companies: dict[str, str] | None = None, filters=None) -> Question:
    """Read `text`; `companies` is ticker -> company name of the index; `filters` (finrag
    Filters or None) supply the company and year when the question names none."""
    raw = " ".join((text or "").split())
    low = raw.lower().replace("\u2019", "'").replace("\u2013", "-").replace("\u2014", "-")
    norm = normalize(raw)
    head, definition = _split_definition(norm)
    head_low, formula_text = _split_definition(low)
    items_found = find_items(head)
    items = tuple(dict.fromkeys(i for _, _, i in items_found))
    metric = next((k for k, rx in _METRICS if rx.search(head)), None)
    years, date, _ = _years(low)
    asked = question_part(raw)  # a company in an instruction sentence is not the one asked
    tickers, name_words = _company(asked, normalize(asked), companies or {}, filters)
    if not years and filters is not None and len(filters.fiscal_years) == 1:
        years = (filters.fiscal_years[0],)
    unit, decimals = _unit(low)
    change = (bool(_CHANGE.search(head)) or (len(years) == 2 and bool(_VERSUS.search(head)))
              ) and metric not in ("cagr",)
    if change and unit is None and metric is None and _GROWTH.search(head):
        unit = "percent"  # "revenue growth": a rate, where "change" is an amount
    average = (bool(_AVERAGE.search(head)) and len(years) > 1
               and metric not in AVERAGED_BALANCE_METRICS)
    def_items = tuple(dict.fromkeys(i.key for _, _, i in find_items(definition)))
    core = normalize(_split_definition(question_part(raw).lower())[0])
    rest = _rest(core, find_items(core), name_words)
    line_words = () if items or metric else _line_words(core, name_words, years)
    basis = _BASIS.search(core)
    peer_order = _peer_order(head_low, len(tickers) > 1)
    return Question(text=raw, items=items, metric=metric, years=years, date=date, unit=unit,
                    decimals=decimals, tickers=tickers, change=change, average=average,
                    definition_items=def_items, definition_text=definition, rest=rest,
                    head=head_low, formula_text=_sentence(formula_text),
                    unknown_metric=_unknown_metric(head), judgement=_judgement(head_low),
                    yes_no=bool(_yes_no_sentence(head_low)),
                    ranking=None if peer_order else _ranking(head_low),
                    qualifiers=_qualifiers(head, items_found), line_words=line_words,
                    basis=basis.group(0) if basis else "", last_n=_last_n(head_low),
                    since=_since(head_low), peer_order=peer_order)


def _split_definition(norm: str) -> tuple[str, str]:
    """The question, and the text of its own definition of the metric (after 'defined as')."""
    m = _DEFINITION.search(norm)
    if not m:
        return norm, ""
    return norm[: m.start()], m.group("rest")


def _sentence(text: str) -> str:
    """The first sentence of `text` (a decimal point does not end one)."""
    return re.split(r"(?<!\d)[.?!;](?!\d)", text, maxsplit=1)[0].strip()


# nouns that name a metric; each must be part of a metric finrag knows or the question defines
_METRIC_NOUN = re.compile(r"\b(?:ratio|margin|rate|turnover|coverage|conversion|yield|intensity"
                          r"|multiple|returns? on)\b")
_KNOWN_RATE = re.compile(r"\b(?:(?:annual |annualized )?growth rate|percentage|percent)\b")


def _unknown_metric(head: str) -> str:
    """The words of a metric the question names that no METRIC_PATTERNS reading explains
    ("operating cash flow ratio"), or ""."""
    covered = [(m.start(), m.end()) for _, rx in _METRICS for m in rx.finditer(head)]
    covered += [(m.start(), m.end()) for m in _KNOWN_RATE.finditer(head)]
    for m in _METRIC_NOUN.finditer(head):
        if any(s <= m.start() and m.end() <= e + 6 for s, e in covered):
            continue  # within a known metric, or its trailing "ratio" ("inventory turnover ratio")
        words = []
        for w in reversed(head[:m.start()].split()[-3:]):
            if w in FRAMING:
                break
            words.insert(0, w)
        return " ".join(words + [m.group(0)])
    return ""


_YES_NO = re.compile(r"^(?:does|do|did|is|are|was|were|has|have|had|can|could|will|would)\b")
# (test, the question's words for it), most specific first
JUDGEMENTS = [
    ("capital_intensive", r"capital[- ]intensive|capital intensity"),
    ("high_growth", r"high[- ]growth|growing (?:fast|quickly|rapidly)"),
    ("liquid", r"\bliquid(?:ity)?\b|\bsolvent\b"),
    ("paid", r"\bpa(?:y|id|ying|ys)\b(?: out)?(?: any| a)?(?: cash)? dividends?"),
    ("stable", r"\bconsistent|\bstable\b|\bsteady\b|\bfluctuat\w*"),
    ("positive", r"\bpositive\b"),
    ("negative", r"\bnegative\b"),
    ("better", r"\bimprov\w*|\bstrengthen\w*"),
    ("worse", r"\bdeteriorat\w*|\bworsen\w*|\bweaken\w*"),
    ("up", r"\bincreas\w*|\bgr[eo]w\w*|\brisen?\b|\brose\b|\bexpand\w*|\bhigher\b"),
    ("down", r"\bdecreas\w*|\bdeclin\w*|\bfell\b|\bfall\w*|\bshr[iu]nk\w*|\breduc\w*"
             r"|\blower\b"),
]
_JUDGEMENTS = [(test, re.compile(p)) for test, p in JUDGEMENTS]
_LIMIT = re.compile(r"(?:more than|over|beyond|within|by|exceeding)\s*(?:roughly |about |"
                    r"approximately |~)?(\d+(?:\.\d+)?)\s*(?:%|percent)")


def _yes_no_sentence(head: str) -> str:
    return next((s for s in re.split(r"(?<=[?.!])\s+", head) if _YES_NO.match(s)), "")


# a bound the question sets on a figure ("increase by more than 10%", "above $1 billion")
_BOUND = re.compile(r"(?:more than|less than|over|above|below|under|at least|at most|by|"
                    r"exceed\w*)\s*\$?\d[\d,.]*\s*(?:%|percent|x\b|times|thousand|million|"
                    r"billion)")


def _judgement(head: str) -> Judgement | None:
    """The test a yes / no question puts to its metric, read from its first question sentence.
    A bound only "stable" reads ("by more than 10%" of an increase) leaves no test: the verdict
    would answer part of the question."""
    sentence = _yes_no_sentence(head)
    for test, rx in _JUDGEMENTS:
        m = rx.search(sentence)
        if m:
            limit = _LIMIT.search(sentence) if test == "stable" else None
            if test != "stable" and _BOUND.search(sentence):
                return None
            return Judgement(test, m.group(0), float(limit.group(1)) if limit else None)
    return None


# Words that ask for a figure on another basis than the statements print it: a non-GAAP or
# adjusted measure, a part of the company (a share class, the noncontrolling interests), or the
# figure less some items. The statements' facts cannot give it, so no figure is the answer.
_BASIS = re.compile(r"\b(?:(?<!un)adjusted|non gaap|organic(?:ally)?|pro forma|underlying|"
                    r"constant currency|excluding|ex items|normali[sz]ed|comparable|core "
                    r"(?:earnings|eps|revenue|income)|class [abc]\b|per class|share class|"
                    r"(?:non ?controlling|minority) interests?)")

_SCOPES = [
    ("activities", r"\b(?:cash ?flows? )?activit(?:y|ies)\b"),
    ("segments", r"\b(?:business |reportable |operating )?segments?\b|\bdivisions?\b"),
    ("products", r"\b(?:product|service)s?(?: lines?| categor(?:y|ies)| groups?)?\b"
                 r"|\bcategor(?:y|ies)\b"),
]
_MAX = re.compile(r"\b(?:largest|biggest|highest|most|greatest|top)\b")
_MIN = re.compile(r"\b(?:smallest|lowest|least|fewest)\b")
_USED = re.compile(r"\b(?:used|spent|consumed|burned|uses|spends)\b")
_SHARE = re.compile(r"(?:more than|over|above|at least|exceed(?:s|ing)?)\s*(\d+(?:\.\d+)?)\s*"
                    r"(?:%|percent)")


def _ranking(head: str) -> Ranking | None:
    """A question that ranks a set of lines: 'which' / 'what' / 'are there any' with the set
    and a superlative or a share of the total."""
    if not re.search(r"\b(?:which|what|any)\b", head):
        return None
    scope = next(((name, m.group(0)) for name, p in _SCOPES if (m := re.search(p, head))), None)
    if scope is None:
        return None
    share = _SHARE.search(head)
    if share and scope[0] != "activities":
        return Ranking(scope[0], "share", scope[1], float(share.group(1)))
    most, least = _MAX.search(head), _MIN.search(head)
    if not (most or least):
        return None
    order = "max" if most and not least else "min"
    if scope[0] == "activities" and _USED.search(head):  # "used the most cash": most negative
        order = "min" if order == "max" else "max"
    return Ranking(scope[0], order, scope[1])


_NUMBER_WORDS = {w: n for n, w in enumerate(
    "one two three four five six seven eight nine ten".split(), start=1)}
_LAST_N = re.compile(r"\b(?:last|past|previous|prior|trailing|recent)\s+(\d{1,2}|"
                     + "|".join(_NUMBER_WORDS) + r")\s+(?:fiscal\s+)?(?:years?|fys?)\b")
_FY_WORD = r"(?:fy|fiscal(?: year)?)\s*"
_SINCE = re.compile(rf"\bsince\s+(?:{_FY_WORD})?(\d{{4}})\b"
                    rf"|\b(?:{_FY_WORD})?(\d{{4}})\s+onwards?\b")


def _last_n(head: str) -> int | None:
    """"over the last five years", "past 3 fiscal years": how many fiscal years, 2 to 10."""
    m = _LAST_N.search(head)
    if not m:
        return None
    n = _NUMBER_WORDS.get(m.group(1)) or int(m.group(1))
    return n if 2 <= n <= 10 else None


def _since(head: str) -> int | None:
    """"since 2020", "from FY2020 onward": the first fiscal year of a span to the latest."""
    m = _SINCE.search(head)
    return int(m.group(1) or m.group(2)) if m else None


_WHICH_COMPANY = re.compile(r"\b(?:which|what)\s+(?:of\s+(?:the|these|those)\s+)?"
                            r"(?:company|companies|firm|firms|business|one|ticker)\b"
                            r"|\brank(?:ing)?\s+(?:the\s+|all\s+|these\s+)?"
                            r"(?:companies|firms)\b|\bamong\s+(?:the|all|these)\s+companies\b")


def _peer_order(head: str, several: bool) -> str | None:
    """A question ranking companies against each other ("which company had the highest gross
    margin", "rank the companies by revenue", "which of" `several` companies named): "max"
    (also for a bare "rank") or "min"."""
    if not (_WHICH_COMPANY.search(head) or (several and re.search(r"\bwhich of\b", head))):
        return None
    most, least = _MAX.search(head), _MIN.search(head)
    if least and not most:
        return "min"
    return "max" if most or re.search(r"\brank", head) else None


def _qualifiers(head: str, items_found) -> frozenset[str]:
    """"net" or "gross" said of the first line item, just before it or within its words."""
    if not items_found:
        return frozenset()
    start, end, _ = items_found[0]
    near = head[:start].split()[-2:] + head[start:end].split()
    return frozenset(w for w in near if w in ("net", "gross"))


def _two_digit(y: str) -> int:
    n = int(y)
    return n if len(y) == 4 else (2000 + n if n < 70 else 1900 + n)


_FY = r"(?:fy|fiscal(?: year)?)\s*'?"
_FY_YEAR = re.compile(rf"\b{_FY}(\d{{4}}|\d{{2}})\b")
_BARE_YEAR = re.compile(r"(?<![\d$.,])\b(19[89]\d|20\d\d)\b(?![\d,.]\d)")
_DATE = re.compile(rf"\b({'|'.join(MONTHS)})\s+(\d{{1,2}}),?\s+(\d{{4}})\b")


def _years(low: str) -> tuple[tuple[int, ...], str | None, list[tuple[int, int]]]:
    """Fiscal years named (ascending, each once), a date named, and where they are."""
    years: set[int] = set()
    spans: list[tuple[int, int]] = []
    date = None
    m = _DATE.search(low)
    if m:
        date = f"{int(m.group(3)):04d}-{MONTHS.index(m.group(1)) + 1:02d}-{int(m.group(2)):02d}"
    for m in re.finditer(rf"(?:{_FY})?(\d{{4}}|\d{{2}})\s*(?:-|to|through)\s*"
                         rf"(?:{_FY})?(\d{{4}}|\d{{2}})\b",
                         low):
        if not re.match(_FY, m.group(0)) and (len(m.group(1)) == 2 or len(m.group(2)) == 2):
            continue  # "10-K", "3-for-1": two-digit years only after FY / fiscal
        a, b = _two_digit(m.group(1)), _two_digit(m.group(2))
        if 1990 <= a < b <= 2100 and b - a <= 10:
            years.update(range(a, b + 1))
            spans.append(m.span())
    for rx in (_FY_YEAR, _BARE_YEAR):
        for m in rx.finditer(low):
            y = _two_digit(m.group(1))
            if 1990 <= y <= 2100:
                years.add(y)
                spans.append(m.span())
    return tuple(sorted(years)), date, spans


def _unit(low: str) -> tuple[str | None, int | None]:
    unit = None
    for rx, name in _UNIT:
        m = rx.search(low)
        if m:
            unit = name or _SCALE[m.group(1)]
            break
    d = _DECIMALS.search(low)
    decimals = None
    if d:
        decimals = _WORD_NUM.get(d.group(1), None)
        decimals = int(d.group(1)) if decimals is None else decimals
    elif re.search(r"\bnearest (?:whole|integer)|\bwhole (?:number|percent)", low):
        decimals = 0
    return unit, decimals


def _proper(word: str, raw: str) -> bool:
    """A company's first word alone ('Walmart', 'Best') names it only as a proper noun: written
    with a capital where the question uses capitals at all ('to the best of your abilities')."""
    if raw == raw.lower():
        return True
    return any(m.group(0)[0].isupper() for m in
               re.finditer(rf"(?<![\w&]){re.escape(word)}(?![\w&])", raw, re.IGNORECASE))


def _company(raw: str, norm: str, companies: dict[str, str],
             filters) -> tuple[tuple[str, ...], set[str]]:
    """Tickers the question names (by ticker or name), in the order named; else the filter's."""
    allowed = set(filters.tickers) if filters is not None and filters.tickers else None
    found: list[tuple[int, str, list[str]]] = []
    for ticker, name in companies.items():
        if allowed is not None and ticker not in allowed:
            continue
        hits = []
        if len(ticker) >= 2:
            m = re.search(rf"(?<![\w&$]){re.escape(ticker)}(?![\w&])", raw)
            if m:
                hits.append((m.start(), [ticker.lower()]))
        names = company_names(name or "")
        for n in names:
            m = re.search(rf"(?<![\w&]){re.escape(n)}(?![\w&])", norm)
            first_word = len(names[0].split()) > 1 and n == names[0].split()[0]
            if m and (not first_word or _proper(n, raw)):
                hits.append((m.start(), n.split()))
        if hits:
            pos, _ = min(hits, key=lambda h: h[0])
            found.append((pos, ticker, [w for _, ws in hits for w in ws]))
    found.sort()
    if found:
        return tuple(t for _, t, _ in found), {w for *_, ws in found for w in ws}
    if allowed:
        named = {w for t in allowed for n in company_names(companies.get(t, "")) for w in n.split()}
        return tuple(sorted(allowed)), named
    return (), set()


def _rest(head: str, items_found, name_words: set[str]) -> tuple[str, ...]:
    """The words just before the first line item that none of the readings explains ('iphone'
    in 'iPhone net sales FY2024', 'automotive' in 'total automotive revenues'): they name a
    narrower line than the item, which the answer must then find. Words elsewhere (a company
    named as 'for MGM Resorts', instructions) do not qualify the item."""
    if not items_found:
        return ()
    start = items_found[0][0]
    out: list[str] = []
    words = [w[:-2] if w.endswith("'s") else w.rstrip("'") for w in head[:start].split()]
    for i in range(len(words) - 1, -1, -1):
        w = words[i]
        if w in ("total", "net"):
            continue
        if w in ("and", "&") and out and i > 0 and _content(words[i - 1], name_words):
            continue  # "subscription and support revenue"
        if not _content(w, name_words):
            break
        out.append(w)
    return tuple(reversed(out))


def _content(w: str, name_words: set[str]) -> bool:
    """A word that may name a line: not framing, not the company, not a month or a number."""
    return not (w in FRAMING or w in name_words or w in MONTHS or len(w) < 2
                or not re.fullmatch(r"[a-z][a-z&']*", w))


LINE_WORDS = 4  # the most content words a question naming a printed line uses


def _line_words(core: str, name_words: set[str], years) -> tuple[str, ...]:
    """The words of a question that names no known item but may name a printed line ("What
    were UnitedHealth's medical costs in 2024?" -> medical, costs): a figure question in form
    (it begins "what" or "how much", or names a fiscal year), its content words in order."""
    if not (re.match(r"(?:what|how much)\b", core) or years):
        return ()
    words = [w[:-2] if w.endswith("'s") else w.rstrip("'") for w in core.split()]
    found = tuple(w for w in words if _content(w, name_words) and w not in ("and", "&"))
    return found if len(found) <= LINE_WORDS else ()  # a printed label is a few words
