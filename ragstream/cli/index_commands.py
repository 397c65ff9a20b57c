"""`ragstream index` and `ragstream publish`: build, fill, check and publish an index, with the
build's progress and summary printed."""
from __future__ import annotations

import argparse
import gc
import sys
import time
from collections import Counter
from collections.abc import Callable
from functools import partial

from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TaskID, TextColumn,
                           TimeElapsedColumn)
from rich.table import Table
from rich.markup import escape

from ragstream.cli.output import console, err_console
from ragstream.config import load_settings
from ragstream.errors import ConfigError, RagstreamError


def index_command(args: argparse.Namespace) -> int:
    settings = load_settings(args.config)
    if args.dry_run:
        return _dry_run(args, settings)
    if args.status:
        return _status(args, settings)
    from ragstream.index.background import lower_priority, spawn_index
    from ragstream.index.build import build_index, fill_index, locate, repository_info
    from ragstream.index.fill import describe

    if args.watch and (args.background or args.if_stale):
        raise ConfigError("--watch stays in the foreground and re-indexes only what changed: "
                          "it takes neither --background nor --if-stale", where="ragstream index --watch")
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
    if args.events and not args.watch:
        return _index_events(args, settings)
    info = repository_info(args.path, args.branch)
    location = locate(info, settings, args.name)
    if args.watch:
        return _watch(args, settings, info, location)
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
    if note := _after_build(args, settings, report):
        console.print(f"{note}; `ragstream index {args.path} --status` says where it stands", highlight=False)
    return 0


def _after_build(args: argparse.Namespace, settings, report) -> str | None:
    """Hand a keyword-ready index's semantic fill to a background process (returning what to
    say about it), or publish a complete one to a shared backend (printing its summary)."""
    from ragstream.index.background import spawn_index
    from ragstream.index.store import lock_holder
    from ragstream.retrieval.publishing import publish_if_shared

    if report.stage != "complete" and not (args.wait or settings.retrieval.backend != "local"):
        if (holder := lock_holder(report.location) or "").startswith("fill"):  # nothing changed: it goes on
            return f"semantic fill going on in the background ({holder})"
        pid, log = spawn_index(report.location, report.info.root, ["--branch", report.info.branch, "--fill"],
                               args.config)
        return f"semantic fill going on in the background (pid {pid}, log {log})"
    if not report.unchanged and (published := publish_if_shared(settings, report.location)):
        err_console.print(published.summary(), highlight=False, soft_wrap=True)
    return None


def _watch(args: argparse.Namespace, settings, info, location) -> int:
    """Index, then re-index after every burst of file changes, one line each, until Ctrl-C;
    with `--events`, as JSON lines for the workbench that follows it (`catalog.WatchJob`), the
    fill run here after each refresh, until that workbench stops it or stops."""
    from pathlib import Path

    from ragstream.index.background import stop_with_parent
    from ragstream.index.build import build_index, prime_warm_state
    from ragstream.index.build_events import EventWriter
    from ragstream.index.watch import changed_files

    shared = settings.retrieval.backend != "local"
    events = EventWriter(sys.stdout, args.events_file) if args.events else None
    fills = args.wait or shared or events is not None  # here, after each refresh
    if events is not None:
        stop_with_parent()  # the workbench's watcher: it ends with the workbench

    def refresh(changed: list[str]) -> bool:
        """Re-index; whether the index was up to date already."""
        started = time.perf_counter()
        if events is not None and changed:
            events.changed(changed)
        try:
            report = build_index(info.root, settings, name=args.name, branch=args.branch, progress=events,
                                 fill=fills, changed=changed)
        except RagstreamError as exc:  # a broken moment in an edit: say so and keep watching
            if events is not None:
                events.error(exc)
            else:
                err_console.print(f"error ({exc.layer}): {exc}; still watching", highlight=False, soft_wrap=True)
            return False
        if events is not None:
            events.summary(report)
        elif not report.unchanged or not changed:
            seconds = time.perf_counter() - started
            note = _after_build(args, settings, report)
            console.print(_refresh_line(report, changed, seconds) + (f"; {note}" if note else ""),
                          highlight=False, soft_wrap=True)
        if not report.unchanged:
            # The build's garbage collected now, while the files are quiet: the process keeps its
            # last build (`index/warm_state.py`), and a full collection over it, left to come when
            # it may, would land in the next refresh (~0.8 s on a 50k-line repository).
            gc.collect()
        return report.unchanged

    data_dir = Path(settings.index.data_dir).expanduser().resolve()
    try:
        for refreshes, changed in enumerate(changed_files(info.root, data_dir, settings.index.watch_debounce_ms,
                                                               settings.index.vendored_dirs)):
            unchanged = refresh(changed)  # the first: the build every watch starts with, the watcher already up
            if refreshes:
                continue
            if events is not None:
                events.watching()
            else:
                console.print(f"watching {info.root} (Ctrl-C stops)", highlight=False, soft_wrap=True)
            if unchanged and _primed(partial(prime_warm_state, info.root, settings, name=args.name,
                                             branch=args.branch, fills=fills)):
                gc.collect()  # as after a refresh: not in the first edit's
    except KeyboardInterrupt:
        if events is None:
            console.print(f"stopped watching {info.root}; the index in {location.index_dir} is the last one "
                          "published", highlight=False, soft_wrap=True)
    return 0


def _primed(prime: Callable[[], bool]) -> bool:
    """A watch whose first build found nothing to do fills its warm state now, the watcher up
    (`build.prime_warm_state`), or the first edit would be re-indexed as by a new process. A
    failure leaves the state empty: the next refresh builds cold, and says why if it fails too."""
    try:
        return prime()
    except RagstreamError:
        return False


def _refresh_line(report, changed: list[str], seconds: float) -> str:
    """One line per refresh: what changed, how long until keyword-ready, the stage (a fill is
    running or handed to the background when it is not complete)."""
    from ragstream.index.fill import describe

    c = report.changes
    if report.unchanged:
        what = "unchanged"
    elif report.incremental:
        what = f"{len(c.added)} added, {len(c.changed)} changed, {len(c.deleted)} deleted"
    else:
        what = f"full build of {report.files} files"
    seen = f" (saw {', '.join(changed[:3])}{', ...' if len(changed) > 3 else ''})" if changed else ""
    return (f"refreshed: {what}{seen}; {report.published}, {seconds:.2f} s in all; {report.chunks} chunks; "
            f"stage: {describe(report.vectors, 'fill')}")


def _index_events(args: argparse.Namespace, settings) -> int:
    """A build the workbench follows: its progress, then its summary or error, as JSON lines on
    stdout (`index/build_events.py`); the fill runs here, after the index is keyword-ready. It
    stops when the workbench that started it stops."""
    from ragstream.index.background import stop_with_parent
    from ragstream.index.build import build_index
    from ragstream.index.build_events import EventWriter

    stop_with_parent()  # the workbench's build: it ends with the workbench
    events = EventWriter(sys.stdout)
    try:
        report = build_index(args.path, settings, name=args.name, branch=args.branch, rebuild=args.rebuild,
                             progress=events)
    except RagstreamError as exc:
        events.error(exc)
        return 2
    events.summary(report)
    return 0


def publish_command(args: argparse.Namespace) -> int:
    from ragstream.retrieval.publishing import publish_built

    report = publish_built(load_settings(args.config), args.repository, args.name)
    err_console.print(report.summary(), highlight=False, soft_wrap=True)
    return 0


def _dry_run(args: argparse.Namespace, settings) -> int:
    """Each file as the walk meets it (a large tree shows its first lines at once), then the counts."""
    from ragstream.index.walk import SkippedFile, walk_entries

    kept, skipped = 0, Counter[str]()
    for entry in walk_entries(args.path, settings.index):
        if isinstance(entry, SkippedFile):
            skipped[entry.reason] += 1
            print(f"skip   {entry.path}  ({entry.reason}{f': {entry.detail}' if entry.detail else ''})", flush=True)
        else:
            kept += 1
            redacted = f"  ({len(entry.redactions)} secret(s) will be redacted)" if entry.redactions else ""
            print(f"index  {entry.path}  [{entry.language}]{redacted}", flush=True)
    print(f"{kept} file(s) would be indexed, {skipped.total()} skipped: "
          + ", ".join(f"{k} {v}" for k, v in sorted(skipped.items())))
    return 0


def _status(args: argparse.Namespace, settings) -> int:
    from ragstream.index.build import index_status

    from ragstream.index.fill import describe, stage_of
    from ragstream.index.sql_coverage import SqlCoverage
    from ragstream.index.graph_mark import graph_note
    from ragstream.index.store import lock_holder

    stored, changes = index_status(args.path, settings, name=args.name, branch=args.branch)
    m = stored.manifest
    console.print(f"index {stored.location.index_dir} (updated {m['updated_at']}, "
                  f"{m['counts']['files']} files, {m['counts']['chunks']} chunks)")
    console.print(f"stage: {describe(stage_of(m), lock_holder(stored.location))}", highlight=False)
    console.print(graph_note(m) or "graph: linked", highlight=False)
    for label, paths in (("added", changes.added), ("changed", changes.changed), ("deleted", changes.deleted)):
        for path in paths:
            console.print(f"  {label:8} {path}")
    console.print(f"{changes.stale} stale file(s), {changes.unchanged} unchanged"
                  + ("" if not changes.stale else f"; run `ragstream index {args.path}` to update"))
    _print_sql_coverage(SqlCoverage.from_dict(m["counts"].get("sql_coverage")))
    return 0


def _print_summary(report) -> None:
    from ragstream.index.fill import describe
    from ragstream.index.walk import too_large

    if report.unchanged:
        console.print(f"[bold]unchanged[/] {report.info.repository} @ {report.info.branch}: {report.files} files, "
                      f"{report.chunks} chunks, nothing to rebuild (walk {report.seconds['walk']:.2f}s); "
                      f"stage: {describe(report.vectors, 'build')}", highlight=False)
        return
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
        console.print(f"[yellow]parse failed, indexed as text:[/] {escape(path)}: {escape(error)}", highlight=False)
    for warning in report.parse_warnings:
        console.print(f"[yellow]warning:[/] {escape(warning)}", highlight=False)
    for line in too_large(report.skipped):
        console.print(f"[yellow]warning: not indexed, too large:[/] {escape(line)}; raise index.max_file_bytes to index it",
                      highlight=False, soft_wrap=True)
    for line in report.decoded_by_fallback:
        console.print(f"[yellow]note: not UTF-8, read in a Windows code page:[/] {escape(line)}", highlight=False, soft_wrap=True)
    for skipped in report.skipped:
        if skipped.reason == "unreadable":
            console.print(f"[yellow]warning: skipped an unreadable folder:[/] {escape(skipped.path)} ({escape(skipped.detail)})",
                          highlight=False, soft_wrap=True)
    if report.redactions:
        console.print(f"secrets redacted: {sum(report.redactions.values())} in {len(report.redactions)} file(s)")
    console.print("time per phase: " + ", ".join(f"{k} {v:.2f}s" for k, v in report.seconds.items()))
    _print_sql_coverage(report.sql_coverage)


def _print_sql_coverage(coverage) -> None:
    """Does the C# reach the SQL: the build's counts (`index.sql_coverage`), the warning in yellow."""
    for line in coverage.lines() if coverage else ():
        console.print(f"[yellow]{line}[/]" if line.startswith("warning:") else line, highlight=False, soft_wrap=True)


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
    """One progress bar per build phase, drawn as the build reports (at most every `_EVERY`
    seconds), not by Rich's refresh thread: a build forks its workers (walk, parse, the Python
    call solve) only while no other thread runs (`index/workers.py`), and with that thread
    running every step ran on one core."""

    _EVERY = 0.1

    def __init__(self) -> None:
        self._progress = Progress(SpinnerColumn(), TextColumn("{task.description:<6}"), BarColumn(),
                                  MofNCompleteColumn(), TimeElapsedColumn(), console=err_console,
                                  transient=False, auto_refresh=False)
        self._tasks: dict[str, TaskID] = {}
        self._stage: str | None = None
        self._began = time.perf_counter()
        self._drawn = 0.0

    def _draw(self, now: bool = False) -> None:
        if now or time.perf_counter() - self._drawn >= self._EVERY:
            self._progress.refresh()
            self._drawn = time.perf_counter()

    def __enter__(self) -> "_RichProgress":
        self._progress.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._progress.__exit__(*exc)

    def start(self, phase: str, total: int | None) -> None:
        self._tasks[phase] = self._progress.add_task(phase, total=total)
        self._draw(now=True)

    def advance(self, phase: str, amount: int = 1) -> None:
        self._progress.advance(self._tasks[phase], amount)
        self._draw()

    def finish(self, phase: str) -> None:
        task = self._tasks[phase]
        done = self._progress.tasks[task].completed
        self._progress.update(task, total=done, completed=done)
        self._draw(now=True)

    def published(self, vectors: dict) -> None:
        """Say when the index reaches a stage: keyword-ready is when questions can be asked."""
        from ragstream.index.fill import STAGE_NAMES, semantic_over

        if vectors["stage"] != self._stage:
            self._stage = vectors["stage"]
            usable = "; bm25, the graph, expand and ask work now" if self._stage == "keyword" else ""
            self._progress.console.print(f"{STAGE_NAMES[self._stage]} after {time.perf_counter() - self._began:.1f} s: "
                                         f"{semantic_over(vectors)}{usable}", highlight=False)
