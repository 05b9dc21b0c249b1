"""A hostile filing in a real browser: its text holds script, img onerror, javascript: links,
CSS, an iframe and Streamlit Markdown / LaTeX directives. Indexed (fake embedder, real token
counter), served by `streamlit run`, searched in Debian's chromium: nothing may execute, load
or render as markup, and every hostile string must show as the characters it is.
"""

from __future__ import annotations

import html
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from conftest import FakeEmbedder
from test_browser import CHROMIUM, CHROMIUM_ARGS, served_app

from finrag.config import Settings
from finrag.embed import TokenCounter
from finrag.ingest.build import build

REPO = Path(__file__).resolve().parents[1]
HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '<a href="javascript:alert(1)">x</a>',
    "<style>body{display:none}</style>",
    '<iframe src="http://evil.example/frame"></iframe>',
    "[x](javascript:alert(1))",
    "![p](http://evil.example/pixel.png)",
    ":red[red alert]",
    "$$\\int_0^1 x\\,dx$$",
]
# what must not be in the result columns' DOM (from the filing's text, or the filing's own tags)
FORBIDDEN = ("script", "iframe", "style", "img[onerror]", "img[src='x']",
             "img[src*='evil']", "a[href^='javascript']", ".katex", "[style*='red']")

# event handlers and javascript: URLs on any element under a root
LIVE_ATTRIBUTES = """root => [...root.querySelectorAll('*')].flatMap(el => [...el.attributes]
    .filter(a => a.name.startsWith('on') || /^\\s*javascript:/i.test(a.value))
    .map(a => `${el.tagName} ${a.name}=${a.value}`))"""


def hostile_filing(path: Path) -> Path:
    """A small HTML 10-K: each hostile string escaped as body text, and a few raw tags too."""
    notes = "\n".join(f"<p>Zanzibar segment note {i}: {html.escape(h)} zanzibar.</p>"
                      for i, h in enumerate(HOSTILE))
    path.write_text(f"""<html><head><title>Evil Corp 10-K</title>
<script>alert('raw-head')</script><link rel="stylesheet" href="http://evil.example/x.css">
</head><body><p>FORM 10-K. Evil Corp.</p>
<p>Item 7. Management's Discussion and Analysis</p>
{notes}
<script>alert('raw-body')</script><img src=x onerror="alert('raw-img')">
<iframe src="http://evil.example/raw"></iframe></body></html>
""")
    return path


@pytest.mark.slow
def test_hostile_filing_shows_as_text_in_a_real_browser(tmp_path):
    if not CHROMIUM.exists():
        pytest.skip(f"needs {CHROMIUM} (apt-get install chromium); never downloads a browser")
    sync_api = pytest.importorskip("playwright.sync_api")
    data_dir = tmp_path / "data"
    report = build([hostile_filing(tmp_path / "evil-10k.htm")],
                   Settings(data_dir=data_dir, qdrant_url=None), FakeEmbedder(),
                   TokenCounter().count, ticker="EVIL", fiscal_year=2024)
    assert report.totals()["failed"] == 0 and report.totals()["chunks"] >= 2

    dialogs: list[str] = []
    foreign: list[str] = []
    with served_app(data_dir, tmp_path / "streamlit.log") as url:
        host = urlsplit(url).netloc

        def on_request(request) -> None:
            parts = urlsplit(request.url)
            if parts.scheme not in ("data", "blob", "about") and parts.netloc != host:
                foreign.append(request.url)

        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                        args=CHROMIUM_ARGS)
            try:
                page = browser.new_page(viewport={"width": 1600, "height": 1200})
                page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
                page.on("request", on_request)
                page.goto(url, wait_until="domcontentloaded")
                box = page.get_by_label("Question")
                box.wait_for(state="visible", timeout=90_000)
                box.fill("zanzibar segment note")
                box.press("Enter")
                fused = page.locator(".st-key-col-fused")
                sync_api.expect(fused.get_by_text("EVIL FY2024").first).to_be_visible(
                    timeout=90_000)
                page.wait_for_function(
                    "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')",
                    timeout=90_000)
                for expander in fused.get_by_text("Full chunk").all():
                    expander.click()  # the whole chunk, as st.text
                page.wait_for_timeout(1000)  # let anything that would run, run

                for text in HOSTILE:  # waits for the expanders to render on a loaded machine
                    sync_api.expect(fused).to_contain_text(text, use_inner_text=True,
                                                         timeout=30_000)
                for key in ("col-dense", "col-bm25", "col-fused", "answer"):
                    block = page.locator(f".st-key-{key}")
                    for selector in FORBIDDEN:
                        assert block.locator(selector).count() == 0, (key, selector,
                                                                      block.inner_html())
                    assert block.evaluate(LIVE_ATTRIBUTES) == [], key
                assert page.locator("a[href^='javascript']").count() == 0
                assert page.locator("iframe").count() == 0
                assert page.evaluate("getComputedStyle(document.body).display") != "none"
                sync_api.expect(fused).to_be_visible()
            finally:
                browser.close()

    assert not dialogs, f"a JS dialog fired: {dialogs}"
    assert not foreign, f"requests left the app's host: {foreign}"
