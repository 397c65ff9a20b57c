"""`ragstream eval`: retrieval measured on questions with known answers; rows stream to files,
tables and the plot are written at the end."""
from __future__ import annotations

import argparse
import sys
from functools import partial

from rich.console import Console

from ragstream.cli.output import TABLE_WIDTH, console, err_console
from ragstream.config import load_settings
from ragstream.errors import ConfigError
from ragstream.output_files import check_output_file, output_folder, write_output_file


def eval_command(args: argparse.Namespace) -> int:
    import os
    from pathlib import Path

    import orjson

    from ragstream.eval import report
    from ragstream.eval.configs import check_configs
    from ragstream.eval.harness import FUNCTION_KINDS, WITH_CLASSES, EvalOptions, check_asked, eval_settings, run_eval
    from ragstream.eval.questions import load_questions
    from ragstream.eval.symbol_questions import holds_symbol_questions

    settings = load_settings(args.config)
    if args.predictions:
        check_output_file(args.predictions, "--predictions")  # before the long run, not after it
    if holds_symbol_questions(args.questions):
        return _eval_symbols(args, settings)
    questions = _only_repos(load_questions(args.questions, args.split), args)
    configs = check_configs([c.strip() for c in args.configs.split(",") if c.strip()])
    source = _index_source(args, settings)
    check_asked(questions, configs, eval_settings(settings, source.data_dir))
    out = output_folder(args.out, "--out")
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
        write_output_file(args.predictions, report.prediction_lines(result.rows), "--predictions")
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

    import orjson

    from ragstream.eval.pipeline_eval import PipelineEvalOptions, run_pipeline_eval
    from ragstream.eval.symbol_questions import load_symbol_questions
    from ragstream.eval.symbol_scores import load_scorer, score_predictions, scorer_path, scores_markdown

    questions = _only_repos(load_symbol_questions(args.questions), args)
    scorer = load_scorer(scorer_path(args.scorer, args.questions))  # before the long run, not after it
    options = PipelineEvalOptions(_index_source(args, settings), args.pipeline)
    out = output_folder(args.out, "--out")
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
    predictions_path = write_output_file(args.predictions or out / "predictions.jsonl",
                                         b"".join(orjson.dumps(p) + b"\n" for p in predictions), "--predictions")
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
