"""`ragstream serve`: this process keeps a controller loaded and answers `search`, `expand` and
`ask` for the command line of the same data folder and settings (`resident`), until SIGTERM or
Ctrl-C."""
from __future__ import annotations

import argparse
from functools import partial
from typing import TYPE_CHECKING

from ragstream.cli import held, resident
from ragstream.cli.question_commands import controller_for
from ragstream.errors import RagstreamError

if TYPE_CHECKING:
    from ragstream.controller import Controller


def serve_command(args: argparse.Namespace) -> int:
    with controller_for(args) as controller:
        server = resident.Server(controller)
        warm_up = partial(_warm_up, controller)
        warm_up()  # before the socket exists: until then a client runs its command itself
        server.bind()
        held.hold(controller)
        try:
            server.keep_warm(partial(_generation, controller), warm_up)
            server.serve_forever()
        finally:
            held.hold(None)
            server.close()
    return 0


def _warm_up(controller: Controller) -> None:
    """The data folder's default index loaded (chunks, BM25, graph, the question embedder) before
    a client asks; when there is no single default, each request loads its own."""
    try:
        scope = controller.scope()
        controller.search(scope, "hybrid", "warm up", 1)
        controller.scope_graph(scope)
    except (RagstreamError, OSError):  # several indexes, none yet, one being replaced: loaded when asked
        pass


def _generation(controller: Controller) -> str | None:
    """The live generation of the default index (None: none, or no single default)."""
    try:
        scope = controller.scope()
        return controller.backend_for(scope.index_source).generation(scope.repository, scope.branch,
                                                                     scope.active_index)
    except (RagstreamError, OSError):
        return None
