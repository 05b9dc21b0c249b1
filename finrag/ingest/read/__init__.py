"""Read one 10-K from disk into a `Filing`: metadata from the filing itself, content as `Block`s.

Inputs, as `locate` finds them: an accession folder in sec-edgar-downloader's layout
(`<TICKER>/10-K/<accession>/` holding `primary-document.html`, `filing-details.html`,
`full-submission.txt` or one of its variants), or a loose `.htm/.html/.txt/.pdf` file.

One module per job: `locate` (filing units on disk), `filing` (one unit -> `Filing`: pick the
main document, dispatch on its format, merge the metadata), `decode` (bytes -> text), `sgml`
(EDGAR submissions and their header), `html` (HTML and inline XBRL, tables as grids), `text`
(plain and tag-stripped text), `pdf` (pypdf), `meta` (cover page and `dei` cover facts), `common`
(the error, the intermediate document, shared text and cell rules).

Metadata, first source that has it wins: the caller's overrides (ticker, fiscal_year); the
document's inline-XBRL `dei:` facts; the SGML header; the folder layout; the cover page
("For the fiscal year ended September 28, 2019"). Field formats: `cik` is the 10-digit
zero-padded string EDGAR prints ("0000320193"; `int(cik)` gives the number used in EDGAR URLs),
`period_end` is an ISO date "YYYY-MM-DD", `accession` is "0000320193-24-000123", `form` is the
form as filed ("10-K", "10-K405", "10-KT", "10-K/A"), `document` is the 10-K document's file name
on EDGAR where the filing states it (the submission's `<FILENAME>`, else `ixbrl_document_name`).

Fiscal year: `dei:DocumentFiscalYearFocus` when the document has it, else
`finrag.ingest.fiscal.fiscal_year_from_period`, the rule `ingest download` uses too (see its
docstring for the rule and its known limits).

Any bad input (not a 10-K, empty, truncated, binary junk, unreadable PDF, no ticker) raises
`ReadError` with a one-line message naming the file; no other exception type escapes
`read_filing`.
"""

from finrag.ingest.read.common import LOOSE_SUFFIXES, TEN_K_FORMS, UNIT_MARKERS, ReadError
from finrag.ingest.read.filing import read_filing
from finrag.ingest.read.html import html_to_blocks, table_grid
from finrag.ingest.read.locate import is_accession_folder, locate
from finrag.ingest.read.meta import ixbrl_document_name
from finrag.ingest.read.sgml import parse_sgml_header, submission_document_name
from finrag.ingest.read.text import text_to_blocks

__all__ = [
    "LOOSE_SUFFIXES", "TEN_K_FORMS", "UNIT_MARKERS", "ReadError", "html_to_blocks",
    "is_accession_folder", "ixbrl_document_name", "locate", "parse_sgml_header", "read_filing",
    "submission_document_name", "table_grid", "text_to_blocks",
]
