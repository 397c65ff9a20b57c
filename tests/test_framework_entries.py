"""Entry points the framework calls (`graph/entry_faces.framework_contract`): a hosted service's
`StartAsync`, a `BackgroundService`'s `ExecuteAsync`, a Quartz/Coravel job, a SignalR hub's public
methods, and a scheduling contract the repository declares and registers its types for but never
calls itself (Cofoundry's `RegisterAsyncRecurringTask<T>`); and the questions that ask for them."""
from __future__ import annotations

import networkx as nx
import pytest

from ragstream.graph.entry_faces import HUB, JOB, Contract, entry_face, framework_contract
from ragstream.graph.questions import asked_face
from ragstream.graph.relations import entry_methods


def _graph(nodes: list[tuple[str, str]], edges: list[tuple[str, str, str, dict]]) -> nx.MultiDiGraph:
    """Nodes by id (`Type.Method` for a method, whose parent is `Type`), external types as
    `ext:Name`, all of them code under `src/` unless their id starts with `Tests.`."""
    g = nx.MultiDiGraph()
    for node, kind in nodes:
        name = node.split(":", 1)[-1]
        folder = "tests" if name.startswith("Tests.") else "src"
        g.add_node(node, kind=kind, name=name, path=None if kind == "EXTERNAL" else f"{folder}/{name.split('.')[0]}.cs",
                   parent=name.rsplit(".", 1)[0] if kind == "METHOD" else None, attrs={"modifiers": ["public"]})
    for source, target, key, data in edges:
        g.add_edge(source, target, key=key, **data)
    for node, data in list(g.nodes(data=True)):
        if data["kind"] == "METHOD" and data["parent"] in g:
            g.add_edge(data["parent"], node, key="DEFINES")
    return g


@pytest.mark.parametrize("base, method, member", [
    ("IHostedService", "StartAsync", "IHostedService.StartAsync"),
    ("IHostedService", "StopAsync", "IHostedService.StopAsync"),
    ("BackgroundService", "ExecuteAsync", "BackgroundService.ExecuteAsync"),
    ("IJob", "Execute", "IJob.Execute"),  # Quartz.NET
    ("IInvocable", "Invoke", "IInvocable.Invoke"),  # Coravel
])
def test_a_member_of_a_framework_job_contract_is_a_job(base, method, member):
    g = _graph([(f"Svc.Worker.{method}", "METHOD"), ("Svc.Worker.Helper", "METHOD"), ("Svc.Worker.Worker", "METHOD"),
                ("Svc.Worker", "TYPE"), (f"ext:{base}", "EXTERNAL")],
               [("Svc.Worker", f"ext:{base}", "INHERITS", {})])
    assert framework_contract(g, f"Svc.Worker.{method}") == Contract(member, JOB, "framework contract")
    assert entry_face(g, f"Svc.Worker.{method}") == JOB
    # another method of the type, its constructor: nothing the framework calls
    assert framework_contract(g, "Svc.Worker.Helper") is None
    assert framework_contract(g, "Svc.Worker.Worker") is None


def test_an_override_of_a_framework_base_no_code_calls_is_what_the_framework_calls():
    """`ScoreStatisticsQueueProcessor : QueueProcessor<Score>` overrides `ProcessResult`, which the
    package's loop calls: an entry of no face. An override the repository calls itself, an object's
    `ToString`, a model's `OnModelCreating`, a plain public method, a test's override: none."""
    g = _graph([("Q.Processor.ProcessResult", "METHOD"), ("Q.Processor.Retry", "METHOD"), ("Q.Processor.ToString", "METHOD"),
                ("Q.Processor.Helper", "METHOD"), ("Q.Db.OnModelCreating", "METHOD"), ("Q.Processor", "TYPE"),
                ("Q.Db", "TYPE"), ("Tests.Fake.ProcessResult", "METHOD"), ("Tests.Fake", "TYPE"),
                ("ext:QueueProcessor<Score>", "EXTERNAL"), ("ext:DbContext", "EXTERNAL")],
               [("Q.Processor", "ext:QueueProcessor<Score>", "INHERITS", {}), ("Q.Db", "ext:DbContext", "INHERITS", {}),
                ("Tests.Fake", "ext:QueueProcessor<Score>", "INHERITS", {}),
                ("Q.Processor.Helper", "Q.Processor.Retry", "CALLS", {})])
    for method in ("Q.Processor.ProcessResult", "Q.Processor.Retry", "Q.Processor.ToString", "Q.Db.OnModelCreating",
                   "Tests.Fake.ProcessResult"):
        g.nodes[method]["attrs"] = {"modifiers": ["protected", "override"]}
    assert framework_contract(g, "Q.Processor.ProcessResult") == Contract(
        "QueueProcessor.ProcessResult", None, "override of a framework type's member")
    assert entry_face(g, "Q.Processor.ProcessResult") is None  # no job, no page: an entry all the same
    for method in ("Q.Processor.Retry", "Q.Processor.ToString", "Q.Db.OnModelCreating", "Q.Processor.Helper",
                   "Tests.Fake.ProcessResult"):
        assert framework_contract(g, method) is None, method


def test_a_contract_of_the_same_name_declared_in_the_repository_is_no_framework_contract():
    g = _graph([("Svc.Worker.StopAsync", "METHOD"), ("Svc.Worker", "TYPE"), ("App.IHostedService", "TYPE")],
               [("Svc.Worker", "App.IHostedService", "IMPLEMENTS", {})])
    assert framework_contract(g, "Svc.Worker.StopAsync") is None


def test_a_hubs_public_methods_are_what_its_clients_call():
    g = _graph([("Hubs.ChatHub.SendMessage", "METHOD"), ("Hubs.ChatHub.Format", "METHOD"), ("Hubs.ChatHub", "TYPE"),
                ("ext:Microsoft.AspNetCore.SignalR.Hub<IChatClient>", "EXTERNAL")],
               [("Hubs.ChatHub", "ext:Microsoft.AspNetCore.SignalR.Hub<IChatClient>", "INHERITS", {})])
    g.nodes["Hubs.ChatHub.Format"]["attrs"] = {"modifiers": ["private"]}
    assert framework_contract(g, "Hubs.ChatHub.SendMessage") == Contract("Hub.SendMessage", HUB, "framework contract")
    assert entry_face(g, "Hubs.ChatHub.SendMessage") == HUB
    assert framework_contract(g, "Hubs.ChatHub.Format") is None


def _recurring(registered_by: str = "RegisterAsyncRecurringTask") -> nx.MultiDiGraph:
    """`CleanupTask : IAsyncRecurringBackgroundTask : IAsyncBackgroundTask` (which declares
    `ExecuteAsync`), registered by `Boot.Registration.Register` with `registered_by`; the task
    and `Api.UserController.Delete` (an HTTP DELETE) both send the cleanup handler its command."""
    g = _graph([("Tasks.CleanupTask.ExecuteAsync", "METHOD"), ("Tasks.CleanupTask", "TYPE"),
                ("Core.IAsyncRecurringBackgroundTask", "TYPE"), ("Core.IAsyncBackgroundTask", "TYPE"),
                ("Core.IAsyncBackgroundTask.ExecuteAsync", "METHOD"), ("Boot.Registration.Register", "METHOD"),
                ("Handlers.CleanupUsersHandler.ExecuteAsync", "METHOD"), ("Api.UserController.Delete", "METHOD")],
               [("Tasks.CleanupTask", "Core.IAsyncRecurringBackgroundTask", "IMPLEMENTS", {}),
                ("Core.IAsyncRecurringBackgroundTask", "Core.IAsyncBackgroundTask", "INHERITS", {}),
                ("Boot.Registration.Register", "Tasks.CleanupTask", "REFERENCES",
                 {"via": "registration", "registered_by": registered_by}),
                ("Tasks.CleanupTask.ExecuteAsync", "Handlers.CleanupUsersHandler.ExecuteAsync", "CALLS",
                 {"via": "message", "resolution": "dispatch"}),
                ("Api.UserController.Delete", "Handlers.CleanupUsersHandler.ExecuteAsync", "CALLS",
                 {"via": "message", "resolution": "dispatch"})])
    g.nodes["Api.UserController.Delete"]["attrs"] = {"entry": {"verb": "DELETE", "kind": "action"}}
    return g


def test_a_contract_the_repository_registers_with_a_scheduler_and_never_calls_is_a_job():
    g = _recurring()
    expected = Contract("IAsyncBackgroundTask.ExecuteAsync", JOB, "registered by RegisterAsyncRecurringTask")
    assert framework_contract(g, "Tasks.CleanupTask.ExecuteAsync") == expected
    assert entry_face(g, "Tasks.CleanupTask.ExecuteAsync") == JOB
    # a test calling the contract is no caller of the application's
    g.add_node("Tests.CleanupTests.Runs", kind="METHOD", name="Tests.CleanupTests.Runs", path="tests/CleanupTests.cs")
    g.add_edge("Tests.CleanupTests.Runs", "Core.IAsyncBackgroundTask.ExecuteAsync", key="CALLS")
    assert framework_contract(g, "Tasks.CleanupTask.ExecuteAsync") == expected


def test_a_registered_contract_is_no_entry_when_the_repository_calls_it_or_a_container_registers_it():
    called = _recurring()
    called.add_edge("Boot.Registration.Register", "Core.IAsyncBackgroundTask.ExecuteAsync", key="CALLS")
    assert framework_contract(called, "Tasks.CleanupTask.ExecuteAsync") is None  # its runner is in the repository
    # a dependency container's registration calls nothing
    assert framework_contract(_recurring("AddScoped"), "Tasks.CleanupTask.ExecuteAsync") is None
    unregistered = _recurring()
    unregistered.remove_edge("Boot.Registration.Register", "Tasks.CleanupTask", key="REFERENCES")
    assert framework_contract(unregistered, "Tasks.CleanupTask.ExecuteAsync") is None


def test_a_container_registration_is_no_schedule_whatever_the_contract_is_called():
    # a job board's `AddScoped<IRecurringJobService, JobService>()`: the words are the domain's, the call is a container's
    renamed = {"Core.IAsyncBackgroundTask": "Core.IRecurringJobService",
               "Core.IAsyncBackgroundTask.ExecuteAsync": "Core.IRecurringJobService.ExecuteAsync"}
    g = nx.relabel_nodes(_recurring("AddScoped"), renamed)
    scheduled = nx.relabel_nodes(_recurring(), renamed)
    for new in renamed.values():
        g.nodes[new]["name"] = scheduled.nodes[new]["name"] = new
    assert framework_contract(g, "Tasks.CleanupTask.ExecuteAsync") is None
    assert entry_face(g, "Tasks.CleanupTask.ExecuteAsync") is None
    assert framework_contract(scheduled, "Tasks.CleanupTask.ExecuteAsync") == Contract(
        "IRecurringJobService.ExecuteAsync", JOB, "registered by RegisterAsyncRecurringTask")


def test_a_scheduled_question_starts_at_the_registered_task_not_the_action_of_its_verb():
    """"Which scheduled background tasks delete old users": the registered task above the handler
    the search found starts the flow; asked without a schedule, the DELETE action does."""
    g = _recurring()
    hits = ["Handlers.CleanupUsersHandler.ExecuteAsync"]
    words = {"delet", "old", "user", "tabl"}
    assert entry_methods(g, hits, words, {"DELETE"})[0] == "Api.UserController.Delete"
    assert entry_methods(g, hits, words, {"DELETE"}, (), JOB)[0] == "Tasks.CleanupTask.ExecuteAsync"
    g = _recurring("AddScoped")  # no scheduler: as without a job asked
    assert entry_methods(g, hits, words, {"DELETE"}, (), JOB)[0] == "Api.UserController.Delete"


@pytest.mark.parametrize("question, face", [
    ("Every hour ErsatzTV rebuilds its playouts. What runs from that timer down to the database?", JOB),
    ("What does the app do every 5 minutes, and which tables does it write?", JOB),
    ("Which tables are written when the application starts?", JOB),
    ("What runs at startup before the first request?", JOB),
    ("Which tables does the SignalR hub write when a chat message is sent?", HUB),
    ("When a user posts a chat message, what code runs from the real-time hub down to the database?", HUB),
    ("How is the start date of a timesheet saved?", None),
    ("When a user starts a new topic, which tables get rows?", None),
    ("Which tables hold the hourly rate of an employee?", None),
    # a timer, a hub, a start-up of the application's domain
    ("When a quiz timer expires, which tables record the answers?", None),
    ("Which tables does the notification hub write when a device registers?", None),
    ("Which code reads the Orders table at startup of the checkout flow?", None),
])
def test_a_question_asks_for_what_the_framework_starts(question, face):
    assert asked_face(question) == face


def test_a_question_for_the_scheduled_tasks_names_all_of_a_few_and_none_of_many():
    """"Which scheduled background tasks delete old data": no task's name says "old data", and
    an application with no more than ENTRY_SEARCH_HITS tasks has those asked about; of more, none
    is picked by the question alone (the words must name it)."""
    from ragstream.graph.relations import ENTRY_SEARCH_HITS, described_jobs

    g = _recurring()
    assert described_jobs(g, {"delet", "old", "data"}) == ["Tasks.CleanupTask.ExecuteAsync"]
    for n in range(ENTRY_SEARCH_HITS):
        task = f"Tasks.Task{n}"
        g.add_node(f"{task}.ExecuteAsync", kind="METHOD", name=f"{task}.ExecuteAsync", path="src/Tasks.cs", parent=task)
        g.add_node(task, kind="TYPE", name=task, path="src/Tasks.cs")
        g.add_edge(task, f"{task}.ExecuteAsync", key="DEFINES")
        g.add_edge(task, "Core.IAsyncRecurringBackgroundTask", key="IMPLEMENTS")
        g.add_edge("Boot.Registration.Register", task, key="REFERENCES",
                   via="registration", registered_by="RegisterAsyncRecurringTask")
    assert described_jobs(g, {"delet", "old", "data"}) == []
    assert described_jobs(g, {"delet", "old", "cleanup"}) == ["Tasks.CleanupTask.ExecuteAsync"]


HANGFIRE = '''using Hangfire;
namespace Web { public class Startup {
    public void Configuration() {
        RecurringJob.AddOrUpdate<ReminderService>(x => x.SendReminders(), Cron.HourInterval(6));
        BackgroundJob.Enqueue<ReminderService>(x => x.Purge(3));
        BackgroundJob.Enqueue(() => Console.WriteLine("no type: nothing registered"));
        services.AddScoped<ReminderService>();
    }
} }'''

SERVICE = '''namespace Web { public class ReminderService {
    public void SendReminders() { Format(); }
    public void Purge(int days) { }
    public void Format() { }
} }'''


def test_a_method_a_job_library_is_told_to_call_is_a_job():
    """Hangfire: the method named in the lambda of `RecurringJob.AddOrUpdate<T>` / `BackgroundJob.Enqueue<T>`
    is what the library calls, known by the registration (`invokes`); the type's other methods are not,
    nor is anything of a registration without a type argument."""
    from ragstream.index.csharp.parser import parse_csharp
    from ragstream.index.graph_build import build_graph

    g, _ = build_graph([parse_csharp("Web/Startup.cs", HANGFIRE), parse_csharp("Web/ReminderService.cs", SERVICE)])
    method = "cs:Web.ReminderService.{}|METHOD".format
    assert framework_contract(g, method("SendReminders")) == Contract(
        "ReminderService.SendReminders", JOB, "registered by RecurringJob.AddOrUpdate")
    assert framework_contract(g, method("Purge(int)") if method("Purge(int)") in g else method("Purge")) == Contract(
        "ReminderService.Purge", JOB, "registered by BackgroundJob.Enqueue")
    assert framework_contract(g, method("Format")) is None
    assert entry_face(g, method("SendReminders")) == JOB


def test_a_negated_phrase_asks_for_none_of_its_words():
    """"an ordinary chat message (not a slash command)" (JabbR's hub `Send`, not its private
    `TryHandleCommand`) and ", not a page," ask for neither a command nor a page; a "not" elsewhere
    keeps its sentence's words."""
    from ragstream.graph.questions import asked_subject_words, asked_words
    asked = asked_subject_words("When a user posts an ordinary chat message (not a slash command) into a room, "
                                "what code runs from the real-time hub down to the database?")
    assert {"chat", "messag", "room"} <= asked and not {"slash", "command"} & asked
    assert "page" not in asked_words("Which code saves a post, not a page, to the database?")
    assert {"tag", "delet", "not"} <= asked_words("Why can a tag that is still in use not be deleted?")
