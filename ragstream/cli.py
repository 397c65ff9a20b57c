"""The `ragstream` command line. It only parses arguments and prints; the work is in the library."""
from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Callable
from functools import partial

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from ragstream.bounds import TOKENS, TOP_K, Bound, ints
from ragstream.cli_output import print_json, print_table
from ragstream.config import load_settings
from ragstream.errors import ConfigError, RagstreamError, RetrievalError
from ragstream.progress_lines import ModelProgress
from ragstream.redact import redact_text
from ragstream.retrieval.filters import RetrievalFilters, narrowed_mapping

console = Console()
err_console = Console(stderr=True)
TABLE_WIDTH = 140  # the eval comparison is read in logs too, where rich would fold it into 80 columns


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if getattr(args, "query", None):  # a secret pasted into a question is never echoed, searched or stored
        args.query = redact_text(args.query)
    try:
        return args.handler(args)
    except RagstreamError as exc:
        print(f"error ({exc.layer}): {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: the previous index (if any) is unchanged", file=sys.stderr)
        return 130


def _parser() -> argparse.ArgumentParser:
    config_help = "a YAML file of settings that override config/defaults.yaml"
    parser = argparse.ArgumentParser(prog="ragstream", description=__doc__, allow_abbrev=False)
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
    waiting = index.add_mutually_exclusive_group()
    waiting.add_argument("--wait", action="store_true",
                         help="stay until every vector is embedded (default: return once keyword-ready, "
                              "the semantic fill going on in the background)")
    waiting.add_argument("--background", action="store_true", help="run the whole build in the background")
    waiting.add_argument("--events", action="store_true",
                         help="print the build's progress as JSON lines on stdout and stay until every vector "
                              "is embedded (what the workbench follows)")
    index.add_argument("--if-stale", action="store_true",
                       help="build only when the index is missing, unusable, has changed files or its fill stopped")
    index.set_defaults(handler=_index)

    publish = add_command("publish", help="publish a built index to Milvus (milvus.uri), live by an alias switch")
    publish.add_argument("--repository", help="default: the only repository indexed")
    publish.add_argument("--name", help="index name (default: the repository's only index)")
    publish.set_defaults(handler=_publish)

    search = add_command("search", help="search an index (semantic, bm25 or hybrid)")
    search.add_argument("query")
    search.add_argument("--repository", help="default: the only repository indexed (or the one holding --index)")
    search.add_argument("--index", help="index name (default: the repository's only index); alone, it is "
                                        "looked up across repositories")
    search.add_argument("--branch", help="default: the index's branch")
    search.add_argument("--mode", default="hybrid", choices=["semantic", "bm25", "hybrid"])
    search.add_argument("--rerank", default="none", choices=["none", "keyword_rerank", "cross_encoder"])
    search.add_argument("--top-k", type=_bounded(TOP_K), default=10)
    search.add_argument("--filter", action="append", default=[], metavar="KEY=V1,V2",
                        help="a retrieval filter, e.g. acl_tags_any=public or kinds=FUNCTION,METHOD")
    search.add_argument("--source", choices=["local", "shared"], default="",
                        help="serve the index from the data folder or from Milvus (default: retrieval.backend)")
    search.add_argument("--json", action="store_true", help="print the results as one JSON document")
    search.set_defaults(handler=_search)

    expand = add_command("expand", help="run a pipeline: search, walk the graph, fetch texts in a budget")
    expand.add_argument("query")
    for action in search._actions:  # the same scope and filter options as `search`
        if action.dest in ("repository", "index", "branch", "filter", "source", "json"):
            expand._add_action(action)
    expand.add_argument("--pipeline", default="base", help="a pipeline in pipelines/ (default: base)")
    expand.add_argument("--top-k", type=_bounded(TOP_K), help="override the pipeline's top_k")
    expand.add_argument("--max-context-tokens", type=_bounded(TOKENS), help="override the pipeline's budget (node texts get 70%%)")
    expand.add_argument("--html", help="also write the graph view (offline HTML) to this file")
    expand.add_argument("--show-context", action="store_true", help="print the rendered evidence blocks")
    expand.set_defaults(handler=_expand)

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
    ask.set_defaults(handler=_ask)

    ui = add_command("ui", help="open the workbench (Streamlit, on 127.0.0.1)")
    ui.add_argument("--port", type=_bounded(ints(1, 65535)), default=8501, help="default: 8501")
    ui.add_argument("--build-default", action="store_true",
                    help="build or update the bundled default index (ragstream's own source) in the background")
    ui.set_defaults(handler=_ui)
    _add_eval_command(add_command)
    return parser


def _bounded(bound: Bound) -> Callable[[str], int]:
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


def _index(args: argparse.Namespace) -> int:
    settings = load_settings(args.config)
    if args.dry_run:
        return _dry_run(args, settings)
    if args.status:
        return _status(args, settings)
    from ragstream.index.background import lower_priority, spawn_index
    from ragstream.index.build import build_index, fill_index, locate, repository_info
    from ragstream.index.fill import describe
    from ragstream.retrieval.backends import publish_if_shared

    if args.if_stale:
        from ragstream.catalog import build_wanted

        wanted = build_wanted(settings, args.path, args.name)
        if wanted is None:
            if args.events:
                from ragstream.index.build_events import EventWriter

                EventWriter(sys.stdout).up_to_date()
            else:
                console.print("the index is up to date and complete (or being filled): nothing to build")
            return 0
        args.rebuild = args.rebuild or wanted
    if args.events:
        return _index_events(args, settings)
    info = repository_info(args.path, args.branch)
    location = locate(info, settings, args.name)
    shared = settings.retrieval.backend != "local"
    if args.background:
        pid, log = spawn_index(location, info.root, ["--branch", info.branch, "--wait"]
                               + (["--rebuild"] if args.rebuild else []), args.config)
        console.print(f"building in the background (pid {pid}, log {log}); "
                      f"`ragstream index {args.path} --status` says where it stands")
        return 0
    with _RichProgress() as progress:
        if args.fill:
            lower_priority()  # a background fill: searches and questions come first
            report = fill_index(args.path, settings, name=args.name, branch=args.branch, progress=progress)
        else:
            # A shared backend publishes the complete index only: the build waits for its fill.
            report = build_index(args.path, settings, name=args.name, branch=args.branch,
                                 rebuild=args.rebuild, progress=progress, fill=args.wait or shared)
    if args.fill:
        console.print(f"semantic fill: {report.embedded_new} texts embedded{_backends(report.embedding_backends)}; "
                      f"stage: {describe(report.vectors)}", highlight=False)
        return 0
    _print_summary(report)
    if report.stage != "complete" and not (args.wait or shared):
        pid, log = spawn_index(location, info.root, ["--branch", info.branch, "--fill"], args.config)
        console.print(f"semantic fill going on in the background (pid {pid}, log {log}); "
                      f"`ragstream index {args.path} --status` says where it stands")
    elif published := publish_if_shared(settings, report.location):
        err_console.print(published.summary(), highlight=False, soft_wrap=True)
    return 0


def _index_events(args: argparse.Namespace, settings) -> int:
    """A build the workbench follows: its progress, then its summary or error, as JSON lines on
    stdout (`index/build_events.py`); the fill runs here, after the index is keyword-ready."""
    from ragstream.index.build import build_index
    from ragstream.index.build_events import EventWriter

    events = EventWriter(sys.stdout)
    try:
        report = build_index(args.path, settings, name=args.name, branch=args.branch, rebuild=args.rebuild,
                             progress=events)
    except RagstreamError as exc:
        events.error(exc)
        return 2
    events.summary(report)
    return 0


def _publish(args: argparse.Namespace) -> int:
    from ragstream.retrieval.milvus_store import publish_built

    report = publish_built(load_settings(args.config), args.repository, args.name)
    err_console.print(report.summary(), highlight=False, soft_wrap=True)
    return 0


def _search(args: argparse.Namespace) -> int:
    _, backend, request = _search_request(args)
    response = backend.search(request)
    where = backend.locations([h.id for h in response.hits], request.repository, request.branch,
                              request.retrieval_filters, request.active_index)
    hits = [{"rank": h.rank, "score": round(h.score, 4), "id": h.id, "path_lines": where.get(h.id, ""),
             "sources": h.sources} for h in response.hits]
    if args.json:
        print_json({"query": args.query, "mode": args.mode, "repository": request.repository,
                    "index": request.active_index, "branch": request.branch, "hits": hits, "debug": response.debug})
        return 0
    print_table(console, f"{args.mode} search: {args.query!r}", ("rank", "score", "id", "path:lines", "sources"),
                [(h["rank"], f"{h['score']:.4f}", h["id"], h["path_lines"],
                  ", ".join(f"{k} #{v}" for k, v in h["sources"].items())) for h in hits])
    console.print(", ".join(f"{k}: {v}" for k, v in response.debug.items()), highlight=False, soft_wrap=True)
    return 0


def _controller(args: argparse.Namespace):
    """The controller for the settings and the --llm/--model/--base-url flags (a context manager:
    it stops a local model server it started)."""
    from ragstream.controller import Controller

    llm = {key: value for key, value in (("provider", getattr(args, "llm", None)), ("model", getattr(args, "model", None)),
                                         ("base_url", getattr(args, "base_url", None))) if value}
    return Controller(load_settings(args.config, {"llm": llm} if llm else None))


def _run_pipeline(controller, args: argparse.Namespace, manual: bool = False, printer: "_Printer | None" = None):
    """(pipeline, state, step results) of the question through the chosen pipeline."""
    from ragstream.controller import ManualSession, Scope
    from ragstream.retrieval.backends import serves_locally
    from ragstream.retrieval.scope import default_scope

    overrides = {k: v for k, v in (("top_k", args.top_k), ("max_context_tokens", args.max_context_tokens))
                 if v is not None}
    pipeline = controller.pipeline(args.pipeline, overrides)
    for warning in pipeline.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    controller.check_question(args.query, pipeline)  # before anything is looked for
    # The source named as the workbench names it, so a conversation's scope is the same in both.
    source = args.source or ("local" if serves_locally(controller.settings, "") else "shared")
    repository, index, branch = default_scope(controller.settings, args.repository, args.index, args.branch, source)
    scope = Scope(repository, branch, index, _filters(args.filter), source)
    is_english = not getattr(args, "not_english", False)
    as_json = getattr(args, "json", False)
    with ModelProgress(sys.stderr) as progress:
        if not manual:
            session = _session(controller, getattr(args, "session", None))
            streamed = controller.runtime.llm.uses_model("answer") and not getattr(args, "step", False) and not as_json
            sp, results = controller.run(args.query, scope, pipeline, is_english, session_id=session,
                                         on_token=printer if streamed and printer else None, on_progress=progress)
            return pipeline, sp, results
        session = ManualSession(controller, pipeline, args.query, scope, is_english)
        session.on_progress = progress
        results = []
        while session.state.stage:
            click = session.click(session.state.stage)
            if click.error:
                raise click.error
            results.append(click.result)
            print(f"[{click.result.step}] {click.result.outcome}; "
                  f"changed: {', '.join(click.result.changed) or 'nothing'}", file=sys.stderr if as_json else sys.stdout)
        return pipeline, session.state, results


def _session(controller, wanted: str | None) -> str | None:
    if wanted != "new":
        return wanted
    session = controller.history.create_session()
    print(f"session {session} (continue it with --session {session})", file=sys.stderr)
    return session


class _Printer:
    """Prints a streamed answer as it comes, and remembers whether anything was printed."""

    printed = False

    def __call__(self, piece: str) -> None:
        self.printed = self.printed or bool(piece)
        print(piece, end="", flush=True)


def _expand(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ragstream.graph.render import render_context_blocks
    from ragstream.graph.view import graph_html

    with _controller(args) as controller:
        pipeline, sp, results = _run_pipeline(controller, args)
        graph = controller.graph(sp)
    debug, accounting = sp.graph_debug, sp.budget.get("node_texts", {})
    kept = {t["id"]: t for t in sp.node_texts}
    cut = {c["id"] for c in accounting.get("cut", [])}
    nodes = [{"id": node, "depth": debug["depth"][node], "seed": node in sp.graph_seed_nodes,
              "parent": debug.get("parent", {}).get(node),
              "tokens": kept[node]["tokens"] if node in kept else None,
              "status": "text" if node in kept else "cut by the budget" if node in cut else "no text"}
             for node in sp.graph_expanded_nodes]
    if args.html:
        Path(args.html).write_text(graph_html(graph, sp), encoding="utf-8")
    if args.json:
        print_json({"query": args.query, "pipeline": pipeline.name, "steps": [_step_json(r) for r in results],
                    "nodes": nodes, "edges": sp.graph_edges, "budget": accounting,
                    "context": render_context_blocks(sp.node_texts, graph, debug.get("parent"),
                                                     pipeline.settings.get("layout", "tree"))
                    if args.show_context else None})
        return 0
    for result in results:
        print(f"step {result.step} ({result.action}): {result.outcome} in {result.seconds * 1000:.0f} ms")
    for node in nodes:
        status = f"{node['tokens']} tokens" if node["status"] == "text" else node["status"]
        print(f"{'  ' * node['depth']}{'*' if node['seed'] else '-'} {node['id']}  [{status}]")
    if accounting:
        print(f"budget: {accounting['used']} of {accounting['budget']} {accounting['unit']} used; "
              f"{len(cut)} node(s) cut")
    if args.show_context:
        print(render_context_blocks(sp.node_texts, graph, debug.get("parent"), pipeline.settings.get("layout", "tree")))
    if args.html:
        print(f"graph view written to {args.html}")
    return 0


def _step_json(result) -> dict:
    return {"step": result.step, "action": result.action, "outcome": result.outcome,
            "ms": round(result.seconds * 1000, 1), "changed": list(result.changed)}


def _ask(args: argparse.Namespace) -> int:
    with _controller(args) as controller:
        printer = _Printer()
        _, sp, results = _run_pipeline(controller, args, manual=args.step, printer=printer)
    if printer.printed and not sp.extras.get("answer", {}).get("shown_while_streaming"):
        print("\n\n(the streamed reply above was cut off; the answer below replaces it)")
    return _report_answer(args, sp, results)


def _report_answer(args: argparse.Namespace, sp, results) -> int:
    from pathlib import Path

    if args.save_state:
        Path(args.save_state).write_text(sp.to_json(), encoding="utf-8")
    if args.json:
        print_json(_answer_json(sp, results, args.show_prompt))
        return 0
    translation = sp.extras.get("normalize", {}).get("translation", "")
    if not sp.is_english:
        print(f"note: {translation}")
    if sp.extras.get("answer", {}).get("shown_while_streaming"):
        print()  # the answer was printed as it streamed
    else:
        print(sp.answer or f"(no answer: the pipeline ended at {results[-1].step} with {results[-1].outcome})")
    print_table(console, "trace", ("stage", "step", "outcome", "ms", "path", "counts", "model calls"),
                [(e["stage"], e["step"], e["outcome"], f"{e['seconds'] * 1000:.0f}", e["path"],
                  ", ".join(f"{name} {n}" for name, n in e["counts"].items()), _calls(e)) for e in sp.trace])
    for entry in sp.trace:
        for warning in entry["warnings"]:
            print(f"warning ({entry['step']}): {warning}", file=sys.stderr)
    prompt = sp.budget.get("prompt", {})
    if prompt:
        print_table(console, "prompt budget", ("block", "tokens", "limit"),
                    [*((name, tokens, prompt["limits"].get(name, "")) for name, tokens in prompt["blocks"].items()),
                     ("total", prompt["total"], "")])
        for cut in sp.budget.get("context", {}).get("cuts", []):
            print(f"cut {cut['id']}: {cut['reason']}")
    if args.show_prompt:
        print(sp.prompt_ready)
    if args.save_state:
        print(f"state written to {args.save_state}")
    return 0


def _calls(entry: dict) -> str:
    return ", ".join(f"{c['role']} {c['model']} {c['prompt_tokens']}+{c['completion_tokens']} tok "
                     f"{c['seconds']:.1f}s" + (f" ({c['retries']} retries)" if c["retries"] else "")
                     for c in entry.get("llm_calls", []))


def _answer_json(sp, results, with_prompt: bool) -> dict:
    """What `ask --json` prints: the answer, what it cites, the plan, trace and budgets."""
    answer = sp.extras.get("answer", {})
    return {"question": sp.question_raw, "answer": sp.answer, "citations": answer.get("citations", []),
            "path": answer.get("path"), "retrieval_mode": sp.retrieval_mode, "retrieval_query": sp.retrieval_query,
            "repository": sp.repository, "index": sp.active_index, "branch": sp.branch,
            "filters": sp.retrieval_filters, "final_selection_ids": sp.final_selection_ids,
            "follow_up": sp.extras.get("history", {}).get("follow_up"),
            "session": sp.extras.get("persist", {}), "steps": [_step_json(r) for r in results],
            "trace": sp.trace, "budget": sp.budget, "prompt": sp.prompt_ready if with_prompt else None}


def _ui(args: argparse.Namespace) -> int:
    """Become the Streamlit server of ui_streamlit.py; settings and the default-index wish go by
    environment (Streamlit owns the script's argv)."""
    import os
    from pathlib import Path

    from ragstream.config import PROJECT_ROOT
    from ragstream.ui import BUILD_DEFAULT_ENV, CONFIG_ENV, DEFAULT_BUILD_ENV

    settings = load_settings(args.config)  # a broken settings file fails here, not in the page
    config = str(Path(args.config).resolve()) if args.config else ""
    env = {**os.environ, CONFIG_ENV: config, BUILD_DEFAULT_ENV: "1" if args.build_default else ""}
    env.pop(DEFAULT_BUILD_ENV, None)
    if args.build_default:
        from ragstream.config import DEFAULT_INDEX_NAME
        from ragstream.index.background import start_followed_build

        # Started now, before Streamlit: the index is askable seconds sooner. The child decides
        # whether there is anything to build (`--if-stale`); it stays this process's child
        # across the exec below, and the page follows its events.
        process, events = start_followed_build(settings, PROJECT_ROOT, DEFAULT_INDEX_NAME, None, config or None)
        env[DEFAULT_BUILD_ENV] = f"{process.pid}:{events}"
    command = [sys.executable, "-m", "streamlit", "run", str(PROJECT_ROOT / "ui_streamlit.py"),
               "--server.address", "127.0.0.1", "--server.port", str(args.port), "--server.headless", "true",
               "--browser.gatherUsageStats", "false", "--client.toolbarMode", "minimal",
               "--client.showErrorDetails", "none",  # a backstop: panels show errors in place
               "--server.fileWatcherType", "none"]  # no reloading: scanning torch's modules on every rerun is slow
    print(f"ragstream workbench: http://127.0.0.1:{args.port}", flush=True)
    os.execve(sys.executable, command, env)


def _add_eval_command(add_command: Callable[..., argparse.ArgumentParser]) -> None:
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
    ev.add_argument("--top-k", type=_bounded(TOP_K), default=100, help="candidates each search returns")
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
    ev.set_defaults(handler=_eval)


def _eval(args: argparse.Namespace) -> int:
    import os
    from pathlib import Path

    import orjson

    from ragstream.eval import report
    from ragstream.eval.configs import check_configs
    from ragstream.eval.harness import FUNCTION_KINDS, WITH_CLASSES, EvalOptions, check_asked, eval_settings, run_eval
    from ragstream.eval.questions import load_questions
    from ragstream.eval.symbol_questions import holds_symbol_questions

    settings = load_settings(args.config)
    if holds_symbol_questions(args.questions):
        return _eval_symbols(args, settings)
    questions = _only_repos(load_questions(args.questions, args.split), args)
    configs = check_configs([c.strip() for c in args.configs.split(",") if c.strip()])
    source = _index_source(args, settings)
    check_asked(questions, configs, eval_settings(settings, source.data_dir))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    options = EvalOptions(configs, source.data_dir, source.repo, source.mirrors, source.worktrees, args.top_k,
                          tuple(Path(p) for p in args.reuse), args.existing_indexes,
                          WITH_CLASSES if args.with_classes else FUNCTION_KINDS)
    command = "ragstream " + " ".join(sys.argv[1:])
    # Rows stream to .partial files (readable, and reusable with --reuse, if the run stops) and
    # replace the previous run's files only at the end: `--reuse OUT/ranks.jsonl --out OUT` works.
    ranks_path, builds_path = out / "ranks.jsonl", out / "builds.jsonl"
    with open(f"{ranks_path}.partial", "wb") as ranks, open(f"{builds_path}.partial", "wb") as builds:
        def on_row(row: dict) -> None:
            ranks.write(orjson.dumps(row) + b"\n")
            ranks.flush()
            m = row["metrics"]
            err_console.print(f"{row['config']:<16} {row['id']:<40} file R@5 {m['file_R@5']:.2f}"
                              + (f"  func R@10 {m['func_R@10']:.2f}" if "func_R@10" in m else ""), highlight=False)

        result = run_eval(questions, settings, options, on_row, partial(_on_build, builds))
    os.replace(f"{ranks_path}.partial", ranks_path)
    os.replace(f"{builds_path}.partial", builds_path)
    summary = report.summarize(result.rows, configs)
    title = f"{Path(args.questions).name}: {len(questions)} questions"
    (out / "summary.json").write_bytes(orjson.dumps(summary, option=orjson.OPT_INDENT_2))
    (out / "comparison.md").write_text(report.comparison_markdown(summary, title, command), encoding="utf-8")
    if args.predictions:
        Path(args.predictions).write_bytes(report.prediction_lines(result.rows))
    Console(width=max(console.width, TABLE_WIDTH)).print(report.comparison_table(summary, title))
    gold = {q.id: (list(q.gold_files), list(q.gold_functions)) for q in questions}
    written = "ranks, comparison.md and recall.png"
    try:
        report.plot_recall(result.rows, gold, configs, out / "recall.png", title)
    except ConfigError as exc:  # matplotlib is an optional extra: everything else is written
        err_console.print(f"[yellow]no recall.png: {exc}[/yellow]")
        written = "ranks and comparison.md"
    console.print(f"{written} written to {out}")
    return 0


def _eval_symbols(args: argparse.Namespace, settings) -> int:
    """Gold-symbol questions: each through the pipeline; rows, predictions and the scorer's tables."""
    import os
    from pathlib import Path

    import orjson

    from ragstream.eval.pipeline_eval import PipelineEvalOptions, run_pipeline_eval
    from ragstream.eval.symbol_questions import load_symbol_questions
    from ragstream.eval.symbol_scores import load_scorer, score_predictions, scorer_path, scores_markdown

    questions = _only_repos(load_symbol_questions(args.questions), args)
    scorer = load_scorer(scorer_path(args.scorer, args.questions))  # before the long run, not after it
    options = PipelineEvalOptions(_index_source(args, settings), args.pipeline)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows_path, builds_path = out / "rows.jsonl", out / "builds.jsonl"
    with open(f"{rows_path}.partial", "wb") as rows, open(f"{builds_path}.partial", "wb") as builds:
        def on_row(row: dict) -> None:
            rows.write(orjson.dumps(row) + b"\n")
            rows.flush()
            other = [step for step in row["steps"] if not step.endswith(":ok")]  # what did not go the usual way
            err_console.print(f"{row['id']:<20} {row['kind']:<8} cited {row['cited']}, context {row['context']}, "
                              f"hits {row['hits']}, {row['seconds']:.1f} s  {' '.join(other)}",
                              highlight=False, soft_wrap=True)

        result = run_pipeline_eval(questions, settings, options, on_row, partial(_on_build, builds))
    os.replace(f"{rows_path}.partial", rows_path)
    os.replace(f"{builds_path}.partial", builds_path)
    predictions = [{k: r[k] for k in ("id", "kind", "scope", "ranked_nodes")} for r in result.rows]
    predictions_path = Path(args.predictions) if args.predictions else out / "predictions.jsonl"
    predictions_path.write_bytes(b"".join(orjson.dumps(p) + b"\n" for p in predictions))
    table = score_predictions(scorer, args.questions, predictions)
    (out / "scores.json").write_bytes(orjson.dumps(table.to_json(), option=orjson.OPT_INDENT_2))
    command = "ragstream " + " ".join(sys.argv[1:])
    (out / "scores.md").write_text(f"Command: `{command}`\n\n{scores_markdown(table)}", encoding="utf-8")
    print(table.report, end="")
    console.print(f"rows, predictions ({predictions_path}), scores.json and scores.md written to {out}")
    return 0


def _only_repos(questions: list, args: argparse.Namespace) -> list:
    """The questions of --repos (all without it); none left is an error naming the option that emptied it."""
    if args.repos:
        wanted = {r.strip() for r in args.repos.split(",")}
        questions = [q for q in questions if q.repo in wanted]
    if not questions:
        raise ConfigError(f"no question of {args.questions} is left to evaluate",
                          where="--repos" if args.repos else "--split" if args.split else "questions file")
    return questions


def _index_source(args: argparse.Namespace, settings):
    from pathlib import Path

    from ragstream.eval.commit_index import IndexSource

    return IndexSource(Path(args.data_dir or settings.index.data_dir).resolve(), Path(args.repo) if args.repo else None,
                       Path(args.mirrors) if args.mirrors else None, Path(args.worktrees) if args.worktrees else None,
                       args.existing_indexes)


def _on_build(builds, build: dict) -> None:
    """Append an index build's record to the open builds file and say it."""
    import orjson

    builds.write(orjson.dumps(build) + b"\n")
    builds.flush()
    err_console.print(f"indexed {build['repo']} @ {build['index']}: {build['files']} files, "
                      f"{build['chunks']} chunks, {build['reparsed']} parsed, "
                      f"{build['embedded_new']} embedded, {build['seconds']} s", highlight=False, soft_wrap=True)


def _search_request(args: argparse.Namespace):
    from ragstream.retrieval.backends import make_backend_for
    from ragstream.retrieval.scope import default_scope
    from ragstream.retrieval.types import SearchRequest

    settings = load_settings(args.config)
    repository, index, branch = default_scope(settings, args.repository, args.index, args.branch, args.source)
    request = SearchRequest(args.mode, args.query, args.top_k, repository, branch,
                            _filters(args.filter), index, args.rerank)
    return settings, make_backend_for(settings, args.source), request


def _filters(items: list[str]) -> dict[str, list[str]]:
    """`--filter KEY=V1,V2`, repeatable; a repeated key narrows (`narrowed_mapping`)."""
    pairs = []
    for item in items:
        key, sep, values = item.partition("=")
        if not sep:
            raise RetrievalError(f"expected KEY=V1,V2, got {item!r}", where="--filter")
        pairs.append((key.strip(), [v.strip() for v in values.split(",") if v.strip()]))
    filters = narrowed_mapping(pairs)
    RetrievalFilters.parse(filters)  # refused here, before anything is loaded
    return filters


def _dry_run(args: argparse.Namespace, settings) -> int:
    from ragstream.index.walk import walk_repository

    walked = walk_repository(args.path, settings.index)
    for f in walked.files:
        redacted = f"  ({len(f.redactions)} secret(s) will be redacted)" if f.redactions else ""
        print(f"index  {f.path}  [{f.language}]{redacted}")
    for s in walked.skipped:
        detail = f": {s.detail}" if s.detail else ""
        print(f"skip   {s.path}  ({s.reason}{detail})")
    print(f"{len(walked.files)} file(s) would be indexed, {len(walked.skipped)} skipped: "
                  + ", ".join(f"{k} {v}" for k, v in walked.skipped_by_reason().items()))
    return 0


def _status(args: argparse.Namespace, settings) -> int:
    from ragstream.index.build import index_status

    from ragstream.index.fill import describe, stage_of
    from ragstream.index.store import lock_holder

    stored, changes = index_status(args.path, settings, name=args.name, branch=args.branch)
    m = stored.manifest
    console.print(f"index {stored.location.index_dir} (updated {m['updated_at']}, "
                  f"{m['counts']['files']} files, {m['counts']['chunks']} chunks)")
    console.print(f"stage: {describe(stage_of(m), lock_holder(stored.location))}", highlight=False)
    for label, paths in (("added", changes.added), ("changed", changes.changed), ("deleted", changes.deleted)):
        for path in paths:
            console.print(f"  {label:8} {path}")
    console.print(f"{changes.stale} stale file(s), {changes.unchanged} unchanged"
                  + ("" if not changes.stale else f"; run `ragstream index {args.path}` to update"))
    return 0


def _print_summary(report) -> None:
    from ragstream.index.fill import describe

    c = report.changes
    mode = (f"incremental: {len(c.added)} added, {len(c.changed)} changed, {len(c.deleted)} deleted, "
            f"{c.unchanged} unchanged" if report.incremental else "full build")
    console.print(f"[bold]indexed[/] {report.info.repository} @ {report.info.branch}"
                  f"{' (' + report.info.commit[:10] + ')' if report.info.commit else ''} -> {report.location.index_dir}")
    if report.previous_index_problem:
        console.print(f"[yellow]previous index not reused:[/] {report.previous_index_problem}")
    console.print(f"{mode}; {report.files} files, {report.chunks} chunks ({report.split_chunks} split parts), "
                  f"{report.reparsed} files parsed, {report.embedded_new} texts embedded"
                  f"{_backends(report.embedding_backends)}, {report.embedded_cached} from cache")
    console.print(f"stage: {describe(report.vectors, 'fill' if report.fill_stopped else 'build')}"
                  + (" (a re-index took the fill over)" if report.fill_stopped else ""), highlight=False)
    console.print(f"change history: {report.past_changes} past commits touched indexed definitions"
                  if report.past_changes else "change history: none (not a git work tree, no commits touching "
                  "indexed definitions, or index.change_history_commits is 0)")
    console.print(_counter_table("nodes by kind", report.nodes_by_kind))
    console.print(_counter_table("edges by type", report.edges_by_type))
    console.print(_counter_table("skipped files by reason", Counter(s.reason for s in report.skipped)))
    r = report.resolution
    console.print(f"references: {sum(r.resolved.values())} linked ({sum(r.by_name.values())} by unique name, "
                  f"{sum(r.external.values())} to EXTERNAL nodes), {sum(r.dropped.values())} unresolved and dropped")
    for path, error in sorted(report.parse_failures.items()):
        console.print(f"[yellow]parse failed, indexed as text:[/] {path}: {error}", highlight=False)
    for warning in report.parse_warnings:
        console.print(f"[yellow]warning:[/] {warning}", highlight=False)
    for skipped in report.skipped:
        if skipped.reason == "unreadable":
            console.print(f"[yellow]warning: skipped an unreadable folder:[/] {skipped.path} ({skipped.detail})",
                          highlight=False, soft_wrap=True)
    if report.redactions:
        console.print(f"secrets redacted: {sum(report.redactions.values())} in {len(report.redactions)} file(s)")
    console.print("time per phase: " + ", ".join(f"{k} {v:.2f}s" for k, v in report.seconds.items()))


def _backends(backends: dict[str, int]) -> str:
    return f" ({', '.join(f'{n} with {name}' for name, n in sorted(backends.items()))})" if backends else ""


def _counter_table(title: str, counts: Counter) -> Table:
    table = Table(title=title, show_header=False, title_justify="left", box=None, padding=(0, 2))
    for key, value in sorted(counts.items()):
        table.add_row(str(key), str(value))
    if not counts:
        table.add_row("(none)", "")
    return table


class _RichProgress:
    """One progress bar per build phase."""

    def __init__(self) -> None:
        self._progress = Progress(SpinnerColumn(), TextColumn("{task.description:<6}"), BarColumn(),
                                  MofNCompleteColumn(), TimeElapsedColumn(), console=err_console,
                                  transient=False)
        self._tasks: dict[str, int] = {}
        self._stage: str | None = None
        self._began = time.perf_counter()

    def __enter__(self) -> "_RichProgress":
        self._progress.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._progress.__exit__(*exc)

    def start(self, phase: str, total: int | None) -> None:
        self._tasks[phase] = self._progress.add_task(phase, total=total)

    def advance(self, phase: str, amount: int = 1) -> None:
        self._progress.advance(self._tasks[phase], amount)

    def finish(self, phase: str) -> None:
        task = self._tasks[phase]
        done = self._progress.tasks[task].completed
        self._progress.update(task, total=done, completed=done)

    def published(self, vectors: dict) -> None:
        """Say when the index reaches a stage: keyword-ready is when questions can be asked."""
        from ragstream.index.fill import STAGE_NAMES

        if vectors["stage"] != self._stage:
            self._stage = vectors["stage"]
            usable = "; bm25, the graph, expand and ask work now" if self._stage == "keyword" else ""
            self._progress.console.print(f"{STAGE_NAMES[self._stage]} after {time.perf_counter() - self._began:.1f} s "
                                         f"({vectors['embedded']:,} of {vectors['texts']:,} texts embedded){usable}",
                                         highlight=False)


if __name__ == "__main__":
    sys.exit(main())
