"""The `ragstream` command line: `arguments` declares the commands, a module per group of commands
runs them (`index_commands`, `question_commands`, `eval_commands`, `ui_command`, `mcp_command`,
`serve_command`) and `output` prints. It only parses arguments and prints; the work is in the
library. This module imports nothing heavy: a read-only command is first offered to a running
`ragstream serve` (`served`), and only when none answers is the rest imported."""
from __future__ import annotations

import sys

from ragstream.cli.served import forwarded


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    code = forwarded(argv)
    return run_here(argv) if code is None else code


def parse(argv: list[str]):
    """The command line's arguments (argparse's usage error and exit when it does not parse)."""
    from ragstream.cli.arguments import build_parser

    return build_parser().parse_args(argv)


def run_here(argv: list[str]) -> int:
    """The command run in this process (what a server runs for its clients too)."""
    from ragstream.errors import RagstreamError
    from ragstream.redact import redact_text

    args = parse(argv)
    if getattr(args, "query", None):  # a secret pasted into a question is never echoed, searched or stored
        args.query = redact_text(args.query)
    try:
        return args.handler(args)
    except RagstreamError as exc:
        print(f"error ({exc.layer}): {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # the file system refused something no check foresaw: say what and where
        where = " -> ".join(str(name) for name in (exc.filename, exc.filename2) if name) or "the file system"
        print(f"error (os): {where}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: the previous index (if any) is unchanged", file=sys.stderr)
        return 130
