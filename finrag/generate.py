"""Optional written answers: a chat model phrases the answer, and only the sentences that the
cited passage backs are kept (off unless FINRAG_LLM_URL is set).

`write` sends the question, the computed figures and the numbered passages to an
OpenAI-compatible chat-completions endpoint (`POST {url}/chat/completions`, temperature 0):
Ollama (`http://localhost:11434/v1`), vLLM, or llama.cpp's own server (`llama-server -m
model.gguf` serves `http://localhost:8080/v1`), so a local GGUF works through the same endpoint.
The reply is split into sentences and each is checked without any model:

- it cites a passage: a tag such as [2] naming one of the numbered passages (the tag is removed);
- its content words (finrag.tokens: lower-cased, stopwords out, light plural stemming) are at
  least SUPPORT of them in the cited passage as the model saw it (header and capped text);
- every number in it (20.8%, $3.2 billion, 1,234.5, 2024) is in that passage or in the figures,
  compared as values without commas, signs or units.

A sentence that fails is dropped with the reason. Expected failures (no server, an HTTP error,
a reply that is not a chat completion) raise GeneratorError with a one-line message.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass

from finrag.models import Chunk
from finrag.tokens import tokenize

MAX_PASSAGES = 6  # the first passages given (they come ranked); the rest are not sent
PASSAGE_CHARS = 1500  # each passage's text is cut near here, at a word boundary
SUPPORT = 0.6  # share of a sentence's content words that must be in its passage
NOT_IN_PASSAGES = "NOT IN PASSAGES"
ADVICE = "check FINRAG_LLM_URL or unset it for extractive answers"

SYSTEM = (
    "You answer questions about SEC 10-K filings using only the numbered passages below. "
    "Write one to three sentences. End each sentence with the number of the passage it comes "
    "from in brackets, like [2]. Use only facts and numbers stated in the passages or in the "
    f"figures line. If the passages do not answer the question, reply exactly: {NOT_IN_PASSAGES}"
)


class GeneratorError(Exception):
    """The endpoint could not give an answer; the message is one line naming the URL."""


@dataclass(frozen=True)
class LLMSettings:
    url: str  # base URL, e.g. http://localhost:11434/v1
    model: str = "default"
    key: str | None = None  # sent as "Authorization: Bearer <key>" when set
    timeout_s: float = 30.0

    def __post_init__(self) -> None:
        if not self.timeout_s > 0:
            raise GeneratorError(f"finrag: FINRAG_LLM_TIMEOUT must be seconds above 0, "
                                 f"not {self.timeout_s!r}")

    @classmethod
    def from_env(cls, env=os.environ) -> LLMSettings | None:
        """The settings FINRAG_LLM_* give, or None when FINRAG_LLM_URL is unset or empty."""
        url = env.get("FINRAG_LLM_URL", "").strip()
        if not url:
            return None
        timeout = env.get("FINRAG_LLM_TIMEOUT", "").strip() or "30"
        try:
            timeout_s = float(timeout)
        except ValueError:
            raise GeneratorError(f"finrag: FINRAG_LLM_TIMEOUT must be a number of seconds, "
                                 f"not {timeout!r}") from None
        return cls(url=url, model=env.get("FINRAG_LLM_MODEL", "").strip() or "default",
                   key=env.get("FINRAG_LLM_KEY", "").strip() or None, timeout_s=timeout_s)

    @property
    def endpoint(self) -> str:
        base = self.url.rstrip("/")
        # a URL that already names the route is taken as it is
        return base if base.endswith("/chat/completions") else base + "/chat/completions"


@dataclass(frozen=True)
class Written:
    text: str  # one sentence as the model wrote it, its passage tag removed
    chunk_id: str  # the passage it is tied to


@dataclass
class Generation:
    sentences: list[Written]  # the ones that survived the checks
    dropped: list[tuple[str, str]]  # (sentence, why it was dropped)
    model: str  # the model the endpoint says answered (else the one asked for)
    ms: float  # the whole call: request, reply and checks


def write(question: str, passages: list[Chunk], figures: str,
          settings: LLMSettings) -> Generation:
    """A short answer to `question` written from `passages` (and `figures`), checked sentence by
    sentence. No passages: nothing to cite, so the endpoint is not called."""
    start = time.perf_counter()
    shown = [_shown(chunk) for chunk in passages[:MAX_PASSAGES]]
    if not shown:
        return Generation([], [], settings.model, 0.0)
    reply, model = _complete(settings, _messages(question, figures, shown))
    sentences, dropped = _check(reply, passages[:MAX_PASSAGES], shown, figures)
    return Generation(sentences, dropped, model, (time.perf_counter() - start) * 1000)


# --- the prompt ---------------------------------------------------------------------------

def _shown(chunk: Chunk) -> str:
    """A passage as the model sees it: a header line, then its text cut near PASSAGE_CHARS."""
    page = chunk.page_label or (str(chunk.page) if chunk.page else "")
    parts = [chunk.company or chunk.ticker, f"fiscal year {chunk.fiscal_year}",
             " ".join(p for p in (chunk.section, chunk.section_title) if p),
             f"page {page}" if page else ""]
    text = chunk.text.strip()
    if len(text) > PASSAGE_CHARS:
        text = text[:PASSAGE_CHARS].rsplit(" ", 1)[0] + " ..."
    return " | ".join(p for p in parts if p) + "\n" + text


def _messages(question: str, figures: str, shown: list[str]) -> list[dict]:
    lines = [f"Question: {question.strip()}"]
    if figures.strip():
        lines.append(f"Figures (computed from the filings): {figures.strip()}")
    lines.append("Passages:")
    lines.extend(f"[{n}] {text}" for n, text in enumerate(shown, 1))
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": "\n\n".join(lines)}]


# --- the endpoint -------------------------------------------------------------------------

def _complete(settings: LLMSettings, messages: list[dict]) -> tuple[str, str]:
    """(the reply's text, the model that wrote it), or GeneratorError."""
    url = settings.endpoint
    body = json.dumps({"model": settings.model, "messages": messages, "temperature": 0})
    headers = {"Content-Type": "application/json"}
    if settings.key:
        headers["Authorization"] = f"Bearer {settings.key}"
    raw = _post(url, body.encode(), headers, settings.timeout_s)
    try:
        answer = json.loads(raw)
        content = answer["choices"][0]["message"]["content"]
    except (ValueError, UnicodeDecodeError):
        raise _error(url, "answered with something that is not JSON") from None
    except (KeyError, IndexError, TypeError):
        raise _error(url, "answered without choices[0].message.content") from None
    model = answer.get("model")  # the model that answered (the one asked may be "default")
    return (content if isinstance(content, str) else "",  # null content: an empty reply
            model if isinstance(model, str) and model else settings.model)


def _post(url: str, body: bytes, headers: dict, timeout_s: float) -> bytes:
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise _error(url, "is not an http(s) URL", "set FINRAG_LLM_URL to http://host:port/v1")
    try:
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            return response.read()
    except urllib.error.HTTPError as e:  # before URLError: it is one
        detail = " ".join(e.read(200).decode("utf-8", "replace").split())
        advice = "check FINRAG_LLM_KEY" if e.code in (401, 403) else ADVICE
        raise _error(url, f"answered HTTP {e.code}" + (f" ({detail})" if detail else ""),
                     advice) from None
    except (urllib.error.URLError, TimeoutError) as e:  # a read timeout comes bare
        reason = getattr(e, "reason", e)
        if isinstance(reason, TimeoutError):
            raise _error(url, f"did not answer within {timeout_s:g} s", "raise "
                         "FINRAG_LLM_TIMEOUT, " + ADVICE) from None
        raise _error(url, f"did not answer ({_cause(reason)})") from None
    except (OSError, http.client.HTTPException) as e:
        raise _error(url, f"did not answer ({_cause(e)})") from None
    except ValueError as e:  # a bad port or host
        raise _error(url, f"is not a valid URL ({e})", "set FINRAG_LLM_URL to "
                     "http://host:port/v1") from None


def _cause(reason: object) -> str:
    text = getattr(reason, "strerror", None) or str(reason) or type(reason).__name__
    return " ".join(text.split()).lower()


def _error(url: str, what: str, advice: str = ADVICE) -> GeneratorError:
    return GeneratorError(f"finrag: the generator at {url} {what}: {advice}")


# --- the checks ---------------------------------------------------------------------------

_TAG = re.compile(r"\s*\[(\d+(?:\s*,\s*\d+)*)\]")  # [2] or [1, 3]
# A sentence ends after . ! ? or a tag, before a capital, digit, quote or tag; not after an
# initial ("U.S.") or a company suffix ("Inc.").
_BOUNDARY = re.compile(r"(?<=[.!?\]])(?<!\b[A-Z]\.)(?<!\bInc\.)(?<!\bCorp\.)(?<!\bCo\.)"
                       r"\s+(?=[A-Z0-9\"'(\[$])")
_LIST_MARK = re.compile(r"^\s*(?:[-*\u2022]|\d{1,2}[.)])\s+")
# A number, then any letters glued to it: "10-K", "3M", "1st" are names, "8.3x" is a number.
_NUMBER = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)(-?[A-Za-z]+)?")
_UNITS = {"x", "k", "m", "mm", "b", "bn"}


def _check(reply: str, passages: list[Chunk], shown: list[str],
           figures: str) -> tuple[list[Written], list[tuple[str, str]]]:
    if not reply.strip() or NOT_IN_PASSAGES in reply.upper():
        return [], []
    allowed = _numbers(figures)
    kept, dropped = [], []
    for sentence in _sentences(reply):
        text, cited = _untag(sentence)
        why, n = _verdict(text, cited, shown, allowed)
        if why:
            dropped.append((text, why))
        else:
            kept.append(Written(text, passages[n - 1].chunk_id))
    return kept, dropped


def _sentences(reply: str) -> list[str]:
    """The reply cut into sentences; a tag written after the full stop stays with its sentence."""
    out: list[str] = []
    for line in reply.splitlines():
        for piece in _BOUNDARY.split(_LIST_MARK.sub("", line).strip()):
            if out and piece and not _TAG.sub("", piece).strip(" ."):
                out[-1] += " " + piece  # "First sentence. [1] Second sentence. [2]"
            elif piece:
                out.append(piece)
    return out


def _untag(sentence: str) -> tuple[str, list[int]]:
    cited = [int(n) for tag in _TAG.findall(sentence) for n in tag.split(",")]
    text = _TAG.sub("", sentence).strip()
    text = re.sub(r"\s+([.,;:!?])", r"\1", text)  # "2023 [1]." -> "2023."
    return text, cited


def _verdict(text: str, cited: list[int], shown: list[str],
             allowed: set[float]) -> tuple[str, int]:
    """('', n) when passage n backs the sentence, else (why, 0). With several tags the first
    passage that backs it wins; the reason given is the first cited passage's."""
    valid = [n for n in cited if 1 <= n <= len(shown)]
    if not valid:
        tags = ", ".join(f"[{n}]" for n in cited)
        return ("no passage cited" + (f" ({tags} of {len(shown)} passages)" if tags else ""), 0)
    reasons = [_unsupported(text, shown[n - 1], n, allowed) for n in valid]
    for n, why in zip(valid, reasons):
        if not why:
            return "", n
    return reasons[0], 0


def _unsupported(text: str, passage: str, n: int, allowed: set[float]) -> str:
    words = _content_words(text)
    if words and len(words & _content_words(passage)) < SUPPORT * len(words):
        return f"not supported by passage [{n}]"
    known = allowed | _numbers(passage)
    for raw, value in _number_list(text):
        if value not in known:
            return f"number {raw} not in passage or facts"
    return ""


def _content_words(text: str) -> set[str]:
    """Words of three or more characters, stopwords out, plurals stemmed; numbers are left to
    the number check."""
    return {t for t in tokenize(text) if len(t) >= 3 and not t.replace(".", "").isdigit()}


def _number_list(text: str) -> list[tuple[str, float]]:
    """(as written without commas, value) of each number; signs, $ and % do not count."""
    text = re.sub(r"(?i)\bFY'?(?=\d)", "FY ", text)  # "FY2024" is the year 2024
    out = []
    for digits, glued in _NUMBER.findall(text):
        if glued and glued.lower() not in _UNITS:
            continue
        raw = digits.rstrip(",").replace(",", "")
        out.append((raw, float(raw)))
    return out


def _numbers(text: str) -> set[float]:
    return {value for _, value in _number_list(text)}
