"""`ragstream search`, `expand` and `ask`: a question through a search or a pipeline, its
results printed as tables or JSON."""
from __future__ import annotations

import argparse
import sys
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any

from ragstream.cli import held, output
from ragstream.cli.output import print_json, print_table
from ragstream.config import Settings, load_settings
from ragstream.errors import RetrievalError
from ragstream.output_files import check_output_file, write_output_file
from ragstream.progress_lines import ModelProgress
from ragstream.retrieval.filters import RetrievalFilters, narrowed_mapping

if TYPE_CHECKING:
    from ragstream.controller import Controller


def search_command(args: argparse.Namespace) -> int:
    from ragstream.controller import resolve_scope, search

    settings = load_settings(args.config)
    scope = resolve_scope(settings, args.repository, args.index, args.branch, args.source)
    _say_scope(args, scope)
    resident = held.held(settings)  # a `ragstream serve` process's controller, its indexes loaded
    request, response, where = search(settings, scope.with_filters(filters_of(args.filter)), args.mode, args.query,
                                      args.top_k, args.rerank,
                                      resident.backend_for(scope.index_source) if resident else None)
    hits: list[dict[str, Any]] = [{"rank": h.rank, "score": round(h.score, 4), "id": h.id,
                                   "path_lines": where.get(h.id, ""), "sources": h.sources} for h in response.hits]
    if args.json:
        print_json({"query": args.query, "mode": args.mode, "repository": request.repository,
                    "index": request.active_index, "branch": request.branch, "hits": hits, "debug": response.debug})
        return 0
    for warning in response.debug.get("warnings", []):
        print(f"warning (search): {warning}", file=sys.stderr)
    print_table(output.console, f"{args.mode} search: {args.query!r}", ("rank", "score", "id", "path:lines", "sources"),
                [(h["rank"], f"{h['score']:.4f}", h["id"], h["path_lines"],
                  ", ".join(f"{k} #{v}" for k, v in h["sources"].items())) for h in hits])
    output.console.print(", ".join(f"{k}: {v}" for k, v in response.debug.items()), highlight=False, soft_wrap=True)
    return 0


def _say_scope(args: argparse.Namespace, scope) -> None:
    """Which index a command chose by itself (no --repository): on stderr, so piped output stays clean."""
    if args.repository is None:
        print(f"index: {scope.repository} / {scope.active_index} (branch {scope.branch}); "
              "another with --repository NAME [--index NAME]", file=sys.stderr)


def filters_of(items: list[str]) -> dict[str, list[str]]:
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


def settings_of(args: argparse.Namespace) -> Settings:
    """The settings of --config with the --llm/--model/--base-url flags."""
    llm = {key: value for key, value in (("provider", getattr(args, "llm", None)), ("model", getattr(args, "model", None)),
                                         ("base_url", getattr(args, "base_url", None))) if value}
    return load_settings(args.config, {"llm": llm} if llm else None)


def controller_for(args: argparse.Namespace) -> AbstractContextManager[Controller]:
    """The controller for the settings and the --llm/--model/--base-url flags (a context manager:
    it stops a local model server it started). In a `ragstream serve` process, its own controller
    when the settings are the server's: kept open, its indexes loaded."""
    from ragstream.controller import Controller

    settings = settings_of(args)
    resident = held.held(settings)
    return nullcontext(resident) if resident else Controller(settings)


def _run_pipeline(controller, args: argparse.Namespace, manual: bool = False, printer: "_Printer | None" = None):
    """(pipeline, state, step results) of the question through the chosen pipeline."""
    from ragstream.controller import ManualSession

    overrides = {k: v for k, v in (("top_k", args.top_k), ("max_context_tokens", args.max_context_tokens))
                 if v is not None}
    pipeline = controller.pipeline(args.pipeline, overrides)
    for warning in pipeline.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    question = controller.check_question(args.query, pipeline)  # once, before anything is looked for
    scope = controller.scope(args.repository, args.index, args.branch, args.source).with_filters(filters_of(args.filter))
    _say_scope(args, scope)
    is_english = not getattr(args, "not_english", False)
    as_json = getattr(args, "json", False)
    with ModelProgress(sys.stderr) as progress:
        if not manual:
            session = _session(controller, getattr(args, "session", None))
            streamed = controller.runtime.llm.uses_model("answer") and not getattr(args, "step", False) and not as_json
            sp, results = controller.run(question, scope, pipeline, is_english, session_id=session,
                                         on_token=printer if streamed and printer else None, on_progress=progress)
            return pipeline, sp, results
        stepping = ManualSession(controller, pipeline, question, scope, is_english)
        stepping.on_progress = progress
        results = []
        while stepping.state.stage:
            click = stepping.click(stepping.state.stage)
            if click.error:
                raise click.error
            assert click.result is not None  # a click without an error ran its step
            results.append(click.result)
            print(f"[{click.result.step}] {click.result.outcome}; "
                  f"changed: {', '.join(click.result.changed) or 'nothing'}", file=sys.stderr if as_json else sys.stdout)
        return pipeline, stepping.state, results


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


def expand_command(args: argparse.Namespace) -> int:
    from ragstream.controller import expanded_nodes
    from ragstream.graph.render import render_context_blocks
    from ragstream.graph.view import graph_html
    from ragstream.index.graph_mark import graph_note_of

    if args.html:
        check_output_file(args.html, "--html")  # before the work, not after it
    with controller_for(args) as controller:
        pipeline, sp, results = _run_pipeline(controller, args)
        graph = controller.graph(sp)
    debug, accounting = sp.graph_debug, sp.budget.get("node_texts", {})
    nodes = expanded_nodes(sp)
    if args.html:
        write_output_file(args.html, graph_html(graph, sp), "--html")
    _print_warnings(sp)
    if args.json:
        print_json({"query": args.query, "pipeline": pipeline.name, "steps": [_step_json(r) for r in results],
                    "warnings": _warnings(sp), "graph": graph_note_of(sp),
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
              f"{len(accounting.get('cut', []))} node(s) cut")
    if args.show_context:
        print(render_context_blocks(sp.node_texts, graph, debug.get("parent"), pipeline.settings.get("layout", "tree")))
    if args.html:
        print(f"graph view written to {args.html}")
    return 0


def _step_json(result) -> dict:
    return {"step": result.step, "action": result.action, "outcome": result.outcome,
            "ms": round(result.seconds * 1000, 1), "changed": list(result.changed)}


def ask_command(args: argparse.Namespace) -> int:
    if args.save_state:
        check_output_file(args.save_state, "--save-state")  # before the work, not after it
    with controller_for(args) as controller:
        printer = _Printer()
        _, sp, results = _run_pipeline(controller, args, manual=args.step, printer=printer)
    if printer.printed and not sp.extras.get("answer", {}).get("shown_while_streaming"):
        print("\n\n(the streamed reply above was cut off; the answer below replaces it)")
    return _report_answer(args, sp, results)


def _report_answer(args: argparse.Namespace, sp, results) -> int:
    if args.save_state:
        write_output_file(args.save_state, sp.to_json(), "--save-state")
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
    print_table(output.console, "trace", ("stage", "step", "outcome", "ms", "path", "counts", "model calls"),
                [(e["stage"], e["step"], e["outcome"], f"{e['seconds'] * 1000:.0f}", e["path"],
                  ", ".join(f"{name} {n}" for name, n in e["counts"].items()), _calls(e)) for e in sp.trace])
    _print_warnings(sp)
    prompt = sp.budget.get("prompt", {})
    if prompt:
        print_table(output.console, "prompt budget", ("block", "tokens", "limit"),
                    [*((name, tokens, prompt["limits"].get(name, "")) for name, tokens in prompt["blocks"].items()),
                     ("total", prompt["total"], "")])
        for cut in sp.budget.get("context", {}).get("cuts", []):
            print(f"cut {cut['id']}: {cut['reason']}")
    if args.show_prompt:
        print(sp.prompt_ready)
    if args.save_state:
        print(f"state written to {args.save_state}")
    return 0


def _warnings(sp) -> list[str]:
    """Every step's warnings (a filter glob that matches nothing, a partial index, an interim
    graph ...), each after the step that gave it."""
    return [f"({entry['step']}): {warning}" for entry in sp.trace for warning in entry["warnings"]]


def _print_warnings(sp) -> None:
    """Every step's warnings on stderr."""
    for warning in _warnings(sp):
        print(f"warning {warning}", file=sys.stderr)


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
