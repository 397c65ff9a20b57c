"""The CLI's side of `ragstream serve`: before anything heavy is imported, a read-only command
(`search`, `expand`, `ask`) is sent to the resident server of its data folder when one runs,
and what it printed and returned is replayed. Any failure (no socket, refused, a stale socket
file, another version or other settings, a server gone mid-answer) gives None: the command then
runs in this process, saying nothing. Only the standard library and yaml are imported here.

Protocol, one request per connection: the client sends one JSON document and closes its side;
the server answers one line at once, {"accepted": true} or {"refused": why} (another version, a
command it does not run), then (when accepted, after the requests before it) the reply
{"stdout", "stderr", "printed": [[stream, text], ...] in the order written, "code"}, or {"refused": why} when the command line does not parse or its
settings are not the server's."""
from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path

import ragstream

SOCKET_NAME = "ragstream-serve.sock"  # in index.data_dir
FORWARDED = ("search", "expand", "ask")
NO_SERVER = "--no-server"
CONNECT_SECONDS = 0.25  # a live server accepts at once
ACCEPT_SECONDS = 5.0  # it accepts or refuses as soon as it has read the request
# What decides how rich and argparse print on the client's terminal (never secrets).
TERMINAL_ENV = ("TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE",
                "COLUMNS", "LINES", "JUPYTER_COLUMNS", "JUPYTER_LINES")
PACKAGE_DIR = Path(ragstream.__file__).resolve().parent
DEFAULT_DATA_DIR_FILE = PACKAGE_DIR.parent / "config" / "defaults.yaml"


def code_stamp() -> str:
    """The package version and the newest modification of its source: a server started before
    the code changed (a pull, an edit, a new PARSER_VERSION) is never asked."""
    newest = max(entry.stat().st_mtime_ns for entry in _sources(PACKAGE_DIR))
    return f"{ragstream.__version__}:{PACKAGE_DIR}:{newest}"


def _sources(folder: Path):
    for entry in os.scandir(folder):
        if entry.is_dir() and entry.name != "__pycache__":
            yield from _sources(Path(entry.path))
        elif entry.name.endswith(".py"):
            yield entry


def command_of(argv: list[str]) -> tuple[str | None, str | None]:
    """(the command's name, the --config given) of a command line, read without argparse."""
    config, words = None, iter(argv)
    for word in words:
        if word == "--config":
            config = next(words, None)
        elif word.startswith("--config="):
            config = word.partition("=")[2]
        elif not word.startswith("-"):
            return word, config
    return None, config


def socket_path(data_dir: str | Path, cwd: str | Path) -> Path:
    """Where the server of a data folder listens."""
    return (Path(cwd) / Path(data_dir).expanduser()).resolve() / SOCKET_NAME


def data_dir_of(config: str | None) -> str | None:
    """`index.data_dir` of the user's settings file, else of the defaults; None when neither can
    be read (the in-process command then says what is wrong). The server checks every setting."""
    import yaml

    for path in ([Path(config)] if config else []) + [DEFAULT_DATA_DIR_FILE]:
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except Exception:  # noqa: BLE001 - unreadable, bad YAML, nested too deep: the in-process run says which
            return None
        data_dir = (data.get("index") or {}).get("data_dir") if isinstance(data, dict) else None
        if isinstance(data_dir, str):
            return data_dir
    return None


def terminal() -> dict:
    """How the client's stdout and stderr look to rich: terminals or not, the width, the env."""
    width = None
    for stream in (sys.stdin, sys.stdout, sys.stderr):  # rich's order
        try:
            width = os.get_terminal_size(stream.fileno()).columns
            break
        except (AttributeError, ValueError, OSError):
            continue
    return {"stdout_tty": _isatty(sys.stdout), "stderr_tty": _isatty(sys.stderr), "columns": width,
            "env": {key: os.environ[key] for key in TERMINAL_ENV if key in os.environ}}


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def forwarded(argv: list[str]) -> int | None:
    """The exit code of `argv` answered by the running server (its output replayed here), or None
    to run it in this process."""
    command, config = command_of(argv)
    if command not in FORWARDED or NO_SERVER in argv or "-h" in argv or "--help" in argv:
        return None
    data_dir = data_dir_of(config)
    if data_dir is None:
        return None
    request = {"argv": argv, "cwd": os.getcwd(), "version": code_stamp(), "terminal": terminal()}
    reply = exchange(socket_path(data_dir, os.getcwd()), request)
    if reply is None:
        return None
    for stream, text in reply["printed"]:  # in the order the command wrote them
        target = sys.stdout if stream == "stdout" else sys.stderr
        target.write(text)
        target.flush()
    return reply["code"]


def exchange(path: Path, request: dict) -> dict | None:
    """The server's reply to `request`, or None when there is none to be had."""
    if len(str(path)) >= 100 or not path.exists():  # AF_UNIX paths are short
        return None
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(CONNECT_SECONDS)
            conn.connect(str(path))
            conn.sendall(json.dumps(request).encode())
            conn.shutdown(socket.SHUT_WR)
            conn.settimeout(ACCEPT_SECONDS)
            stream = conn.makefile("rb")
            if not json.loads(stream.readline() or b"{}").get("accepted"):
                return None
            conn.settimeout(None)  # the command takes what it takes (a model's turn has its deadline)
            reply = json.loads(stream.read() or b"{}")
    except (OSError, ValueError):
        return None
    if not isinstance(reply, dict) or not {"printed", "code"} <= reply.keys():
        return None
    return reply
