"""Narrative answers: the filing's own sentences that answer a "why", "what", "which" or "who"
question, chosen from the passages the search found, never written.

`form(text)` says whether a question asks for words rather than a figure: a cause ("What drove
the operating margin change?"), a list or a name ("What are the geographies ...", "Who are the
primary customers ...", "Which segment ..."), a count the filing states in words ("How many
people does Amazon employ?"), or a yes / no about something the filing states
("Has Boeing reported any legal proceedings?"; recognised, not answered with quotes: a sentence
shown does not settle a yes or a no). `quotes(text, hits, companies)` splits the top passages
into sentences and keeps those that do the question's job:

- every sentence is scored by how much of the question's subject it holds: the question's
  content words (without the company, the years, the asking words and the words of its form),
  each weighted by how rare it is among the candidate sentences, so a word every sentence holds
  counts for little; the first of them names what is asked for ("what industry", "who are the
  primary customers") and must be in the sentence. Words match by their first five letters
  ("acquired" / "acquisitions"), and a few analysts' words also match the filing's usual ones
  ("geographies" / "regions", "customers" / "a significant portion of our revenues");
- a sentence answers only when it holds most of that subject (two thirds of the weight; all of
  it, as a phrase, for a cause question of up to three words: "operated at a higher gross
  margin" does not explain the operating margin) and does the question's job: a cause question
  needs a sentence that gives a cause ("primarily due to", "driven by", "reflected", "offset
  by"); a list question the company's own statement of the subject ("we acquired", "our major
  customers", or the company as the sentence's subject naming it soon after: "The Company's
  operations are conducted in three reportable segments: ...") that names or enumerates; a
  count the same statement with a number stated after the company names itself; "which
  countries" / "where" a sentence naming places (finrag.places), "what industry" the
  company describing itself. A sentence ending in a colon reads on into its items, and a
  change followed by a sentence that explains it by referring back ("The sales growth
  primarily reflects ...") is quoted with it.
  A sentence that merely shares words with the question is not an answer, nor is one that
  hedges ("could adversely affect", "may be") or introduces a table;
- up to three sentences within a small margin of the best, the best first, ties broken by the
  passage's place in the fused list.

Pure and deterministic: no model, a few milliseconds over ten passages.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from finrag.asking import question_part
from finrag.models import Hit
from finrag.places import places, regions
from finrag.question import parse
from finrag.tokens import tokenize

CAUSE, LIST, AMOUNT, YES_NO = "cause", "list", "amount", "yes_no"

_CAUSE_Q = re.compile(r"\b(?:why|drove|drive[sn]?|driv(?:er|ers|ing)|caus(?:e|ed|es|ing)|"
                      r"reasons?|explain(?:s|ed)?|factors?|contribut(?:ed|ing|ors?)|dragged|"
                      r"behind|fuel(?:ed|led|s)?|led to)\b", re.IGNORECASE)
_LIST_Q = re.compile(r"^\s*(?:name|list|identify|describe)\b|\b(?:what|which|who|whom|where)\b",
                     re.IGNORECASE)
# "How many people ...", "how much ...": a count or amount the filing states in words
_AMOUNT_Q = re.compile(r"\bhow (?:many|much|large|big|(?!(?:do|does|did|is|are|was|were|has|"
                       r"have|had|can|could|will|would|should|may|might|to|about|often|"
                       r"long|soon)\b)\w+ed\b)", re.IGNORECASE)  # "how unionized / exposed"
_YES_NO_Q = re.compile(r"^\s*(?:has|have|had|does|do|did|is|are|was|were)\b", re.IGNORECASE)

# A sentence that gives a cause.
_CAUSAL = re.compile(
    r"\b(?:due (?:primarily |mainly |largely |in part |partly )?to|driven (?:primarily |mainly |"
    r"largely )?by|primarily (?:by|from|as|because|reflect\w*|relat\w*|attribut\w*)|"
    r"reflect(?:s|ed|ing)|result(?:s|ed)? (?:primarily |mainly |largely )?(?:from|of)|"
    r"as a result of|because of|offset (?:in part |partially )?by|"
    r"impact(?:ed)? (?:by|of)|led by|owing to|caused by|contributed to)\b",
    re.IGNORECASE)
# a cause says which way things moved; a definition ("Segment operating income margin reflects
# the profitability of the segment") or a caveat about adjusted measures says none
_DIRECTION = re.compile(
    r"\b(?:increas\w*|decreas\w*|higher|lower|improv\w*|declin\w*|grew|grow\w*|fell|rose|"
    r"expan\w*|contract\w*|favorabl\w*|unfavorabl\w*|benefit\w*|offset|reduc\w*|drop\w*|"
    r"deteriorat\w*|compress\w*|up|down|more|less|fewer|"
    r"headwinds?|tailwinds?|advers\w*|positiv\w*|negativ\w*)\b", re.IGNORECASE)
# A sentence that lists or names: an enumeration, "include", or a colon before names.
_LISTING = re.compile(r",[^,]+(?:,|\band\b|\bor\b)|\binclud\w*\b|:\s*[A-Z]|\bsuch as\b|"
                      r"\b(?:consist|compris)\w*\b|\b(?:are|is|were|was) (?:the )?[A-Z]|"
                      r":\s*\(?(?:1|a|i)\)|;[^;]+;")  # "as follows: 1) ...; 2) ...;"

# Words that say what kind of answer is wanted, not what it is about.
_ASKING = frozenset("""what which who whom whose why how when where name list identify describe
    explain tell give mention mentioned report reported reports state stated disclose disclosed
    10-k 10k filing annual company companies primary primarily main mainly major key principal
    significant important materially material current currently ongoing overall any three two
    several some most top fiscal year yr fy drove drive driven driver drivers driving cause
    caused reason reasons factor factors contributed contribute behind dragged change changed
    changes increase increased decrease decreased decline declined improve improved grow grew
    growth performance based data note please exclude excluding impact there doe between
    during among all one much many done able roughly whether within across per complete
    completed make made say says said consider considers actually roughly approximately
    still ever now so more less far sharp sharply significantly fuel fueled fuelled explains
    account accounted led contract contracted fall fell fallen rise rose risen surge surged
    jump jumped drop dropped lose lost expand expanded shrink shrank widen widened narrow
    narrowed higher lower""".split())

# Analysts' words and the filing's usual ones for the same thing (general wording, not any one
# filing's): each extra word also counts as the question's word.
_SAYS = {
    "geograph": ("region", "countr", "geogr", "international", "america", "europe", "asia"),
    "customer": ("client", "portion of our revenue", "of our revenues were", "of our revenue was",
                 "of our total revenue"),
    "acqui": ("business combination", "purchased", "merged", "merger"),
    "legal": ("litig", "lawsu", "proceeding", "claim", "plaintiff", "court"),
    "litig": ("legal", "lawsu", "proceeding", "plaintiff", "court"),
    "lawsu": ("legal", "litig", "proceeding", "plaintiff", "court"),
    "battl": ("litig", "lawsu", "proceeding", "plaintiff", "court"),
    "industr": ("business", "sector", "market"),
    "compet": ("rival",),
    "suppl": ("vendor", "sourc"),
    "emplo": ("headcount", "workforce", "personnel", "associates"),
    "peopl": ("employ", "headcount", "workforce", "personnel", "associates"),
    "produc": ("manufactur", "output", "deliver"),
    "plant": ("facilit", "factor"),
}
# "What industry does Amcor operate in?": answered by the company's description of itself,
# "(Today,) we are a global leader in developing and producing responsible packaging ..."
_FIELDS = frozenset({"industry", "sector", "business"})
# "what industry": the company describing itself, as Item 1 opens ("Pfizer Inc. is a
# research-based, global biopharmaceutical company", "The Home Depot, Inc. is the world's largest
# home improvement retailer", "We are a global leader in ... packaging"), or saying what it makes
# or sells, two verbs at least ("The Company designs, manufactures and markets smartphones"); not
# its legal form
# ("a holding company", "a Delaware corporation", "a public limited company")
_SELF = re.compile(
    r"^(?:[\w\s]+, )?(?:we are|we're|the company is|[a-z&][\w.&'’-]*(?: [a-z&][\w.&'’-]*){0,4}"
    r"(?:, together with its subsidiaries)?,? is)(?: now)? (?:a|an|one of the|the)\b"
    r"(?![^.;]{0,40}?\b(?:holding company|corporation (?:organized|incorporated)|limited company|"
    r"delaware corporation)\b)(?:\s*(?!(?:of|to|by|in|for|with|from|on|at|that|which|who|whose|"
    r"than)\b)[\w,&'’-]+){0,10}?\s*\b(?:leaders?(?= (?:in|of)\b)|providers?|"
    r"manufacturers?|producers?|makers?|developers?|designers?|suppliers?|retailers?|"
    r"operators?|distributors?|marketers?|compan(?:y|ies)|firms?|network|contractors?|"
    r"business(?:es)?(?=\s*(?:[,.;—]|$|(?:in|of|that|with|whose)\b)))\b(?!['’]s)"
    r"(?!\s+(?:or\b|in (?:each|all|every|our|its)\b))")  # "the leader or among the leaders in
    # each of our business segments" says no industry
_MAKES = r"(?:design|develop|manufacture|make|produce|sell|market|license|support)s?"
_DOES = re.compile(rf"^(?:we|the company) (?:design|develop|manufacture|make|produce)s?,? "
                   rf"(?:(?:and )?{_MAKES},? )*(?:and )?{_MAKES}\b")  # not "We market and
# distribute our products through sales channels"
_LONG_PARENS = re.compile(r"\s*\([^()]{1,120}\)")
_OPENER = re.compile(r"^(?:[a-z]+ )?(?:founded in \d{4}|today|overview|general), ")
_PLACE_WORDS = ("countr", "geograph", "region", "locat", "territor")
_REGION_WORDS = ("geograph", "region")
# where a company operates, said of its own structure, sales or premises (not its customers'
# demand or its capital spending by region)
_OPERATING = re.compile(r"\b(?:operat\w*|segments?|regions?|divisions?|business(?:es)?|"
                        r"markets?|sells?|sold|countries|offices?|facilit\w*|stores?|presence)\b",
                        re.IGNORECASE)
# a label that opens a list's item ("Software: The depth of our offerings ...") is not a name
_LABELS = re.compile(r"(?:^|:\s*)[A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*)*:")
_WHERE = re.compile(r"\bwhere\b", re.IGNORECASE)
_PLACES = 2  # a sentence answering "where" names at least two places (finrag.places)
_AGENT = re.compile(r"[a-z]{4,}(?:or|er)")  # competitor, supplier, customer, manufacturer
_ADJECTIVE = re.compile(r"\w{4}(?:ive|ively|al|ally|ary|ic|ical)$")
_NOISE = re.compile(r"\btable of contents\b|\bpage \d+\b", re.IGNORECASE)
# A sentence that introduces a table, points elsewhere or hedges (a risk factor's "could",
# "may") states nothing the question asked; one that names things (capitalised words past its
# first) may list them.
_INTRO = re.compile(r"\b(?:the following (?:table|tables|chart)|as follows(?!:\s*\(?(?:1|a|i)\))|"
                    r"(?:see|refer to) (?:note|part|item)|(?:is|are) (?:presented|included|"
                    r"discussed|described|provided|set forth) in (?:part|item|note))\b",
                    re.IGNORECASE)
# a hedge is a modal on what might happen ("could adversely affect", "may be", "might lose"),
# not any modal ("sources of entertainment that our members could choose")
_OFFSET = re.compile(r"offset", re.IGNORECASE)
_FORWARD = re.compile(r"\b(?:we|management) (?:anticipate|expect|intend|plan|"
                      r"estimate|project)s?\b|\bwill (?:continue|be|remain)\b", re.IGNORECASE)
_HEDGE = re.compile(r"\bno assurance\b|\bcannot\b|\b(?:could|may|might|would)(?: not)?"
                    r"(?: \w+ly)? (?:adversely|materially|negatively|harm|hurt|affect|impact|"
                    r"result|cause|lose|reduce|decline|be|become|have|face|experience|incur|"
                    r"require|fail|limit|increase|decrease|need|acquire|pursue|seek|enter|"
                    r"make|engage|divest|sell|buy|change)\b", re.IGNORECASE)
# a sentence whose subject is the company says so in its first words, and names what is asked
# early: "Substantially all of the Company's hardware products are manufactured by ..."
_OPENING, _EARLY = 5, 8
# ... or whose subject is what is asked, stated: "Other significant competitors include ..."
_SUBJECT = 4
_ACQUIRED = re.compile(r"\b(?:acquired|acquisitions? of|purchased|bought|merged with|"
                       r"combination with)\s+", re.IGNORECASE)
_NOT_WHAT = frozenset("by for from to with through during as under on at".split())
_HELD = frozenset("interest interests stake stakes investment".split())  # "interest in X"
_ACQUIRED_REACH = 16  # words between the verb and the name: "all of the outstanding shares of"
_RANKED = "primary|principal|main|major|key|largest|biggest|significant|top|leading"
_COPULAS = frozenset("are is were was".split())
_IDENTIFY = frozenset("""include includes included including are is were was being consist
    consists comprise comprises accounted account accounts such""".split())
_RELATIVE = frozenset("who which that".split())
_AFTER_RANKED = frozenset(". , ; : ( \u2014 in of for at are is include includes".split())
_HELPED = re.compile(r"(?:ed|ing)$|^(?:not|also|often|expected|able|subject|likely|unable)$")
_STATES = frozenset("include includes included are were consist consists comprise comprises"
                    .split())
_DATED = re.compile(r"^(?:as of|at|on|in|during|for) [^.;]{0,30}?\d{4},\s*")
_PARENS = re.compile(r"\([^()]{1,60}\)")
# three or more items after a colon, "including" or "such as": "methods of competition are:
# technology; performance; price" (a policy's "acquire businesses, services and technologies"
# names nothing)
_ENUMERATION = re.compile(r"(?::|\binclud\w*|\bsuch as)[^,;]+(?<!\d)[,;](?!\d)[^,;]+(?<!\d)[,;]"
                          r"(?!\d)[^,;]+")  # (not the thousands of "$391,035,000")
_AMOUNT = re.compile(r"\b(?!(?:19|20)\d\d\b)\d[\d,.]*")  # a number, not a year
_NAME = re.compile(r"(?<=[\s(])[A-Z][\w&.'-]*")
_RISKS = re.compile(r"item 1a\b", re.IGNORECASE)
_EXHIBITS = re.compile(r"item 1[56]\b", re.IGNORECASE)
_NOT_NAMES = frozenset("""We Our The In As For On At It This These Its Company Note Item Form
    Annual Report Board Consolidated Financial Statements Fiscal January February March April May
    June July August September October November December""".split())
# Words that may come between the words of a phrase without narrowing it ("gross profit
# margin" is the gross margin; "automotive leasing revenue" is not the automotive revenue).
_NEUTRAL = frozenset("profit income net total consolidated overall".split())
_SPLIT = re.compile(r"(?<=[.;!?])\s+(?=[A-Z(\"“‘'$0-9])|\s*[•●▪◦]\s*|\n{2,}|"
                    r"(?<=[a-z]{3}[.?!])(?=[A-Z][a-z])")  # a PDF's lost space: "equipment.The"
_ABBREVIATION = re.compile(r"\b(?:Inc|Ltd|Corp|Co|Cos|L\.P|LLC|N\.V|B\.V|S\.A|U\.S|No|Nos|"
                           r"Mr|Ms|Dr|St|vs|approx)\.$")
_MIN_WORDS, _MAX_WORDS = 6, 90
_LIST_WORDS = 200  # a colon's items read on: PepsiCo's seven divisions, each described
# three figures in a row with no word between: a table's row run into the text after it
# ("Revenues $23,162 $26,540 $26,257 % of total ...", "Net revenue $ 86,392 $ 79,474 9 %")
_CELL = r"(?:\$\s*)?\(?-?\d(?:[\d,.]*\d)?\)?\s*%?"  # ends in a digit: "31, 2023" is a date
_ROW_RUN = re.compile(rf"(?<![\w,]){_CELL}\s+{_CELL}\s+{_CELL}(?![\w])")
_PAIRED = 120  # a change and the sentence explaining it, quoted together
# a sentence that opens by referring back to the change before it: "The increase was due to",
# "The sales growth primarily reflects", "This decline was driven by"
_REFERS_BACK = re.compile(r"(?:the|this|these|that|those|such)\s+(?:[\w'’-]+\s+){0,3}?"
                          r"(?:increases?|decreases?|growth|declines?|improvements?|changes?|"
                          r"reductions?|rises?|drops?|gains?|expansions?|contractions?|"
                          r"deteriorations?|shortfalls?)\b(?=\s+(?:was|were|is|are|has|have|"
                          r"primarily|mainly|largely|partly|partially|principally|reflect\w*|"
                          r"result\w*|relat\w*|due|driven|came|stem\w*|occurred))",
                          re.IGNORECASE)  # not "The growth in net sales", which names another
_ITEMS = 6  # the items a sentence ending in a colon reads on into
_GOES_ON = re.compile(r"(?:[;,]|\band|\bor)$")  # "Optum Rx; and" goes on to its last item
_COVER = 2 / 3
# where a question asks a second thing: "..., and in which markets ...?", "...? Does it ...?"
_PARTS = re.compile(r"(?<=\?)\s+|[,;]\s+and\s+(?=(?:(?:in|at|for|from|of|to|by|with)\s+)?"
                    r"(?:what|which|who|whom|where|why|how|did|does|do|is|are|was|were|has|"
                    r"have)\b)", re.IGNORECASE)
_MARGIN = 0.08


@dataclass(frozen=True)
class Quote:
    text: str
    hit: Hit
    score: float


def form(text: str) -> str | None:
    """What the question asks for in words, or None where it asks for none."""
    asked = question_part(text or "")
    if _CAUSE_Q.search(asked):
        return CAUSE
    if _AMOUNT_Q.search(asked):
        return AMOUNT
    if _LIST_Q.search(asked):
        return LIST
    if _YES_NO_Q.search(asked):
        return YES_NO
    return None


_NAMES_THINGS = re.compile(r"^\s*(?:what|which|who) (?:are|were)\b", re.IGNORECASE)


def names_things(text: str) -> bool:
    """Whether the question asks for things by name ("What are Verizon's reportable segments?",
    "Who are ..."), not an amount."""
    return bool(_NAMES_THINGS.search(question_part(text or "")))


def stem(token: str) -> str:
    return token[:5] if len(token) > 5 and token.isalpha() else token


def subject(text: str, company_words: set[str]) -> list[str]:
    """The question's content stems, in order, without repeats."""
    out = _content(question_part(text or ""), company_words)
    # a question sentence of asking words alone ("What explains the growth?") is about what
    # the sentences before it said
    return out or _content(text or "", company_words)


def _content(asked: str, company_words: set[str]) -> list[str]:
    out = []
    for tok in tokenize(asked):
        if tok in _ASKING or tok in company_words or tok.isdigit() or len(tok) < 3:
            continue
        s = stem(tok)
        if s not in out:
            out.append(s)
    return out


def sentences(text: str) -> list[str]:
    """The sentences of a passage that can be quoted: whole words, not table rows."""
    return [s for s in _quotable(_pieces(text)) if s]


def _quotable(pieces: list[str]) -> list[str | None]:
    """Each piece as a quotable sentence, or None where it is not one (kept in place, so a
    sentence's neighbour is the one printed before it)."""
    out: list[str | None] = []
    for raw in _lists_read_on(pieces):
        s = " ".join(raw.split()).strip(" |")
        words = s.split()
        most = _LIST_WORDS if ": " in s and ";" in s else _MAX_WORDS  # a colon's items read on
        if (not (_MIN_WORDS <= len(words) <= most) or "|" in s
                or sum(any(c.isdigit() for c in w) for w in words) > len(words) / 4
                or _ROW_RUN.search(s)):
            out.append(None)  # a fragment, or a row of figures, not a sentence
        else:
            out.append(s)
    return out


def _pieces(text: str) -> list[str]:
    pieces: list[str] = []
    for raw in _SPLIT.split(_NOISE.sub(" ", text or "")):
        if pieces and _ABBREVIATION.search(pieces[-1]):
            pieces[-1] += " " + raw  # "Current Health Ltd. (the seller)" is one sentence
        else:
            pieces.append(raw)
    return pieces


def _explained(said: list[str | None]) -> list[tuple[str, str]]:
    """A change and the sentence after it that explains it by referring back: "AWS sales
    increased 19% in 2024, compared to the prior year. The sales growth primarily reflects
    increased customer usage ..." (MD&A's usual two steps), as one quote. The change alone
    gives no cause; the cause alone does not say what it explains. `said`: a passage's
    pieces as `_quotable` gives them."""
    return [(f"{before} {after}", after) for before, after in zip(said, said[1:])
            if before and after and _REFERS_BACK.match(after) and _CAUSAL.search(after)
            and not _CAUSAL.search(before) and len(f"{before} {after}".split()) <= _PAIRED]


def _lists_read_on(pieces: list[str]) -> list[str]:
    """A sentence that ends in a colon with its items after it, as far as they fit in a
    quote: "We have four reportable segments: UnitedHealthcare ...; Optum Health ...", and
    one whose colon's items run on past a semicolon ("segments: Consumer Banking and Lending;
    Commercial Banking; ...") to the item that ends it. The items stay sentences of their own
    too."""
    out = []
    for i, piece in enumerate(pieces):
        out.append(piece)
        end = piece.rstrip()
        colon = end.endswith(":")
        if not (colon or (":" in end and end.endswith(";"))):
            continue
        joined, semicolons = end, end.endswith(";")
        for n, item in enumerate(pieces[i + 1:i + 1 + _ITEMS]):
            # a list of semicolon items ends at the item that ends in a full stop ("...; and
            # UnitedHealthcare."), not at the next heading; bullets that are whole sentences
            # go on as far as they fit
            if n and not _GOES_ON.search(joined) and (semicolons or not colon):
                break
            longer = f"{joined} {item.strip()}"
            if len(longer.split()) > (_LIST_WORDS if ";" in longer else _MAX_WORDS):
                # the same limit `_quotable` applies: a colon's semicolon items may run long
                break
            joined, semicolons = longer, semicolons or item.rstrip().endswith(";")
        if joined != piece.rstrip():
            out[-1] = joined
    return out


def _stems(sentence: str) -> set[str]:
    """The sentence's stems, and its whole words, which the filing's wording in `_SAYS` is
    matched against ("employ" in "employed": a stem of five letters would be too short)."""
    tokens = tokenize(sentence)
    stems = {stem(t) for t in tokens} | set(tokens)
    low = sentence.lower()
    for words in _SAYS.values():  # a phrase of the filing's wording ("business combination")
        stems.update(w for w in words if " " in w and w in low)
    return stems


def _noun_stems(sentence: str) -> set[str]:
    """The sentence's stems without its adjectives ("competitive", "supplemental",
    "customary"), which share a five-letter stem with the nouns a list asks for."""
    return _stems(" ".join(w for w in sentence.split()
                           if not _ADJECTIVE.search(w.strip(".,;:()\"'“”’").lower())))


def _names_head(sentence: str, head: str, head_word: str) -> bool:
    """Whether the sentence names what a list asks for: an agent noun ("competitors",
    "suppliers", "customers") as the word itself, not a word of its stem ("compete",
    "supplemental", "customary"); another noun by its stem, but not as an adjective
    ("competitive"), unless the question asks with the adjective."""
    if _ADJECTIVE.search(head_word):
        return True
    if _AGENT.fullmatch(head_word):
        stems = _stems(sentence)
        return head_word in tokenize(sentence) or _matches(head, stems - {head} - {
            s for s in stems if s.startswith(head)})
    return _matches(head, _noun_stems(sentence))


def _matches(term: str, stems: set[str]) -> bool:
    if term in stems:
        return True
    extra = next((v for k, v in _SAYS.items() if term.startswith(k) or k.startswith(term)), ())
    return any(e in stems or any(s.startswith(e) for s in stems) for e in extra)


def quotes(text: str, hits: list[Hit], company_words: set[str] | None = None,
           kind: str | None = None, most: int = 3) -> list[Quote]:
    """The sentences of `hits` (best first) that answer `text`; [] where none does."""
    kind = kind or form(text)
    terms = subject(text, company_words or set())
    if kind is None or not terms:
        return []
    pool = []  # (sentence, its stems, hit)
    for hit in hits:
        if _EXHIBITS.match(hit.chunk.section or ""):
            continue  # an exhibit index names agreements, it answers nothing
        quotable = _quotable(_pieces(hit.chunk.text))
        said = [s for s in quotable if s]
        if kind == CAUSE:  # an explanation that names what it explains stands alone
            said += [pair for pair, after in _explained(quotable) if not _phrase(terms, after)]
        for s in said:
            pool.append((s, _stems(s), hit))
    if not pool:
        return []
    held = {t: sum(_matches(t, st) for _, st, _ in pool) for t in terms}
    weight = {t: math.log(1 + len(pool) / (1 + held[t])) for t in terms}
    total = sum(weight.values())
    head = terms[0]  # what is asked for comes first: "what industry", "who are the customers"
    head_word = next((t for t in tokenize(question_part(text or "")) + tokenize(text or "")
                      if stem(t) == head), head)
    persons = kind == LIST and bool(_AGENT.fullmatch(head_word))  # competitors, customers
    describes = kind == LIST and head_word in _FIELDS  # "what industry"
    acquires = kind == LIST and any(t.startswith("acqui") for t in terms)
    asked_years = set(parse(text or "").years)
    # "which countries", "what geographies", "where": the answer names places
    wants_places = kind == LIST and (head_word.startswith(_PLACE_WORDS)
                                     or bool(_WHERE.search(question_part(text or ""))))
    scored = []
    seen = set()
    for s, st, hit in pool:
        key = s.lower()
        if key in seen:
            continue
        seen.add(key)
        if wants_places:
            # "which geographies" / "regions" asks for regions, not the countries of the
            # largest operations; "which countries" and "where" for any places
            named = regions(s) if head_word.startswith(_REGION_WORDS) else places(s)
            if len(named) < _PLACES:
                continue
            if head_word.startswith(_REGION_WORDS) and _OPERATING.search(s):
                st = st | set(terms)  # "segments consist of the Americas, Europe, Greater
                # China, Japan and Rest of Asia Pacific": where it operates, in its own words
            elif head_word.startswith(_PLACE_WORDS):
                st = st | {head}  # "China mainland, India, Japan" names the countries asked
        if describes:  # "what industry": the company's description of itself answers
            if not _describes_itself(s):
                continue
            st = st | set(terms)  # the question's other words are the asking ("operate in")
        cover = sum(weight[t] for t in terms if _matches(t, st)) / total
        if kind == CAUSE and (_FORWARD.search(s) or not _of_years(s, asked_years)):
            continue  # what the company expects did not drive the change asked about, nor
            # does the prior year's comparison ("Gross margin in 2014 was ..." for 2015)
        if kind == CAUSE and len(terms) <= 3 and not _names_what_changed(terms, s):
            continue  # the cause of what was asked: "operating margin", not "gross margin";
            # what changed comes before its cause: "Total revenue increased due to an increase
            # in advertising revenue" does not explain the advertising revenue
        identified = persons and _identifies(s, head_word)
        named = (acquires and _names_acquired(s, company_words or set())
                 and _in_years(s, asked_years))  # not a 2001 acquisition in a biography
        if (cover < _COVER or not _matches(head, st) or _INTRO.search(s)
                or not (_does_the_job(kind, s) or identified or named or describes)):
            continue  # a list may be of one: "our largest customer, Walmart", "acquired SRS"
        score = cover + 0.1 / hit.rank
        if kind in (LIST, AMOUNT):
            if not ((wants_places or describes) and head in st) and not _names_head(
                    s, head, head_word):
                continue  # "our competitive strengths" names no competitor
            names = {n for n in _NAME.findall(_LABELS.sub(" ", s)) if n not in _NOT_NAMES
                     and n.lower().strip(".,'") not in (company_words or set())}
            if (kind == LIST and not describes and not names
                    and (persons or not _ENUMERATION.search(s))):
                continue  # a list names or enumerates: "we acquire businesses" is a policy;
                # who the competitors or customers are, only names say
            if acquires and not named:
                continue  # "3M makes acquisitions of certain businesses" names none
            if persons and not identified:
                continue  # "We offer our customers a wide assortment" says not who they are

            if (not (_own(s, head, company_words or set()) or _states(s, head_word)
                     or ((wants_places or describes)
                         and _opens_with_company(s, company_words or set())))
                    or _HEDGE.search(s)):
                continue  # the company's statement of it, not a mention or a risk
            if kind == AMOUNT and not _counted(s, company_words or set()):
                continue  # "Over 240,000 Amazon employees have participated in ..." counts a part
        scored.append(Quote(s, hit, round(score, 6)))
    scored.sort(key=lambda q: (-q.score, q.hit.rank))
    if kind in (LIST, AMOUNT) and any(not _RISKS.match(q.hit.chunk.section or "") for q in scored):
        # a risk factor restates as a risk what Item 1 or MD&A states ("we will need to ...
        # achieve the output rates we have planned at our facilities in California, ...")
        scored = [q for q in scored if not _RISKS.match(q.hit.chunk.section or "")]
    # the sentences about as good as the best: a far weaker one is another subject; an item
    # already quoted inside the sentence that lists it (a colon's items) is not quoted again
    kept: list[Quote] = []
    for q in scored:
        if q.score >= scored[0].score - _MARGIN and not any(
                q.text in k.text or k.text in q.text for k in kept):
            kept.append(q)
    kept = kept[:most]
    if not all(any(_covers(part, _stems(q.text)) for q in kept)
               for part in parts(text, company_words or set())):
        return []  # half an answer: "What are Walmart's segments, and in which markets ...?"
    return kept


def parts(text: str, company_words: set[str]) -> list[list[str]]:
    """The subjects of each thing a question asks, where it asks more than one ("How many
    associates does Walmart employ, and how many are in the U.S.?"): each its content stems."""
    pieces = [p for p in _PARTS.split(question_part(text or "")) if p and p.strip()]
    out = [t for t in (_content(p, company_words) for p in pieces) if t]
    return out if len(out) > 1 else []


def _covers(terms: list[str], stems: set[str]) -> bool:
    return sum(_matches(t, stems) for t in terms) >= _COVER * len(terms)


_NEUTRAL_STEMS = frozenset(stem(w) for w in _NEUTRAL)


def _names_what_changed(terms: list[str], sentence: str) -> bool:
    """Whether the sentence names what was asked about before its first causal phrase
    ("Humira sales decreased 41% in 2024 primarily driven by"). "Offset by" brings in a change
    of its own, with its cause after it ("This growth was partially offset by a 10% decrease
    in Client segment revenue primarily due to ..."); what it offsets is given no cause ("Cloud
    revenue increased, partially offset by a decrease in hardware revenue due to ...")."""
    found = list(_CAUSAL.finditer(sentence))
    if not found:
        return _phrase(terms, sentence)
    if _OFFSET.match(found[0].group(0)) and _phrase(terms, sentence[:found[0].start()]):
        return False
    cause = next((m for m in found if not _OFFSET.match(m.group(0))), None)
    return cause is not None and _phrase(terms, sentence[:cause.start()])


def _phrase(terms: list[str], sentence: str) -> bool:
    """Whether the sentence holds the terms in order, each next to the one before or with one
    neutral word between ("gross profit margin" holds "gross margin"; "operated at a higher gross
    margin" does not hold "operating margin", nor "automotive leasing revenue" "automotive
    revenue")."""
    return any(_in_order(terms, [stem(t) for t in tokenize(text)])
               for text in (sentence, _PARENS.sub(" ", sentence)))  # "STELARA (ustekinumab) sales"


def _in_order(terms: list[str], stems: list[str]) -> bool:
    # "cost of automotive sales revenue" is a cost line, not the revenue asked about
    starts = [i for i, s in enumerate(stems) if s == terms[0]
              and ("cost" in terms or "cost" not in stems[max(0, i - 3):i])]
    for i in starts:
        at = i
        for t in terms[1:]:
            nxt = next((j for j in range(at + 1, min(at + 3, len(stems))) if stems[j] == t
                        and all(stems[g] in _NEUTRAL_STEMS for g in range(at + 1, j))), None)
            if nxt is None:
                break
            at = nxt
        else:
            return True
    return False


def _describes_itself(sentence: str) -> bool:
    """Whether the sentence is the company saying what it is or does (`_SELF`, `_DOES`), read
    without its parentheses ("(the Company)") and an opening phrase ("Founded in 1982, ")."""
    text = " ".join(_LONG_PARENS.sub("", _undated(sentence)).split())
    text = _OPENER.sub("", text)
    return bool(_SELF.search(text) or _DOES.search(text))


def _undated(sentence: str) -> str:
    """The sentence in lower case without a leading date ("As of December 31, 2024, we ...")."""
    return _DATED.sub("", sentence.lower())


def _company_at(words: list[str], company_words: set[str]) -> int | None:
    """Where the company names itself among the sentence's opening words ("we", "our", "the
    Company", its name), or None."""
    return next((i for i, w in enumerate(words[:_OPENING])
                 if w.strip(".,") in ("we", "our", "company")
                 or w.strip(".,") in company_words), None)


def _own(sentence: str, head: str, company_words: set[str]) -> bool:
    """Whether the company states the subject of itself: "we acquired", "our major customers"
    (the subject at most two words after "we" / "our"), or a sentence whose subject is the
    company ("Our operations are conducted in three reportable segments", "The Company's
    hardware products are ...") and that names what is asked soon after it ("At the
    acquisition date, we recorded a charge" is not about what the company acquired). Not a
    mention: "compete against companies that, like us, operate in multiple geographies"."""
    low = _undated(sentence)
    if re.search(rf"\b(?:we|our)\b(?:\W+\w+){{0,2}}?\W+{re.escape(head)}", low):
        return True
    words = re.findall(r"[a-z0-9]+", low)
    at = _company_at(words, company_words)
    after = words[at + 1:at + 1 + _EARLY] if at is not None else []
    return bool(after) and _matches(head, {stem(w) for w in after} | set(after))


def _opens_with_company(sentence: str, company_words: set[str]) -> bool:
    """"Substantially all of the Company's hardware products are manufactured by outsourcing
    partners located primarily in China mainland, India, ...": the company says where."""
    return _company_at(re.findall(r"[a-z0-9]+", _undated(sentence)), company_words) is not None


def _counted(sentence: str, company_words: set[str]) -> bool:
    """Whether the company states the count after naming itself ("we employed approximately
    1,556,000 ...", "Walmart employs approximately 2.1 million associates") or as a share of
    its whole ("Approximately 84% of our workforce ..."), not a number before it, which counts
    some part ("Over 240,000 Amazon employees have participated in Career Choice")."""
    words = re.findall(r"[\w,.$%]+", _undated(sentence))
    at = _company_at(words, company_words)
    if at is None:
        return True  # the subject is what is asked ("Union employees number about 3,000")
    return not any(_AMOUNT.match(w) and not w.endswith("%") for w in words[:at])


def _states(sentence: str, head_word: str) -> bool:
    """Whether the sentence opens with what is asked as its subject and says what it is:
    "Other significant competitors include, but are not limited to, Nestlé S.A., ...",
    "Competitors include other entertainment video providers, such as ...". The word itself,
    not its five-letter stem: "Competitive products include ..." names no competitor."""
    words = re.findall(r"[\w'’&-]+", _undated(sentence))
    for i, w in enumerate(words[:_SUBJECT]):
        if tokenize(w) == [head_word]:
            return any(v in _STATES for v in words[i + 1:i + 3])
    return False


def _identifies(sentence: str, head_word: str) -> bool:
    """Whether the sentence says who the competitors, customers or suppliers asked about are,
    not only mentions them ("We offer our customers a wide assortment ...", "our competitors
    may incorporate AI ...", "our customer loyalty program"): the word heads the subject of a
    stating verb ("Our customers include ...", "our three largest United States customers
    accounted for 24%"), opens a colon's list, or is ranked ("our principal customers being",
    "is our primary beverage competitor"); a part of them described ("our Chinese customers,
    who represent a key component of our backlog") is not who they are. A verb that is a
    tense's helper ("are involved", "are recorded") states nothing."""
    one = head_word[:-1] if head_word.endswith("s") else head_word
    low = _undated(sentence).lower()
    for m in re.finditer(rf"\b(?:({_RANKED})(?:\s+[\w.'’-]+){{0,2}}\s+)?{re.escape(one)}s?\b",
                         low):
        after = re.findall(r"[\w'’-]+|[.,;:()\u2014]", low[m.end():])[:8]
        if after[:1] == [":"] or _stated(after, ranked=bool(m.group(1))):
            return True
    return False


def _stated(after: list[str], ranked: bool) -> bool:
    """Whether the words after an agent noun make it the subject of a stating verb (or, for
    a ranked one, leave it a noun of its own: "our primary competitors.")."""
    if ranked and (not after or after[0] in _AFTER_RANKED):
        return True
    for i, w in enumerate(after):
        if w in _RELATIVE and not ranked:
            return False  # a part described: "our Chinese customers, who represent ..."
        if w in (",", "(", ")") or w in _RELATIVE or w.endswith("ly"):
            continue  # "largest competitors, which include", "competitors principally include"
        if w in _IDENTIFY:
            return not (w in _COPULAS and i + 1 < len(after) and _HELPED.search(after[i + 1]))
        return False
    return False


def _names_acquired(sentence: str, company_words: set[str]) -> bool:
    """Whether the sentence says what was acquired, by name: "we acquired all of the
    outstanding shares of Current Health", "completed the acquisition of Abiomed", not a policy
    ("3M makes acquisitions of certain businesses from time to time"), a risk's heading or
    "membership acquisition"."""
    for m in _ACQUIRED.finditer(sentence):
        before = ""
        for i, w in enumerate(re.findall(r"[\w%&.'’-]+", sentence[m.end():])[:_ACQUIRED_REACH]):
            if w[0].isupper():
                name = w.strip(".,")
                if name not in _NOT_NAMES and name.lower() not in company_words:
                    return True
                continue  # "common stock not already owned by Pfizer of Trillium"
            if (w[0].isdigit() and not w.endswith("%")) or (i == 0 and w in _NOT_WHAT) or (
                    w == "in" and before not in _HELD) or w == "from":
                break  # an amount ("acquired $2.1 billion of"), who bought ("purchased by
                # customers"), where ("technology acquired in our Anacor acquisition"), whom
                # from ("purchased equipment from Siemens")
            before = w
    return False


def _years_in(sentence: str) -> set[int]:
    return {int(y) for y in _A_YEAR.findall(sentence)}


def _in_years(sentence: str, years: set[int]) -> bool:
    """Whether the sentence is about the years asked: it dates nothing, or one of them (or
    the calendar year before, where a fiscal year begins)."""
    said = _years_in(sentence)
    return not years or not said or bool(said & (years | {y - 1 for y in years}))


_A_YEAR = re.compile(r"\b((?:19|20)\d\d)\b")
_COMPARED = re.compile(r"\b(?:compared (?:to|with)|versus|vs\.?|over|from|than(?: in)?|"
                       r"relative to)\s+(?:fiscal\s+|FY\s*)?((?:19|20)\d\d)\b", re.IGNORECASE)


def _of_years(sentence: str, years: set[int]) -> bool:
    """Whether a cause is of the years asked: it dates nothing, names one of them, or names
    only the year before as what it compares with ("improved 2.4 points compared to 2023")."""
    compared = {int(y) for y in _COMPARED.findall(sentence)}
    own = _years_in(sentence) - compared
    if not years or not (own or compared):
        return True
    return bool(own & years) if own else bool(compared & {y - 1 for y in years})


def _does_the_job(kind: str, sentence: str) -> bool:
    if kind == CAUSE:
        return bool(_CAUSAL.search(sentence)) and bool(_DIRECTION.search(sentence))
    if kind == LIST:
        return bool(_LISTING.search(sentence))
    if kind == AMOUNT:
        return bool(_AMOUNT.search(sentence))
    return True
