"""What goes beside the found code of a where or how question (ragstream/graph/beside.py): each
rule on a small graph of its own shape, with what it must bring and what it must leave out."""
from __future__ import annotations

import networkx as nx

from ragstream.graph.beside import beside, members_beside, named_around, own_chain, table_code
from ragstream.graph.questions import asked_done, asked_words


def _type(graph: nx.MultiDiGraph, name: str, path: str = "src/App.cs", type_kind: str = "class") -> str:
    node = f"cs:{name}|TYPE"
    graph.add_node(node, kind="TYPE", language="csharp", name=name, path=path, parent=None,
                   attrs={"type_kind": type_kind})
    return node


def _member(graph: nx.MultiDiGraph, owner: str, short: str, line: int, kind: str = "METHOD") -> str:
    owner_name = graph.nodes[owner]["name"]
    node = f"cs:{owner_name}.{short}|{kind}"
    graph.add_node(node, kind=kind, language="csharp", name=f"{owner_name}.{short}", parent=owner,
                   path=graph.nodes[owner]["path"], start_line=line, attrs={})
    graph.add_edge(owner, node, key="DEFINES", type="DEFINES")
    return node


def _call(graph: nx.MultiDiGraph, source: str, target: str, **attrs) -> None:
    graph.add_edge(source, target, key="CALLS", type="CALLS", **attrs)


def test_a_class_brings_the_methods_the_question_names_beyond_its_own_name():
    graph: nx.MultiDiGraph = nx.MultiDiGraph()
    journal = _type(graph, "Deploy.VersionJournal")
    executed = _member(graph, journal, "GetExecutedScripts", 10)
    stored = _member(graph, journal, "StoreExecutedScript", 20)
    helper = _member(graph, journal, "RunCommand", 30)
    _member(graph, journal, "VersionJournal", 5)  # its constructor: wiring
    words = asked_words("How does it record which upgrade scripts were executed?")
    assert members_beside(graph, journal, words) == [executed, stored]
    # a word the class's own name carries names the class, not each of its methods
    assert helper not in members_beside(graph, journal, asked_words("Where is the journal kept?"))
    assert members_beside(graph, journal, asked_words("Where is the journal kept?")) == []


def test_of_the_named_methods_those_used_from_outside_come_first():
    graph: nx.MultiDiGraph = nx.MultiDiGraph()
    lock = _type(graph, "Storage.Mutex")
    release = _member(graph, lock, "ReleaseLock", 10)
    acquire = _member(graph, lock, "AcquireLock", 20)
    caller = _member(graph, _type(graph, "Storage.Connection", "src/Connection.cs"), "Take", 5)
    _call(graph, caller, acquire)
    words = asked_words("where is a lock taken and given back?")
    assert members_beside(graph, lock, words, limit=1) == [acquire]
    assert members_beside(graph, lock, words) == [acquire, release]  # then in source order


def test_of_the_named_methods_a_private_helper_comes_after_the_class_s_surface():
    graph: nx.MultiDiGraph = nx.MultiDiGraph()
    journal = _type(graph, "Deploy.VersionJournal")
    executed = _member(graph, journal, "GetExecutedScripts", 10)
    legacy = _member(graph, journal, "DealWithLegacyScripts", 20)
    graph.nodes[legacy]["attrs"] = {"modifiers": ["private"]}
    stored = _member(graph, journal, "StoreExecutedScript", 30)
    _call(graph, executed, legacy)
    _call(graph, stored, legacy)
    words = asked_words("How does it run and record the upgrade scripts?")
    assert members_beside(graph, journal, words) == [executed, stored]


def test_the_best_method_brings_its_callers_in_its_own_class_not_its_callees_or_other_classes():
    graph: nx.MultiDiGraph = nx.MultiDiGraph()
    interceptor = _type(graph, "Data.AuditInterceptor")
    saving = _member(graph, interceptor, "SavingChanges", 10)
    saving_async = _member(graph, interceptor, "SavingChangesAsync", 20)
    update = _member(graph, interceptor, "UpdateEntities", 30)
    helper = _member(graph, interceptor, "Now", 40)
    other = _member(graph, _type(graph, "Web.Startup", "src/Startup.cs"), "Configure", 1)
    for caller in (saving, saving_async, other):
        _call(graph, caller, update)
    _call(graph, update, helper)
    assert own_chain(graph, update) == [saving, saving_async]
    assert own_chain(graph, update, limit=1) == [saving]
    assert own_chain(graph, helper) == [update]


def _behaviours() -> tuple[nx.MultiDiGraph, str, str, str, str]:
    graph: nx.MultiDiGraph = nx.MultiDiGraph()
    validation = _member(graph, _type(graph, "Common.ValidationBehaviour", "src/Behaviours.cs"), "Handle", 10)
    logging = _member(graph, _type(graph, "Common.PageLoggingFilter", "src/Filters.cs"), "OnExecuted", 10)
    handler = _member(graph, _type(graph, "Lists.CreateListHandler", "src/Lists.cs"), "Handle", 10)
    event_handler = _member(graph, _type(graph, "Lists.ListValidatedHandler", "src/Events.cs"), "Handle", 10)
    sender = _member(graph, _type(graph, "Web.ListsEndpoint", "src/Endpoints.cs"), "Create", 10)
    _call(graph, sender, handler, via="message")
    _call(graph, sender, validation, via="pipeline", resolution="dispatch")
    _call(graph, sender, logging, via="request_filter", resolution="dispatch")
    _call(graph, sender, event_handler, via="domain_event", dispatcher=True)  # an event's handler: not around
    registration = _member(graph, _type(graph, "Setup.DependencyInjection", "src/Setup.cs"), "AddApplication", 1)
    graph.add_edge(registration, graph.nodes[validation]["parent"], key="REFERENCES", type="REFERENCES",
                   via="registration")
    return graph, validation, logging, handler, registration


def test_behaviours_named_for_what_the_question_says_is_done():
    graph, validation, logging, _, _ = _behaviours()
    assert named_around(graph, asked_done("How are create requests validated before anything is saved?")) == [validation]
    assert named_around(graph, asked_done("Where are failed page requests logged?")) == [logging]
    # a noun the question shares with a behaviour's name is no reason ("page")
    assert named_around(graph, asked_done("Where does the About page compute its totals?")) == []


def test_asked_done_is_what_the_question_says_is_done():
    assert asked_done("How are contributor list results cached so the database is not queried?") == \
        frozenset({"cach", "queri"})
    assert asked_done("Where does the app create the database?") == frozenset()


def _product() -> tuple[nx.MultiDiGraph, str, str, str]:
    graph: nx.MultiDiGraph = nx.MultiDiGraph()
    table = "sql:dbo.Catalog_Product|TABLE"
    graph.add_node(table, kind="TABLE", language="sql", name="dbo.Catalog_Product", path="db/schema.sql")
    product = _type(graph, "Catalog.Product", "src/Product.cs")
    graph.add_edge(product, table, key="MAPS_TO", type="MAPS_TO")
    count = _member(graph, product, "ReviewsCount", 10, kind="PROPERTY")
    average = _member(graph, product, "RatingAverage", 11, kind="PROPERTY")
    _member(graph, product, "Rating", 12, kind="PROPERTY")  # one asked word only
    _member(graph, product, "Name", 13, kind="PROPERTY")
    return graph, table, count, average


def test_a_named_table_brings_the_properties_the_question_describes():
    graph, table, count, average = _product()
    words = asked_words("How do a product's review count and average rating get updated?")
    assert table_code(graph, table, words) == [average, count]
    # a table the question does not name brings nothing, whatever else its words match
    assert table_code(graph, table, asked_words("How are the review count and average rating updated?")) == []


def test_beside_brings_each_rule_for_its_node_and_never_what_is_already_there():
    graph, validation, _, handler, registration = _behaviours()
    question = "How are create requests validated?"
    extra = beside(graph, [handler], asked_words(question), asked_done(question))
    assert extra == [validation, registration]
    assert beside(graph, [handler, validation], asked_words(question), asked_done(question)) == [registration]
    # nodes the graph does not have (filtered out) bring nothing and fail nothing
    assert beside(graph, ["cs:Gone|METHOD"], asked_words(question), asked_done(question)) == []


def test_tests_and_interface_members_stay_out():
    graph: nx.MultiDiGraph = nx.MultiDiGraph()
    journal = _type(graph, "Deploy.ScriptJournal")
    contract = _type(graph, "Deploy.IScriptJournal", type_kind="interface")
    _member(graph, contract, "GetExecutedScripts", 3)
    in_tests = _type(graph, "Deploy.Tests.ScriptJournalTests", path="tests/ScriptJournalTests.cs")
    _member(graph, in_tests, "StoresExecutedScripts", 3)
    found = _member(graph, journal, "GetExecutedScripts", 10)
    words = asked_words("How are the executed scripts recorded?")
    assert members_beside(graph, journal, words) == [found]
    assert members_beside(graph, contract, words) == []
    assert members_beside(graph, in_tests, words) == []
