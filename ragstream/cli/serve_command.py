"""`ragstream serve`: this process keeps a controller loaded and answers `search`, `expand` and
`ask` for the command line of the same data folder and settings (`resident`), until SIGTERM or
Ctrl-C."""
from __future__ import annotations

import argparse
import sys

from ragstream.cli import held, resident
from ragstream.cli.question_commands import controller_for


def serve_command(args: argparse.Namespace) -> int:
    with controller_for(args) as controller:
        server = resident.Server(controller)
        _warm_up(controller)  # before the socket exists: until then a client runs its command itself
        server.bind()
        held.hold(controller)
        try:
            print(f"ragstream serve: listening on {server.path} (Ctrl-C stops)", file=sys.stderr, flush=True)
            server.serve_forever()
        finally:
            held.hold(None)
            server.close()
    return 0


def _warm_up(controller) -> None:
    """The data folder's default index loaded (chunks, BM25, graph, the question embedder) before
    the first client asks; when there is no single default, the first request loads its own."""
    from ragstream.errors import RagstreamError

    try:
        scope = controller.scope()
        controller.search(scope, "hybrid", "warm up", 1)
        controller.scope_graph(scope)
    except RagstreamError:
        pass  # several indexes, or none yet: nothing to load ahead
