"""A call a job library runs later (`BackgroundJob.Enqueue(() => svc.M())`, `RecurringJob.AddOrUpdate`,
`IBackgroundJobClient.Enqueue<T>`) is a CALLS edge marked `via="enqueued"`; a flow's paths through
it come after the entry's own synchronous writes. `Task.Run` and a dictionary's `AddOrUpdate` are
no hand-offs."""
from __future__ import annotations

import networkx as nx

from ragstream.graph.relations import MAX_FLOW_PATHS, table_paths
from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph
from ragstream.index.sql.parser import parse_sql

CODE = """
using System.Collections.Concurrent;
using Hangfire;
using Microsoft.EntityFrameworkCore;
namespace Lib;
public class Library { public int Id { get; set; } }
public class Series { public int Id { get; set; } }
public class LibContext : DbContext { public DbSet<Library> Library { get; set; } public DbSet<Series> Series { get; set; } }
public class Scanner
{
    private readonly LibContext _db;
    public void ScanLibrary(int id) { _db.Series.Add(new Series()); }
    public void Cleanup() { }
}
public interface IScheduler { void Scan(int id); }
public class Scheduler : IScheduler
{
    private readonly LibContext _db;
    public void Scan(int id) { _db.Series.Add(new Series()); }
}
public class Tasks
{
    private readonly Scanner _scanner;
    private readonly IBackgroundJobClient _backgroundJobClient;
    private readonly ConcurrentDictionary<int, int> _seen;
    private readonly LibContext _db;
    public void AddLibrary(Library library)
    {
        Save(library);
        BackgroundJob.Enqueue(() => _scanner.ScanLibrary(library.Id));
    }
    private void Save(Library library) { Store(library); }
    private void Store(Library library) { _db.Library.Add(library); }
    public void Later(int id) { BackgroundJob.Schedule(() => _scanner.ScanLibrary(id), System.TimeSpan.FromMinutes(5)); }
    public void Nightly() { RecurringJob.AddOrUpdate("cleanup", () => _scanner.Cleanup(), Cron.Daily); }
    public void ThroughClient() { _backgroundJobClient.Enqueue(() => _scanner.Cleanup()); }
    public void Generic() { BackgroundJob.Enqueue<Scanner>(x => x.Cleanup()); }
    public void Now(int id) { System.Threading.Tasks.Task.Run(() => _scanner.ScanLibrary(id)); }
    public void Direct(int id) { _scanner.ScanLibrary(id); }
    private readonly IScheduler _scheduler;
    public void Through(Library library) { Save(library); BackgroundJob.Enqueue(() => _scheduler.Scan(library.Id)); }
    public void Count(int id) { _seen.AddOrUpdate(id, 1, (k, v) => Bump(v)); }
    private int Bump(int v) => v + 1;
}
"""
SQL = "CREATE TABLE dbo.Library (Id INT); CREATE TABLE dbo.Series (Id INT);"


def _graph() -> nx.MultiDiGraph:
    graph, _ = build_graph([parse_csharp("Code.cs", CODE), parse_sql("db.sql", SQL, "tsql")])
    return graph


def _call(graph: nx.MultiDiGraph, source: str, target: str) -> dict:
    return graph.edges[f"cs:Lib.{source}|METHOD", f"cs:Lib.{target}|METHOD", "CALLS"]


def test_calls_in_a_job_hand_off_lambda_are_marked_enqueued():
    graph = _graph()
    for source, target, by in (("Tasks.AddLibrary", "Scanner.ScanLibrary", "BackgroundJob.Enqueue"),
                               ("Tasks.Later", "Scanner.ScanLibrary", "BackgroundJob.Schedule"),
                               ("Tasks.Nightly", "Scanner.Cleanup", "RecurringJob.AddOrUpdate"),
                               ("Tasks.ThroughClient", "Scanner.Cleanup", "_backgroundJobClient.Enqueue")):
        edge = _call(graph, source, target)
        assert edge["via"] == "enqueued" and edge["enqueued_by"] == by, source
        assert edge["resolution"] in ("static", "inferred"), source


def test_the_generic_form_stays_a_registration_that_names_the_invoked_method():
    graph = _graph()
    refs = graph.edges["cs:Lib.Tasks.Generic|METHOD", "cs:Lib.Scanner|TYPE", "REFERENCES"]
    assert refs["invokes"] == {"Cleanup": "BackgroundJob.Enqueue"}


def test_task_run_a_direct_call_and_a_dictionary_add_or_update_are_not_enqueued():
    graph = _graph()
    for source, target in (("Tasks.Now", "Scanner.ScanLibrary"), ("Tasks.Direct", "Scanner.ScanLibrary"),
                           ("Tasks.Count", "Tasks.Bump")):
        edge = _call(graph, source, target)
        assert edge.get("via") != "enqueued" and "enqueued_by" not in edge, source


def test_a_flow_tells_the_entrys_own_writes_before_the_jobs():
    graph = _graph()
    paths = table_paths(graph, ["cs:Lib.Tasks.AddLibrary|METHOD"])  # the job's path is the shorter
    assert [p.nodes[-1] for p in paths] == ["sql:dbo.Library|TABLE", "sql:dbo.Series|TABLE"]
    assert not paths[0].enqueued and paths[1].enqueued and "CALLS (enqueued)" in paths[1].edges
    assert len(paths) <= MAX_FLOW_PATHS


def test_words_the_job_shares_with_the_entry_do_not_lift_it_but_words_naming_the_job_do():
    graph = _graph()
    # "library" names the entry (`AddLibrary`) and the job (`ScanLibrary`): the entry's writes first
    paths = table_paths(graph, ["cs:Lib.Tasks.AddLibrary|METHOD"], words=["library", "series"])
    assert paths[0].nodes[-1] == "sql:dbo.Library|TABLE"
    paths = table_paths(graph, ["cs:Lib.Tasks.AddLibrary|METHOD"], words=["scan"])  # asked about the job
    assert paths[0].nodes[-1] == "sql:dbo.Series|TABLE" and paths[0].enqueued


def test_a_dispatched_job_call_stays_enqueued_and_comes_after_the_entrys_writes():
    graph = _graph()
    assert _call(graph, "Tasks.Through", "Scheduler.Scan")["enqueued_by"] == "BackgroundJob.Enqueue"
    paths = table_paths(graph, ["cs:Lib.Tasks.Through|METHOD"])
    assert [p.nodes[-1] for p in paths][:2] == ["sql:dbo.Library|TABLE", "sql:dbo.Series|TABLE"]
    assert paths[1].enqueued and not paths[0].enqueued
