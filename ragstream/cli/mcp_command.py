"""`ragstream mcp`: this process becomes an MCP server over one data folder's indexes, on stdio
(what an editor or agent starts) or on streamable HTTP (`--http PORT`, 127.0.0.1 unless
`--host` says otherwise)."""
from __future__ import annotations

import argparse
import sys

from ragstream.cli.question_commands import controller_for, filters_of


def mcp_command(args: argparse.Namespace) -> int:
    from ragstream.mcp.server import build_server
    from ragstream.mcp.service import CallScope, ServerOptions, Service

    with controller_for(args) as controller:
        options = ServerOptions(args.repository, args.index, args.branch, args.source, filters_of(args.filter))
        service = Service(controller, options)
        service.scope(CallScope())  # no index to serve, or a bad filter: said now, not at the first call
        service.warm_up()
        server = build_server(service)
        if args.http is None:
            server.run("stdio")
            return 0
        print(f"ragstream MCP server: http://{args.host}:{args.http}/mcp", file=sys.stderr, flush=True)
        server.run("streamable-http", host=args.host, port=args.http)
    return 0
