"""Statement-table facts for filings without inline XBRL (older HTML, SGML, PDF, plain text).

A statement table is read as the page prints it: a header of periods ("2018 2017 2016",
"December 31, 2024 | December 31, 2023", "Fiscal 2024", "Year Ended June 30, 2023"), a unit
line ("(In millions, except per share data)", "(Millions)", "in thousands"), then rows of a line
label and one value per period column. Each cell becomes a `Fact` with the row's label, the
column's fiscal year, the value in the printed unit ("(1,577)" -> -1577, "—" -> 0), and the
statement named by the title lines above the table (`finrag.ingest.statements`).

Rows come from the reader's blocks: a table block's rows (HTML, fixed-width text), or, for PDF
text, a label line followed by its numbers on the same line or on lines of their own (pypdf
gives some statements one cell per line). Only what can be read without guessing is kept: a
row with as many values as the header has periods, on a page that prints a unit line. A table
with a period after the filing's fiscal year (a maturity schedule, a forecast) gives nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from finrag.facts import Fact
from finrag.ingest.chunk import filing_key
from finrag.ingest.fiscal import fiscal_year_from_period, period_fiscal_year
from finrag.ingest.statements import statement_of
from finrag.models import Block, Filing

_MONTH = (r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
          r"Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?")
_DATE = re.compile(rf"\b({_MONTH})\s+(\d{{1,2}}),?\s+((?:19|20)\d\d)\b", re.I)
_MONTH_DAY = re.compile(rf"\b({_MONTH})\s+(\d{{1,2}})\b", re.I)
_FISCAL = re.compile(r"\b(?:fiscal(?:\s+year)?|FY)\s*'?((?:19|20)\d\d)\b", re.I)
_NUMBER = re.compile(r"((?:(?<=[A-Za-z])\((?=\$?\s?\d)|(?<![\w.,/&-])\(?)\$?\s?\(?-?"
                     r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s?\)?%?\)?)(?![\w/&-]|[.,]\d)")
_DASH = re.compile(r"^[—–-]+$")
# a reference to the notes inside a label or a header: its numbers are no values
_NOTE_REF = (r"(?P<note>\((?:see\s+)?notes?\s+\d+[A-Z]?"
             r"(?:\s*(?:,\s*and|,|and|&)\s*\d+[A-Z]?)*\))")
_LONE_DASH = r"(?<!\S)[—–-](?!\S)"  # a dash cell in running text: "Other — — (10)"
_YEAR = re.compile(r"^(19|20)\d\d$")
_UNIT = re.compile(r"(thousands|millions|billions)\b", re.I)  # pypdf: "(Inmillions,"
_UNIT_PREFIX = re.compile(r"^.*\([^()]*(thousands|millions|billions)[^()]*\)\s*", re.I)
_UNIT_GROUP = re.compile(r"\([^()]*(thousands|millions|billions)[^()]*\)", re.I)
_PER_SHARE = re.compile(r"per\s+(common\s+|ordinary\s+)?share|per\s+(basic|diluted)", re.I)
_SHARES_SECTION = re.compile(r"weighted|shares\s+(used|outstanding)|number\s+of\s+shares", re.I)
_SHARE_COUNT = re.compile(r"\bshares\b|\bshare\s+count", re.I)
_HEADER_WORDS = {"year", "years", "ended", "ending", "fiscal", "as", "of", "at", "weeks", "week",
                 "months", "twelve", "for", "the", "and", "fy", "52", "53", "(", ")"}
_MONTH_NUMBERS = {m: i + 1 for i, m in enumerate(
    "jan feb mar apr may jun jul aug sep oct nov dec".split())}
RECENT_LINES = 10  # text lines kept as a table's possible title


@dataclass
class _Token:
    kind: str  # "text" | "value" | "year" | "date"
    text: str
    value: float | date | int | None = None


@dataclass
class _Column:
    year: int  # as printed
    end: date | None  # the period end where the header names it


@dataclass
class _State:
    """What the page has said so far: its table's columns, unit and statement."""

    columns: list[_Column] | None = None
    header: list[_Token] = field(default_factory=list)  # period tokens being collected
    unit: str | None = None  # "thousands" | "millions" | "billions" | "" (units)
    share_unit: str | None = None  # where the unit line gives share counts their own scale
    statement: str = "other"
    recent: list[str] = field(default_factory=list)  # short text lines since the last row
    label: str = ""  # a label waiting for its values (PDF: values on lines of their own)
    values: list[_Token] = field(default_factory=list)
    section: str = ""  # the last label-only line ("Earnings per share:")
    month_days: list[tuple[int, int]] = field(default_factory=list)  # one per header column
    header_split: bool = False  # the header's first period ended a paragraph
    rows: int = 0  # rows read under the current header
    pending: bool = False  # `values` began beside the label, the rest on lines of their own


def table_facts(filing: Filing) -> list[Fact]:
    """The statement-table facts of a filing, page by page, in reading order."""
    facts: list[Fact] = []
    state = _State()
    page = object()
    for block in filing.blocks:
        if block.page != page:
            state = _next_page(state)
            page = block.page
        if block.kind == "table" and block.rows:
            for row in block.rows:
                _row(state, [c for c in row if c.strip()], filing, block, facts)
            state.label, state.values = "", []
        else:
            _text(state, block.text, filing, block, facts)
    return facts


def _next_page(old: _State) -> _State:
    """A new page starts with nothing known, except that a statement whose rows ran to the end
    of the page before keeps its statement and unit (its title is not repeated)."""
    new = _State()
    if old.columns and old.rows:
        new.statement, new.unit = old.statement, old.unit
    return new


# --- tokens ----------------------------------------------------------------------------------


def tokens(text: str) -> list[_Token]:
    """Text as label words, values, bare years and dates, in order."""
    text = _FISCAL.sub(r"\1", " ".join(text.split()))
    out: list[_Token] = []
    pos = 0
    for m in re.finditer(rf"{_DATE.pattern}|{_NUMBER.pattern}|{_LONE_DASH}|{_NOTE_REF}", text,
                         re.I):
        if m.group("note"):
            continue  # part of the label: "(Note 1) 2022 2021", "(Notes 1 and 2) $ 14,127"
        if m.start() > pos and text[pos:m.start()].strip():
            out.append(_Token("text", text[pos:m.start()].strip()))
        out.append(_value_token(m))
        pos = m.end()
    if text[pos:].strip():
        out.append(_Token("text", text[pos:].strip()))
    return [_dash(t) for t in out]


def _value_token(m) -> _Token:
    if _DASH.match(m.group(0)):
        return _Token("value", m.group(0), 0.0)
    if m.group(1):
        month = _MONTH_NUMBERS[m.group(1)[:3].lower()]
        try:
            return _Token("date", m.group(0), date(int(m.group(3)), month, int(m.group(2))))
        except ValueError:
            return _Token("text", m.group(0))
    printed = m.group(0).strip()
    digits = re.sub(r"[^\d.]", "", printed)
    if _YEAR.match(digits) and digits == printed:
        return _Token("year", printed, int(digits))
    if _YEAR.match(digits) and printed.lstrip("(") == digits:
        return _Token("text", printed)  # "allowances $203 (2021, $230)": a year in a label
    negative = "(" in printed or printed.startswith("-")
    try:
        number = float(digits)
    except ValueError:
        return _Token("text", printed)
    return _Token("value", printed, -number if negative else number)


def _dash(token: _Token) -> _Token:
    if token.kind == "text" and _DASH.match(token.text):
        return _Token("value", token.text, 0.0)
    return token


# --- rows ------------------------------------------------------------------------------------


def _row(state: _State, cells: list[str], filing, block, facts) -> None:
    """One row of a table block: a header, a unit line, a section line or a line item."""
    if not cells:
        return
    has_label = any(t.kind == "text" for t in tokens(cells[0]))
    label = cells[0] if has_label else ""
    rest = [t for c in (cells[1:] if has_label else cells) for t in tokens(c)]
    values = [t for t in rest if t.kind != "text"]
    texts = [t.text for t in rest if t.kind == "text"]
    for text in ([label] if label else []) + texts:
        _remember(state, text)
    if values and _is_header(values, texts):
        _set_header(state, values)
    elif label and not values:
        state.section = label
    elif label:
        _emit(state, label, values, filing, block, facts)


def _text(state: _State, text: str, filing, block, facts) -> None:
    """A paragraph of PDF or plain text: header years, label lines, values on their own
    lines, or whole rows (several rows where pypdf glued lines together)."""
    items = tokens(text)
    if not items:
        return
    if all(t.kind != "text" for t in items):
        _loose_values(state, items, filing, block, facts)
        return
    lead = next((i for i, t in enumerate(items) if t.kind not in ("year", "date")), len(items))
    if state.header and lead:  # the last of a header's periods opens this paragraph
        state.header.extend(items[:lead])
        items = items[lead:]
    if _month_days_only(text):  # "December 26," above or between a header's years
        state.month_days = (state.month_days if state.header else []) + _month_days(text)
        _remember(state, text)
        return
    _close_header(state)
    if state.label and not state.values and not _UNIT.search(state.label):
        state.section = state.label  # a label line with no values of its own heads a section
    run: list[_Token] = []
    words: list[str] = []
    start = 0  # where the current row's label starts in `words`
    end = _Token("text", "")
    for token in items + [end]:
        if token.kind != "text":
            run.append(token)
            continue
        if token is end and len(run) == 1 and run[0].kind in ("year", "date"):
            # "...Balance Sheets (In millions)December 31, 2021" / "December 31, 2020 ASSETS":
            # a header whose periods are split over paragraphs
            if words:
                _remember(state, " ".join(words))
            state.header, state.header_split, run, words = run, True, [], []
        if run and token.text[:1].islower():  # "Outstanding shares — 477 and 484"
            words.extend(t.text for t in run)
            run = []
        if run:
            if _is_header(run, []) and (len(run) > 1 or _is_header(run, _texts(items))):
                if words:  # title and unit line printed before the periods, in this block
                    _remember(state, " ".join(words))
                _set_header(state, run)
                words, start = [], 0
            elif state.columns and words and (extra := _extra(run, state)) is not None:
                words.extend(t.text for t in run[:extra])
                run = run[extra:extra + len(state.columns)]  # an unlabelled total after it:
                # not read (its label is not printed)
                if not state.rows:  # a unit line between the header and the first row
                    _remember(state, " ".join(words))
                head, label = _split_section(" ".join(words[start:]))  # "...: Depreciation"
                if head:
                    state.section = head
                _emit(state, label, run, filing, block, facts)
                words, start = [], 0
            elif (token is end and state.columns and words[start:]
                  and len(run) < len(state.columns) and all(t.kind == "value" for t in run)):
                # "Net sales $ 34,229" with its other years on lines of their own after it
                head, label = _split_section(" ".join(words[start:]))
                if head:
                    state.section = head
                state.label, state.values, state.pending = label, list(run), True
                return
            else:
                words.extend(t.text for t in run)
                if token.text[:1].isupper():  # numbers that ended a row we could not read
                    start = len(words)  # ("...respectively271 321 Unbilled revenues 248 206")
            run = []
        if token.text:
            words.append(token.text)
    label = " ".join(words)
    if label:
        _remember(state, label)
    state.label, state.values, state.pending = label, [], False


def _split_section(words: str) -> tuple[str, str]:
    """("Earnings per share", "Basic") from "Earnings per share: Basic" (pypdf may drop the
    space after the colon)."""
    head, colon, label = words.rpartition(":")
    if not colon or not label.strip():
        return "", words
    return head.strip(), label.strip()


def _extra(run: list[_Token], state: _State) -> int | None:
    """How many leading numbers of a run belong to the row's label, or None when the run is
    not a row: exactly one period value per column ("Net sales 1,577 1,420"); in a statement,
    one number more that is part of the label ("(Note 12) $ 156 $ 11", "net of allowances of
    $46 and $ 41 2,133 1,836"); or a row and then an unlabelled total of as many values."""
    n = len(state.columns or [])
    if n == 0:
        return None
    if len(run) == n or (n >= 2 and len(run) == 2 * n):
        return 0
    if n >= 2 and len(run) == n + 1 and state.statement != "other":
        return 1
    return None


def _loose_values(state: _State, items: list[_Token], filing, block, facts) -> None:
    """A line of numbers only: header years listed one per line, or the values of the label
    line above them."""
    if all(t.kind in ("year", "date") for t in items) and not state.values:
        state.header.extend(items)
        return
    _close_header(state)
    if not state.label or not state.columns:
        return
    if state.pending and _unlike(state.values, items):
        state.label, state.values, state.pending = "", [], False
        return  # "Goodwill impairment 1,234" then a page's number "52": not its next year
    state.values.extend(items)
    if len(state.values) == len(state.columns):
        _emit(state, state.label, state.values, filing, block, facts)
        state.label, state.values, state.pending = "", [], False
    elif len(state.values) > len(state.columns):
        state.label, state.values, state.pending = "", [], False


def _unlike(started: list[_Token], more: list[_Token]) -> bool:
    """Whether numbers on lines of their own cannot be the rest of a row begun beside its
    label: the row's first value is printed with a thousands separator and one of them is a
    bare number of up to three digits (a page number, a note's)."""
    if not any("," in t.text for t in started):
        return False
    return any(t.kind == "value" and re.fullmatch(r"\d{1,3}", t.text.strip()) for t in more)


def _close_header(state: _State) -> None:
    """The periods collected over several lines become the columns (a period that ended a
    paragraph only counts with another after it)."""
    if state.header:
        if _is_header(state.header, []) and not (state.header_split and len(state.header) < 2):
            _set_header(state, state.header)
        state.header = []
    state.header_split = False


def _texts(items: list[_Token]) -> list[str]:
    return [t.text for t in items if t.kind == "text"]


def _is_header(values: list[_Token], texts: list[str]) -> bool:
    """Periods only: dates, or bare years one apart ("2018 2017 2016"), with nothing else
    but words like "Year Ended" beside them."""
    if not values or any(t.kind not in ("year", "date") for t in values):
        return False
    years = [t.value for t in values if t.kind == "year"]
    if any(abs(a - b) != 1 for a, b in zip(years, years[1:])):
        return False
    words = {w.strip(",.:").lower() for t in texts for w in t.split()}
    return all(w in _HEADER_WORDS or _MONTH_DAY.match(w) or w.isdigit() for w in words
               if w and not re.match(_MONTH, w, re.I))


def _set_header(state: _State, values: list[_Token]) -> None:
    """Columns from a header: a date per column, or bare years with the month and day printed
    beside them ("December 31," above "2024 2023"; one per column where there are as many)."""
    dated = [t.value for t in values if t.kind == "date"]
    month_day = (dated[-1].month, dated[-1].day) if dated else _last_month_day(state.recent)
    per_column = state.month_days if len(state.month_days) == len(values) else None
    printed = _printed_ends(values, state.recent)
    columns = []
    for i, t in enumerate(values):
        if t.kind == "date":
            columns.append(_Column(t.value.year, t.value))
        elif printed:
            columns.append(_Column(t.value, printed[i]))
        else:
            columns.append(_Column(t.value, _with_year(per_column[i] if per_column else
                                                       month_day, t.value)))
    state.columns, state.header, state.rows, state.month_days = columns, [], 0, []
    state.section = ""
    title = _joined(state.recent)
    kind = next((k for k in map(statement_of, _title_windows(title)) if k != "other"), None)
    titled = kind is not None or _has_title(title)
    if titled:  # a table of its own; an untitled header continues the page's statement
        state.statement, state.unit = kind or "other", None
    unit = _unit(state.recent)
    if unit is not None:
        state.unit, state.share_unit = unit, _share_unit(state.recent)
    state.recent = []


def _title_windows(lines: list[str]) -> list[str]:
    """Each line, then runs of 2-4 lines joined: pypdf breaks titles over lines
    ("CONSOLIDATED STATEMENTS OF" / "OPERATIONS (in millions...)")."""
    out = list(lines)
    for size in (2, 3, 4):
        out += [" ".join(lines[i:i + size]) for i in range(len(lines) - size + 1)]
    return out


def _has_title(lines: list[str]) -> bool:
    """Some words above the header besides unit lines and dates: a table of its own."""
    for line in lines:
        rest = _MONTH_DAY.sub("", _DATE.sub("", _UNIT_GROUP.sub("", line)))
        words = [w for w in re.findall(r"[A-Za-z]{3,}", rest) if w.lower() not in _HEADER_WORDS
                 and not re.fullmatch(_MONTH, w, re.I) and not _UNIT.fullmatch(w)]
        if len(words) >= 2:
            return True
    return False


def _remember(state: _State, line: str) -> None:
    line = " ".join(line.split())[-160:]  # a long paragraph: its end introduces the table
    if line:
        state.recent = (state.recent + [line])[-RECENT_LINES:]
        if state.columns and not state.rows and (unit := _unit([line])) is not None:
            state.unit, state.share_unit = unit, _share_unit([line])


def _joined(lines: list[str]) -> list[str]:
    """Title lines with pypdf's broken-off word ends put back ("Balance Shee" + "t")."""
    out: list[str] = []
    for line in lines:
        if out and len(line) <= 2 and line.isalpha() and line.islower():
            out[-1] += line
        else:
            out.append(line)
    return out


def _unit(lines: list[str]) -> str | None:
    for line in reversed(lines):
        if m := _UNIT.search(line):
            return m.group(1).lower()
    return None


def _share_unit(lines: list[str]) -> str | None:
    """"(In millions, except number of shares, which are reflected in thousands...)" ->
    "thousands"."""
    for line in reversed(lines):
        if m := re.search(r"shares[^()]*?\bin\s+(thousands|millions|billions)", line, re.I):
            return m.group(1).lower()
    return None


def _month_days(text: str) -> list[tuple[int, int]]:
    return [(_MONTH_NUMBERS[m.group(1)[:3].lower()], int(m.group(2)))
            for m in _MONTH_DAY.finditer(text)]


def _month_days_only(text: str) -> bool:
    """A line that only names month-days ("December 26,"), between a header's years."""
    return bool(_month_days(text)) and not _MONTH_DAY.sub("", text).strip(" ,.")


def _printed_ends(values: list[_Token], lines: list[str]) -> list[date] | None:
    """The period ends printed above bare header years, one per column in their order, where
    the lines name as many whole dates, each in its column's year or the one after: "At
    January 1, 2023 and January 2, 2022 ... 2022 2021" (a 52-53 week year ending in early
    January is the year before's: the year's own month and day would put it a year early)."""
    years = [t.value for t in values]
    if not years or any(t.kind != "year" for t in values):
        return None
    found = [_value_token(m).value for line in lines for m in _DATE.finditer(line)]
    ends = [d for d in found if isinstance(d, date)][-len(years):]
    if len(ends) != len(years) or any(d.year - y not in (0, 1) for d, y in zip(ends, years)):
        return None
    return ends


def _last_month_day(lines: list[str]) -> tuple[int, int] | None:
    for line in reversed(lines):
        for m in reversed(list(_MONTH_DAY.finditer(line))):
            return _MONTH_NUMBERS[m.group(1)[:3].lower()], int(m.group(2))
    return None


def _with_year(month_day, year: int) -> date | None:
    if month_day is None:
        return None
    try:
        return date(year, *month_day)
    except ValueError:
        return None


# --- facts -----------------------------------------------------------------------------------


def _emit(state: _State, label: str, values: list[_Token], filing: Filing, block: Block,
          facts: list[Fact]) -> None:
    columns = state.columns
    if not columns or len(values) != len(columns) or state.unit is None:
        return
    if any(t.kind in ("year", "date") for t in values):
        return  # a year among the values: a label or a header, not a row of amounts
    label = _UNIT_PREFIX.sub("", label).strip(" :$")
    if not label or not any(ch.isalpha() for ch in label):
        return
    years = [_fiscal_year(c, filing) for c in columns]
    if max(years) > filing.fiscal_year or len(set(years)) != len(years):
        return  # a schedule of future years, or columns that are not one period each
    state.rows += 1
    unit = _fact_unit(label, state)
    for column, year, token in zip(columns, years, values):
        facts.append(Fact(
            ticker=filing.ticker, fiscal_year=filing.fiscal_year, filing_key=filing_key(filing),
            source="table", line_label=label, statement=state.statement,
            period_end=column.end.isoformat() if column.end else None,
            period_fiscal_year=year, value=float(token.value),
            unit="percent" if token.text.endswith("%") else unit,
            page=block.page, printed=token.text,
        ))
    state.recent = []


def _fiscal_year(column: _Column, filing: Filing) -> int:
    """A column's fiscal year: from its period end where the header gives one (52/53-week
    years, years ending in January), else the year printed ("2024", "Fiscal 2024")."""
    if column.end is None:
        return column.year
    year = period_fiscal_year(column.end, filing.period_end, filing.fiscal_year)
    return year if year is not None else fiscal_year_from_period(column.end, None)


def _fact_unit(label: str, state: _State) -> str:
    """USD at the table's scale; per share for EPS and dividend rows; share counts."""
    scale = {"thousands": " thousands", "millions": " millions", "billions": " billions"}.get(
        state.unit or "", "")
    bare = re.match(r"(basic|diluted)\b", label, re.I)
    section = "" if _UNIT.search(state.section) else state.section
    counted = _SHARE_COUNT.search(label) or (bare and _SHARES_SECTION.search(section))
    if counted and (re.search(r"\$|proceeds|repurchase|issu|value|amount|per\b|capital|paid-in|"
                              r"\bstock\b", label, re.I)
                    or re.search(r"\bstock\b|capital|paid-in", section, re.I)):
        counted = None  # a dollar line about shares ("Common stock and paid-in capital")
    if not counted and (_PER_SHARE.search(label) or (bare or len(section) < 80) and
                        _PER_SHARE.search(section)):
        return "USD per share"
    if counted:
        return f"shares {state.share_unit}" if state.share_unit else f"shares{scale}"
    return f"USD{scale}"
