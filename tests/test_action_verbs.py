"""What a flow question asks to be done and what an entry point's name says it does, read with one
vocabulary (`graph/action_verbs.py`)."""
import pytest

from ragstream.graph.action_verbs import acted_on, asked_actions, asked_http_verbs, said_actions


@pytest.mark.parametrize("name, verbs", [
    ("Api.UserController.CreateUserByName", {"POST"}),
    ("Api.UserController.UpdateUserPassword", {"PUT"}),
    ("Web.TodoLists.DeleteTodoList", {"DELETE"}),  # the list is what is deleted, not a GET
    ("Admin.FormController.Delete_POST", {"DELETE"}),  # posted from a form, deletes
    ("Services.PostServices.Post(CreatePost)", {"POST"}),  # the transport's verb where nothing else is said
    ("Endpoints.UISettings.ExecutePatch", {"PATCH"}),
    ("Api.RequestController.DenyMovie", {"PUT"}),
    ("Api.IssuesController.GetIssues()", {"GET"}),
    ("Web.NewsletterController.Subscribe", set()),
    ("Api.AuthController.SignIn", {"POST"}),  # a verb of two words
    ("Web.HomeController.LogOn(LogOnModel)", {"POST"}),
])
def test_a_methods_name_says_the_action_of_its_first_verb(name, verbs):
    assert said_actions(name) == verbs


def test_a_question_opens_with_its_action_and_a_new_thing_is_created():
    assert asked_actions("When an admin adds a new user from the dashboard, what runs?") == {"POST"}
    # "publishes a new article": opened with a change, but what is changed is new
    assert asked_actions("What happens when a user publishes a new article through the API?") == {"PUT", "PATCH", "POST"}
    assert asked_actions("When someone edits a page, what runs?") == {"PUT", "PATCH"}
    # a form may post an edit: the verbs of the actions that do it, not what is said
    assert asked_http_verbs("When someone edits a page, what runs?") == {"PUT", "PATCH", "POST"}
    assert asked_actions("What runs after the DELETE request?") == asked_http_verbs("What runs after the DELETE request?") \
        == {"DELETE"}
    assert asked_actions("How does the nightly report work?") == frozenset()


@pytest.mark.parametrize("question, verbs", [
    ("What happens when the web UI signs a user in with a password and gets back a token?", {"POST"}),
    ("When someone logs in on the sign-in page, what runs?", {"POST"}),
    # logged in a place: what is written there, no login
    ("What is logged in the audit table when an order is deleted?", {"DELETE", "POST"}),
])
def test_logging_in_submits_credentials(question, verbs):
    assert asked_http_verbs(question) == verbs


@pytest.mark.parametrize("question, objects", [
    # who acts ("a user with delete rights") is not what is acted on
    ("When a user with delete rights confirms deleting a single bug from the web UI, what runs?", {"bug"}),
    ("How is an order created, from the API controller down to the tables?", {"order"}),
    ("When a comment is deleted, what runs?", {"comment"}),
    ("What happens when an admin removes a tag from a post?", {"tag"}),
    ("When a user saves a draft article, which tables are written?", {"draft", "articl"}),
    ("How does the nightly report work?", set()),
])
def test_what_the_actions_are_done_to(question, objects):
    assert acted_on(question) == objects
