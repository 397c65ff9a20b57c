"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions wire format (plain
and streamed), replying from a script the test writes, and recording every request.

Replies are queued per model name; tests give each role its own model name (`llm.roles`), so a
pipeline's router, gate and answer calls each take their own scripted replies. A model whose
queue is empty gets its fallback reply, else HTTP 500 "script exhausted" (a test bug shows).

Faults a reply can script: a status with headers (429 and Retry-After, 500), a delay before
anything is sent, a raw body (malformed JSON), raw stream events, a pause between streamed
pieces (a trickle), a stall after some pieces, a dropped connection (no reply at all), and a
plain reply whose body trickles a byte at a time or never ends.
"""
from __future__ import annotations

import json
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Reply:
    text: str = ""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering (a timeout test sets more than the client waits)
    usage: bool = True
    body: str | None = None  # sent as the body as it is (malformed JSON), status 200
    events: tuple[str, ...] | None = None  # a stream's `data:` lines as they are, instead of `text`'s
    piece_delay: float = 0.0  # seconds before each streamed piece (a trickle)
    stall_after: int | None = None  # stream this many pieces, then send nothing for `stall` seconds
    stall: float = 0.0
    drop: bool = False  # close the connection without a reply
    byte_gap: float = 0.0  # a plain reply's body sent a byte at a time, this many seconds apart
    endless: bool = False  # a plain reply whose body never ends: blanks keep coming, byte_gap apart


class ScriptedServer:
    def __init__(self) -> None:
        self.queues: dict[str, deque[Reply]] = defaultdict(deque)
        self.fallback: dict[str, Reply | Callable[[dict], str]] = {}
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._http.daemon_threads = True
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._http.server_address[1]}/v1"

    def queue(self, model: str, *replies: Reply | str) -> None:
        with self._lock:
            self.queues[model].extend(r if isinstance(r, Reply) else Reply(r) for r in replies)

    def always(self, model: str, reply: Reply | str | Callable[[dict], str]) -> None:
        """What `model` answers once its queue is empty (a function makes it from the request)."""
        self.fallback[model] = reply if isinstance(reply, Reply) or callable(reply) else Reply(reply)

    def requests_for(self, model: str) -> list[dict]:
        return [r for r in self.requests if r.get("model") == model]

    def next_reply(self, request: dict) -> Reply:
        with self._lock:
            self.requests.append(request)
            queue = self.queues[request.get("model", "")]
            if queue:
                return queue.popleft()
        reply = self.fallback.get(request.get("model", ""), Reply("script exhausted", status=500))
        return Reply(reply(request)) if callable(reply) else reply

    def __enter__(self) -> "ScriptedServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._http.shutdown()
        self._http.server_close()


def _handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:  # keep test output clean
            pass

        def do_POST(self) -> None:  # the stdlib's name
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            reply = server.next_reply(request)
            time.sleep(reply.delay)
            try:
                if reply.drop:
                    self.close_connection = True
                    self.connection.shutdown(2)
                elif reply.body is not None:
                    self._send(200, reply.body, reply.headers)
                elif reply.status != 200:
                    self._send(reply.status, {"error": {"message": reply.text or "scripted failure",
                                                        "type": "scripted", "code": reply.status}}, reply.headers)
                elif request.get("stream"):
                    self._stream(request, reply)
                elif reply.byte_gap or reply.endless:
                    self._trickle(json.dumps(_completion(request, reply)).encode(), reply)
                else:
                    self._send(200, _completion(request, reply), reply.headers)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
                pass

        def _send(self, status: int, body: dict | str, headers: dict[str, str]) -> None:
            data = (body if isinstance(body, str) else json.dumps(body)).encode()  # a str goes as it is
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def _trickle(self, data: bytes, reply: Reply) -> None:
            """The body a byte at a time; an endless one says it is long and sends blanks first."""
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(10 ** 12 if reply.endless else len(data)))
            self.end_headers()
            byte = 0
            while reply.endless or byte < len(data):
                self.wfile.write(b" " if reply.endless else data[byte:byte + 1])
                self.wfile.flush()
                byte += 1
                time.sleep(reply.byte_gap)

        def _stream(self, request: dict, reply: Reply) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.flush()
            if reply.events is not None:
                pieces = list(reply.events)
            else:
                pieces = [json.dumps({**_envelope(request, "chat.completion.chunk"),
                                      "choices": [{"index": 0, "delta": {"content": reply.text[i:i + 7]},
                                                   "finish_reason": None}]})
                          for i in range(0, len(reply.text), 7)]
            for number, piece in enumerate(pieces):
                if number == reply.stall_after:
                    time.sleep(reply.stall)
                time.sleep(reply.piece_delay)
                self.wfile.write(f"data: {piece}\n\n".encode())
                self.wfile.flush()
            if reply.stall_after is not None and reply.stall_after >= len(pieces):
                time.sleep(reply.stall)
            self._event({**_envelope(request, "chat.completion.chunk"),
                         "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
            if reply.usage and request.get("stream_options", {}).get("include_usage"):
                self._event({**_envelope(request, "chat.completion.chunk"), "choices": [],
                             "usage": _usage(request, reply)})
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True

        def _event(self, body: dict) -> None:
            self.wfile.write(f"data: {json.dumps(body)}\n\n".encode())
            self.wfile.flush()

    return Handler


def _envelope(request: dict, kind: str) -> dict:
    return {"id": "scripted", "object": kind, "created": int(time.time()), "model": request.get("model", "")}


def _usage(request: dict, reply: Reply) -> dict:
    prompt = sum(len(m.get("content", "").split()) for m in request.get("messages", []))
    completion = len(reply.text.split())
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _completion(request: dict, reply: Reply) -> dict:
    body = {**_envelope(request, "chat.completion"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.text}, "finish_reason": "stop"}]}
    if reply.usage:
        body["usage"] = _usage(request, reply)
    return body
