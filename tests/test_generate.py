"""finrag.generate against a fake OpenAI-compatible endpoint: a local HTTP server that answers
every POST with a reply the test sets and records what it was sent. No model runs."""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from finrag.generate import GeneratorError, LLMSettings, Written, write
from finrag.models import Chunk

GROSS_MARGIN = ("Gross margin was 33.4% for both fiscal 2024 and fiscal 2023, and primarily "
                "reflected lower transportation costs and lower shrink within our Primary "
                "segment, offset by the inclusion of SRS.")
NET_SALES = ("Net sales for fiscal 2024 were $159.5 billion, an increase of $6.8 billion, or "
             "4.5%, from fiscal 2023. The increase in net sales primarily reflected the impact "
             "of the SRS acquisition and the 53rd week in fiscal 2024, partially offset by a "
             "comparable sales decrease.")
FIGURES = "Operating margin fell from 14.2% to 13.5%"
QUESTION = "How did Home Depot's gross margin change in fiscal 2024?"


def chunk(chunk_id: str, text: str) -> Chunk:
    return Chunk(chunk_id=chunk_id, ticker="HD", company="The Home Depot, Inc.",
                 fiscal_year=2024, chunk_type="narrative", section="Item 7", page=27,
                 page_label="27", text=text)


PASSAGES = [chunk("hd-2024-margin", GROSS_MARGIN), chunk("hd-2024-sales", NET_SALES)]


class FakeEndpoint:
    """What the server answers (`reply`, or `status` with a raw `body`) and what it was sent."""

    def __init__(self) -> None:
        self.reply = ""
        self.status = 200
        self.body: bytes | None = None  # sent as it is in place of a chat completion
        self.delay_s = 0.0
        self.requests: list[dict] = []  # {"path", "headers", "json"}
        self.url = ""


@pytest.fixture
def endpoint():
    fake = FakeEndpoint()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            fake.requests.append({"path": self.path, "headers": dict(self.headers),
                                  "json": json.loads(body)})
            time.sleep(fake.delay_s)
            out = fake.body if fake.body is not None else json.dumps({
                "id": "chatcmpl-1", "object": "chat.completion", "model": "qwen2.5:7b",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": fake.reply}}],
            }).encode()
            self.send_response(fake.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            try:
                self.wfile.write(out)
            except ConnectionError:  # the client gave up waiting (the timeout test)
                pass

        def log_message(self, *args):  # keep the test output quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    # a short poll interval: shutdown() waits up to one interval (0.5 s by default)
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    fake.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    yield fake
    server.shutdown()
    server.server_close()


def ask(endpoint: FakeEndpoint, reply: str, passages=PASSAGES, figures: str = FIGURES, **kw):
    endpoint.reply = reply
    return write(QUESTION, passages, figures, LLMSettings(url=endpoint.url, **kw))


def test_a_supported_sentence_survives_with_its_tag_stripped(endpoint):
    sentence = "Gross margin was 33.4% for both fiscal 2024 and fiscal 2023"
    result = ask(endpoint, f"{sentence} [1].", model="qwen2.5:7b-instruct", key="sk-test")

    assert result.sentences == [Written(f"{sentence}.", "hd-2024-margin")]
    assert result.dropped == []
    assert result.model == "qwen2.5:7b"  # as the endpoint names it
    assert result.ms > 0
    [request] = endpoint.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == "Bearer sk-test"
    sent = request["json"]
    assert sent["model"] == "qwen2.5:7b-instruct" and sent["temperature"] == 0
    system, user = sent["messages"]
    assert system["role"] == "system" and "[2]" in system["content"]
    assert "NOT IN PASSAGES" in system["content"]
    assert QUESTION in user["content"] and FIGURES in user["content"]
    assert "[1] The Home Depot, Inc. | fiscal year 2024 | Item 7 | page 27" in user["content"]
    assert GROSS_MARGIN in user["content"] and NET_SALES in user["content"]


def test_no_key_sends_no_authorization(endpoint):
    ask(endpoint, "NOT IN PASSAGES")
    assert "Authorization" not in endpoint.requests[0]["headers"]


def test_passages_are_capped_in_number_and_length(endpoint):
    long = chunk("long", "Net sales rose. " * 200)
    ask(endpoint, "NOT IN PASSAGES", passages=[long] + [chunk(f"c{i}", NET_SALES)
                                                        for i in range(8)])
    user = endpoint.requests[0]["json"]["messages"][1]["content"]
    assert "[6] " in user and "[7] " not in user
    assert user.count("Net sales rose.") < 100


def test_the_tag_may_follow_the_full_stop_and_cite_either_passage(endpoint):
    result = ask(endpoint, "Gross margin was 33.4% for both fiscal 2024 and fiscal 2023. [1] "
                           "Net sales for fiscal 2024 were $159.5 billion, an increase of 4.5%. "
                           "[2]")
    assert result.sentences == [
        Written("Gross margin was 33.4% for both fiscal 2024 and fiscal 2023.", "hd-2024-margin"),
        Written("Net sales for fiscal 2024 were $159.5 billion, an increase of 4.5%.",
                "hd-2024-sales"),
    ]


def test_unsupported_and_uncited_sentences_are_dropped_with_the_reason(endpoint):
    result = ask(endpoint, "\n".join([
        "Gross margin was 33.4% for both fiscal 2024 and fiscal 2023 [1].",
        "Home Depot expects strong housing demand to lift comparable sales next year [2].",
        "Lower shrink within the Primary segment supported gross margin [9].",
        "Lower transportation costs helped gross margin.",
    ]))
    assert [w.text for w in result.sentences] == [
        "Gross margin was 33.4% for both fiscal 2024 and fiscal 2023."]
    assert result.dropped == [
        ("Home Depot expects strong housing demand to lift comparable sales next year.",
         "not supported by passage [2]"),
        ("Lower shrink within the Primary segment supported gross margin.",
         "no passage cited ([9] of 2 passages)"),
        ("Lower transportation costs helped gross margin.", "no passage cited"),
    ]


def test_words_of_another_passage_do_not_support_a_sentence(endpoint):
    result = ask(endpoint, "Gross margin reflected lower transportation costs and lower "
                           "shrink [2].")
    assert result.sentences == []
    assert result.dropped[0][1] == "not supported by passage [2]"


@pytest.mark.parametrize("reply, kept, why", [
    ("Gross margin was 35.1% for both fiscal 2024 and fiscal 2023 [1].", False,
     "number 35.1 not in passage or facts"),
    ("Gross margin was 33.4% for both fiscal 2024 and fiscal 2023 [1].", True, None),
    ("Gross margin was 33.4% for both fiscal 2024 and fiscal 2022 [1].", False,
     "number 2022 not in passage or facts"),
    ("Net sales for fiscal 2024 were $159,500 million [2].", False,
     "number 159500 not in passage or facts"),
    ("The increase in net sales primarily reflected the SRS acquisition, and operating margin "
     "was 13.5% [2].", True, None),  # 13.5 is in the figures only
    ("The increase in net sales primarily reflected the SRS acquisition, and operating margin "
     "was 12.9% [2].", False, "number 12.9 not in passage or facts"),
])
def test_every_number_must_be_in_the_passage_or_the_figures(endpoint, reply, kept, why):
    result = ask(endpoint, reply)
    assert bool(result.sentences) == kept
    assert [reason for _, reason in result.dropped] == ([why] if why else [])


@pytest.mark.parametrize("reply", ["NOT IN PASSAGES", "not in passages.", "", "   \n"])
def test_no_answer_gives_no_sentences(endpoint, reply):
    result = ask(endpoint, reply)
    assert result.sentences == [] and result.dropped == []


def test_no_passages_calls_nothing(endpoint):
    result = ask(endpoint, "Gross margin was 33.4% [1].", passages=[])
    assert result.sentences == [] and endpoint.requests == []


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_connection_refused_names_the_url():
    url = f"http://127.0.0.1:{closed_port()}/v1"
    with pytest.raises(GeneratorError) as e:
        write(QUESTION, PASSAGES, FIGURES, LLMSettings(url=url))
    message = str(e.value)
    assert message == (f"finrag: the generator at {url}/chat/completions did not answer "
                       "(connection refused): check FINRAG_LLM_URL or unset it for extractive "
                       "answers")


@pytest.mark.parametrize("status, body, what", [
    (500, b"Internal error\nmodel crashed", "answered HTTP 500 (Internal error model crashed)"),
    (401, b"", "answered HTTP 401: check FINRAG_LLM_KEY"),
    (200, b"<html>Welcome to nginx</html>", "answered with something that is not JSON"),
    (200, b'{"error": "model not found"}', "answered without choices[0].message.content"),
    (200, b'{"choices": []}', "answered without choices[0].message.content"),
])
def test_a_bad_answer_raises_one_line_naming_the_url(endpoint, status, body, what):
    endpoint.status, endpoint.body = status, body
    with pytest.raises(GeneratorError) as e:
        ask(endpoint, "")
    message = str(e.value)
    assert message.startswith(f"finrag: the generator at {endpoint.url}/chat/completions ")
    assert what in message and "\n" not in message


def test_a_slow_answer_times_out(endpoint):
    endpoint.delay_s = 0.5
    with pytest.raises(GeneratorError, match="did not answer within 0.2 s: raise "
                                             "FINRAG_LLM_TIMEOUT"):
        ask(endpoint, "", timeout_s=0.2)


def test_a_url_without_scheme_is_named():
    with pytest.raises(GeneratorError, match="localhost:11434/v1/chat/completions is not an http"):
        write(QUESTION, PASSAGES, "", LLMSettings(url="localhost:11434/v1"))


def test_settings_from_env():
    assert LLMSettings.from_env({}) is None
    assert LLMSettings.from_env({"FINRAG_LLM_URL": " "}) is None
    assert LLMSettings.from_env({"FINRAG_LLM_URL": "http://localhost:11434/v1"}) == LLMSettings(
        url="http://localhost:11434/v1", model="default", key=None, timeout_s=30.0)
    assert LLMSettings.from_env({
        "FINRAG_LLM_URL": "http://gpu-box:8000/v1/", "FINRAG_LLM_MODEL": "llama3.1:8b",
        "FINRAG_LLM_KEY": "sk-1", "FINRAG_LLM_TIMEOUT": "12.5",
    }) == LLMSettings(url="http://gpu-box:8000/v1/", model="llama3.1:8b", key="sk-1",
                      timeout_s=12.5)


@pytest.mark.parametrize("timeout", ["soon", "0", "-1"])
def test_a_bad_timeout_is_quoted(timeout):
    with pytest.raises(GeneratorError, match="FINRAG_LLM_TIMEOUT"):
        LLMSettings.from_env({"FINRAG_LLM_URL": "http://x/v1", "FINRAG_LLM_TIMEOUT": timeout})


def test_a_url_naming_the_route_is_kept():
    assert LLMSettings(url="http://x/v1/chat/completions").endpoint == \
        "http://x/v1/chat/completions"
    assert LLMSettings(url="http://x/v1/").endpoint == "http://x/v1/chat/completions"
