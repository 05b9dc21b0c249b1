"""`python -m ingest download` against a local stand-in for SEC EDGAR, never the network.

The stand-in is an http.server on 127.0.0.1 serving tests/fixtures/edgar/ by URL path and recording
every request's path and headers. sec-edgar-downloader is pointed at it by monkeypatching its three
URL constants where they are used (`_sec_gateway.URL_CIK_MAPPING`, `_orchestrator.URL_SUBMISSIONS`,
`_orchestrator.URL_FILING`); an autouse guard makes any other host unresolvable.
"""

from __future__ import annotations

import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from sec_edgar_downloader import _orchestrator, _sec_gateway

from finrag.ingest import download as dl_mod
from finrag.ingest.cli import main
from finrag.ingest.download import DownloadError, download, fiscal_year, parse_years

EDGAR = Path(__file__).resolve().parents[1] / "fixtures" / "edgar"
UA_COMPANY, UA_EMAIL = "Acme Research", "ops@acme-research.com"
FY2024 = "0000320193-24-000123"
FY2024_DIR = "Archives/edgar/data/320193/000032019324000123"


# -- the stand-in server ------------------------------------------------------------------------

class Edgar:
    """Serves EDGAR fixtures; `fail[prefix] = status` answers matching paths with that status."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.fail: dict[str, int] = {}
        edgar = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server's name
                edgar.requests.append((self.path, dict(self.headers)))
                status = next((s for p, s in edgar.fail.items() if self.path.startswith(p)), 0)
                file = EDGAR / self.path.lstrip("/")
                if not status and not (file.is_file() and EDGAR in file.resolve().parents):
                    status = 404
                body = file.read_bytes() if not status else b"<html>nope</html>"
                self.send_response(status or 200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):  # keep test output quiet
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        # a short poll interval: shutdown() waits up to one interval (0.5 s by default)
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.01,),
                                       daemon=True)
        self.thread.start()

    def paths(self) -> list[str]:
        return [p for p, _ in self.requests]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def point_library_at(monkeypatch, base: str) -> None:
    monkeypatch.setattr(_sec_gateway, "URL_CIK_MAPPING",
                        f"{base}/files/company_tickers_exchange.json")
    monkeypatch.setattr(_orchestrator, "URL_SUBMISSIONS", f"{base}/submissions/{{submission}}")
    monkeypatch.setattr(_orchestrator, "URL_FILING",
                        f"{base}/Archives/edgar/data/{{cik}}/{{acc_num_no_dash}}/{{document}}")


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Only loopback resolves: a test that tried to reach SEC fails instead of leaking out."""
    real = socket.getaddrinfo

    def loopback_only(host, *args, **kwargs):
        if host not in ("127.0.0.1", "localhost"):
            raise socket.gaierror(socket.EAI_NONAME, f"test guard: no network ({host})")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", loopback_only)


@pytest.fixture
def edgar(monkeypatch):
    server = Edgar()
    point_library_at(monkeypatch, server.base)
    yield server
    server.close()


def get(tmp_path, years=(2024,), tickers=("AAPL",), email=UA_EMAIL):
    return download(list(tickers), list(years), email=email, company=UA_COMPANY, dest=tmp_path)


# -- arguments ----------------------------------------------------------------------------------

def test_parse_years():
    assert parse_years("2019-2024") == [2019, 2020, 2021, 2022, 2023, 2024]
    assert parse_years("2023") == [2023]
    assert parse_years("2019,2021") == [2019, 2021]
    assert parse_years(" 2021, 2018-2019,2021 ") == [2018, 2019, 2021]
    for bad in ("abc", "", "2024-2019", "23", "2019-", "1900", "2019;2020"):
        with pytest.raises(DownloadError) as err:
            parse_years(bad)
        assert str(err.value) == (f"--years {bad!r}: use a year like 2023 or a range like "
                                  "2019-2024")


def test_fiscal_year_is_the_year_the_period_ends_in_except_the_first_week_of_jan_or_feb():
    assert fiscal_year("2023-09-30") == 2023  # Apple
    assert fiscal_year("20240128") == 2024  # NVIDIA calls this fiscal 2024
    assert fiscal_year("2022-01-01") == 2021  # a 52/53-week fiscal 2021
    assert fiscal_year("2025-02-02") == 2024  # Home Depot's fiscal 2024 (dei says 2024)
    assert fiscal_year("2021-12-31") == 2021
    assert fiscal_year("") is None


def test_home_depot_fiscal_2024_is_the_10k_for_the_year_ending_2025_02_02(edgar):
    """HD's own dei:DocumentFiscalYearFocus for the period ending 2025-02-02 is 2024."""
    listing = dl_mod._list_10ks("0000354950", f"{UA_COMPANY} {UA_EMAIL}", 2023)
    fy2024 = [f.accession for f in listing if f.fiscal_year == 2024]
    assert "0000354950-25-000085" in fy2024


def test_missing_or_invalid_email_is_refused_before_any_request(edgar, tmp_path):
    for email in (None, "", "  "):
        with pytest.raises(DownloadError) as err:
            get(tmp_path, email=email)
        assert str(err.value) == "SEC requires a contact email: pass --email you@example.com"
    for email in ("you", "you@localhost", "a b@c.com", "you@example.com\nX-Evil: 1"):
        with pytest.raises(DownloadError, match="not an email address"):
            get(tmp_path, email=email)
    with pytest.raises(DownloadError, match="--company"):
        download(["AAPL"], [2024], email=UA_EMAIL, company=" ", dest=tmp_path)
    assert edgar.requests == []


# -- downloads ----------------------------------------------------------------------------------

def test_download_saves_the_fiscal_year_asked_for_in_the_downloader_layout(edgar, tmp_path):
    assert get(tmp_path, years=[2024], tickers=["aapl"]) == 1

    filing = tmp_path / "sec-edgar-filings" / "AAPL" / "10-K" / FY2024
    assert sorted(p.name for p in filing.iterdir()) == ["full-submission.txt",
                                                        "primary-document.html"]
    assert (filing / "full-submission.txt").read_bytes() == \
        (EDGAR / FY2024_DIR / f"{FY2024}.txt").read_bytes()
    assert (filing / "primary-document.html").read_bytes() == \
        (EDGAR / FY2024_DIR / "aapl-20240928.htm").read_bytes()
    # only the FY2024 10-K was fetched: not FY2023 (filed 2023) nor FY2025, nor the 10-Qs
    assert edgar.paths() == [
        "/files/company_tickers_exchange.json",
        "/submissions/CIK0000320193.json",  # ours, to read periods of report
        "/submissions/CIK0000320193.json",  # sec-edgar-downloader's own
        f"/{FY2024_DIR}/{FY2024}.txt",
        f"/{FY2024_DIR}/aapl-20240928.htm",
    ]
    for _, headers in edgar.requests:
        assert headers["User-Agent"] == f"{UA_COMPANY} {UA_EMAIL}"
    assert list((tmp_path / "sec-edgar-filings").iterdir()) == [tmp_path / "sec-edgar-filings" /
                                                               "AAPL"]


def test_rerun_fetches_no_filing_again(edgar, tmp_path):
    assert get(tmp_path) == 1
    edgar.requests.clear()
    assert get(tmp_path) == 1
    assert not [p for p in edgar.paths() if p.startswith("/Archives/")]


def test_a_filing_sec_does_not_deliver_is_an_error_naming_it(edgar, tmp_path):
    # FY2023's documents are not in the fixtures -> 404, which sec-edgar-downloader only prints
    with pytest.raises(DownloadError) as err:
        get(tmp_path, years=[2023, 2024])
    msg = str(err.value)
    assert "HTTP 404" in msg and "AAPL FY2023 not saved" in msg and "1 filings complete" in msg
    assert "\n" not in msg
    assert (tmp_path / "sec-edgar-filings/AAPL/10-K" / FY2024 / "primary-document.html").exists()
    assert not any("000032019322000108" in p for p in edgar.paths())  # FY2022 never asked for


def test_no_filing_for_the_years_downloads_nothing(edgar, tmp_path):
    assert get(tmp_path, years=[2030]) == 0
    assert not [p for p in edgar.paths() if p.startswith("/Archives/")]


def test_unknown_ticker_is_named_before_anything_is_downloaded(edgar, tmp_path):
    with pytest.raises(DownloadError) as err:
        get(tmp_path, tickers=["AAPL", "NOPE"])
    assert str(err.value).startswith("unknown ticker 'NOPE'")
    assert edgar.paths() == ["/files/company_tickers_exchange.json"]


def test_share_class_tickers_take_either_spelling():
    mapping = {"BRK-B": "0001067983"}
    assert dl_mod._resolve("BRK.B", mapping) == ("BRK-B", "BRK-B", "0001067983")
    assert dl_mod._resolve("320193", mapping) == ("320193", "0000320193", "0000320193")


# -- SEC refusing, failing, unreachable ---------------------------------------------------------

@pytest.mark.parametrize("where", ["/files/", "/submissions/", "/Archives/"])
def test_http_403_anywhere_is_one_line_naming_403(edgar, tmp_path, where, capsys):
    edgar.fail[where] = 403
    with pytest.raises(DownloadError) as err:
        get(tmp_path)
    assert str(err.value).startswith("SEC refused the request (HTTP 403): ")
    assert "\n" not in str(err.value)
    assert capsys.readouterr().out == ""  # sec-edgar-downloader's own print is swallowed
    assert not list(tmp_path.rglob("primary-document.*"))


@pytest.mark.parametrize("status,text", [(429, "HTTP 429, too many requests"),
                                         (503, "SEC EDGAR failed (HTTP 503)")])
def test_rate_limit_and_server_errors(edgar, tmp_path, status, text):
    edgar.fail["/submissions/"] = status
    with pytest.raises(DownloadError, match=re.escape(text)):
        get(tmp_path)


def test_connection_refused_is_cannot_reach(monkeypatch, tmp_path):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    point_library_at(monkeypatch, f"http://127.0.0.1:{port}")
    with pytest.raises(DownloadError) as err:
        get(tmp_path)
    assert str(err.value) == ("cannot reach SEC EDGAR (www.sec.gov): connection refused; "
                              "check your network or proxy")


def test_dns_failure_is_cannot_reach(monkeypatch, tmp_path):
    point_library_at(monkeypatch, "http://www.sec.gov.invalid")  # the guard refuses to resolve
    with pytest.raises(DownloadError, match=r"^cannot reach SEC EDGAR \(www.sec.gov\): "):
        get(tmp_path)


def test_a_server_that_never_answers_times_out(monkeypatch, tmp_path):
    monkeypatch.setattr(dl_mod, "TIMEOUT_SECONDS", 0.3)
    with socket.socket() as s:  # accepts connections (backlog) but never replies
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        point_library_at(monkeypatch, f"http://127.0.0.1:{s.getsockname()[1]}")
        with pytest.raises(DownloadError, match=r"cannot reach SEC EDGAR .*no answer within 0.3 s"):
            get(tmp_path)
    import requests
    assert _sec_gateway.requests is requests  # the timeout shim is gone afterwards


def test_not_json_is_explained(edgar, tmp_path):
    edgar.fail["/files/"] = 200  # answers 200 with an HTML body, as a captive portal would
    with pytest.raises(DownloadError, match="not JSON"):
        get(tmp_path)


# -- the CLI ------------------------------------------------------------------------------------

def test_cli_without_email_exits_1_with_one_line(edgar, tmp_path, capsys):
    rc = main(["download", "--tickers", "AAPL", "--years", "2024", "--dest", str(tmp_path)])
    out, err = capsys.readouterr()
    assert rc == 1 and out == ""
    assert err == "error: SEC requires a contact email: pass --email you@example.com\n"
    assert edgar.requests == []


def test_cli_when_sec_refuses_exits_1_with_one_line(edgar, tmp_path, capsys):
    edgar.fail["/"] = 403
    rc = main(["download", "--tickers", "AAPL", "--years", "2024", "--email", UA_EMAIL,
               "--dest", str(tmp_path)])
    out, err = capsys.readouterr()
    assert rc == 1 and out == ""
    assert err.startswith("error: SEC refused the request (HTTP 403): ") and err.count("\n") == 1


def test_cli_offline_exits_1_with_one_line(monkeypatch, tmp_path, capsys):
    point_library_at(monkeypatch, "http://www.sec.gov.invalid")
    rc = main(["download", "--tickers", "AAPL", "--years", "2024", "--email", UA_EMAIL,
               "--dest", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 1 and err.startswith("error: cannot reach SEC EDGAR") and err.count("\n") == 1


def test_cli_bad_years_exits_1(capsys):
    rc = main(["download", "--tickers", "AAPL", "--years", "abc", "--email", UA_EMAIL])
    assert rc == 1
    assert capsys.readouterr().err == ("error: --years 'abc': use a year like 2023 or a range "
                                       "like 2019-2024\n")


def test_cli_downloads(edgar, tmp_path, capsys):
    rc = main(["download", "--tickers", "AAPL", "--years", "2024", "--email", UA_EMAIL,
               "--company", UA_COMPANY, "--dest", str(tmp_path)])
    assert rc == 0
    assert capsys.readouterr().out == (f"downloaded 1 filings into {tmp_path}; index them with "
                                       f"`python -m ingest build {tmp_path}`\n")
    assert (tmp_path / "sec-edgar-filings/AAPL/10-K" / FY2024 / "full-submission.txt").exists()
