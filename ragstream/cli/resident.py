"""`ragstream serve`'s server: one Controller kept loaded, a Unix socket in the data folder (mode
0600), one request per connection, each on its own thread. A request is a command line the
client would have run (`served`); it runs through the CLI's own `run_here` here, one at a time
(the controller's runtime serves one call at a time, as the MCP server's does), in the client's
folder, with stdout and stderr captured as the client's terminal would have shown them. No
logic of its own: the commands find this process's controller through `held.held`.

An index re-built while the server runs is followed: every search asks the backend, which
checks the index's CURRENT pointer and loads the new generation (`index_store.Generations`),
and `keep_warm` loads the default index's new generation as soon as it is published.
"""
from __future__ import annotations

import io
import json
import os
import signal
import socket
import stat
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragstream.cli import output, parse, run_here
from ragstream.cli.held import pinned
from ragstream.cli.question_commands import settings_of
from ragstream.cli.served import FORWARDED, SOCKET_NAME, code_stamp, command_of
from ragstream.errors import RagstreamError, ServeError

if TYPE_CHECKING:
    from ragstream.controller import Controller

REQUEST_BYTES = 1_000_000  # a command line is far shorter; more is not a request
READ_SECONDS = 5.0  # a client sends its request at once
FOLLOW_SECONDS = 1.0  # how often the default index's CURRENT pointer is read


class _Captured(io.StringIO):
    """What a command prints on one stream, for the client; a terminal when the client's stream
    is one. Every write also goes to `printed`, shared by both streams: a client whose stdout
    and stderr are one terminal sees them interleaved as the command wrote them."""

    def __init__(self, tty: bool, stream: str, printed: list[list[str]]):
        super().__init__()
        self.tty, self.stream, self.printed = tty, stream, printed

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> int:
        if self.printed and self.printed[-1][0] == self.stream:
            self.printed[-1][1] += text
        elif text:
            self.printed.append([self.stream, text])
        return super().write(text)


class Server:
    """The listening socket and the requests it answers, through the controller `held` holds."""

    def __init__(self, controller: Controller):
        self.settings = pinned(controller.settings)  # what a request's settings must equal
        self.path = Path(self.settings.index.data_dir) / SOCKET_NAME
        self.stamp = code_stamp()
        self._lock = threading.Lock()  # one command at a time
        self._listener: socket.socket | None = None
        self._closed = threading.Event()

    def bind(self) -> None:
        """Listen on the socket (mode 0600); a stale socket file (its server was killed) is
        removed first, a live server's is refused."""
        if len(str(self.path)) >= 100:
            raise ServeError("the path is too long for a Unix socket", where=str(self.path),
                             hint="set index.data_dir to a shorter folder")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists() or self.path.is_symlink():
            if not stat.S_ISSOCK(self.path.lstat().st_mode):
                raise ServeError("is not a socket; remove it or choose another data folder", where=str(self.path))
            if _answers(self.path):
                raise ServeError("another `ragstream serve` is serving this data folder", where=str(self.path))
            self.path.unlink()  # stale: its server is gone
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        mask = os.umask(0o177)  # never a moment with a wider mode
        try:
            listener.bind(str(self.path))
        finally:
            os.umask(mask)
        os.chmod(self.path, 0o600)
        listener.listen(64)
        self._listener = listener

    def serve_forever(self) -> None:
        """Answer connections until SIGTERM or SIGINT; the socket file is removed on the way out."""
        assert self._listener is not None, "bind first"
        previous = {sig: signal.signal(sig, _stop) for sig in (signal.SIGTERM, signal.SIGINT)}
        try:  # said once a signal would find the handlers: a caller may stop it right away
            print(f"ragstream serve: listening on {self.path} (Ctrl-C stops)", file=sys.stderr, flush=True)
            while True:
                conn, _ = self._listener.accept()
                threading.Thread(target=self._answer, args=(conn,), daemon=True, name="ragstream-serve").start()
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            self.close()

    def keep_warm(self, generation: Callable[[], str | None], warm: Callable[[], None]) -> threading.Thread:
        """Between requests, `warm` again whenever `generation` changes (a re-index published a new
        one): the next request finds the new generation loaded instead of loading it."""
        def follow() -> None:
            seen = generation()
            while not self._closed.wait(FOLLOW_SECONDS):
                now = generation()
                if now != seen:
                    with self._lock:
                        warm()
                    seen = now

        thread = threading.Thread(target=follow, daemon=True, name="ragstream-serve-follow")
        thread.start()
        return thread

    def close(self) -> None:
        self._closed.set()
        if self._listener is not None:
            self._listener.close()
            self._listener = None
            self.path.unlink(missing_ok=True)

    def _answer(self, conn: socket.socket) -> None:
        """One connection: the request read, refused at once or accepted (the client then waits
        without a deadline), then run when its settings are the server's."""
        with conn:
            try:
                conn.settimeout(READ_SECONDS)
                request = _request(conn)
                refusal = self.refusal(request)
                if refusal:
                    conn.sendall(json.dumps({"refused": refusal}).encode() + b"\n")
                    return
                conn.sendall(b'{"accepted": true}\n')
                conn.settimeout(None)
                conn.sendall(json.dumps(self.run(request)).encode())
            except RagstreamError as exc:  # a malformed request: said to the client, which runs it itself
                _send_quietly(conn, {"refused": f"error ({exc.layer}): {exc}"})
            except OSError:
                pass  # the client went away: nothing to tell

    def refusal(self, request: dict[str, Any]) -> str | None:
        """Why this server will not run the request, told before it waits for a busy server (a
        client that hears nothing soon runs the command itself), or None."""
        if request["version"] != self.stamp:
            return f"another version of ragstream ({request['version']}, this server {self.stamp})"
        if command_of(request["argv"])[0] not in FORWARDED:
            return "not a command the server runs"
        return None

    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        """The command run as the client would have run it: its output and exit code; a refusal
        when it does not parse (the client's own run prints the usage error) or its settings are
        not the server's. One at a time, in the client's folder."""
        term = request["terminal"]
        printed: list[list[str]] = []
        out = _Captured(bool(term.get("stdout_tty")), "stdout", printed)
        err = _Captured(bool(term.get("stderr_tty")), "stderr", printed)
        env = {str(k): str(v) for k, v in dict(term.get("env") or {}).items()}
        width = None if env.get("COLUMNS", "").isdigit() else term.get("columns") or 80
        with self._lock, _working_in(request["cwd"]):
            saved = sys.stdout, sys.stderr, output.console
            sys.stdout, sys.stderr = out, err
            output.console = output.Console(file=out, width=width, _environ=env)
            try:
                if not self._same_settings(request["argv"]):
                    return {"refused": "a command line that does not parse, or other settings than this server's"}
                code = run_here(list(request["argv"]))
            except SystemExit as exc:  # cannot happen after a parse; kept exact if it does
                code = exc.code if isinstance(exc.code, int) else 2
            finally:
                sys.stdout, sys.stderr, output.console = saved
        return {"stdout": out.getvalue(), "stderr": err.getvalue(), "printed": printed, "code": code}

    def _same_settings(self, argv: list[str]) -> bool:
        """Whether the command line parses and names this server's settings (in the client's folder)."""
        try:
            return pinned(settings_of(parse(argv))) == self.settings
        except (SystemExit, RagstreamError, OSError):
            return False


def _request(conn: socket.socket) -> dict[str, Any]:
    """The client's request, checked field by field."""
    data = b""
    while chunk := conn.recv(65536):
        data += chunk
        if len(data) > REQUEST_BYTES:
            raise ServeError(f"longer than {REQUEST_BYTES} bytes", where="request")
    try:
        request = json.loads(data)
    except ValueError as exc:
        raise ServeError(f"not JSON: {exc}", where="request") from None
    if not isinstance(request, dict):
        raise ServeError("not a JSON object", where="request")
    kinds = {"argv": list, "cwd": str, "version": str, "terminal": dict}
    for key, kind in kinds.items():
        if not isinstance(request.get(key), kind):
            raise ServeError(f"missing or not a {kind.__name__}", where=f"request.{key}")
    if not all(isinstance(word, str) for word in request["argv"]):
        raise ServeError("every word must be a string", where="request.argv")
    if not Path(request["cwd"]).is_absolute():
        raise ServeError("must be an absolute folder", where="request.cwd")
    return request


@contextmanager
def _working_in(folder: str) -> Iterator[None]:
    """The client's working folder, for its relative paths (held under the server's lock)."""
    previous = os.getcwd()
    try:
        os.chdir(folder)
    except OSError as exc:
        raise ServeError(f"cannot work there: {exc.strerror}", where="request.cwd") from None
    try:
        yield
    finally:
        os.chdir(previous)


def _answers(path: Path) -> bool:
    """Whether a server listens on the socket file at `path`."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True


def _send_quietly(conn: socket.socket, reply: dict[str, Any]) -> None:
    try:
        conn.sendall(json.dumps(reply).encode() + b"\n")
    except OSError:
        pass


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)
