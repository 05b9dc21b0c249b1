"""`python -m ingest download`: fetch 10-K filings from SEC EDGAR with sec-edgar-downloader.

Files land in sec-edgar-downloader's own layout, which `python -m ingest build DEST` reads::

    DEST/sec-edgar-filings/<TICKER>/10-K/<accession>/full-submission.txt
    DEST/sec-edgar-filings/<TICKER>/10-K/<accession>/primary-document.html

Which filings: `--years` are *fiscal* years. The fiscal year of a 10-K is the calendar year its
period of report ends in (EDGAR's `reportDate`, the header's CONFORMED PERIOD OF REPORT), except
that a period ending on January 1-7 or February 1-7 belongs to the year before (52/53-week
years, e.g. a fiscal 2021 that ends on Saturday 2022-01-01, Home Depot's fiscal 2024 that ends
on 2025-02-02): the reader's rule, `finrag.ingest.fiscal.fiscal_year_from_period`. So Apple's 10-K
for the year ended 2023-09-30 is 2023 and NVIDIA's for the year ended 2024-01-28 is 2024, as
both companies label them. Its known limits (retailers that name a year ending late in January
by the year it began) are the reader's too; the filing's own `dei:DocumentFiscalYearFocus` then
labels what was fetched. Filing dates are
not a usable proxy: a December year-end company files its FY2023 10-K in February 2024, a
September one in November 2023, so any filing-date window of whole years picks up a neighbouring
fiscal year. We therefore read each company's EDGAR filing list first (one small JSON request,
plus older pages only if the years reach back that far), pick the original 10-Ks (no 10-K/A)
whose fiscal year was asked for, and have sec-edgar-downloader fetch exactly those
(`download_details=True`, so the primary document comes too). A filing whose period of report is
missing counts as the year before its filing date.

Re-running is cheap: files already on disk are not fetched again, so after an interruption or a
refusal from SEC, run the same command again to finish. `download()` returns how many of the
requested filings are complete in DEST afterwards, including ones that were already there.

SEC's fair-access policy requires a User-Agent naming the requester with a contact email, and
allows at most 10 requests per second (sec-edgar-downloader throttles to that). Every failure is a
`DownloadError` with a one-line message: no or malformed email (checked before any request),
unknown ticker (checked for all tickers before anything is downloaded), SEC unreachable, SEC
refusing (HTTP 403/429) or failing (5xx).

sec-edgar-downloader 5.x internals this relies on (checked by tests/ingest/test_download.py):
`Downloader()` itself fetches the ticker->CIK map, so it can fail offline; its HTTP calls have no
timeout, so `download()` gives them one for its duration; and `Downloader.get()` swallows a failed
filing download (it only prints the error to stdout), so we capture that output and compare what
reached the disk with what was asked for.
"""

from __future__ import annotations

import contextlib
import io
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import requests

from finrag.ingest.fiscal import fiscal_year_from_period, period_date

FORM = "10-K"
TIMEOUT_SECONDS = 60.0  # per HTTP request; sec-edgar-downloader sets none and would hang forever
WWW, DATA = "www.sec.gov", "data.sec.gov"  # what the ticker map / filings, and listings come from

_EMAIL = re.compile(r"[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
_YEAR_ITEM = re.compile(r"(\d{4})(?:\s*-\s*(\d{4}))?")


class DownloadError(RuntimeError):
    """A download that cannot go on; the message is one line, fit to show the user as is."""


@dataclass(frozen=True)
class Filing:
    """One original 10-K from a company's EDGAR filing list."""

    accession: str
    filed: date
    period_end: str  # YYYY-MM-DD, "" when EDGAR has none
    fiscal_year: int


# -- arguments ----------------------------------------------------------------------------------

def parse_years(text: str) -> list[int]:
    """'2023' -> [2023]; '2019-2024' -> 2019..2024; '2019,2021' and '2018,2020-2022' too.

    Sorted, without duplicates. Anything else (a reversed range, a year before EDGAR's 1993, an
    empty string) raises DownloadError.
    """
    bad = DownloadError(f"--years {text!r}: use a year like 2023 or a range like 2019-2024")
    years: set[int] = set()
    items = [i.strip() for i in str(text).split(",")]
    if not any(items):
        raise bad
    for item in items:
        m = _YEAR_ITEM.fullmatch(item)
        if not m:
            raise bad
        first = int(m.group(1))
        last = int(m.group(2) or first)
        if first > last or first < 1993 or last > 9998:
            raise bad
        years.update(range(first, last + 1))
    return sorted(years)


def fiscal_year(period_end: str) -> int | None:
    """The fiscal year of a period of report, '2023-09-30' or '20230930': the reader's rule
    (`finrag.ingest.fiscal`). Only original 10-Ks are listed, so no transition period needs the
    FISCAL YEAR END veto (EDGAR's listing states only the company's current year end)."""
    end = period_date(period_end)
    return fiscal_year_from_period(end) if end else None


def _user_agent(company: str, email: str | None) -> str:
    if email is None or not str(email).strip():
        raise DownloadError("SEC requires a contact email: pass --email you@example.com")
    email = str(email).strip()
    if not _EMAIL.fullmatch(email):
        raise DownloadError(f"--email {email!r} is not an email address: SEC requires a contact "
                            "email, e.g. --email you@example.com")
    company = str(company or "").strip()
    if not company or re.search(r"[\x00-\x1f\x7f]", company):
        raise DownloadError(f"--company {company!r}: give your organisation's name, e.g. "
                            "--company 'Acme Research'")
    return f"{company} {email}"


# -- the download -------------------------------------------------------------------------------

def download(tickers: list[str], years: list[int], *, email: str | None, company: str = "finrag",
             dest: Path) -> int:
    """Fetch the 10-Ks of `tickers` for fiscal `years` into `dest`; return how many are there.

    A ticker may also be a CIK (digits); its filings are then saved under the zero-padded CIK.
    """
    _user_agent(company, email)  # refuse before any request
    email, company = str(email).strip(), str(company).strip()
    tickers = list(dict.fromkeys(t.strip().upper() for t in tickers if t and t.strip()))
    if not tickers:
        raise DownloadError("no tickers given: pass e.g. --tickers AAPL,MSFT")
    wanted_years = set(years)
    if not wanted_years:
        raise DownloadError("no fiscal years given: pass e.g. --years 2019-2024")
    dest = Path(dest).expanduser()
    try:
        dest.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DownloadError(f"cannot create --dest {str(dest)!r}: {exc.strerror or exc}") from exc

    from sec_edgar_downloader import Downloader

    with _http_timeout():
        with _sec_errors(WWW):
            dl = Downloader(company, email, dest)
        targets = [_resolve(t, dl.ticker_to_cik_mapping) for t in tickers]

        saved = 0
        for name, folder, cik in targets:
            with _sec_errors(DATA):
                listing = _list_10ks(cik, dl.user_agent, min(wanted_years))
            wanted = [f for f in listing if f.fiscal_year in wanted_years]
            if not wanted:
                continue
            after, before = min(f.filed for f in wanted), max(f.filed for f in wanted)
            in_window = [f for f in listing if after <= f.filed <= before]
            skip = {f.accession for f in in_window} - {f.accession for f in wanted}
            printed = io.StringIO()
            with _sec_errors(WWW), contextlib.redirect_stdout(printed):
                dl.get(FORM, name, limit=len(in_window), after=after, before=before,
                       download_details=True, accession_numbers_to_skip=skip)
            root = dest / "sec-edgar-filings" / folder / FORM
            missing = [f for f in wanted if not _complete(root / f.accession)]
            saved += len(wanted) - len(missing)
            if missing:
                raise DownloadError(_swallowed_failure(printed.getvalue(), folder, missing, saved,
                                                       dest))
    return saved


def _resolve(ticker: str, mapping: dict[str, str]) -> tuple[str, str, str]:
    """(name to pass to Downloader.get, folder it saves under, 10-digit CIK), or DownloadError."""
    if ticker.isdigit():
        if len(ticker) > 10:
            raise DownloadError(f"CIK {ticker!r} is too long: CIKs have at most 10 digits")
        return ticker, ticker.zfill(10), ticker.zfill(10)
    for candidate in (ticker, ticker.replace(".", "-")):  # SEC spells BRK.B as BRK-B
        if candidate in mapping:
            return candidate, candidate, mapping[candidate]
    raise DownloadError(f"unknown ticker {ticker!r}: SEC EDGAR's company list has no such ticker "
                        "(use the current ticker, e.g. META not FB, or the company's CIK)")


def _list_10ks(cik: str, user_agent: str, first_year: int) -> list[Filing]:
    """The company's original 10-Ks, newest first, back to filings of `first_year`."""
    from sec_edgar_downloader import _orchestrator, _sec_gateway

    def url(name: str) -> str:  # read at call time: tests point these at a local server
        return _orchestrator.URL_SUBMISSIONS.format(submission=name)

    first = _sec_gateway.get_list_of_available_filings(
        url(_orchestrator.SUBMISSION_FILE_FORMAT.format(cik=cik)), user_agent)
    pages = [first["filings"]["recent"]]
    for older in first["filings"].get("files", []):
        if str(older.get("filingTo", "9999")) >= f"{first_year}-01-01":
            pages.append(_sec_gateway.get_list_of_available_filings(url(older["name"]),
                                                                    user_agent))
    out: list[Filing] = []
    for page in pages:
        periods = page.get("reportDate") or [""] * len(page["accessionNumber"])
        for acc, form, filed, period in zip(page["accessionNumber"], page["form"],
                                            page["filingDate"], periods):
            if form != FORM:
                continue
            filed_on = date.fromisoformat(filed)
            fy = fiscal_year(period) if period else None
            out.append(Filing(acc, filed_on, period or "", fy if fy else filed_on.year - 1))
    return sorted(out, key=lambda f: f.filed, reverse=True)


def _complete(folder: Path) -> bool:
    return (folder / "full-submission.txt").is_file() and any(folder.glob("primary-document.*"))


# -- errors -------------------------------------------------------------------------------------

@contextlib.contextmanager
def _sec_errors(host: str):
    """Turn what requests raises into a one-line DownloadError."""
    try:
        yield
    except requests.exceptions.HTTPError as exc:
        status = exc.response.status_code if exc.response is not None else 0
        raise DownloadError(_refusal(status, host)) from exc
    except requests.exceptions.JSONDecodeError as exc:  # before RequestException: it is one
        raise DownloadError(f"SEC EDGAR ({host}) answered with something that is not JSON: "
                            "a proxy or captive portal in the way?") from exc
    except requests.exceptions.RequestException as exc:  # connection, DNS, proxy, TLS, timeout
        raise DownloadError(_unreachable(exc, host)) from exc
    except (KeyError, TypeError) as exc:  # JSON of an unexpected shape
        raise DownloadError(f"SEC EDGAR ({host}) sent JSON of an unexpected shape "
                            f"({type(exc).__name__}: {exc}); sec-edgar-downloader may need "
                            "an update") from exc
    except ValueError as exc:  # the library's own argument checks
        raise DownloadError(f"sec-edgar-downloader refused the request: {exc}") from exc


def _refusal(status: int, host: str) -> str:
    if status == 403:
        return ("SEC refused the request (HTTP 403): SEC blocks a User-Agent it does not accept "
                "and clients over 10 requests/second; check --email and --company, wait 10 "
                "minutes, then run again")
    if status == 429:
        return ("SEC refused the request (HTTP 429, too many requests): wait 10 minutes, then "
                "run again (filings already saved are kept)")
    if status >= 500:
        return (f"SEC EDGAR failed (HTTP {status}) at {host}: its servers are busy or down; try "
                "again later (filings already saved are kept)")
    return f"SEC refused the request (HTTP {status}) at {host}"


def _unreachable(exc: BaseException | str, host: str) -> str:
    return (f"cannot reach SEC EDGAR ({host}): {_short_cause(exc)}; check your network or "
            "proxy")


def _short_cause(exc: BaseException | str) -> str:
    text = str(exc)
    if isinstance(exc, requests.exceptions.Timeout) or "timed out" in text.lower():
        return f"no answer within {TIMEOUT_SECONDS:g} s"
    if isinstance(exc, requests.exceptions.ProxyError) or "ProxyError" in text:
        return "the proxy refused the connection"
    if isinstance(exc, requests.exceptions.SSLError) or "SSLError" in text:
        return "TLS handshake failed (a proxy rewriting HTTPS?)"
    m = re.search(r"\[Errno -?\d+\] ([^'\"()\]]+)", text)
    if m:
        return m.group(1).strip().rstrip(".").lower()
    if "NameResolution" in text or "Failed to resolve" in text:
        return "DNS lookup failed"
    return type(exc).__name__ if isinstance(exc, BaseException) else "connection failed"


def _swallowed_failure(printed: str, folder: str, missing: list[Filing], saved: int,
                       dest: Path) -> str:
    """sec-edgar-downloader caught the error and printed it; name it from what it printed."""
    status = re.search(r"\b(\d{3}) (?:Client|Server) Error", printed)
    if status:
        cause = _refusal(int(status.group(1)), WWW)
    elif re.search(r"Connection|Errno|resolve|timed out|Timeout", printed):
        cause = _unreachable(printed, WWW)
    else:
        last = printed.strip().splitlines()[-1] if printed.strip() else "no reason given"
        cause = f"SEC EDGAR did not deliver the filing ({last[:200]})"
    years = ", ".join(f"FY{f.fiscal_year}" for f in missing)
    return f"{cause} [{folder} {years} not saved; {saved} filings complete in {dest}]"


@contextlib.contextmanager
def _http_timeout():
    """Give sec-edgar-downloader's `requests.get` calls a timeout while we run.

    Its gateway calls `requests.get(uri, headers=...)` through its module global `requests`; we
    swap that one name for a shim adding `timeout=`, and put it back afterwards.
    """
    from sec_edgar_downloader import _sec_gateway

    real = _sec_gateway.requests

    class _WithTimeout:
        def __getattr__(self, name):
            return getattr(real, name)

        @staticmethod
        def get(*args, **kwargs):
            kwargs.setdefault("timeout", TIMEOUT_SECONDS)
            return real.get(*args, **kwargs)

    _sec_gateway.requests = _WithTimeout()
    try:
        yield
    finally:
        _sec_gateway.requests = real
