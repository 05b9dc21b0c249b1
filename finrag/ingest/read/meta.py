"""Metadata a filing states about itself: dates, the cover page (form, fiscal year ended,
company) and inline-XBRL `dei` cover facts (CIK, fiscal year focus, period end, document name)."""

from __future__ import annotations

import re
from datetime import date

from finrag.ingest.read.common import _MONTHS, _TICKER, _norm
from finrag.models import Block


def _parse_date(text: str) -> date | None:
    """'20240928', '2024-09-28', 'September 28, 2024', 'Sept. 28 2024' -> date, else None."""
    text = re.sub(r"\s+", " ", text.replace("\xa0", " ")).strip()
    try:
        if re.fullmatch(r"\d{8}", text):
            return date(int(text[:4]), int(text[4:6]), int(text[6:]))
        if m := re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", text):
            return date(*map(int, m.groups()))
        if m := re.fullmatch(r"([a-z]{3})[a-z]*\.? ?(\d{1,2}) ?,? ?(\d{4})", text, re.I):
            month = _MONTHS.get(m.group(1).lower())
            return date(int(m.group(3)), month, int(m.group(2))) if month else None
    except ValueError:
        return None
    return None


_FY_ENDED = re.compile(r"fiscal\s+year\s+ended:?\s*([A-Za-z]{3,9}\.?\s*\d{1,2}\s*,?\s*\d{4})", re.I)
_COVER_FORM = re.compile(r"\bFORM\s+(10-K(?:405|T|SB)?(?:/A)?|8-K|10-Q|20-F|40-F|6-K|S-1|11-K)\b",
                         re.I)


def _cover_meta(blocks: list[Block]) -> dict:
    """Form, period end and company from the cover page text."""
    cover = " ".join(b.text for b in blocks[:150])[:20_000]
    cover = re.sub(r"\s+", " ", cover)
    meta: dict = {}
    if m := _COVER_FORM.search(cover[:6000]):
        meta["form"] = m.group(1).upper()
    elif re.search(r"annual report pursuant to section 13", cover[:6000], re.I):
        meta["form"] = "10-K"
    if m := _FY_ENDED.search(cover):
        meta["period_end"] = _parse_date(m.group(1))
    meta["company"] = _cover_company(blocks[:150])
    return meta


_COMMISSION = re.compile(r"commission\s+file\s+(?:number|no\.?)\s*:?\s*\d[\d\-]*", re.I)
_EXACT_NAME = re.compile(r"\(?\s*exact\s+name\s+of\s+(?:the\s+)?registrant", re.I)
_NAME_END = re.compile(r"\(|\b(?:state\b|incorporated in\b|i\.?r\.?s\.?\b)|\d{2}-\d{7}", re.I)
_SUFFIX = re.compile(r"\b(?:inc|incorporated|corporation|corp|company|co|plc|ltd|limited|llc|"
                     r"l\.p|n\.v|s\.a|ag|se)\b\.?", re.I)
_SMALL_CAPS = re.compile(r"\b([A-Z]) ([A-Z]{2,})\b")


def _cover_company(blocks: list[Block]) -> str | None:
    """The registrant's name as the cover prints it: between the Commission file number and
    "(Exact name of registrant as specified in its charter)"; without that caption, the words
    after the Commission file number up to the company's legal suffix ("3M COMPANY",
    "MICROSOFT CORPORATION"). None where the cover prints no name as text (a logo)."""
    text = re.sub(r"\s+", " ", " ".join(b.text for b in blocks))[:20_000]
    if exact := _EXACT_NAME.search(text):
        before = text[max(0, exact.start() - 300):exact.start()]
        fields = list(_COMMISSION.finditer(before))
        name = before[fields[-1].end():] if fields else _block_before_caption(blocks)
    elif field := _COMMISSION.search(text):
        rest = text[field.end():field.end() + 150]
        end = _NAME_END.search(rest)
        rest = rest[:end.start()] if end else rest
        suffix = _SUFFIX.search(rest)
        name = rest[:suffix.end()] if suffix else ""
    else:
        return None
    return _tidy_name(name)


def _block_before_caption(blocks: list[Block]) -> str:
    """The caption's own block's text before it, else the block before (an HTML cover)."""
    for i, block in enumerate(blocks):
        if m := _EXACT_NAME.search(block.text):
            before = block.text[: m.start()].strip()
            return before or (blocks[i - 1].text if i else "")
    return ""


def _tidy_name(name: str) -> str | None:
    name = re.sub(r"_{2,}", " ", name)
    name = re.sub(r"\s+", " ", name).lstrip(" .:;,-|").rstrip(" :;,-|")
    name = re.sub(r" +([.,])", r"\1", name)
    if len(_SMALL_CAPS.findall(name)) >= 2:  # small capitals: "MGM R ESORTS I NTERNATIONAL"
        name = _SMALL_CAPS.sub(r"\1\2", name)
    if not re.search(r"[A-Za-z]", name) or len(name) > 100:
        return None
    return name


# --- dei facts


def _dei_meta(root) -> dict:
    """Inline-XBRL cover facts: ticker, fiscal year, period end, CIK, name, form."""
    facts: dict[str, tuple[str, str]] = {}
    for el in root.iter("ix:nonnumeric"):
        name = (el.get("name") or "").lower()
        if name.startswith("dei:") and name not in facts:
            facts[name] = (_norm(el.text_content()), el.get("contextref") or "")
    if not facts:
        return {}
    year = facts.get("dei:documentfiscalyearfocus", ("", ""))[0]
    cik = facts.get("dei:entitycentralindexkey", ("", ""))[0]
    ticker = facts.get("dei:tradingsymbol", ("", ""))[0].upper()
    return {
        "ticker": ticker if _TICKER.match(ticker) else None,
        "fiscal_year": int(year) if re.fullmatch(r"\d{4}", year) else None,
        "period_end": _dei_period_end(root, facts),
        "cik": cik.zfill(10) if cik.isdigit() else None,
        "company": facts.get("dei:entityregistrantname", ("", ""))[0] or None,
        "form": facts.get("dei:documenttype", ("", ""))[0].upper() or None,
    }


def ixbrl_document_name(root) -> str | None:
    """The inline-XBRL document's own file name, where two parts of it state the same base name:
    its `<title>` and its taxonomy schema (`link:schemaRef`, "aapl-20240928.xsd"). EDGAR
    inline-XBRL filings name the primary document, its schema and (by the filing agents' habit)
    its title after one base ("aapl-20240928.htm", checked against EDGAR's own list of Apple's
    10-Ks). Where they differ ("aph-20221231x10k.htm" beside "aph-20221231.xsd"), None: a guessed
    name would be a dead link. EDGAR serves HTML documents as ".htm"."""
    title = root.find(".//title")
    refs = [el.get("xlink:href") or "" for el in root.iter("link:schemaref")]
    if title is None or len(refs) != 1:
        return None
    stem = (title.text or "").strip()
    if not re.fullmatch(r"[a-z][a-z0-9]*-\d{8}", stem) or refs[0] != f"{stem}.xsd":
        return None
    return f"{stem}.htm"


def _dei_period_end(root, facts: dict) -> date | None:
    """The end date of the context the DocumentType fact refers to, else the fact's text."""
    for key in ("dei:documenttype", "dei:documentperiodenddate"):
        context = facts.get(key, ("", ""))[1]
        if context and (end := _context_end(root, context)):
            return end
    return _parse_date(facts.get("dei:documentperiodenddate", ("", ""))[0])


def _context_end(root, context_id: str) -> date | None:
    for ctx in root.iter("xbrli:context"):
        if ctx.get("id") == context_id:
            ends = [e.text_content() for e in ctx.iter("xbrli:enddate", "xbrli:instant")]
            return _parse_date(ends[0]) if ends else None
    return None
