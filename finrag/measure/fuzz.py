"""Fuzzed filings: mutate real 10-Ks and check that every bad one becomes one clear line.

`fuzz(cases, seed)` builds seeded cases from real filings in tests/fixtures/ingest (1999 HTML,
2024 inline-XBRL HTML, an SGML submission with iXBRL, a tag-stripped 1995 text submission, and
an 8-page PDF printed from the 1999 filing), each damaged by one mutation: truncation, flipped
or inserted bytes, long runs of one character, a repeated region, broken or unclosed tags, the
wrong encoding, an empty file, binary junk named .htm, a damaged PDF, nesting thousands of
levels deep, or (one case in every 500) a 50 MB file. Case n depends only on (seed, n), so a
case found by a long run comes out the same in a short one.

Each case is written in the downloader's `<TICKER>/10-K/<accession>/` layout and goes through
the normal reading path (`locate` -> `read_filing` -> `split_sections` -> `chunk_filing`, real
token counter). Outcomes:

- ok: chunks came out (non-empty texts, unique ids);
- clean: a `ReadError` whose message is one non-empty line naming the file;
- bugs: `uncaught` (any other exception), `safety_net` (an internal error that only
  `read_filing`'s catch-all turned into a ReadError), `bad_message` (empty, multi-line or not
  naming the file), `bad_chunks` (empty text or duplicate ids), `lost_text` (an "ok" read of a
  file that only had bytes added lacks the last paragraphs of the original: the reader dropped
  part of the filing without saying so), `hang` (over the time limit).
"""

from __future__ import annotations

import gzip
import random
import re
import resource
import shutil
import signal
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

from finrag.ingest.chunk import chunk_filing
from finrag.ingest.read import ReadError, locate, read_filing
from finrag.ingest.sections import split_sections

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "ingest"
HUGE_BYTES = 50 * 2**20
HUGE_EVERY = 500  # case n is the 50 MB one when n % HUGE_EVERY == HUGE_EVERY // 2
CASE_SECONDS = 60.0  # generous: a normal case takes well under 2 s on a loaded 2-core box
HUGE_SECONDS = 600.0
BUGS = ("uncaught", "safety_net", "bad_message", "bad_chunks", "lost_text", "hang")
# mutations that only add bytes: an "ok" read of them must still hold the end of the filing
ADDITIVE = {"insert_bytes", "long_run", "repeat_region", "deep_nesting", "huge_50mb"}


@dataclass(frozen=True)
class Seed:
    name: str
    fixture: str  # under tests/fixtures/ingest; .gz is unpacked
    layout: str  # where a case puts it: <TICKER>/10-K/<accession>/<file>
    kind: str  # "html" | "sgml" | "text" | "pdf"


SEEDS = (
    Seed("html-1999", "other/0000950153-99-001234/primary-document.html.gz",
         "MRX/10-K/0000950153-99-001234/primary-document.html", "html"),
    Seed("ixbrl-2024", "sec-edgar-filings/AAPL/10-K/0000320193-24-000123/primary-document.html.gz",
         "AAPL/10-K/0000320193-24-000123/primary-document.html", "html"),
    Seed("sgml-2020",
         "sec-edgar-filings/TSLA/10-K/0001564590-20-004475/full-submission.minimal.txt",
         "TSLA/10-K/0001564590-20-004475/full-submission.txt", "sgml"),
    Seed("text-1995", "sec-edgar-filings/AAPL/10-K/0000320193-95-000016/"
         "full-submission.tagstripped.txt.gz",
         "AAPL/10-K/0000320193-95-000016/full-submission.txt", "text"),
    # printed with `chromium --headless --print-to-pdf` from the 1999 HTML, pages 1-8 kept
    Seed("pdf-1999", "pdf/medicis-10-k-1999-pages-1-8.pdf",
         "MRX/10-K/0000950153-99-001234/medicis-10-k-1999.pdf", "pdf"),
)


@dataclass
class Case:
    number: int
    mutation: str
    seed: str
    detail: str
    path: str  # relative path of the written file, under the case folder
    data: bytes = field(repr=False)


@dataclass
class Outcome:
    case: int
    mutation: str
    seed: str
    detail: str
    status: str  # "ok" | "clean" | one of BUGS
    message: str = ""
    chunks: int = 0
    seconds: float = 0.0


# ---------------------------------------------------------------------------------------------
# mutations: (rng, data, seed) -> (data, detail[, file name])


def _truncate(rng, data, seed):
    at = rng.randrange(len(data))
    return data[:at], f"cut at byte {at:,} of {len(data):,}"


def _flip_bytes(rng, data, seed):
    out = bytearray(data)
    n = rng.choice((1, 10, 100, 1000))
    for _ in range(n):
        out[rng.randrange(len(out))] ^= rng.randrange(1, 256)
    return bytes(out), f"{n} bytes flipped"


def _insert_bytes(rng, data, seed):
    out = bytearray(data)
    n = rng.choice((1, 10, 100))
    for _ in range(n):
        at = rng.randrange(len(out) + 1)
        out[at:at] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 65)))
    return bytes(out), f"{n} runs of random bytes inserted"


_RUN_UNITS = (b" ", b"\t", b"\n", b"\r", b"-", b"$", b"1", b"a", b"<", b"&nbsp;", b"<br>",
              b"Item 7. ", b"\f", b"\xc2\xa0")


def _long_run(rng, data, seed):
    unit = rng.choice(_RUN_UNITS)
    length = rng.choice((10_000, 100_000, 1_000_000))
    at = rng.randrange(len(data))
    run = unit * (length // len(unit))
    return data[:at] + run + data[at:], f"{len(run):,} bytes of {unit!r} at {at:,}"


def _repeat_region(rng, data, seed):
    start = rng.randrange(len(data))
    region = data[start:start + rng.choice((100, 2_000, 20_000))]
    times = max(2, min(10_000, 2_000_000 // max(len(region), 1)))
    return data[:start] + region * times + data[start:], f"{len(region):,} bytes x {times:,}"


def _broken_tags(rng, data, seed):
    out = bytearray(data)
    opens = [m.start() for m in re.finditer(rb"[<>]", data)]
    n = min(len(opens), rng.choice((1, 10, 100, 1000)))
    hits = sorted(rng.sample(opens, n), reverse=True)
    style = rng.choice(("drop", "stray", "swap"))
    for i in hits:
        if style == "drop":
            del out[i]
        elif style == "stray":
            out[i:i] = rng.choice((b"<", b">", b"</", b"<!--", b"<![CDATA[", b"<?", b'"'))
        else:
            out[i] = ord(">") if out[i] == ord("<") else ord("<")
    return bytes(out), f"{n} tag brackets ({style})"


_CLOSERS = (b"</td>", b"</tr>", b"</table>", b"</div>", b"</p>", b"</font>", b"</span>",
            b"</body>", b"</html>", b"</TEXT>", b"</DOCUMENT>", b"</ix:nonNumeric>")
_OPENERS = (b"<table><tr><td>", b"<script>", b"<style>", b"<!--", b"<title>", b"<div style=\"",
            b"<td>", b"<textarea>", b"<![CDATA[", b"<TEXT>", b"<DOCUMENT>")


def _unclosed_tags(rng, data, seed):
    if rng.random() < 0.5:
        closer = rng.choice(_CLOSERS)
        out = data.replace(closer, b"").replace(closer.lower(), b"")
        return out, f"every {closer.decode()} removed"
    opener = rng.choice(_OPENERS)
    at = rng.randrange(len(data))
    return data[:at] + opener + data[at:], f"{opener.decode()} left open at {at:,}"


_ENCODINGS = ("utf-16", "utf-16-le", "utf-16-be", "utf-32", "latin-1", "cp1252", "utf-8-sig",
              "mixed")


def _wrong_encoding(rng, data, seed):
    text = data.decode("utf-8", errors="replace")
    encoding = rng.choice(_ENCODINGS)
    if seed.kind in {"html", "sgml"} and rng.random() < 0.5:
        text = text.replace("&nbsp;", "\xa0").replace("&#8217;", "’").replace("&#8220;", "“")
    if encoding == "mixed":
        half = len(text) // 2
        return text[:half].encode("utf-8") + text[half:].encode("cp1252", "replace"), encoding
    return text.encode(encoding, errors="replace"), encoding


def _empty(rng, data, seed):
    kind = rng.choice((b"", b" \n\t\r\n", b"\xef\xbb\xbf", b"\n" * 10_000, b"\x00",
                       b"<html></html>", b"<html><body></body></html>", b"\xff\xfe"))
    return kind, f"content {kind[:20]!r}"


def _binary_junk(rng, data, seed):
    size = rng.choice((16, 4096, 100_000, 1_000_000))
    style = rng.choice(("random", "png", "zip", "high-bytes", "gzipped-filing"))
    if style == "gzipped-filing":
        body = gzip.compress(data, compresslevel=1)
    else:
        pool = range(128, 256) if style == "high-bytes" else range(256)
        body = bytes(rng.choice(pool) for _ in range(min(size, 20_000)))
        body = (body * (size // len(body) + 1))[:size]
        body = {"png": b"\x89PNG\r\n\x1a\n", "zip": b"PK\x03\x04"}.get(style, b"") + body
    return body, f"{style}, {len(body):,} bytes", "primary-document.html"


def _damaged_pdf(rng, data, seed):
    style = rng.choice(("truncate", "flip", "no-xref", "zero-stream", "header-only", "appended",
                        "no-eof"))
    if style == "truncate":
        return data[:rng.randrange(len(data))], style
    if style == "flip":
        return _flip_bytes(rng, data, seed)[0], style
    if style == "no-xref":
        return data[:data.rfind(b"xref")], style
    if style == "zero-stream":
        at = data.find(b"stream", rng.randrange(len(data) // 2))
        at = at if at >= 0 else 0
        return data[:at + 7] + b"\x00" * 4000 + data[at + 4007:], style
    if style == "header-only":
        return data[:rng.choice((5, 9, 64, 1024))], style
    if style == "appended":
        return data + bytes(rng.randrange(256) for _ in range(5000)), style
    return data.replace(b"%%EOF", b""), style


_NESTS = (b"<table><tr><td>", b"<div>", b"<font>", b"<ul><li>", b"<table>", b"<span>", b"<b><i>")


def _deep_nesting(rng, data, seed):
    unit = rng.choice(_NESTS)
    depth = rng.choice((300, 1_000, 5_000, 20_000))
    closed = rng.random() < 0.5
    inner = b"1,234" if b"td" in unit else b"nested text"
    nest = unit * depth + inner
    if closed:
        nest += b"".join(b"</" + t + b">" for t in _tag_names(unit)[::-1]) * depth
    body = data.lower().find(b"<body")
    start = data.find(b">", body) + 1 if body >= 0 else rng.randrange(len(data))
    at = rng.randrange(start, max(start + 1, len(data) - 10_000))
    at = data.rfind(b">", 0, at) + 1 or at
    state = "closed" if closed else "open"
    return data[:at] + nest + data[at:], f"{depth:,} x {unit.decode()}, {state}"


def _tag_names(unit: bytes) -> list[bytes]:
    return [t.split(b">")[0] for t in unit.split(b"<") if t]


def _huge(rng, data, seed, size=HUGE_BYTES):
    """A 50 MB file made of the seed: its body repeated, or a submission with a huge exhibit."""
    if seed.kind == "sgml":
        exhibit = bytes(rng.randrange(32, 127) for _ in range(60)) + b"\n"
        tail = (b"<DOCUMENT>\n<TYPE>EX-99\n<SEQUENCE>2\n<TEXT>\nbegin 644 scan.jpg\n"
                + exhibit * (size // len(exhibit)) + b"end\n</TEXT>\n</DOCUMENT>\n")
        cut = data.rfind(b"</SEC-DOCUMENT>")
        cut = cut if cut >= 0 else len(data)
        return data[:cut] + tail + data[cut:], f"submission + {len(tail):,}-byte exhibit"
    lower = data.lower()
    start = lower.find(b"<body")
    start = data.find(b">", start) + 1 if start >= 0 else 0
    end = lower.rfind(b"</body")
    end = end if end > start else len(data)
    body = data[start:end]
    out = data[:start] + body * (size // len(body) + 1) + data[end:]
    return out, f"body repeated to {len(out):,} bytes"


# name -> (function, seed kinds it applies to)
MUTATIONS: dict[str, tuple[Callable, set[str]]] = {
    "truncate": (_truncate, {"html", "sgml", "text", "pdf"}),
    "flip_bytes": (_flip_bytes, {"html", "sgml", "text", "pdf"}),
    "insert_bytes": (_insert_bytes, {"html", "sgml", "text", "pdf"}),
    "long_run": (_long_run, {"html", "sgml", "text"}),
    "repeat_region": (_repeat_region, {"html", "sgml", "text"}),
    "broken_tags": (_broken_tags, {"html", "sgml"}),
    "unclosed_tags": (_unclosed_tags, {"html", "sgml"}),
    "wrong_encoding": (_wrong_encoding, {"html", "sgml", "text"}),
    "empty": (_empty, {"html", "sgml", "text"}),
    "binary_junk": (_binary_junk, {"html", "sgml", "text"}),
    "damaged_pdf": (_damaged_pdf, {"pdf"}),
    "deep_nesting": (_deep_nesting, {"html", "sgml"}),
}
HUGE = "huge_50mb"


# ---------------------------------------------------------------------------------------------
# cases


def make_case(number: int, seed: int = 0, huge_bytes: int = HUGE_BYTES) -> Case:
    """Case `number` of run `seed`: its mutation is round-robin (every one comes up in any
    dozen cases), its seed filing and details come from a generator seeded by (seed, number)."""
    rng = random.Random(f"finrag-fuzz/{seed}/{number}")
    if number % HUGE_EVERY == HUGE_EVERY // 2:
        name, function, kinds = HUGE, lambda r, d, s: _huge(r, d, s, huge_bytes), {"html", "sgml"}
    else:
        name = list(MUTATIONS)[number % len(MUTATIONS)]
        function, kinds = MUTATIONS[name]
    source = rng.choice([s for s in SEEDS if s.kind in kinds])
    data, detail, *renamed = function(rng, seed_bytes(source.name), source)
    path = source.layout if not renamed else str(Path(source.layout).parent / renamed[0])
    return Case(number, name, source.name, detail, path, data)


def cases(n: int, seed: int = 0, huge_bytes: int = HUGE_BYTES) -> Iterator[Case]:
    for number in range(n):
        yield make_case(number, seed, huge_bytes)


_SEED_BYTES: dict[str, bytes] = {}


def seed_bytes(name: str) -> bytes:
    """The unmutated bytes of one seed filing."""
    if name not in _SEED_BYTES:
        source = next(s for s in SEEDS if s.name == name)
        path = FIXTURES / source.fixture
        if not path.exists():
            raise FileNotFoundError(f"fuzz seed {path} is missing (it ships in tests/fixtures)")
        raw = path.read_bytes()
        _SEED_BYTES[name] = gzip.decompress(raw) if path.suffix == ".gz" else raw
    return _SEED_BYTES[name]


# ---------------------------------------------------------------------------------------------
# running


class CaseTimeout(BaseException):
    """Raised in the reading code when a case runs over its time (not an Exception, so no
    handler in the code under test swallows it)."""


@contextmanager
def _time_limit(seconds: float):
    if not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum, frame):
        raise CaseTimeout()

    try:
        previous = signal.signal(signal.SIGALRM, expire)
    except ValueError:  # not the main thread: run without a limit
        yield
        return
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def write_case(case: Case, folder: Path) -> Path:
    """Write the case's file under `folder` in its filing layout; returns `folder`."""
    target = folder / case.path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(case.data)
    return folder


def run_case(case: Case, folder: Path, count) -> Outcome:
    """Read, section and chunk one written case; classify what happened."""
    outcome = Outcome(case.number, case.mutation, case.seed, case.detail, "ok")
    limit = HUGE_SECONDS if case.mutation == HUGE else CASE_SECONDS
    started = time.perf_counter()
    try:
        with _time_limit(limit):
            for unit in locate([folder]):
                outcome.chunks += _chunk_count(unit, count, case)
    except ReadError as exc:
        outcome.status, outcome.message = _judge_error(exc, folder), str(exc)
    except CaseTimeout:
        outcome.status, outcome.message = "hang", f"still running after {limit:.0f} s"
    except _BadChunks as exc:
        outcome.status, outcome.message = exc.status, str(exc)
    except Exception as exc:  # the bug the fuzzer is looking for
        outcome.status, outcome.message = "uncaught", _where(exc)
    if outcome.status == "ok" and not outcome.chunks:
        outcome.status, outcome.message = "clean", "no chunks (build reports: no text found)"
    outcome.seconds = round(time.perf_counter() - started, 3)
    return outcome


class _BadChunks(Exception):
    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status


def _chunk_count(unit: Path, count, case: Case) -> int:
    filing = read_filing(unit)
    chunks = chunk_filing(filing, split_sections(filing.blocks), count)
    if any(not c.text.strip() for c in chunks):
        raise _BadChunks("bad_chunks", f"{unit.name}: a chunk with empty text")
    if len({c.chunk_id for c in chunks}) != len(chunks):
        raise _BadChunks("bad_chunks", f"{unit.name}: duplicate chunk ids")
    if case.mutation in ADDITIVE and not _keeps_the_end(filing, case.seed):
        raise _BadChunks("lost_text", f"{unit.name}: read 'ok' but the filing's last "
                                      "paragraphs are missing")
    return len(chunks)


_SEED_ENDS: dict[str, list[str]] = {}


def _keeps_the_end(filing, seed: str) -> bool:
    """True if one of the unmutated seed's last 5 text blocks is in the filing read."""
    if seed not in _SEED_ENDS:
        source = next(s for s in SEEDS if s.name == seed)
        with tempfile.TemporaryDirectory(prefix="finrag-fuzz-seed-") as tmp:
            path = Path(tmp) / source.layout
            path.parent.mkdir(parents=True)
            path.write_bytes(seed_bytes(seed))
            blocks = read_filing(path.parent if path.suffix != ".pdf" else path).blocks
        _SEED_ENDS[seed] = [_letters(b.text) for b in blocks if b.kind == "text"][-5:]
    text = _letters(" ".join(b.text for b in filing.blocks[-2000:]))
    return not _SEED_ENDS[seed] or any(end in text for end in _SEED_ENDS[seed])


def _letters(text: str) -> str:
    """Letters and digits only: paragraph joins and spacing may differ, the words may not."""
    return re.sub(r"[\W_]+", "", text)


def _judge_error(exc: ReadError, folder: Path) -> str:
    if getattr(exc, "internal", False):
        return "safety_net"
    message = str(exc)
    names = {p.name for p in folder.rglob("*")}
    if not message.strip() or "\n" in message or "\r" in message:
        return "bad_message"
    return "clean" if any(name in message for name in names) else "bad_message"


def _where(exc: BaseException) -> str:
    """'KeyError: 'x' at read.py:123 in _walk' -- one line for the report."""
    frames = traceback.extract_tb(exc.__traceback__)
    last = frames[-1] if frames else None
    place = f" at {Path(last.filename).name}:{last.lineno} in {last.name}" if last else ""
    return f"{type(exc).__name__}: {str(exc)[:160]}{place}".replace("\n", " ")


# ---------------------------------------------------------------------------------------------
# a run


@dataclass
class FuzzReport:
    seed: int
    outcomes: list[Outcome]
    seconds: float
    peak_rss_mb: int

    def totals(self) -> dict:
        statuses = [o.status for o in self.outcomes]
        return {
            "cases": len(statuses),
            "ok": statuses.count("ok"),
            "clean_failures": statuses.count("clean"),
            **{bug: statuses.count(bug) for bug in BUGS},
            "bugs": sum(s in BUGS for s in statuses),
        }

    def by_mutation(self) -> dict[str, dict[str, int]]:
        table: dict[str, dict[str, int]] = {}
        for o in self.outcomes:
            row = table.setdefault(o.mutation, {"cases": 0, "ok": 0, "clean": 0, "bugs": 0})
            row["cases"] += 1
            row["bugs" if o.status in BUGS else o.status] += 1
        return table

    def to_json(self) -> dict:
        slowest = max(self.outcomes, key=lambda o: o.seconds, default=None)
        return {
            "seed": self.seed,
            **self.totals(),
            "mutations": self.by_mutation(),
            "seconds": round(self.seconds, 1),
            "peak_rss_mb": self.peak_rss_mb,
            "slowest": asdict(slowest) if slowest else None,
            "bug_cases": [asdict(o) for o in self.outcomes if o.status in BUGS],
        }


def fuzz(n: int = 1000, seed: int = 0, *, count=None, keep: Path | None = None,
         huge_bytes: int = HUGE_BYTES, progress: Callable[[Outcome], None] | None = None,
         ) -> FuzzReport:
    """Run cases 0..n-1 of run `seed`. `keep` leaves every case's files in that folder."""
    if n < 0:
        raise ValueError(f"the number of cases must be 0 or more, not {n}")
    if count is None:
        from finrag.embed import TokenCounter

        count = TokenCounter().count
    started = time.perf_counter()
    root = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="finrag-fuzz-"))
    outcomes = []
    try:
        for case in cases(n, seed, huge_bytes):
            folder = write_case(case, root / f"case-{case.number:05d}-{case.mutation}")
            outcomes.append(run_case(case, folder, count))
            if not keep:
                shutil.rmtree(folder, ignore_errors=True)
            if progress:
                progress(outcomes[-1])
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    return FuzzReport(seed, outcomes, time.perf_counter() - started, peak)
