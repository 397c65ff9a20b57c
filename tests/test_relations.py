"""List, impact and flow questions answered from the graph (ragstream/graph/relations.py and the
relate stage), on the sample repository, complete and within the caller's filters."""
from __future__ import annotations

import pytest

from ragstream.controller import Controller, Scope
from ragstream.graph.named import find_named
from ragstream.graph.questions import asked_kinds, asked_relations, question_shape
from ragstream.graph.relations import related

ALL = Scope("sample_repo", "default", None, {"acl_tags_any": ["public", "dba"]})
PUBLIC = Scope("sample_repo", "default", None, {"acl_tags_any": ["public"]})  # db/ is tagged dba only


@pytest.fixture(scope="module")
def controller(acl_backend):
    return Controller(acl_backend.settings)


@pytest.fixture(scope="module")
def graph(acl_backend):
    return acl_backend.graph("sample_repo", "default", {}, None)


def ask(controller: Controller, question: str, scope: Scope = ALL):
    sp, _ = controller.run(question, scope, controller.pipeline("base"))
    return sp, sp.extras["relations"].get("answer")


@pytest.mark.parametrize("question, shape", [
    ("Which procedures write to the Invoices table?", "list"),
    ("Which tables have a foreign key to the Invoices table?", "list"),
    ("What breaks if I rename the Status column of the Invoices table?", "impact"),
    ("How is an invoice created and saved, from the controller down to the tables?", "flow"),
    ("How does a worker fetch the next job from the SQL Server queue?", "flow"),
    ("How does a server keep its heartbeat in SQL Server?", "flow"),
    # a clause of its own before what is asked
    ("With SQL authentication turned on, how is a login checked against the database?", "flow"),
    ("In the admin area, which methods write the Setting table?", "list"),
    ("Once a list is saved, how is its colour stored?", "mapping"),
    ("How is a payment recorded?", None),
    # rows turned into objects: how the table is mapped (its writer's kind), not a list of its readers
    ("How are rows of the State table mapped to C# objects?", "mapping"),
    # impact, however it is put
    ("What would be affected if the Quantity column of OrderLines were dropped?", "impact"),
    ("What code is affected if the Customers table changes?", "impact"),
    ("Which classes have to change along with the Email column?", "impact"),
    ("If we widen the Name column to 400 characters, what else needs to change?", "impact"),
    ("What else depends on the Invoices view?", "impact"),
    ("What happens when an order is changed?", "flow"),  # a change as it runs, not one to the schema
    # a change as it runs, not one to the schema: flows (review of the impact phrasings)
    ("If the order status is changed to shipped, what code runs?", "flow"),
    ("If I add an item to my basket, which tables are written?", "flow"),
    ("If we add a column to the Orders table, what else has to change?", "impact"),
    # a flow checked against the database
    ("How is a password checked against the database?", "flow"),
])
def test_question_shapes(question, shape):
    assert question_shape(question) == shape


def test_asked_relations():
    assert asked_relations("Which methods write to the Job table?") == ("WRITES",)
    assert asked_relations("Which classes read or write the JobQueue table?") == ("READS", "WRITES")
    assert asked_relations("Which class are rows of Job mapped to when the dashboard loads them?") == (
        "MAPS_TO", "READS")  # in the order the question names them
    assert asked_relations("Which tables have a foreign key to the Job table?") == ("FOREIGN_KEY",)
    assert "MAPS_TO" in asked_relations("Which classes use the Invoices table?")


def test_named_objects_by_cue_and_by_identifier(graph):
    named = find_named(graph, "What breaks if I rename the Status column of the dbo.Invoices table?")
    assert [n.id for n in named] == ["sql:dbo.Invoices.Status|COLUMN", "sql:dbo.Invoices|TABLE"]
    named = find_named(graph, "Which tables does the stored procedure usp_RecordPayment modify?")
    assert [n.id for n in named] == ["sql:dbo.usp_RecordPayment|PROCEDURE"]
    # a cue word next to a word that names nothing finds nothing; `the` is never a name
    assert find_named(graph, "Which tables have the most rows?") == []
    # a route's placeholder is a parameter, not the object of that name
    assert [n.id for n in find_named(graph, "What runs for POST /api/{dbo.Invoices} table?")] == []
    assert [n.id for n in find_named(graph, "What runs for POST /api/dbo.Invoices table?")] == ["sql:dbo.Invoices|TABLE"]


def test_a_call_question_names_a_plain_word_in_the_callers_or_callees_place(graph, controller):
    """"who calls balance?": a word that reads as English is a code name where a call question
    puts it (with or without backticks); a pronoun is not, and a dotted name is left to the
    identifier rule."""
    balance = "py:billing.models.Invoice.balance|METHOD"
    assert [n.id for n in find_named(graph, "who calls balance?")] == [balance]
    assert [n.id for n in find_named(graph, "Where is `balance` used?")] == [balance]
    assert [n.id for n in find_named(graph, "what does main call?")] == ["py:billing.cli.main|FUNCTION"]
    assert [n.id for n in find_named(graph, "callers of Invoice.balance")] == [balance]
    assert find_named(graph, "and who calls it?") == []
    assert find_named(graph, "how is the balance shown?") == []  # no call asked: an English word
    _, answer = ask(controller, "who calls balance?")
    assert [s["id"] for s in answer["subjects"]] == [balance]
    assert {i["id"] for i in answer["items"]} >= {"py:billing.models.Invoice.mark_paid|METHOD",
                                                  "py:billing.service.InvoiceService.record_payment|METHOD"}


def test_list_question_names_every_writer_and_no_reader(controller, graph):
    sp, answer = ask(controller, "Which procedures and methods write to the Invoices table?")
    writers = {s for s, _, k in graph.in_edges("sql:dbo.Invoices|TABLE", keys=True) if k == "WRITES"}
    readers = {s for s, _, k in graph.in_edges("sql:dbo.Invoices|TABLE", keys=True) if k == "READS"} - writers
    listed = {item["id"] for item in answer["items"] if not item["indirect"]}
    assert answer["shape"] == "list" and answer["relations"] == ["WRITES"]
    assert {"sql:dbo.usp_RecordPayment|PROCEDURE", "sql:dbo.usp_CreateInvoice|PROCEDURE"} <= listed
    assert listed == writers and readers and not readers & listed
    # one hop further: the code that runs a writing procedure, and the code calling a writer
    # through the interface it implements (`IInvoiceService.RecordPayment` in the controller)
    further = {item["id"]: item for item in answer["items"] if item["indirect"]}
    procedures = {w for w in writers if graph.nodes[w]["kind"] == "PROCEDURE"}
    running = {s for p in procedures for s, _, k in graph.in_edges(p, keys=True) if k == "CALLS"} - writers
    dispatched = {s for w in writers for s, _, k, d in graph.in_edges(w, keys=True, data=True)
                  if k == "CALLS" and d.get("resolution") == "dispatch"} - writers
    assert set(further) == running | dispatched
    assert "cs:Billing.Data.InvoiceRepository.InsertInvoice|METHOD" in running
    assert further["cs:Billing.Controllers.InvoicesController.Pay|METHOD"]["resolution"] == "dispatch"
    # the controller action calling the service that runs `InsertInvoice` is three hops away: not listed
    assert "cs:Billing.Controllers.InvoicesController.Create|METHOD" not in further
    assert f"{len(writers)} direct" in sp.answer  # the count, then every item
    assert all(w in sp.answer for w in writers)


def test_a_list_question_lists_the_kinds_it_asks_for(controller):
    _, answer = ask(controller, "Which procedures write to the Invoices table?")
    assert {i["id"] for i in answer["items"]} == {"sql:dbo.usp_RecordPayment|PROCEDURE",
                                                  "sql:dbo.usp_CreateInvoice|PROCEDURE"}
    assert asked_kinds("Which C# class are rows of the Revisions table mapped to, and which methods load them?") == ()
    _, answer = ask(controller, "Which code writes to the Invoices table?")
    assert "cs:Billing.Services.InvoiceService.RecordPayment|METHOD" in {i["id"] for i in answer["items"]}


def test_triggers_are_asked_for_by_the_noun_not_the_verb():
    for question in ("Which triggers fire on the Orders table?", "Which trigger updates the Audit table?",
                     "List the triggers on Orders"):
        assert asked_kinds(question) == ("TRIGGER",)
    assert asked_kinds("Which procedures and triggers write to Orders?") == ("PROCEDURE", "TRIGGER")
    # "the events that trigger them", "what triggers the job": a verb, no kind asked
    assert asked_kinds("Which event handlers write order history, and which code publishes the events that trigger them?") == ()
    assert asked_kinds("What code triggers the nightly job?") == ()


def test_a_mapping_question_lists_the_mapped_type_first(controller):
    _, answer = ask(controller, "Which C# class are rows of the Invoices table mapped to?")
    assert answer["shape"] == "mapping" and answer["relations"][0] == "MAPS_TO"
    assert answer["items"][0]["id"] == "cs:Billing.Models.Invoice|TYPE"


def test_foreign_keys_to_a_table(controller):
    _, answer = ask(controller, "Which tables have a foreign key to the Invoices table?")
    assert {i["id"] for i in answer["items"]} == {"sql:dbo.InvoiceLines|TABLE", "sql:dbo.Payments|TABLE"}


def test_procedure_tables_include_what_the_procedures_it_runs_write(controller, graph):
    _, answer = ask(controller, "Which tables does the stored procedure usp_RecordPayment modify?")
    direct = {i["id"] for i in answer["items"] if not i["indirect"]}
    assert direct == {"sql:dbo.Invoices|TABLE", "sql:dbo.Payments|TABLE"}
    # EXEC dbo.usp_LogAudit writes AuditLog, a table outside the repository: an EXTERNAL node,
    # which carries no access labels and so is hidden from a caller whose access is restricted
    assert not [i for i in answer["items"] if i["indirect"]]
    [procedure] = find_named(graph, "procedure usp_RecordPayment")
    indirect = [i for i in related(graph, procedure, ("WRITES",)) if i.indirect]
    assert [(i.id, i.relation) for i in indirect] == [("ext:dbo.AuditLog|EXTERNAL", "WRITES")]


def test_column_impact_keeps_only_code_naming_the_column(controller):
    sp, answer = ask(controller, "What breaks if I rename the Status column of the Invoices table?")
    listed = {i["id"] for i in answer["items"]}
    assert {"sql:dbo.usp_RecordPayment|PROCEDURE", "cs:Billing.Services.InvoiceService.RecordPayment|METHOD",
            "cs:Billing.Services.InvoiceService.GetOpenInvoices|METHOD"} <= listed
    # GetCustomerBalance reads Invoices but never names Status
    assert "cs:Billing.Services.InvoiceService.GetCustomerBalance|METHOD" not in listed
    # the entity mapped to Invoices fills its Status property from the column: it comes first
    assert answer["items"][0]["id"] == "cs:Billing.Models.Invoice.Status|PROPERTY"
    assert "cs:Billing.Models.Invoice.Total|PROPERTY" not in listed
    # the answer cites the column, then its table (what a rename of the column changes), then the items
    assert sp.extras["answer"]["citations"][:3] == [
        "sql:dbo.Invoices.Status|COLUMN", "sql:dbo.Invoices|TABLE", "cs:Billing.Models.Invoice.Status|PROPERTY"]


def test_filters_hide_the_object_and_its_relations(controller):
    sp, answer = ask(controller, "Which procedures write to the Invoices table?", PUBLIC)
    assert answer is None  # the table is under db/, which this caller may not see
    shown = sp.to_json()
    assert "usp_RecordPayment" not in shown and "sql:dbo.Invoices|TABLE" not in shown


def test_flow_question_shows_the_path_from_the_controller_to_the_table(controller):
    sp, answer = ask(controller, "How is an invoice created and saved, from the controller down to the tables?")
    assert answer["shape"] == "flow"
    chains = [path["nodes"] for path in answer["paths"]]
    wanted = ["cs:Billing.Controllers.InvoicesController.Create|METHOD",
              "cs:Billing.Services.InvoiceService.CreateInvoice|METHOD",
              "cs:Billing.Data.InvoiceRepository.InsertInvoice|METHOD",
              "sql:dbo.usp_CreateInvoice|PROCEDURE", "sql:dbo.Invoices|TABLE"]
    assert any(all(node in chain for node in wanted) for chain in chains), chains
    assert chains[0][0] == wanted[0]  # the controller action whose name says what was asked comes first
    assert "InvoicesController.Create" in sp.answer and "dbo.Invoices" in sp.answer


def test_flow_entries_upstream_of_other_hits_come_first():
    import networkx as nx

    from ragstream.graph.answers import entry_points as _entry_points, flow_paths

    graph = nx.MultiDiGraph()
    for node, kind in [("fetch", "METHOD"), ("worker", "METHOD"), ("other", "METHOD"), ("t", "TABLE")]:
        graph.add_node(node, kind=kind, name=f"N.{node.title()}")
    graph.add_edge("worker", "fetch", key="CALLS", resolution="static")
    graph.add_edge("fetch", "t", key="READS", resolution="static")
    graph.add_edge("other", "t", key="READS", resolution="static")
    entries = _entry_points(graph, ["fetch", "other", "worker"], "how does a worker fetch a job")
    assert entries[0] == "worker"  # search ranked it last, but it calls another hit
    assert [p.nodes for p in flow_paths(graph, entries)][0] == ("worker", "fetch", "t")


def test_flow_paths_that_name_the_question_come_first_and_a_column_brings_its_table(graph):
    import networkx as nx

    from ragstream.graph.answers import flow_paths

    flow = nx.MultiDiGraph()
    for node, kind, name in [("run", "METHOD", "N.Api.Run"), ("log", "METHOD", "N.Log.Write"),
                             ("cache", "METHOD", "N.Cache.CacheResults"), ("logs", "TABLE", "dbo.Logs"),
                             ("results", "TABLE", "dbo.CachedResults")]:
        flow.add_node(node, kind=kind, name=name)
    for source, target, key in [("run", "log", "CALLS"), ("log", "logs", "WRITES"), ("run", "cache", "CALLS"),
                                ("cache", "results", "WRITES")]:
        flow.add_edge(source, target, key=key, resolution="static")
    paths = flow_paths(flow, ["run"], "how are the results cached, down to the database?")
    assert [p.nodes[-1] for p in paths] == ["results", "logs"]  # not simply shortest or by id
    # the question's verb orders the rest: a user who "saves" asks for the writes first
    flow.add_node("audit", kind="TABLE", name="dbo.Audit")
    flow.add_edge("run", "audit", key="READS", resolution="static")
    flow.add_edge("run", "logs", key="WRITES", resolution="static")
    saves = [p.nodes[-1] for p in flow_paths(flow, ["run"], "what happens when a user saves, down to the tables?")]
    reads = [p.nodes[-1] for p in flow_paths(flow, ["run"], "what does a user read, down to the tables?")]
    assert saves[0] == "logs" and reads[0] == "audit"
    # the Status column's answer names its table right after it
    named = find_named(graph, "What breaks if I rename the Status column of the Invoices table?")
    assert named[0].table == "sql:dbo.Invoices|TABLE"


def test_a_template_schema_copy_of_a_table_is_not_named_beside_the_real_one():
    import networkx as nx

    g = nx.MultiDiGraph()
    g.add_node("sql:HangFire.Job|TABLE", kind="TABLE", name="HangFire.Job")
    g.add_node("sql:$(HangFireSchema).Job|TABLE", kind="TABLE", name="$(HangFireSchema).Job")
    assert [n.id for n in find_named(g, "Which methods write to the Job table?")] == ["sql:HangFire.Job|TABLE"]


def test_a_data_question_gets_its_best_hits_with_the_tables_they_use(graph, controller):
    from ragstream.graph.relations import with_their_tables
    from ragstream.index.model import node_of

    assert with_their_tables(graph, ["cs:Billing.Data.InvoiceRepository.InsertInvoice|METHOD"]) == [
        "cs:Billing.Data.InvoiceRepository.InsertInvoice|METHOD", "sql:dbo.Invoices|TABLE"]  # through the procedure
    sp, answer = ask(controller, "Where is the payment amount stored in the database?")
    assert answer is None and sp.domain == "db"
    view = sp.views_by_stage["relate"]
    assert any(v.startswith("sql:") and v.endswith("|TABLE") for v in view)
    assert view[0] == node_of(sp.retrieval_seed_nodes[0])  # the rerank's best seed, then its tables
    # a question about the code, not the data, still gets the tables its best hits use
    sp, answer = ask(controller, "How does InsertInvoice work?")
    assert answer is None and sp.domain == "code"
    assert "sql:dbo.Invoices|TABLE" in sp.views_by_stage["relate"]


def test_a_rename_in_the_database_is_an_impact_question_and_a_hidden_table_stops_a_column():
    from ragstream.graph.named import Named
    from ragstream.graph.relations import impact_of

    assert question_shape("What happens if I rename the Status column of the Invoices table in the database?") \
        == "impact"
    column = Named("sql:dbo.Invoices.Status|COLUMN", "COLUMN", "dbo.Invoices.Status", "column", table=None)
    assert impact_of(__import__("networkx").MultiDiGraph(), column, lambda ids: {}) == []


def test_a_flow_starts_at_the_caller_whose_type_the_question_names_in_words():
    """"How does a worker fetch ..." starts at `Worker.Execute`, upstream of the best hit, not at
    the hit itself nor at a monitoring `...Api` method that only reads the same table."""
    import networkx as nx

    from ragstream.graph.answers import answer_from_graph

    g = nx.MultiDiGraph()
    for name in ("App.Worker.Execute", "App.Connection.FetchNextJob", "App.JobQueue.FetchJob",
                 "App.MonitoringApi.FetchedJobs"):
        g.add_node(f"cs:{name}|METHOD", kind="METHOD", name=name)
    g.add_node("sql:dbo.JobQueue|TABLE", kind="TABLE", name="dbo.JobQueue")
    for source, target, key in (("Worker.Execute", "Connection.FetchNextJob", "CALLS"),
                                ("Connection.FetchNextJob", "JobQueue.FetchJob", "CALLS")):
        g.add_edge(f"cs:App.{source}|METHOD", f"cs:App.{target}|METHOD", key=key, resolution="static")
    for method in ("JobQueue.FetchJob", "MonitoringApi.FetchedJobs"):
        g.add_edge(f"cs:App.{method}|METHOD", "sql:dbo.JobQueue|TABLE", key="READS")
    hits = ["cs:App.MonitoringApi.FetchedJobs|METHOD", "cs:App.JobQueue.FetchJob|METHOD"]
    answer = answer_from_graph(g, "How does a worker fetch the next job from the database?", [], hits,
                               lambda ids: {})
    assert answer.paths[0].nodes == ("cs:App.Worker.Execute|METHOD", "cs:App.Connection.FetchNextJob|METHOD",
                                     "cs:App.JobQueue.FetchJob|METHOD", "sql:dbo.JobQueue|TABLE")


def test_a_flow_keeps_the_asked_path_to_a_table_a_side_path_reaches_first():
    """Execute cleans the queue table in one hop and fetches from it in three: the answer shows
    the fetch, the path whose methods name the question's words, first."""
    import networkx as nx

    from ragstream.graph.answers import flow_paths

    g = nx.MultiDiGraph()
    for name in ("Worker.Execute", "Worker.Cleanup", "Queue.FetchNext", "Queue.Dequeue"):
        g.add_node(f"cs:{name}|METHOD", kind="METHOD", name=f"App.{name}")
    g.add_node("sql:dbo.Queue|TABLE", kind="TABLE", name="dbo.Queue")
    for source, target, key in (("Worker.Execute", "Worker.Cleanup", "CALLS"), ("Worker.Execute", "Queue.FetchNext", "CALLS"),
                                ("Queue.FetchNext", "Queue.Dequeue", "CALLS")):
        g.add_edge(f"cs:{source}|METHOD", f"cs:{target}|METHOD", key=key)
    for method, key in (("Worker.Cleanup", "WRITES"), ("Queue.Dequeue", "READS")):
        g.add_edge(f"cs:{method}|METHOD", "sql:dbo.Queue|TABLE", key=key)
    paths = flow_paths(g, ["cs:Worker.Execute|METHOD"], "How does the worker fetch the next item and dequeue it?")
    assert [p.nodes for p in paths] == [
        ("cs:Worker.Execute|METHOD", "cs:Queue.FetchNext|METHOD", "cs:Queue.Dequeue|METHOD", "sql:dbo.Queue|TABLE"),
        ("cs:Worker.Execute|METHOD", "cs:Worker.Cleanup|METHOD", "sql:dbo.Queue|TABLE")]
    assert paths[0].edges == ("CALLS", "CALLS", "READS")


def test_a_path_through_two_overloads_names_each_with_its_parameters():
    import networkx as nx

    from ragstream.graph.relations import GraphAnswer, Path
    from ragstream.graph.relations_view import render_graph_answer

    g = nx.MultiDiGraph()
    one, two, table = "cs:N.Client.Create(Job)|METHOD", "cs:N.Client.Create(Job,int)|METHOD", "sql:dbo.Job|TABLE"
    for node, kind, name in [(one, "METHOD", "N.Client.Create"), (two, "METHOD", "N.Client.Create"),
                             (table, "TABLE", "dbo.Job")]:
        g.add_node(node, kind=kind, name=name, path="a.cs", start_line=1, end_line=2)
    text = render_graph_answer(GraphAnswer("flow", [], paths=[Path((one, two, table), ("CALLS", "WRITES"))]), g)
    assert "`N.Client.Create(Job)` —CALLS→ `N.Client.Create(Job,int)` —WRITES→ `dbo.Job`" in text


def test_flow_paths_that_share_their_first_steps_write_them_once():
    import networkx as nx

    from ragstream.graph.relations import GraphAnswer, Path
    from ragstream.graph.relations_view import render_graph_answer

    g = nx.MultiDiGraph()
    for name, kind in [("Api.Enqueue", "METHOD"), ("Client.Create", "METHOD"), ("Queue.Add", "METHOD"),
                       ("Store.SetState", "METHOD"), ("dbo.Queue", "TABLE"), ("dbo.Job", "TABLE"), ("dbo.State", "TABLE")]:
        g.add_node(f"x:{name}|{kind}", kind=kind, name=name)
    api, create, add, state, queue, job, states = (f"x:{n}" for n in (
        "Api.Enqueue|METHOD", "Client.Create|METHOD", "Queue.Add|METHOD", "Store.SetState|METHOD",
        "dbo.Queue|TABLE", "dbo.Job|TABLE", "dbo.State|TABLE"))
    paths = [Path((api, create, add, queue), ("CALLS", "CALLS (by_name)", "WRITES")),
             Path((api, create, state, job), ("CALLS", "CALLS", "WRITES")),
             Path((api, create, state, states), ("CALLS", "CALLS", "WRITES"))]
    text = render_graph_answer(GraphAnswer("flow", [], paths=paths), g)
    assert text.splitlines()[1:] == [
        "- `Api.Enqueue` —CALLS→ `Client.Create`",
        "  - —CALLS (by_name)→ `Queue.Add` —WRITES→ `dbo.Queue`",
        "  - —CALLS→ `Store.SetState`",
        "    - —WRITES→ `dbo.Job`",
        "    - —WRITES→ `dbo.State`",
        "",
        "(An edge marked `by_name` or `guess` rests on a link made by name only.)"]


def test_auto_order_puts_the_search_first_unless_the_graph_answered(controller):
    """`prioritization_mode: auto` (the base pipeline's): a question the graph does not answer
    gets its search hits before any graph neighbour; a list question interleaves them."""
    sp, answer = ask(controller, "How does InsertInvoice work?")
    assert answer is None
    seeds = [t["is_seed"] for t in sp.node_texts]
    assert seeds[:seeds.count(True)] == [True] * seeds.count(True)  # every seed before any neighbour
    sp, answer = ask(controller, "Which procedures write to the Invoices table?")
    assert answer is not None
    seeds = [t["is_seed"] for t in sp.node_texts]
    assert seeds[:2] == [True, False]  # balanced: seed, neighbour, ...


def _entry_graph(methods: dict[str, dict]):
    import networkx as nx

    g = nx.MultiDiGraph()
    for name, attrs in methods.items():
        g.add_node(f"cs:{name}|METHOD", kind="METHOD", name=name.split("(")[0], attrs=attrs)
    return g


def test_how_a_question_is_put_describes_no_entry_point():
    """"What code runs from the API endpoint": "code" and "API" say how the question is put and which
    kind of entry point it starts at, so a Lightning node's `CreateInvoice` whose type says "Api" and
    whose route says `{cryptoCode}` is not better described than the invoice API's own `CreateInvoice`;
    a code of the domain ("a discount code") stays a word of the question."""
    from ragstream.graph.answers import entry_points
    from ragstream.graph.questions import asked_subject_words

    g = _entry_graph({
        "Api.LightningNodeApiController.CreateInvoice": {
            "entry": {"verb": "POST", "kind": "action", "route": "~/api/v1/server/lightning/{cryptoCode}/invoices"}},
        "Api.GreenfieldInvoiceController.CreateInvoice": {
            "entry": {"verb": "POST", "kind": "action", "route": "~/api/v1/stores/{storeId}/invoices"}},
    })
    question = ("When a merchant's system creates a new invoice through the REST API, what code runs from the API "
                "endpoint down to the database, and which tables get rows written?")
    hits = ["cs:Api.LightningNodeApiController.CreateInvoice|METHOD"]
    assert entry_points(g, hits, question)[0] == "cs:Api.GreenfieldInvoiceController.CreateInvoice|METHOD"
    assert "code" not in asked_subject_words(question)
    # a word of English no identifier is named for: "archived through the API" describes no `...ThroughStore`
    assert "through" not in asked_subject_words("When a pull payment is archived through the API, what runs?")
    assert "code" in asked_subject_words("When a customer redeems a discount code, which code path writes the order?")


def test_a_flow_starts_at_the_action_the_question_describes_with_who_may_call_it():
    """"When a moderator saves a post in the admin editor" is the moderators' `Edit` POST of the
    wiki admin controller, not the admins' `Settings` POST whose type name the words also say."""
    from ragstream.graph.answers import entry_points

    g = _entry_graph({
        "Web.AdminController.Settings(Settings)": {"entry": {"verb": "POST", "kind": "action", "who": ["Admin"]},
                                                   "parameters": ["Settings"]},
        "Web.WikiAdminController.Edit(EntryRevision)": {"entry": {"verb": "POST", "kind": "action",
                                                                  "who": ["Moderator"]},
                                                        "parameters": ["EntryRevision"]},
        "Web.WikiAdminController.Edit(PageName)": {"entry": {"verb": "ANY", "kind": "action", "who": ["Moderator"]},
                                                   "parameters": ["PageName"]},
    })
    question = "What happens when a moderator saves a post in the admin editor? Trace it from the controller action."
    entries = entry_points(g, ["cs:Web.AdminController.Settings(Settings)|METHOD"], question)
    assert entries[0] == "cs:Web.WikiAdminController.Edit(EntryRevision)|METHOD"  # the search never found it
    # described less than the editor's action, the settings action brings no paths beside it
    assert "cs:Web.AdminController.Settings(Settings)|METHOD" not in entries


def test_a_flow_starts_at_the_message_handler_the_question_describes_best():
    """A handler a dispatched message reaches is an entry point the question may describe; of two
    sharing as many words, the one saying fewer words the question does not ask comes first, and a
    hit's private helper is no entry point however many words its name shares."""
    from ragstream.graph.answers import entry_points

    ns = "App.Handlers."
    g = _entry_graph({f"{ns}{name}": {} for name in (
        "ImportPaymentsHandler.Handle", "ImportPaymentsHandler.MapPeriodEndPayments",
        "ImportAccountPaymentsHandler.Handle", "ImportAccountPaymentMetadataHandler.Handle", "Bus.Send")})
    for handler in ("ImportPaymentsHandler", "ImportAccountPaymentsHandler", "ImportAccountPaymentMetadataHandler"):
        g.add_edge(f"cs:{ns}Bus.Send|METHOD", f"cs:{ns}{handler}.Handle|METHOD", key="CALLS",
                   resolution="dispatch", via="message")
    hits = [f"cs:{ns}ImportPaymentsHandler.MapPeriodEndPayments|METHOD", f"cs:{ns}ImportPaymentsHandler.Handle|METHOD"]
    entries = entry_points(g, hits, "What happens when an account's payments are imported for a period end?")
    assert entries[:2] == [f"cs:{ns}ImportAccountPaymentsHandler.Handle|METHOD",
                           f"cs:{ns}ImportAccountPaymentMetadataHandler.Handle|METHOD"]
    assert f"cs:{ns}ImportPaymentsHandler.MapPeriodEndPayments|METHOD" not in entries


@pytest.mark.parametrize("question, verbs", [
    # a verb's inflections and its noun of action, not another word it begins
    ("A reader posts a new message in a page's discussion.", {"POST"}),  # "reader" is no read
    ("When a user changes the email address of an account", {"PUT", "PATCH", "POST"}),  # "address" is no add
    ("How does the important-orders page list them?", {"GET"}),  # "important" is no import
    ("How is the market price shown?", {"GET"}),  # "market" is no mark
    ("When a visitor registers on the site", {"POST"}),
])
def test_the_http_verb_is_read_from_verbs_not_from_words_they_begin(question, verbs):
    from ragstream.graph.action_verbs import asked_http_verbs

    assert asked_http_verbs(question) == verbs


@pytest.mark.parametrize("question, verbs", [
    ("Which procedures and tables get written?", set()),
    ("What gets saved when an order is placed?", {"POST", "PUT", "PATCH"}),  # a save creates or changes
    ("How do I get the list of orders?", {"GET"}),
    ("When do the tables get loaded?", {"GET"}),
    ("How does the API get featured products from the database?", {"GET"}),  # an adjective, not a passive
])
def test_a_passive_get_asks_for_no_http_get(question, verbs):
    from ragstream.graph.action_verbs import asked_http_verbs

    assert asked_http_verbs(question) == verbs


@pytest.mark.parametrize("question, verbs", [
    # the action the question opens with is the entry's; what the save then reads is no GET entry
    ("How does saving content in the text module reach the database, and what does the save read?",
     {"POST", "PUT", "PATCH"}),
    # a change of state is a change: "declines" is no GET, and no creating POST alone
    ("When an admin declines a pending movie request, which code path runs?", {"PUT", "PATCH", "POST"}),
    ("How is an invoice edited, and which tables does the edit load?", {"PUT", "PATCH", "POST"}),
    # one action, two words for it
    ("How are the orders listed and shown on the page?", {"GET"}),
])
def test_the_entry_s_http_verb_is_the_action_the_question_opens_with(question, verbs):
    from ragstream.graph.action_verbs import asked_http_verbs

    assert asked_http_verbs(question) == verbs


def test_a_flow_starts_where_the_question_asks_the_walk_to_start():
    """"Walk me from the scheduled job to the tables": the job upstream, not the message handler
    that shares as many of the question's words; without such a phrase the handler the question
    describes comes first."""
    from ragstream.graph.answers import entry_points
    from ragstream.graph.questions import asked_start

    ns = "App."
    g = _entry_graph({f"{ns}{name}": {} for name in (
        "Jobs.ImportLevyDeclarationsJob.Run", "Handlers.ImportAccountLevyDeclarationsHandler.Handle", "Bus.Send")})
    g.add_edge(f"cs:{ns}Jobs.ImportLevyDeclarationsJob.Run|METHOD", f"cs:{ns}Bus.Send|METHOD", key="CALLS",
               resolution="static")
    g.add_edge(f"cs:{ns}Bus.Send|METHOD", f"cs:{ns}Handlers.ImportAccountLevyDeclarationsHandler.Handle|METHOD",
               key="CALLS", resolution="dispatch", via="message")
    hits = [f"cs:{ns}Handlers.ImportAccountLevyDeclarationsHandler.Handle|METHOD"]
    walked = "How do levy declarations get imported? Walk me from the scheduled job to the tables."
    assert asked_start(walked) == {"schedul", "job"}
    assert entry_points(g, hits, walked)[0] == f"cs:{ns}Jobs.ImportLevyDeclarationsJob.Run|METHOD"
    assert asked_start("How does a worker fetch the next job from the SQL Server queue?") == frozenset()
    # the API is the kind of entry point (the face), not a word of its type's name
    assert asked_start("How is an order saved, from the API controller down to the tables?") == {"control"}
    assert asked_start("What code runs from the API endpoint down to the database?") == frozenset()


def test_side_calls_put_the_entitys_methods_first_and_name_a_dispatched_call_by_its_implementation():
    from ragstream.graph.relations import Path, side_calls

    g = _entry_graph({name: {} for name in (
        "App.Edit", "App.Repo.Save", "App.IAuthenticator.Name", "App.Authenticator.Name", "App.Entry.Revise",
        "App.Log.Write")})
    for method in ("App.IAuthenticator.Name", "App.Authenticator.Name", "App.Entry.Revise", "App.Log.Write"):
        g.nodes[f"cs:{method}|METHOD"].update(path="src/app.cs", parent=f"cs:{method.rsplit('.', 1)[0]}|TYPE")
        g.add_node(f"cs:{method.rsplit('.', 1)[0]}|TYPE", kind="TYPE")
    g.add_node("sql:dbo.Entries|TABLE", kind="TABLE")
    g.add_edge("cs:App.Entry|TYPE", "sql:dbo.Entries|TABLE", key="MAPS_TO")
    edit = "cs:App.Edit|METHOD"
    g.add_edge(edit, "cs:App.IAuthenticator.Name|METHOD", key="CALLS", resolution="static")
    g.add_edge(edit, "cs:App.Authenticator.Name|METHOD", key="CALLS", resolution="dispatch",
               via="cs:App.IAuthenticator.Name|METHOD")
    g.add_edge(edit, "cs:App.Log.Write|METHOD", key="CALLS", resolution="static")
    g.add_edge(edit, "cs:App.Entry.Revise|METHOD", key="CALLS", resolution="inferred")
    path = Path((edit, "cs:App.Repo.Save|METHOD", "sql:dbo.Entries|TABLE"), ("CALLS", "WRITES"))
    assert [c.id for c in side_calls(g, [path])] == [
        "cs:App.Entry.Revise|METHOD", "cs:App.Authenticator.Name|METHOD", "cs:App.Log.Write|METHOD"]


def test_the_best_method_brings_the_procedures_and_tables_its_calls_reach():
    """"Where is the balance calculated?": the service the search found, then what its calls
    reach in the database (the repository's procedure and the tables it reads); the other hits
    bring only the tables they touch themselves."""
    import networkx as nx

    from ragstream.graph.relations import with_their_tables

    g = nx.MultiDiGraph()
    for node, kind, language in [("svc", "METHOD", "csharp"), ("repo", "METHOD", "csharp"), ("other", "METHOD", "csharp"),
                                 ("sql:p", "PROCEDURE", "sql"), ("sql:t", "TABLE", "sql"), ("sql:u", "TABLE", "sql")]:
        g.add_node(node, kind=kind, language=language, name=node)
    g.add_edge("svc", "repo", key="CALLS", resolution="static")
    g.add_edge("repo", "sql:p", key="CALLS", resolution="static")
    g.add_edge("sql:p", "sql:t", key="READS")
    g.add_edge("other", "repo", key="CALLS", resolution="static")
    g.add_edge("other", "sql:u", key="WRITES")
    assert with_their_tables(g, ["svc", "other"]) == ["svc", "other", "sql:u"]
    # the repository method that runs the procedure comes with it
    assert with_their_tables(g, ["svc", "other"], reach=5) == ["svc", "repo", "sql:p", "sql:t", "other", "sql:u"]
    assert with_their_tables(g, ["svc", "other"], reach=1) == ["svc", "repo", "sql:p", "other", "sql:u"]


def _code_graph(nodes, edges):
    import networkx as nx

    g = nx.MultiDiGraph()
    for node, kind in nodes:
        name = node.split(":", 1)[-1]
        g.add_node(node, kind=kind, language="sql" if node.startswith("sql:") else "csharp", name=name,
                   path="src/" + name.split(".")[0] + ".cs", parent=name.rsplit(".", 1)[0] if kind == "METHOD" else None)
    for source, target, key, data in edges:
        g.add_edge(source, target, key=key, **data)
    return g


def test_a_handler_hit_brings_its_sender_and_the_behaviour_the_question_names():
    """"How does the monthly expiry work": the handler the search found, the scheduled job that
    sends it its command, and the caching behaviour around it only when the question asks about
    caching; a handler with many senders (a shared command) names none of them."""
    from ragstream.graph.relations import with_their_tables

    message = {"via": "message", "message": "cs:ExpireCommand|TYPE", "resolution": "dispatch"}
    around = {"via": "pipeline", "message": "cs:ExpireCommand|TYPE", "resolution": "dispatch", "guess": True}
    g = _code_graph(
        [("Job.Run", "METHOD"), ("Handler.Handle", "METHOD"), ("CachingBehavior.Handle", "METHOD"),
         ("LoggingBehavior.Handle", "METHOD"), ("CachingBehavior", "TYPE"), ("LoggingBehavior", "TYPE")],
        [("Job.Run", "Handler.Handle", "CALLS", message), ("Job.Run", "CachingBehavior.Handle", "CALLS", around),
         ("Job.Run", "LoggingBehavior.Handle", "CALLS", around)])
    assert with_their_tables(g, ["Handler.Handle"]) == ["Handler.Handle", "Job.Run"]
    assert with_their_tables(g, ["Handler.Handle"], words={"cach", "list"}) == [
        "Handler.Handle", "Job.Run", "CachingBehavior.Handle"]
    for i in range(3):  # three senders: none says what starts it
        g.add_node(f"Other{i}.Send", kind="METHOD", language="csharp", name=f"Other{i}.Send", path="src/o.cs")
        g.add_edge(f"Other{i}.Send", "Handler.Handle", key="CALLS", **message)
    assert with_their_tables(g, ["Handler.Handle"]) == ["Handler.Handle"]


def test_a_hit_brings_at_most_three_of_its_tables_the_asked_and_searched_first():
    """A page's controller that reads seven tables brings three: those the question names, then
    those the search found, then those it writes."""
    from ragstream.graph.relations import TABLES_PER_HIT, with_their_tables

    tables = ["sql:Queries", "sql:Revisions", "sql:Sites", "sql:Users", "sql:Votes", "sql:Badges"]
    g = _code_graph([("Page.Index", "METHOD"), *[(t, "TABLE") for t in tables]],
                    [("Page.Index", t, "WRITES" if t == "sql:Users" else "READS", {}) for t in tables])
    got = with_their_tables(g, ["Page.Index"], words={"vote"}, searched=["Page.Index", "sql:Sites"])
    assert TABLES_PER_HIT == 3 and got == ["Page.Index", "sql:Votes", "sql:Sites", "sql:Users"]


def test_a_constructor_is_named_by_its_type():
    """A specification or a validator is its constructor: answers name the type, once."""
    from ragstream.graph.stand_ins import is_constructor, named_by_types

    g = _code_graph([("Spec", "TYPE"), ("Spec.Spec", "METHOD"), ("Spec.Apply", "METHOD"), ("Other", "TYPE")], [])
    assert is_constructor(g, "Spec.Spec") and not is_constructor(g, "Spec.Apply") and not is_constructor(g, "Spec")
    assert named_by_types(g, ["Spec.Spec", "Other", "Spec", "Spec.Apply", "absent"]) == ["Spec", "Other", "Spec.Apply", "absent"]


@pytest.mark.parametrize("question, start", [
    ("Walk me from the scheduled job that imports levy declarations to the tables.", {"schedul", "job"}),
    ("Trace it from the scheduled job, through the handler, down to the tables.", {"schedul", "job"}),
    ("Trace what happens from the moment a user clicks save to the tables.", set()),
    ("How does the worker take the next job from the queue and run it?", set()),
])
def test_where_a_walk_starts_is_the_start_phrase_without_what_qualifies_it(question, start):
    from ragstream.graph.questions import asked_start

    assert asked_start(question) == start


def test_an_entitys_method_or_a_helper_is_no_entry_before_the_action_and_no_test_double_is_one():
    """"When a user logs in": the action that calls the entity's `User.RecordLogin`, not the entity
    method though its type is named; a handler in the tests is never described as an entry; a
    framework's parameter type (`CancellationToken`) says nothing of an entry point."""
    from ragstream.graph.answers import entry_points
    from ragstream.graph.relations import described_entries, entry_words

    g = _entry_graph({"Web.AccountController.SignIn(SignInModel)": {"entry": {"verb": "POST", "kind": "action"},
                                                                    "parameters": ["SignInModel"]},
                      "Domain.User.RecordLogin": {}, "Web.AccountController.BuildClaims": {}})
    sign_in = "cs:Web.AccountController.SignIn(SignInModel)|METHOD"
    for callee in ("cs:Domain.User.RecordLogin|METHOD", "cs:Web.AccountController.BuildClaims|METHOD"):
        g.add_edge(sign_in, callee, key="CALLS", resolution="static")
        g.nodes[callee]["parent"] = callee.rsplit(".", 1)[0] + "|TYPE"
    g.add_node("cs:Domain.User|TYPE", kind="TYPE", name="Domain.User")
    g.add_edge("cs:Domain.User|TYPE", "sql:dbo.Users|TABLE", key="MAPS_TO")
    hits = ["cs:Domain.User.RecordLogin|METHOD", "cs:Web.AccountController.BuildClaims|METHOD"]
    assert entry_points(g, hits, "What happens in the database when a user logs in?")[0] == sign_in

    g = _entry_graph({"App.Tests.FakeImportPaymentsHandler.Handle": {}, "App.ImportPaymentsHandler.Handle": {},
                      "App.Bus.Send": {}})
    g.nodes["cs:App.Tests.FakeImportPaymentsHandler.Handle|METHOD"]["path"] = "tests/App.Tests/Fakes.cs"
    for handler in ("Tests.FakeImportPaymentsHandler", "ImportPaymentsHandler"):
        g.add_edge("cs:App.Bus.Send|METHOD", f"cs:App.{handler}.Handle|METHOD", key="CALLS", resolution="dispatch",
                   via="message")
    assert list(described_entries(g, {"import", "payment", "handler"})) == ["cs:App.ImportPaymentsHandler.Handle|METHOD"]

    g = _entry_graph({"App.ShipOrderHandler.Handle": {"parameters": ["ShipOrderCommand", "CancellationToken"]}})
    g.add_node("cs:App.ShipOrderCommand|TYPE", kind="TYPE", name="App.ShipOrderCommand", path="src/app.cs")
    said = entry_words(g, "cs:App.ShipOrderHandler.Handle|METHOD", {"ShipOrderCommand"})
    assert {"ship", "order", "command"} <= said and not {"cancel", "token"} & said


def test_the_hits_joined_to_the_best_ones_come_next():
    """"Where is the distributed lock implemented": `Acquire` found first, then the other hits an
    edge joins to it (`Release`, which it calls, and the connection method calling it), in the
    search's order; not a hit nothing joins, an interface's declaration, a constructor or a test."""
    from ragstream.graph.relations import connected_hits

    g = _code_graph([("Lock.Acquire", "METHOD"), ("Lock.Release", "METHOD"), ("Conn.AcquireLock", "METHOD"),
                     ("Lock.Lock", "METHOD"), ("ILock", "TYPE"), ("ILock.Release", "METHOD"), ("Other.Run", "METHOD"),
                     ("LockTests.Acquires", "METHOD")],
                    [("Lock.Acquire", "Lock.Release", "CALLS", {}), ("Conn.AcquireLock", "Lock.Acquire", "CALLS", {}),
                     ("Lock.Acquire", "Lock.Lock", "CALLS", {}), ("Lock.Acquire", "ILock.Release", "CALLS", {}),
                     ("LockTests.Acquires", "Lock.Acquire", "CALLS", {})])
    g.nodes["ILock"]["attrs"] = {"type_kind": "interface"}
    g.nodes["LockTests.Acquires"]["path"] = "tests/LockTests.cs"
    searched = ["Other.Run", "ILock.Release", "Lock.Lock", "LockTests.Acquires", "Conn.AcquireLock", "Lock.Release"]
    assert connected_hits(g, ["Lock.Acquire"], searched, limit=2) == ["Conn.AcquireLock", "Lock.Release"]
    assert connected_hits(g, ["Lock.Acquire"], searched, limit=1) == ["Conn.AcquireLock"]


@pytest.mark.parametrize("question, asks", [
    ("What happens when payments are imported — which procedures and tables get written?", True),
    ("What code runs after the PUT request, and what gets written to the database?", True),
    ("Trace it from the controller action down to the tables that get written.", True),
    ("What happens in the database when an order is placed?", False),
    ("What happens when payments are updated in the database?", False),  # what runs, reads too
    ("Which code reads the Orders table?", False),
])
def test_what_gets_written_is_asked(question, asks):
    from ragstream.graph.questions import asks_for_writes

    assert asks_for_writes(question) is asks


def test_a_flow_asked_for_what_gets_written_shows_the_paths_that_write():
    """"Which tables get written": the import's path that reads transfers by period end names
    more of the question's words, but only the paths that write are shown."""
    from ragstream.graph.answers import flow_paths

    g = _code_graph([("Import.Handle", "METHOD"), ("Repo.GetTransfersByPeriodEnd", "METHOD"), ("Repo.CreatePayments", "METHOD"),
                     ("sql:Transfers", "TABLE"), ("sql:Payment", "TABLE")],
                    [("Import.Handle", "Repo.GetTransfersByPeriodEnd", "CALLS", {}), ("Import.Handle", "Repo.CreatePayments", "CALLS", {}),
                     ("Repo.GetTransfersByPeriodEnd", "sql:Transfers", "READS", {}), ("Repo.CreatePayments", "sql:Payment", "WRITES", {})])
    asked = "When payments are imported for a period end, which tables get written?"
    assert [p.nodes[-1] for p in flow_paths(g, ["Import.Handle"], asked)] == ["sql:Payment"]
    told = "When payments are imported for a period end, what happens in the database?"
    assert [p.nodes[-1] for p in flow_paths(g, ["Import.Handle"], told)] == ["sql:Transfers", "sql:Payment"]


def test_flow_paths_alike_in_all_else_come_in_the_order_their_calls_run():
    """Two calls of one entry, each to a table, nothing else to tell them apart: the call made
    first in the entry's code (line 12, `Zeta.Write`) comes first, not the id that sorts first
    (`Alpha.Write`, called on line 30); swap the lines and the order swaps."""
    from ragstream.graph.relations import table_paths

    def paths(zeta_line: int, alpha_line: int) -> list[str]:
        g = _code_graph([("Job.Run", "METHOD"), ("Zeta.Write", "METHOD"), ("Alpha.Write", "METHOD"),
                         ("sql:Z", "TABLE"), ("sql:A", "TABLE")],
                        [("Job.Run", "Zeta.Write", "CALLS", {"line": zeta_line}),
                         ("Job.Run", "Alpha.Write", "CALLS", {"line": alpha_line}),
                         ("Zeta.Write", "sql:Z", "WRITES", {"line": 3}), ("Alpha.Write", "sql:A", "WRITES", {"line": 3})])
        return [p.nodes[1] for p in table_paths(g, ["Job.Run"])]

    assert paths(12, 30) == ["Zeta.Write", "Alpha.Write"]
    assert paths(30, 12) == ["Alpha.Write", "Zeta.Write"]


def test_code_nothing_calls_comes_with_where_it_is_registered():
    """An interceptor nobody calls runs because a method registers it: that method comes with it;
    a repository the code calls through its interface does not bring the start-up code."""
    from ragstream.graph.relations import with_their_tables

    registration = {"via": "registration", "registered_by": "AddScoped"}
    g = _code_graph([("Audit", "TYPE"), ("Audit.SavingChanges", "METHOD"), ("Repo", "TYPE"), ("Repo.Get", "METHOD"),
                     ("Service.Run", "METHOD"), ("Wiring.AddInfrastructure", "METHOD")],
                    [("Audit", "Audit.SavingChanges", "DEFINES", {}), ("Repo", "Repo.Get", "DEFINES", {}),
                     ("Service.Run", "Repo.Get", "CALLS", {"resolution": "dispatch", "via": "IRepo.Get"}),
                     ("Service.Run", "Audit.SavingChanges", "CALLS", {"resolution": "dispatch", "via": "interceptor"}),
                     ("Wiring.AddInfrastructure", "Audit", "REFERENCES", registration),
                     ("Wiring.AddInfrastructure", "Repo", "REFERENCES", registration)])
    assert with_their_tables(g, ["Audit.SavingChanges"]) == ["Audit.SavingChanges", "Wiring.AddInfrastructure"]
    assert with_their_tables(g, ["Repo.Get"]) == ["Repo.Get"]


def test_a_procedure_the_search_found_comes_with_what_runs_it_and_what_it_touches():
    """"Where is the transfer allowance worked out": the procedure, the repository method that
    runs it and the handler calling that, its tables and the function it calls; not a test, and
    not an interface's declaration."""
    from ragstream.graph.relations import procedure_context

    g = _code_graph([("sql:GetAllowance", "PROCEDURE"), ("sql:PreviousYear", "FUNCTION"), ("sql:Lines", "TABLE"),
                     ("Repo.GetAllowance", "METHOD"), ("IRepo", "TYPE"), ("IRepo.GetAllowance", "METHOD"),
                     ("Handler.Handle", "METHOD"), ("RepoTests.Gets", "METHOD")],
                    [("Repo.GetAllowance", "sql:GetAllowance", "CALLS", {}), ("Handler.Handle", "IRepo.GetAllowance", "CALLS", {}),
                     ("Handler.Handle", "Repo.GetAllowance", "CALLS", {"resolution": "dispatch"}),
                     ("RepoTests.Gets", "sql:GetAllowance", "CALLS", {}),
                     ("sql:GetAllowance", "sql:Lines", "READS", {}), ("sql:GetAllowance", "sql:PreviousYear", "CALLS", {})])
    g.nodes["IRepo"]["attrs"] = {"type_kind": "interface"}
    g.nodes["RepoTests.Gets"]["path"] = "tests/RepoTests.cs"
    assert procedure_context(g, "sql:GetAllowance") == ["Repo.GetAllowance", "Handler.Handle", "sql:Lines", "sql:PreviousYear"]


def test_a_described_entry_point_starts_the_flow_alone_unless_another_is_described_as_well():
    """"What happens when a moderator saves a post in the admin editor": the editor's action the
    question describes starts the flow; the admin settings action, described less, does not
    bring its paths beside it."""
    from ragstream.graph.relations import entry_methods

    g = _code_graph([("WikiAdminController.Edit", "METHOD"), ("AdminController.Settings", "METHOD"),
                     ("WikiAdminController", "TYPE"), ("AdminController", "TYPE")], [])
    g.nodes["WikiAdminController.Edit"]["attrs"] = {"entry": {"verb": "POST", "route": "admin/wiki/edit",
                                                              "who": ["Moderator"]}}
    g.nodes["AdminController.Settings"]["attrs"] = {"entry": {"verb": "POST", "route": "admin/settings"}}
    words = {"moderator", "save", "post", "admin", "editor", "edit", "wiki"}
    assert entry_methods(g, ["AdminController.Settings", "WikiAdminController.Edit"], words) == ["WikiAdminController.Edit"]


def test_of_two_equally_described_entry_points_the_one_naming_what_is_acted_on_starts_the_flow():
    """"When a user with delete rights confirms deleting a single bug": `delete_user` and
    `delete_bug` pages each say two of the question's words; the bug is what is deleted, the user
    who deletes it, whatever order the search found them in."""
    from ragstream.graph.relations import entry_methods

    pages = ("delete_user.Page_Load", "delete_bug.Page_Load")
    g = _code_graph([(m, "METHOD") for m in pages] + [("delete_user", "TYPE"), ("delete_bug", "TYPE")], [])
    for page in pages:
        g.nodes[page]["attrs"] = {"entry": {"verb": "ANY", "kind": "web_forms"}}
    words = {"user", "delet", "right", "bug", "web", "ui", "page"}
    assert entry_methods(g, list(pages), words, {"DELETE", "POST"}, objects={"bug"})[0] == "delete_bug.Page_Load"
    assert entry_methods(g, list(pages), words, {"DELETE", "POST"})[0] == "delete_user.Page_Load"  # search order


def test_an_action_of_another_verb_yields_only_to_one_of_an_asked_verb():
    """"A post is deleted for good from the trash ... from the API call": the application purges
    with a PUT, and no DELETE action is among the candidates, so the PUT action starts the flow,
    not a non-HTTP handler whose name says delete; with a DELETE action there, that one does."""
    from ragstream.graph.relations import entry_methods

    def graph(*methods: str):
        g = _code_graph([(m, "METHOD") for m in ("TrashController.Purge", "MetaWeblogHandler.DeletePost", *methods)], [])
        g.nodes["TrashController.Purge"]["attrs"] = {"entry": {"verb": "PUT", "route": "api/trash/purge"}}
        for method in methods:
            g.nodes[method]["attrs"] = {"entry": {"verb": "DELETE", "route": "api/posts"}}
        return g

    words = {"post", "delet", "trash", "api", "call"}
    hits = ["TrashController.Purge", "MetaWeblogHandler.DeletePost"]
    assert entry_methods(graph(), hits, words, {"DELETE", "POST"})[0] == "TrashController.Purge"
    ranked = entry_methods(graph("PostsController.Delete"), hits, words, {"DELETE", "POST"})
    assert ranked[0] == "PostsController.Delete" and "TrashController.Purge" not in ranked[:2]


def test_a_flow_reaches_a_table_ten_calls_below_its_entry():
    """Controller -> repository -> an active record's Save -> its template method -> the override
    -> a static service -> the configured provider -> the helper that runs the SQL: the table the
    ninth method below the entry writes (ten steps down) is reached; one call further is not."""
    import networkx as nx

    from ragstream.graph.relations import table_paths

    g = nx.MultiDiGraph()
    chain = [f"cs:Step{i}.Run|METHOD" for i in range(11)]
    for node in chain:
        g.add_node(node, kind="METHOD", name=node)
    g.add_node("sql:dbo.PostTag|TABLE", kind="TABLE", name="dbo.PostTag")
    for source, target in zip(chain, chain[1:]):
        g.add_edge(source, target, key="CALLS", resolution="static")
    g.add_edge(chain[9], "sql:dbo.PostTag|TABLE", key="WRITES")
    assert [p.nodes[-1] for p in table_paths(g, [chain[0]])] == ["sql:dbo.PostTag|TABLE"]
    g.remove_edge(chain[9], "sql:dbo.PostTag|TABLE", key="WRITES")
    g.add_edge(chain[10], "sql:dbo.PostTag|TABLE", key="WRITES")
    assert table_paths(g, [chain[0]]) == []


def test_an_entry_point_eight_calls_above_a_hit_is_found_and_nine_is_not():
    """A POST action calling down a chain to the method the search found: eight calls up it is
    an entry of the flow, nine calls up it is too far to say the hit is what it runs."""
    import networkx as nx

    from ragstream.graph.relations import entry_methods

    def graph(above: int) -> nx.MultiDiGraph:
        g = nx.MultiDiGraph()
        chain = ["cs:Web.OrdersController.Post|METHOD", *(f"cs:Step{i}.Run|METHOD" for i in range(above))]
        for node in chain:
            entry = {"entry": {"verb": "POST"}} if "Controller" in node else {}
            g.add_node(node, kind="METHOD", name=node[3:].split("|")[0], attrs=entry)
        for source, target in zip(chain, chain[1:]):
            g.add_edge(source, target, key="CALLS", resolution="static")
        return g

    action = "cs:Web.OrdersController.Post|METHOD"
    assert action in entry_methods(graph(8), ["cs:Step7.Run|METHOD"], set())
    assert action not in entry_methods(graph(9), ["cs:Step8.Run|METHOD"], set())


def test_a_flow_asked_to_create_leads_with_the_path_that_inserts():
    """"When an author creates a new post": the save runs an insert and, beside it, an update the
    update branch makes; the path that inserts comes first, though longer. Asked to delete, the
    delete leads; asked nothing of the kind, the shorter path does."""
    import networkx as nx

    from ragstream.graph.answers import flow_paths

    g = nx.MultiDiGraph()
    for name in ("Api.Post", "Record.Save", "Record.Update", "Record.Insert", "Provider.InsertPost", "Provider.Purge"):
        g.add_node(f"cs:{name}|METHOD", kind="METHOD", name=f"App.{name}")
    g.add_node("sql:dbo.Posts|TABLE", kind="TABLE", name="dbo.Posts")
    g.add_node("sql:dbo.Tags|TABLE", kind="TABLE", name="dbo.Tags")
    for source, target in (("Api.Post", "Record.Save"), ("Record.Save", "Record.Update"), ("Record.Save", "Record.Insert"),
                           ("Record.Insert", "Provider.InsertPost"), ("Record.Save", "Provider.Purge")):
        g.add_edge(f"cs:{source}|METHOD", f"cs:{target}|METHOD", key="CALLS")
    g.add_edge("cs:Record.Update|METHOD", "sql:dbo.Posts|TABLE", key="WRITES", operations=["UPDATE"])
    g.add_edge("cs:Provider.InsertPost|METHOD", "sql:dbo.Tags|TABLE", key="WRITES", operations=["INSERT"])
    g.add_edge("cs:Provider.Purge|METHOD", "sql:dbo.Tags|TABLE", key="WRITES", operations=["DELETE"])
    entry = ["cs:Api.Post|METHOD"]
    created = flow_paths(g, entry, "When an author creates a new entry, which code runs down to the tables?")
    assert created[0].nodes[-2:] == ("cs:Provider.InsertPost|METHOD", "sql:dbo.Tags|TABLE")
    deleted = flow_paths(g, entry, "When an entry is deleted, which code runs down to the tables?")
    assert deleted[0].nodes[-2:] == ("cs:Provider.Purge|METHOD", "sql:dbo.Tags|TABLE")
    plain = flow_paths(g, entry, "When an entry is saved, which code runs down to the tables?")
    assert len(plain[0].nodes) == 4 and plain[-1].nodes[-2] == "cs:Provider.InsertPost|METHOD"


def _two_sites_graph():
    """A Web API and an MVC site over one service: the API's `Post` (route `customer`) and the
    site's `Create` (route `customer-management/register-new`) both call `Register`; a Razor
    page's `OnPost` calls it as well."""
    g = _code_graph([("Api.CustomerController.Post", "METHOD"), ("Api.CustomerController", "TYPE"),
                     ("Api.ApiController", "TYPE"), ("ext:ControllerBase|EXTERNAL", "EXTERNAL"),
                     ("Web.CustomerController.Create", "METHOD"), ("Web.CustomerController", "TYPE"),
                     ("Web.BaseController", "TYPE"), ("ext:Controller|EXTERNAL", "EXTERNAL"),
                     ("Pages.RegisterModel.OnPost", "METHOD"), ("Pages.RegisterModel", "TYPE"),
                     ("App.CustomerAppService.Register", "METHOD"), ("ext:Controller.View|EXTERNAL", "EXTERNAL")],
                    [("Api.CustomerController", "Api.ApiController", "INHERITS", {}),
                     ("Api.ApiController", "ext:ControllerBase|EXTERNAL", "INHERITS", {}),
                     ("Web.CustomerController", "Web.BaseController", "INHERITS", {}),
                     ("Web.BaseController", "ext:Controller|EXTERNAL", "INHERITS", {}),
                     ("Web.CustomerController", "Web.CustomerController.Create", "DEFINES", {}),
                     ("Web.CustomerController.Create", "ext:Controller.View|EXTERNAL", "CALLS", {}),
                     *[(m, "App.CustomerAppService.Register", "CALLS", {}) for m in
                       ("Api.CustomerController.Post", "Web.CustomerController.Create", "Pages.RegisterModel.OnPost")]])
    g.nodes["ext:ControllerBase|EXTERNAL"]["name"] = "ControllerBase"
    g.nodes["ext:Controller|EXTERNAL"]["name"] = "Controller"
    g.nodes["ext:Controller.View|EXTERNAL"]["name"] = "Controller.View"
    g.nodes["Api.ApiController"]["attrs"] = {"attributes": ["ApiController"]}
    g.nodes["Api.CustomerController.Post"]["attrs"] = {"entry": {"verb": "POST", "kind": "action", "route": "customer"}}
    g.nodes["Web.CustomerController.Create"]["attrs"] = {
        "entry": {"verb": "POST", "kind": "action", "route": "customer-management/register-new"}}
    g.nodes["Pages.RegisterModel.OnPost"]["attrs"] = {"entry": {"verb": "POST", "kind": "page_handler"}}
    return g


@pytest.mark.parametrize("question, face", [
    ("When a client registers a new customer through the REST API, what runs?", "api"),
    ("What happens when I POST to the endpoint?", "api"),
    ("What happens when a customer is removed from the MVC web site's remove page?", "page"),
    ("When I save the Edit Instructor form, which tables get written?", "page"),
    ("Which code registers a new customer, down to the tables and views?", None),
    ("Which API does the page call when a customer registers?", None),
])
def test_a_flow_question_says_what_kind_of_entry_it_starts_at(question, face):
    from ragstream.graph.questions import asked_face

    assert asked_face(question) == face


def test_the_code_says_whether_an_entry_is_an_api_or_a_page():
    """What an entry point serves is read from its code: `[ApiController]` or `ControllerBase`
    up its bases, an `api/` route, a minimal API: an API; MVC's `Controller` returning views, a
    Razor page handler: a page; a method that is no entry point, a `Controller` without views
    (it may serve JSON under a route of its type's), or bases that say nothing: neither."""
    from ragstream.graph.entry_faces import API, PAGE, entry_face

    g = _two_sites_graph()
    assert entry_face(g, "Api.CustomerController.Post") == API
    assert entry_face(g, "Web.CustomerController.Create") == PAGE
    assert entry_face(g, "Pages.RegisterModel.OnPost") == PAGE
    assert entry_face(g, "App.CustomerAppService.Register") is None
    g.nodes["Web.CustomerController.Create"]["attrs"]["entry"]["route"] = "api/customers"
    assert entry_face(g, "Web.CustomerController.Create") == API  # its own route says so
    g.nodes["Web.BaseController"]["attrs"] = {"attributes": ["ApiController"]}
    g.nodes["Web.CustomerController.Create"]["attrs"]["entry"]["route"] = "customers"
    assert entry_face(g, "Web.CustomerController.Create") == API  # `[ApiController]` over `Controller`
    g.nodes["Web.BaseController"]["attrs"] = {}
    g.remove_edge("Web.CustomerController.Create", "ext:Controller.View|EXTERNAL")
    assert entry_face(g, "Web.CustomerController.Create") is None  # no views
    g.add_edge("Web.CustomerController.Create", "ext:Controller.View|EXTERNAL", key="CALLS")
    g.remove_edge("Web.BaseController", "ext:Controller|EXTERNAL")
    g.nodes["Web.BaseController"]["attrs"] = {}
    assert entry_face(g, "Web.CustomerController.Create") is None


def test_a_flow_asked_through_the_api_starts_at_the_api_action_not_the_page_sharing_more_words():
    """"Registers a new customer through the REST API": the site's `Create`, whose route says
    "register" and "new", shares more words with the question, but the code says it serves
    pages; the API's `Post`, which hands the request to the same service, starts the flow in its
    place. Asked for the site's page, or neither, the words decide as before; an API action over
    other code takes no page's place."""
    from ragstream.graph.relations import entry_methods

    g = _two_sites_graph()
    g.remove_node("Pages.RegisterModel.OnPost")
    hits = ["App.CustomerAppService.Register"]
    words = {"client", "regist", "new", "custom", "rest", "api", "run", "controller", "databas"}
    unasked = entry_methods(g, hits, words - {"rest", "api"}, {"POST"}, {"controller"})
    assert unasked[0] == "Web.CustomerController.Create"
    api = entry_methods(g, hits, words, {"POST"}, {"controller"}, "api")
    assert api[0] == "Api.CustomerController.Post" and "Web.CustomerController.Create" not in api
    page = entry_methods(g, hits, words - {"rest", "api"} | {"mvc", "web", "site", "page"}, {"POST"}, {"controller"}, "page")
    assert page[0] == "Web.CustomerController.Create"
    g.remove_edge("Api.CustomerController.Post", "App.CustomerAppService.Register")
    g.add_node("App.AccountService.Register", kind="METHOD", name="App.AccountService.Register", parent="App.AccountService")
    g.add_edge("Api.CustomerController.Post", "App.AccountService.Register", key="CALLS")
    assert entry_methods(g, hits, words, {"POST"}, {"controller"}, "api")[0] == "Web.CustomerController.Create"


def test_a_page_asked_starts_at_the_page_handler_and_an_api_asked_where_there_is_none_changes_nothing():
    """"From the registration page": the Razor page's `OnPost` over the same service takes the
    place of the API action that shares as many words and comes first; asked through an API
    where no entry point is one, the order is the words' order."""
    from ragstream.graph.relations import entry_methods

    g = _two_sites_graph()
    g.remove_node("Web.CustomerController.Create")
    hits = ["App.CustomerAppService.Register"]
    words = {"custom", "regist", "page"}
    assert entry_methods(g, hits, words, {"POST"})[0] == "Api.CustomerController.Post"
    assert entry_methods(g, hits, words, {"POST"}, (), "page")[0] == "Pages.RegisterModel.OnPost"
    assert entry_methods(g, hits, words, {"POST"}, (), "api")[0] == "Api.CustomerController.Post"
    g.remove_node("Api.CustomerController.Post")
    assert entry_methods(g, hits, words, {"POST"}, (), "api") == entry_methods(g, hits, words, {"POST"})


@pytest.mark.parametrize("question, verbs", [
    ("When a new user registers through the user API, what happens? Which tables get rows?", {"POST"}),
    ("Which tables get new rows when an order is placed?", {"POST"}),
    ("How do I get the list of orders?", {"GET"}),  # a request's "get" is still one
])
def test_a_table_that_gets_rows_asks_for_no_http_get(question, verbs):
    from ragstream.graph.action_verbs import asked_http_verbs

    assert asked_http_verbs(question) == verbs


@pytest.mark.parametrize("question, face", [
    ("Which repository methods does the background purge job call to delete old rows?", "job"),
    ("What does the scheduled cleanup task delete?", "job"),
    ("Which tables does the hosted service write?", "job"),
    ("How does a worker fetch the next job from the SQL Server queue?", None),  # a job library's words
    ("When a job is enqueued, which tables get written?", None),
    ("Which API does the background job call?", None),
])
def test_a_question_asks_for_a_job_the_application_runs_by_itself(question, face):
    from ragstream.graph.questions import asked_face

    assert asked_face(question) == face


def _job_graph():
    """A purge job (`PurgeJob : HostedServiceBase : IHostedService`, its body `ExecuteJob`) and a
    `JobController.Delete` (an HTTP DELETE) that deletes a job's row; both reach repositories."""
    g = _code_graph([("Infra.PurgeJob.ExecuteJob", "METHOD"), ("Infra.PurgeJob.PurgeJob", "METHOD"),
                     ("Infra.PurgeJob", "TYPE"), ("Infra.HostedServiceBase", "TYPE"),
                     ("ext:IHostedService|EXTERNAL", "EXTERNAL"), ("Api.JobController.Delete", "METHOD"),
                     ("Repo.LogRepository.DeleteLogs", "METHOD"), ("Repo.JobRepository.DeleteJob", "METHOD")],
                    [("Infra.PurgeJob", "Infra.HostedServiceBase", "INHERITS", {}),
                     ("Infra.HostedServiceBase", "ext:IHostedService|EXTERNAL", "IMPLEMENTS", {}),
                     ("Infra.PurgeJob.ExecuteJob", "Repo.LogRepository.DeleteLogs", "CALLS", {}),
                     ("Api.JobController.Delete", "Repo.JobRepository.DeleteJob", "CALLS", {})])
    g.nodes["ext:IHostedService|EXTERNAL"]["name"] = "Microsoft.Extensions.Hosting.IHostedService"
    g.nodes["Api.JobController.Delete"]["attrs"] = {"entry": {"verb": "DELETE", "kind": "action", "route": "api/job"}}
    return g


def test_the_code_says_which_method_is_a_jobs_body():
    """A method named like a job's body of a type with a hosted service up its bases is a job;
    its constructor is not, nor the same method once the type has no such base."""
    from ragstream.graph.entry_faces import JOB, entry_face

    g = _job_graph()
    assert entry_face(g, "Infra.PurgeJob.ExecuteJob") == JOB
    assert entry_face(g, "Infra.PurgeJob.PurgeJob") is None
    assert entry_face(g, "Repo.LogRepository.DeleteLogs") is None
    g.remove_edge("Infra.HostedServiceBase", "ext:IHostedService|EXTERNAL")
    assert entry_face(g, "Infra.PurgeJob.ExecuteJob") is None


def test_a_background_job_asked_starts_at_the_job_not_the_controller_of_the_asked_verb():
    """"The background purge job ... delete old rows": the controller's DELETE action on a type
    the words name comes first while no job is asked; asked for a job, the job's body the words
    name starts the flow, found though the search hit neither."""
    from ragstream.graph.relations import entry_methods

    g = _job_graph()
    hits = ["Repo.JobRepository.DeleteJob"]
    words = {"background", "purg", "job", "call", "delet", "old", "row", "repositori"}
    assert entry_methods(g, hits, words, {"DELETE", "POST"})[0] == "Api.JobController.Delete"
    jobs = entry_methods(g, hits, words, {"DELETE", "POST"}, (), "job")
    assert jobs[0] == "Infra.PurgeJob.ExecuteJob"
    g.remove_edge("Infra.HostedServiceBase", "ext:IHostedService|EXTERNAL")  # no job: as before
    assert entry_methods(g, hits, words, {"DELETE", "POST"}, (), "job") == entry_methods(g, hits, words, {"DELETE", "POST"})


def test_an_action_of_the_asked_verb_on_a_named_type_is_described():
    """"A new user registers through the user API ... from the controller": `UserController.Post`
    (POST, a type the words name) starts the flow though the search hit another controller, and
    before the type's other POST actions, whose names say what the question does not; a type the
    words do not name (`UserRoleController`) brings none, and none comes where a POST action is
    among the hits already (a page `Edit` the words name is no better than the hit's)."""
    from ragstream.graph.relations import entry_methods

    actions = ("UserController.Post", "UserController.AddLogin", "UserController.Login",
               "UserRoleController.Post", "UserRoleController.Get")
    g = _code_graph([(f"Api.{a}", "METHOD") for a in actions], [])
    for a in actions:
        g.nodes[f"Api.{a}"]["attrs"] = {"entry": {"verb": a.rsplit(".", 1)[-1].upper().replace("ADDLOGIN", "POST")
                                                  .replace("LOGIN", "POST"), "kind": "action"}}
    words = {"new", "user", "regist", "api", "control", "row", "tabl"}
    assert entry_methods(g, ["Api.UserRoleController.Get"], words, {"POST"})[0] == "Api.UserController.Post"
    assert "Api.UserRoleController.Post" not in entry_methods(g, ["Api.UserRoleController.Get"], words, {"POST"})
    assert "Api.UserController.Post" not in entry_methods(g, ["Api.UserRoleController.Get"], words - {"control"}, {"POST"})
    # an action of the asked verb near the hits keeps its place: the named type's come only in its absence
    assert "Api.UserController.Post" not in entry_methods(g, ["Api.UserRoleController.Post"], words, {"POST"})


@pytest.mark.parametrize("question, writes", [
    ("When a new user registers, what happens? Which tables get rows?", True),
    ("Which tables receive new rows when an order is placed?", True),
    ("How do I get rows of the monthly report?", False),
])
def test_tables_that_get_rows_ask_for_the_paths_that_write(question, writes):
    from ragstream.graph.questions import asks_for_writes

    assert asks_for_writes(question) is writes


def test_the_action_whose_name_says_what_the_question_asks_starts_the_flow():
    """"When a user fills in the new-repository form and submits it": three POST actions of the
    repository controller share the question's words alike; the one named for creating starts the
    flow, not the one named for editing, which the same question asked to edit picks."""
    from ragstream.graph.relations import entry_methods

    actions = ("RepositoryController.Edit", "RepositoryController.Clone", "RepositoryController.Create")
    g = _code_graph([(a, "METHOD") for a in actions] + [("RepositoryController", "TYPE")], [])
    for action in actions:
        g.nodes[action]["attrs"] = {"entry": {"verb": "POST", "route": None}}
    words = {"repositori", "form", "submit", "new", "user"}
    assert entry_methods(g, list(actions), words, {"POST"}, actions={"POST"})[0] == "RepositoryController.Create"
    assert entry_methods(g, list(actions), words, {"PUT", "PATCH", "POST"}, actions={"PUT", "PATCH"})[0] \
        == "RepositoryController.Edit"
    # asked nothing the names say: the search's order stands
    assert entry_methods(g, list(actions), words, {"POST"})[0] == "RepositoryController.Edit"


def test_a_method_below_the_entry_points_is_not_chosen_for_what_its_name_says():
    """"How does a worker fetch the next job": `FetchJob` says the fetch, but it is a step of the
    worker's loop; among methods that are no entry point the name's verb decides nothing."""
    from ragstream.graph.relations import entry_methods

    g = _code_graph([("Queue.FetchJob", "METHOD"), ("Worker.Execute", "METHOD"), ("Worker", "TYPE"),
                     ("Queue.Dequeue", "METHOD")],
                    [("Worker.Execute", "Queue.Dequeue", "CALLS", {}), ("Queue.Dequeue", "Queue.FetchJob", "CALLS", {})])
    hits = ["Queue.FetchJob", "Queue.Dequeue", "Worker.Execute"]
    assert entry_methods(g, hits, {"worker", "fetch", "next", "job", "queue"}, {"GET"}, actions={"GET"})[0] \
        == "Worker.Execute"


def test_a_question_about_data_starts_at_the_actions_above_its_tables_writers():
    """"When a user reports a problem with a movie (an issue), what code stores it": the search
    finds the `Issues` table and a migration, no entry point; the action above the service that
    inserts into the table starts the flow. Where the search found an entry point, the tables add
    no other: the action that only reads the table is never one."""
    from ragstream.graph.relations import entry_methods

    g = _code_graph([("IssuesController.CreateIssue", "METHOD"), ("IssuesController.GetIssues", "METHOD"),
                     ("IssueService.Add", "METHOD"), ("IssueService.All", "METHOD"), ("Migrations.Initial.Up", "METHOD"),
                     ("VotesController.Vote", "METHOD"), ("sql:Issues", "TABLE")],
                    [("IssuesController.CreateIssue", "IssueService.Add", "CALLS", {}),
                     ("IssuesController.GetIssues", "IssueService.All", "CALLS", {}),
                     ("IssueService.Add", "sql:Issues", "WRITES", {"operations": ["INSERT"]}),
                     ("IssueService.All", "sql:Issues", "READS", {})])
    g.nodes["IssuesController.CreateIssue"]["attrs"] = {"entry": {"verb": "POST", "route": "api/issues"}}
    g.nodes["IssuesController.GetIssues"]["attrs"] = {"entry": {"verb": "GET", "route": "api/issues"}}
    g.nodes["VotesController.Vote"]["attrs"] = {"entry": {"verb": "POST", "route": "api/votes"}}
    words = {"user", "report", "problem", "movi", "issu", "store"}
    entries = entry_methods(g, ["sql:Issues", "Migrations.Initial.Up"], words, {"POST"}, actions={"POST"})
    assert entries[0] == "IssuesController.CreateIssue" and "IssuesController.GetIssues" not in entries
    # an entry point among the hits: it is where the flow starts, the tables bring no other
    assert entry_methods(g, ["sql:Issues", "VotesController.Vote"], words, {"POST"}, actions={"POST"}) \
        == ["VotesController.Vote"]


def test_down_to_the_database_is_where_a_flow_goes_not_what_it_starts_at():
    """"From the HTTP endpoint down to the database": no word of the entry point (`DownvoteMovie`)."""
    from ragstream.graph.questions import asked_subject_words

    words = asked_subject_words("When a user asks for a movie, what runs from the endpoint down to the database?")
    assert "down" not in words and {"movi", "user"} <= words
    assert "down" in asked_subject_words("Why does the server go down when the movie list is refreshed?")


def test_a_constructor_never_starts_a_flow():
    """"When an administrator creates or edits a tenant, what code saves it": the search finds the
    handler's `Handle` and its constructor, whose name says more of the question; the constructor
    only wires the handler's services, so `Handle` starts the flow."""
    from ragstream.graph.relations import entry_methods

    handler = "Tenants.AddEditTenantCommandHandler"
    g = _code_graph([(f"{handler}.AddEditTenantCommandHandler", "METHOD"), (f"{handler}.Handle", "METHOD"),
                     (handler, "TYPE")], [])
    hits = [f"{handler}.AddEditTenantCommandHandler", f"{handler}.Handle"]
    entries = entry_methods(g, hits, {"administr", "creat", "edit", "tenant", "save"}, {"POST"}, actions={"POST"})
    assert entries == [f"{handler}.Handle"]


def test_where_a_walk_starts_is_said_before_until_as_before_down_to():
    """"From the upload endpoint until the file is recorded": the walk starts at the upload
    endpoint; "from the moment ... until" names a time, no start."""
    from ragstream.graph.questions import asked_start

    assert asked_start("What happens on the server from the upload endpoint until the file is recorded?") == {"upload"}
    assert asked_start("What runs from the moment a user clicks save until the row is written?") == frozenset()


def test_sending_a_message_creates_it():
    """"When a user sends a message" asks for the action that posts one (`Chat.Send`)."""
    from ragstream.graph.action_verbs import asked_http_verbs, said_actions

    assert asked_http_verbs("When a user sends a chat message into a room, what runs?") == {"POST"}
    assert said_actions("JabbR.Chat.Send(ClientMessage)") == {"POST"}


def test_an_impact_naming_no_object_is_the_impact_of_the_code_doing_what_it_supposes_changed():
    """"If deleting a user account were changed to a soft delete, what callers are affected and
    which tables lose rows": the search finds the delete action and the service method that
    deletes; the method whose name says the delete and that writes is the subject, its callers and
    the tables it writes are the impact. A question supposing nothing the hits' names say gets no
    such answer."""
    from ragstream.graph.answers import answer_from_graph

    action, delete, edit = "Web.AccountController.Delete", "Security.MembershipService.DeleteUser", "Security.MembershipService.UpdateUser"
    g = _code_graph([(action, "METHOD"), (delete, "METHOD"), (edit, "METHOD"), ("sql:Users", "TABLE"), ("sql:UserRoles", "TABLE")],
                    [(action, delete, "CALLS", {}), (delete, "sql:Users", "WRITES", {"operations": ["DELETE"]}),
                     (delete, "sql:UserRoles", "WRITES", {"operations": ["DELETE"]}),
                     (edit, "sql:Users", "WRITES", {"operations": ["UPDATE"]})])
    question = "If deleting a user account were changed to a soft delete, what callers are affected and which tables lose rows?"
    answer = answer_from_graph(g, question, [], [action, delete, edit], lambda ids: {})
    assert answer is not None and answer.shape == "impact" and [s.id for s in answer.subjects] == [delete]
    assert {action, "sql:Users", "sql:UserRoles"} <= {item.id for item in answer.items}
    assert answer_from_graph(g, "If the nightly report were changed, what would be affected?", [], [action, delete, edit],
                             lambda ids: {}) is None
    # a schema object supposed changed is that object's impact, never the code's
    assert answer_from_graph(g, "If the column that holds a deleted user's name were renamed, what code would change?",
                             [], [action, delete, edit], lambda ids: {}) is None
