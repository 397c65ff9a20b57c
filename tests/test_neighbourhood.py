"""The call neighbourhood of a shapeless question's best hits (ragstream/graph/neighbourhood.py):
each reason a neighbour is shown for, on a small graph of its own shape, with the near miss
that must stay out, and where the neighbours go among the hits."""
from __future__ import annotations

import networkx as nx

from ragstream.graph.neighbourhood import among_hits, blocks, interleaved, neighbours, word_weights
from ragstream.graph.questions import asked_words


def _type(graph: nx.MultiDiGraph, name: str, path: str = "src/App.cs", type_kind: str = "class") -> str:
    node = f"cs:{name}|TYPE"
    graph.add_node(node, kind="TYPE", language="csharp", name=name, path=path, parent=None,
                   attrs={"type_kind": type_kind})
    return node


def _method(graph: nx.MultiDiGraph, owner: str, short: str) -> str:
    owner_name = graph.nodes[owner]["name"]
    node = f"cs:{owner_name}.{short}|METHOD"
    graph.add_node(node, kind="METHOD", language="csharp", name=f"{owner_name}.{short}", parent=owner,
                   path=graph.nodes[owner]["path"], start_line=1, attrs={})
    graph.add_edge(owner, node, key="DEFINES", type="DEFINES")
    return node


def _table(graph: nx.MultiDiGraph, name: str) -> str:
    node = f"sql:dbo.{name}|TABLE"
    graph.add_node(node, kind="TABLE", language="sql", name=f"dbo.{name}", path="db/schema.sql")
    return node


def _call(graph: nx.MultiDiGraph, source: str, target: str, line: int = 1, **attrs) -> None:
    graph.add_edge(source, target, key="CALLS", type="CALLS", line=line, **attrs)


def _code_base() -> nx.MultiDiGraph:
    """A graph with the rest of a code base in it: a word's weight is how rare it is among names."""
    graph: nx.MultiDiGraph = nx.MultiDiGraph()
    for i in range(30):
        _method(graph, _type(graph, f"Other.Unit{i}", f"src/Other{i}.cs"), f"Handle{i}")
    return graph


def _ids(found) -> list[str]:
    return [n.node for n in found]


def test_the_only_caller_of_the_best_hit_is_what_runs_it_one_of_many_callers_is_not():
    graph: nx.MultiDiGraph = nx.MultiDiGraph()
    repo = _type(graph, "Cms.PageRepository", "src/PageRepository.cs")
    revision = _method(graph, repo, "CreateRevision")
    save = _method(graph, _type(graph, "Cms.PageService", "src/PageService.cs"), "SaveAsync")
    _call(graph, save, revision)
    words = asked_words("Where is the limit on old revisions enforced?")
    assert _ids(neighbours(graph, [revision], words)) == [save]
    # three pages call the helper: none of them alone says what runs it
    helper = _method(graph, repo, "Trim")
    pages = [_method(graph, _type(graph, f"Web.Page{i}", f"src/Page{i}.cs"), "Load") for i in range(3)]
    for page in pages:
        _call(graph, page, helper)
    assert neighbours(graph, [helper], words) == []


def test_a_caller_linked_by_name_only_is_no_neighbour():
    # placed among the hits unmarked, a guessed caller would read as a known one
    graph: nx.MultiDiGraph = nx.MultiDiGraph()
    revision = _method(graph, _type(graph, "Cms.PageRepository", "src/PageRepository.cs"), "CreateRevision")
    save = _method(graph, _type(graph, "Cms.PageService", "src/PageService.cs"), "SaveAsync")
    _call(graph, save, revision, guess=True, resolution="by_name")
    assert neighbours(graph, [revision], asked_words("Where is the limit on old revisions enforced?")) == []


def test_the_same_operation_a_layer_up_comes_through_the_interface_an_unrelated_caller_does_not():
    graph = _code_base()
    provider = _method(graph, _type(graph, "Data.SqlDataProvider", "src/SqlDataProvider.cs"), "PerformQuery")
    contract = _method(graph, _type(graph, "Data.IDataProvider", "src/IDataProvider.cs", "interface"), "PerformQuery")
    manager = _method(graph, _type(graph, "Logic.IssueManager", "src/IssueManager.cs"), "PerformQuery")
    _call(graph, manager, provider, via=contract)  # dispatched through the interface to its implementation
    _call(graph, manager, contract)
    pages = [_method(graph, _type(graph, f"Web.Page{i}", f"src/Page{i}.cs"), "BindIssues") for i in range(3)]
    for page in pages:
        _call(graph, page, provider)
    found = _ids(neighbours(graph, [provider], asked_words("Where is the SQL for a user-built issue query put together?")))
    assert found == [manager]  # not the interface's member (no body), not the pages (one of many callers, no word)


def test_a_callee_named_by_words_the_hit_does_not_carry_comes_one_named_by_its_class_s_words_does_not():
    graph = _code_base()
    provider = _type(graph, "Data.SqlProvider", "src/SqlProvider.cs")
    execute = _method(graph, provider, "ExecuteReader")
    command = _method(graph, provider, "SetCommandType")
    reader = _method(graph, provider, "GetSqlProvider")
    _call(graph, execute, command, line=3)
    _call(graph, execute, reader, line=4)
    words = asked_words("Where does the SQL provider set the command type of a stored procedure?")
    assert _ids(neighbours(graph, [execute], words)) == [command]


def test_one_of_many_implementations_a_call_may_run_is_no_neighbour_the_caller_that_runs_it_is():
    graph: nx.MultiDiGraph = nx.MultiDiGraph()
    service = _type(graph, "Jobs.HousekeepingService", "src/HousekeepingService.cs")
    clean = _method(graph, service, "Clean")
    execute = _method(graph, service, "Execute")
    _call(graph, execute, clean)
    tasks = [_method(graph, _type(graph, f"Jobs.Cleanup{i}", f"src/Cleanup{i}.cs"), "Clean") for i in range(5)]
    for task in tasks:  # one call site, five possible callees
        _call(graph, clean, task, line=7)
    found = _ids(neighbours(graph, [clean], asked_words("How does the housekeeping job run its cleanup tasks?")))
    assert found == [execute]


def test_code_writing_a_table_the_hit_reads_comes_when_the_question_names_it_a_test_does_not():
    graph = _code_base()
    stats = _table(graph, "page_stats")
    overview = _method(graph, _type(graph, "Svc.StackServices", "src/StackServices.cs"), "Overview")
    graph.add_edge(overview, stats, key="READS", type="READS")
    register = _method(graph, _type(graph, "Svc.Extensions", "src/Extensions.cs"), "RegisterPageView")
    graph.add_edge(register, stats, key="WRITES", type="WRITES")
    test = _method(graph, _type(graph, "Tests.PageViewTests", "tests/PageViewTests.cs"), "CountsPageView")
    graph.add_edge(test, stats, key="WRITES", type="WRITES")
    words = asked_words("Where are page views of stacks registered and counted?")
    assert _ids(neighbours(graph, [overview], words)) == [register]
    # the table's other code the question does not name stays out
    assert neighbours(graph, [overview], asked_words("Where is the overview of stacks built?")) == []


def test_a_neighbour_of_the_second_hit_needs_twice_the_reasons_and_already_chosen_nodes_stay_out():
    graph = _code_base()
    best = _method(graph, _type(graph, "A.Ranks", "src/Ranks.cs"), "UpdateRanks")
    second = _method(graph, _type(graph, "A.Votes", "src/Votes.cs"), "Put")
    trigger = _method(graph, _type(graph, "A.Jobs", "src/Jobs.cs"), "Periodic")
    _call(graph, trigger, best)
    second_trigger = _method(graph, _type(graph, "A.Api", "src/Api.cs"), "Vote")
    _call(graph, second_trigger, second)  # the only caller of the second hit: half a reason
    organisation = _method(graph, _type(graph, "A.Totals", "src/Totals.cs"), "RecalculateOrganizationTotals")
    _call(graph, second, organisation)  # three asked words: more than one reason, even halved
    words = asked_words("Where are ranks and organization totals recalculated?")
    assert _ids(neighbours(graph, [best, second], words)) == [organisation, trigger]
    assert _ids(neighbours(graph, [best, second], words, exclude={organisation})) == [trigger]


def test_a_word_in_many_names_weighs_less_than_a_rare_one():
    graph: nx.MultiDiGraph = nx.MultiDiGraph()
    posts = _type(graph, "Forum.PostService", "src/PostService.cs")
    for name in ("GetPost", "SavePost", "DeletePost", "RegisterPageView"):
        _method(graph, posts, name)
    weights = word_weights(graph)
    assert weights["post"] < weights["view"]


def test_the_best_hit_keeps_its_place_and_a_neighbour_goes_before_each_later_hit():
    listed = ["hit0", "t0", "hit1", "t1", "hit2"]
    assert blocks(listed, ["hit0", "hit1", "hit2"]) == [["hit0", "t0"], ["hit1", "t1"], ["hit2"]]
    lead, *later = blocks(listed, ["hit0", "hit1", "hit2"])
    assert interleaved(lead, later, ["n0", "n1", "n2"]) == ["hit0", "t0", "n0", "hit1", "t1", "n1", "hit2", "n2"]
    assert interleaved(lead, later, []) == listed


def test_a_question_of_a_shape_keeps_its_list_a_shapeless_one_gets_the_neighbours():
    graph: nx.MultiDiGraph = nx.MultiDiGraph()
    repo = _type(graph, "Cms.PageRepository", "src/PageRepository.cs")
    revision = _method(graph, repo, "CreateRevision")
    other = _method(graph, repo, "GetRevisions")
    save = _method(graph, _type(graph, "Cms.PageService", "src/PageService.cs"), "SaveAsync")
    _call(graph, save, revision)
    hits = [revision, other]
    shapeless = "Where is the limit on old page revisions enforced?"
    assert among_hits(graph, shapeless, hits, hits, hits) == [revision, save, other]
    listing = "Which methods write the PageRevisions table?"
    assert among_hits(graph, listing, hits, hits, hits) == hits


def test_a_table_among_the_hits_stays_with_the_best_hit_that_reads_it():
    graph: nx.MultiDiGraph = nx.MultiDiGraph()
    runner = _type(graph, "Web.QueryRunner", "src/QueryRunner.cs")
    execute = _method(graph, runner, "ExecuteNonCached")
    blacklist = _table(graph, "BlackList")
    graph.add_edge(execute, blacklist, key="READS", type="READS")
    results = _method(graph, runner, "GetSiteResults")
    _call(graph, results, execute)
    other = _method(graph, runner, "ProcessColumns")
    hits = [execute, blacklist, other]
    question = "Where are abusive addresses blacklisted from running queries?"
    assert among_hits(graph, question, hits, hits, hits) == [execute, blacklist, results, other]
