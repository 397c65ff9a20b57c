"""What a question asks about: a get-passive's `get` asks for no `Get` method; a table named in
the other English number is still that table."""
from __future__ import annotations

from ragstream.graph.answers import entry_points
from ragstream.graph.named import find_named, named_by_word
from ragstream.graph.questions import asked_words
from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph
from ragstream.index.sql.parser import parse_sql

QUESTION = ("What happens when a member starts a new topic? Walk me from the controller action "
            "to the tables that get written.")

CONTROLLERS = """
using System.Web.Mvc;
namespace Forum.Web.Controllers;
public class MembersController : Controller
{
    [HttpPost]
    public ActionResult GetMemberDiscussions(int id) { return View(); }
}
public class TopicController : Controller
{
    [HttpPost]
    public ActionResult Create(CreateEditTopicViewModel model) { return View(); }
}
"""


def test_the_auxiliary_of_a_get_passive_is_no_word_of_the_question():
    assert "get" not in asked_words(QUESTION)
    assert "get" not in asked_words("Which rows gets updated when an order ships?")
    assert "written" in asked_words(QUESTION)


def test_a_get_that_is_the_verb_asked_stays():
    assert "get" in asked_words("How does the app get the orders of a customer?")
    assert "get" in asked_words("How do we get a token for the API?")  # `token` is no participle
    # words in `-ed` that are no participle here: `GetFeedItems`, `GetSeedData` are asked for
    assert "get" in asked_words("How do we get feed items?")
    assert "get" in asked_words("Where do we get seed data from?")
    assert "get" not in asked_words("Which records get imported nightly?")


def test_a_flow_asked_with_a_get_passive_starts_at_the_action_the_words_describe():
    graph = build_graph([parse_csharp("Web/Controllers/Controllers.cs", CONTROLLERS)])[0]
    hits = ["cs:Forum.Web.Controllers.MembersController.GetMemberDiscussions|METHOD",
            "cs:Forum.Web.Controllers.TopicController.Create|METHOD"]
    assert entry_points(graph, hits, QUESTION)[0] == "cs:Forum.Web.Controllers.TopicController.Create|METHOD"


SCHEMA = """
CREATE TABLE dbo.Topic (Id INT PRIMARY KEY, Slug NVARCHAR(450));
CREATE TABLE dbo.Categories (Id INT PRIMARY KEY);
CREATE TABLE dbo.Posts (Id INT PRIMARY KEY);
CREATE TABLE dbo.Post (Id INT PRIMARY KEY);
"""


def named_ids(question: str) -> list[str]:
    graph = build_graph([parse_sql("db/schema.sql", SCHEMA, "tsql")])[0]
    return [named.id for named in find_named(graph, question)]


def test_a_table_named_in_the_other_english_number_is_found():
    assert named_ids("Which code writes the topics table?") == ["sql:dbo.Topic|TABLE"]
    assert named_ids("Which code reads the category table?") == ["sql:dbo.Categories|TABLE"]
    # as when named exactly: the column, then its table
    assert named_ids("If we renamed the slug column of the topics table, what breaks?") \
        == named_ids("If we renamed the Slug column of the Topic table, what breaks?") \
        == ["sql:dbo.Topic.Slug|COLUMN", "sql:dbo.Topic|TABLE"]


def test_a_table_named_exactly_is_never_traded_for_its_other_number():
    assert named_ids("Which code writes the posts table?") == ["sql:dbo.Posts|TABLE"]
    assert named_ids("Which code writes the post table?") == ["sql:dbo.Post|TABLE"]
    assert named_ids("Which code writes the invoices table?") == []  # no such table in either number


def test_the_other_english_number_is_tried_for_tables_only_never_for_code_names():
    source = "namespace A; public class UserService { public void GetUser() { } } public class Process { }"
    graph = build_graph([parse_csharp("A.cs", source), parse_sql("db/schema.sql", SCHEMA, "tsql")])[0]
    for word in ("GetUsers", "UserServices", "Processes"):
        assert named_by_word(graph, word) == []  # "who calls GetUsers" is not asked of `GetUser`
    assert [named.id for named in named_by_word(graph, "Topics")] == ["sql:dbo.Topic|TABLE"]


def test_a_data_access_layer_named_in_a_list_question_asks_for_no_other_use():
    """"Which data-access methods delete rows from T" asks for T's deleters (WRITES), not for every use of
    T as "which code accesses T" does."""
    from ragstream.graph.questions import DATA_EDGES, asked_relations

    assert asked_relations("Which data-access methods delete rows from the wiki pages table?") == ("WRITES",)
    assert asked_relations("Which data access classes update the users table?") == ("WRITES",)
    assert asked_relations("Which code accesses the Orders table?") == DATA_EDGES
