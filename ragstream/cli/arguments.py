"""The command line's commands and options, each command naming the function that runs it."""
from __future__ import annotations

import argparse
from collections.abc import Callable
from functools import partial
from pathlib import Path

from ragstream.bounds import TOKENS, TOP_K, Bound, ints
from ragstream.cli.changed_command import changed_command
from ragstream.cli.eval_commands import eval_command
from ragstream.cli.index_commands import index_command, publish_command
from ragstream.cli.mcp_command import mcp_command
from ragstream.cli.question_commands import ask_command, expand_command, search_command
from ragstream.cli.serve_command import serve_command
from ragstream.cli.served import NO_SERVER
from ragstream.cli.ui_command import ui_command

DESCRIPTION = "The `ragstream` command line. It only parses arguments and prints; the work is in the library."


def build_parser() -> argparse.ArgumentParser:
    config_help = "a YAML file of settings that override config/defaults.yaml"
    parser = argparse.ArgumentParser(prog="ragstream", description=DESCRIPTION, allow_abbrev=False)
    parser.add_argument("--config", help=config_help)
    # Every command takes --config too, before or after its name (SUPPRESS: an absent one keeps
    # the value given before). Abbreviations are off: `eval --config X` was read as `--configs X`.
    per_command = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    per_command.add_argument("--config", default=argparse.SUPPRESS, help=config_help)
    commands = parser.add_subparsers(required=True, metavar="COMMAND")
    add_command = partial(commands.add_parser, parents=[per_command], allow_abbrev=False)

    index = add_command("index", help="index a repository (incremental when an index exists)")
    index.add_argument("path", help="the repository's root folder")
    index.add_argument("--name", help="index name (default: the branch)")
    index.add_argument("--branch", help="branch recorded in the index (default: git's current branch)")
    mode = index.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", help="list what would be indexed and why files are skipped")
    mode.add_argument("--status", action="store_true", help="report files changed since the index was built")
    mode.add_argument("--rebuild", action="store_true", help="ignore the existing index and build from scratch")
    mode.add_argument("--fill", action="store_true", help=argparse.SUPPRESS)  # the background semantic fill
    mode.add_argument("--watch", action="store_true",
                      help="index, then re-index after every burst of file changes (index.watch_debounce_ms), "
                           "one line each (with --events: as JSON lines), until Ctrl-C")
    waiting = index.add_mutually_exclusive_group()
    waiting.add_argument("--wait", action="store_true",
                         help="stay until every vector is embedded (default: return once keyword-ready, "
                              "the semantic fill going on in the background)")
    waiting.add_argument("--background", action="store_true", help="run the whole build in the background")
    waiting.add_argument("--events", action="store_true",
                         help="print the build's progress as JSON lines on stdout and stay until every vector "
                              "is embedded (what the workbench follows)")
    # A followed watch's events file (its stdout), which it starts afresh as it grows (`rotate_events`).
    index.add_argument("--events-file", type=Path, help=argparse.SUPPRESS)
    index.add_argument("--if-stale", action="store_true",
                       help="build only when the index is missing, unusable, has changed files or its fill stopped")
    index.set_defaults(handler=index_command)

    publish = add_command("publish", help="publish a built index to Milvus (milvus.uri), live by an alias switch")
    publish.add_argument("--repository", help="default: the only repository indexed")
    publish.add_argument("--name", help="index name (default: the repository's only index)")
    publish.set_defaults(handler=publish_command)

    search = add_command("search", help="search an index (semantic, bm25 or hybrid)")
    search.add_argument("query")
    search.add_argument("--repository", help="default: the only repository indexed (or the one holding --index)")
    search.add_argument("--index", help="index name (default: the repository's only index); alone, it is "
                                        "looked up across repositories")
    search.add_argument("--branch", help="default: the index's branch")
    search.add_argument("--mode", default="hybrid", choices=["semantic", "bm25", "hybrid"])
    search.add_argument("--rerank", default="none", choices=["none", "keyword_rerank", "cross_encoder"])
    search.add_argument("--top-k", type=bounded(TOP_K), default=10)
    search.add_argument("--filter", action="append", default=[], metavar="KEY=V1,V2",
                        help="a retrieval filter, e.g. acl_tags_any=public or kinds=FUNCTION,METHOD")
    search.add_argument("--source", choices=["local", "shared"], default="",
                        help="serve the index from the data folder or from Milvus (default: retrieval.backend)")
    search.add_argument("--json", action="store_true", help="print the results as one JSON document")
    search.add_argument(NO_SERVER, action="store_true",
                        help="run in this process even when `ragstream serve` runs for this data folder")
    search.set_defaults(handler=search_command)

    expand = add_command("expand", help="run a pipeline: search, walk the graph, fetch texts in a budget")
    expand.add_argument("query")
    for action in search._actions:  # the same scope and filter options as `search`
        if action.dest in ("repository", "index", "branch", "filter", "source", "json", "no_server"):
            expand._add_action(action)
    expand.add_argument("--pipeline", default="base", help="a pipeline in pipelines/ (default: base)")
    expand.add_argument("--top-k", type=bounded(TOP_K), help="override the pipeline's top_k")
    expand.add_argument("--max-context-tokens", type=bounded(TOKENS), help="override the pipeline's budget (node texts get 70%%)")
    expand.add_argument("--html", help="also write the graph view (offline HTML) to this file")
    expand.add_argument("--show-context", action="store_true", help="print the rendered evidence blocks")
    expand.set_defaults(handler=expand_command)

    ask = add_command("ask", help="answer a question through a pipeline (extractive without a model)")
    for action in expand._actions[1:]:
        if action.dest not in ("html", "show_context", "config"):  # ask has its own --config
            ask._add_action(action)
    ask.add_argument("--step", action="store_true", help="run step by step (manual mode), showing what each changed")
    ask.add_argument("--not-english", action="store_true",
                     help="the question is not in English (without a model it is used as written; the trace says so)")
    ask.add_argument("--show-prompt", action="store_true", help="also print the ready prompt (in --json: its prompt)")
    ask.add_argument("--save-state", help="write the final state as JSON to this file")
    ask.add_argument("--llm", choices=["none", "openai", "local"],
                     help="language model provider (default: llm.provider in the config, which defaults to none); "
                          "openai uses OPENAI_API_KEY and OPENAI_BASE_URL")
    ask.add_argument("--model", help="the model of every role (default: llm.model)")
    ask.add_argument("--base-url", help="an OpenAI-compatible server's URL (default: llm.base_url, $OPENAI_BASE_URL)")
    ask.add_argument("--session", help="a conversation to continue (its history goes in the prompt and this turn "
                                       "is saved); 'new' starts one and prints its id")
    ask.set_defaults(handler=ask_command)

    changed = add_command("changed", help="which files changed since the answer of a state saved by "
                                          "`ask --save-state`, and whether the index holds them yet")
    changed.add_argument("state", help="the state file")
    changed.add_argument("--json", action="store_true", help="print the changes as one JSON document")
    changed.set_defaults(handler=changed_command)

    mcp = add_command("mcp", help="serve the indexes to editors and agents over the Model Context Protocol "
                                  "(stdio; --http PORT: streamable HTTP on 127.0.0.1)")
    for action in ask._actions:  # the same scope, filter and model options as `ask`
        if action.dest in ("repository", "index", "branch", "filter", "source", "llm", "model", "base_url"):
            mcp._add_action(action)
    mcp.add_argument("--http", type=bounded(ints(1, 65535)), metavar="PORT",
                     help="serve streamable HTTP on this port (at /mcp) instead of stdio")
    mcp.add_argument("--host", default="127.0.0.1", help="the address --http binds (default: 127.0.0.1 only)")
    mcp.set_defaults(handler=mcp_command)

    serve = add_command("serve", help="keep the indexes loaded and answer search, expand and ask for the command "
                                      "line (a Unix socket in index.data_dir), until Ctrl-C")
    for action in ask._actions:  # the model options of `ask`: a client's settings must be the server's
        if action.dest in ("llm", "model", "base_url"):
            serve._add_action(action)
    serve.set_defaults(handler=serve_command)

    ui = add_command("ui", help="open the workbench (Streamlit, on 127.0.0.1)")
    ui.add_argument("--port", type=bounded(ints(1, 65535)), default=8501, help="default: 8501")
    ui.add_argument("--build-default", action="store_true",
                    help="build or update the bundled default index (ragstream's own source) in the background")
    ui.set_defaults(handler=ui_command)
    add_eval_command(add_command)
    return parser


def bounded(bound: Bound) -> Callable[[str], int]:
    """An argparse type: an int within `bound`, else argparse's usage error naming the option."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an int, got {text!r}") from None
        problem = bound.problem(value)
        if problem:
            raise argparse.ArgumentTypeError(problem)
        return value

    return parse


def add_eval_command(add_command: Callable[..., argparse.ArgumentParser]) -> None:
    from ragstream.eval.names import BASIC, DEFAULT_PIPELINE
    from ragstream.eval.symbol_scores import SCORER_NAME

    ev = add_command("eval", help="measure retrieval quality on questions with known answers")
    ev.add_argument("questions", help="JSONL: id, repo, base_commit, query, gold_files, gold_functions, split; or "
                                      "gold-symbol questions (id, repo, commit, scope, query, kind, gold_files, "
                                      "gold_symbols, gold_sql_objects), each run through --pipeline")
    source = ev.add_mutually_exclusive_group(required=True)
    source.add_argument("--repo", help="one repository folder for every question")
    source.add_argument("--mirrors", help="bare git mirrors laid out <owner>+<name>/repo")
    ev.add_argument("--configs", default=",".join([*BASIC, "pipeline:base"]),
                    help="comma-separated: bm25, semantic, hybrid, hybrid+rerank, hybrid+graph, pipeline:<name>, "
                         "ask:<name>")
    ev.add_argument("--split", help="only questions of this split (e.g. dev)")
    ev.add_argument("--repos", help="only questions of these repositories (comma-separated owner/name)")
    ev.add_argument("--out", default="eval-results", help="folder for ranks, tables and the plot")
    ev.add_argument("--data-dir", help="where evaluation indexes go (default: index.data_dir)")
    ev.add_argument("--worktrees", help="scratch checkouts of --mirrors (default: DATA_DIR/worktrees)")
    ev.add_argument("--top-k", type=bounded(TOP_K), default=100, help="candidates each search returns")
    ev.add_argument("--predictions", help="also write predictions in the scorer's format here "
                                          "(gold-symbol questions: default OUT/predictions.jsonl)")
    ev.add_argument("--reuse", action="append", default=[], metavar="RANKS.jsonl",
                    help="reuse the rows of an earlier run's ranks file (question and configuration)")
    ev.add_argument("--existing-indexes", action="store_true",
                    help="use a commit's evaluation index as it is when one exists (no checkout, no re-index)")
    ev.add_argument("--with-classes", action="store_true",
                    help="rank CLASS nodes among the functions too (gold sets that name changed classes)")
    ev.add_argument("--pipeline", default=DEFAULT_PIPELINE,
                    help=f"gold-symbol questions: the pipeline each runs through, with no model (default: "
                         f"{DEFAULT_PIPELINE}, as ask)")
    ev.add_argument("--scorer", help=f"gold-symbol questions: the set's scorer (default: {SCORER_NAME} beside "
                                     "the questions file)")
    ev.set_defaults(handler=eval_command)
