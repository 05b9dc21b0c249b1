"""The app in a real browser: `streamlit run` + Debian's chromium driven by Playwright.

Never downloads a browser: it uses /usr/bin/chromium (CI installs it via .ci/run) and skips
without it. Writes artifacts/app.png and artifacts/browser-timings.json (artifacts/ is ignored).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = REPO / "artifacts"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url: str, proc: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited early with code {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.3)
    raise TimeoutError(f"streamlit did not answer {url} within {timeout:.0f} s")


@contextmanager
def served_app(data_dir: Path, log_path: Path):
    """`streamlit run app.py` over `data_dir` on a free local port; yields its URL, stops it
    after."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "FINRAG_DATA_DIR": str(data_dir),
           "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    env.pop("FINRAG_QDRANT_URL", None)
    with open(log_path, "wb") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(REPO / "app.py"),
             "--server.port", str(port), "--server.address", "127.0.0.1",
             "--server.headless", "true", "--browser.gatherUsageStats", "false"],
            cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
        )
        try:
            wait_http(f"{url}/_stcore/health", server)
            yield url
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


@contextmanager
def browser_serving(data_dir: Path, tmp_path: Path, scrollbars: bool = False):
    """The app served on `data_dir` and a headless chromium: yields (browser, url, playwright's
    sync_api); skips where chromium or playwright is missing. `scrollbars` draws them, as a
    desktop browser does (headless hides them)."""
    if not CHROMIUM.exists():
        pytest.skip(f"needs {CHROMIUM} (apt-get install chromium); never downloads a browser")
    sync_api = pytest.importorskip("playwright.sync_api")
    with served_app(data_dir, tmp_path / "streamlit.log") as url:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS,
                ignore_default_args=["--hide-scrollbars"] if scrollbars else None)
            try:
                yield browser, url, sync_api
            finally:
                browser.close()


@contextmanager
def asked_in_browser(data_dir: Path, tmp_path: Path, question: str, width: int = 1440):
    """The app served on `data_dir`, chromium opened on `?q=<question>`: yields (page,
    playwright's sync_api)."""
    import urllib.parse

    with browser_serving(data_dir, tmp_path) as (browser, url, sync_api):
        page = browser.new_page(viewport={"width": width, "height": 1000})
        page.goto(f"{url}/?q={urllib.parse.quote(question)}", wait_until="domcontentloaded")
        yield page, sync_api


def test_question_in_a_real_browser(sample_index, tmp_path):
    if not CHROMIUM.exists():
        pytest.skip(f"needs {CHROMIUM} (apt-get install chromium); never downloads a browser")
    sync_api = pytest.importorskip("playwright.sync_api")

    dialogs: list[str] = []
    timings: dict[str, float] = {}
    with served_app(sample_index, tmp_path / "streamlit.log") as url:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                        args=CHROMIUM_ARGS)
            try:
                page = browser.new_page(viewport={"width": 1600, "height": 1200})
                page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
                t0 = time.perf_counter()
                page.goto(url, wait_until="domcontentloaded")
                box = page.get_by_label("Question")
                box.wait_for(state="visible", timeout=60_000)
                timings["page_load_s"] = time.perf_counter() - t0

                def ask(question: str, expect: str) -> float:
                    box.fill(question)
                    start = time.perf_counter()
                    box.press("Enter")
                    fused = page.locator(".st-key-col-fused")
                    sync_api.expect(fused.get_by_text(expect).first).to_be_visible(timeout=60_000)
                    # the run is finished when the status widget stops showing "Running"
                    page.wait_for_function(
                        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')",
                        timeout=60_000)
                    return time.perf_counter() - start

                timings["cold_enter_to_results_s"] = ask("Tesla R&D expense", "TSLA FY2024")
                for label in ("Dense", "BM25", "Fused (RRF)"):
                    sync_api.expect(
                        page.get_by_role("heading", name=label, exact=True)).to_be_visible()
                for key in ("col-dense", "col-bm25", "col-fused"):
                    assert page.locator(f".st-key-{key}").get_by_text(
                        "TSLA FY2024").count() > 0, key
                sync_api.expect(page.locator(".st-key-answer")).to_be_visible()
                answer = page.locator(".st-key-answer-figure")  # the figure, above the columns
                sync_api.expect(answer.get_by_text("$4,540 million").first).to_be_visible()

                ARTIFACTS.mkdir(exist_ok=True)
                page.screenshot(path=str(ARTIFACTS / "app.png"), full_page=False)

                timings["warm_enter_to_results_s"] = ask("Apple services net sales", "AAPL FY2024")
                assert "q=Apple" in page.url  # widget values are bound to the URL
            finally:
                browser.close()

    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "browser-timings.json").write_text(json.dumps(timings, indent=2) + "\n")
    print("\nbrowser timings:", json.dumps({k: round(v, 2) for k, v in timings.items()}))
    assert not dialogs, f"a JS dialog fired: {dialogs}"
