"""A question's subject found from the words of an object's name when the question does not spell
the identifier: derived forms, other words between the parts, another order, a compound; a word
most names share names nothing, and one span of words names at most three objects."""
from __future__ import annotations

import networkx as nx

from ragstream.graph.answers import asked_subjects
from ragstream.graph.phrases import subjects_in_phrases

TABLES = ["ManagerInvite", "PlexEpisode", "PlexMovie", "PlexShow", "Episode", "RequestLog", "UserData",
          "RadarrCache", "User", "UserRole", "UserSetting", "UserLogin", "UserToken", "UserClaim", "UserGroup",
          "PlayList", "Channel", "Library", "MediaFile", "Schedule", "RegisterRequest", "UseCase"]
# names of other things, so that a word's share of the names is what it is in a real schema
FILLER = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India", "Juliet", "Kilo",
          "Lima", "Mike", "November", "Oscar", "Papa", "Quebec", "Romeo", "Sierra", "Tango"]


def _graph(*extra: tuple[str, str]) -> nx.MultiDiGraph:
    graph = nx.MultiDiGraph()
    for name in [*TABLES, *FILLER]:
        graph.add_node(f"sql:dbo.{name}|TABLE", kind="TABLE", name=f"dbo.{name}")
    for node, kind in extra:
        graph.add_node(node, kind=kind, name=node.split(":", 1)[1].split("|")[0])
    return graph


def _names(graph: nx.MultiDiGraph, question: str) -> list[str]:
    return [n.name.rsplit(".", 1)[-1] for n in subjects_in_phrases(graph, question)]


def test_a_derived_form_of_each_word_names_the_table():
    assert _names(_graph(), "Which code sends manager invitations?") == ["ManagerInvite"]


def test_one_of_the_words_alone_names_nothing():
    assert _names(_graph(), "Which managers approve the invoices?") == []


def test_words_with_others_between_them_name_the_table_and_not_the_shorter_one():
    assert _names(_graph(), "What breaks if I change a Plex TV episode row?") == ["PlexEpisode"]


def test_words_too_far_apart_name_nothing_together():
    question = "Which Plex libraries are scanned when the nightly scheduler runs and then finds a new episode?"
    assert "PlexEpisode" not in _names(_graph(), question)


def test_words_in_another_order_and_a_verb_name_the_table():
    assert _names(_graph(), "Which code writes to the table that logs each request a user makes?") == ["RequestLog"]


def test_words_apart_in_a_phrase():
    assert _names(_graph(), "Where is the per-user key/value data kept?") == ["UserData"]
    assert _names(_graph(), "What fills the cached list of movies known to Radarr?") == ["RadarrCache"]


def test_stems_of_derived_forms_meet_but_short_stems_only_whole():
    assert _names(_graph(), "Who approves registration requests?") == ["RegisterRequest"]  # registr / regist
    assert _names(_graph(), "Which cases does a user see?") == []  # "user" is not "use"


def test_a_word_most_names_share_names_nothing():
    assert _names(_graph(), "Which code reads users?") == []


def test_one_word_for_a_compound_name():
    # "channel" alone is one word: a one-word name is left to the question calling it a table
    assert _names(_graph(), "Which playlists does a channel use?") == ["PlayList"]


def test_a_span_more_than_three_objects_share_names_none():
    three = [("sql:dbo.AuditEntries|VIEW", "VIEW"), ("sql:dbo.Audit_Entry|PROCEDURE", "PROCEDURE"),
             ("sql:dbo.AuditEntry|TABLE", "TABLE")]
    assert sorted(_names(_graph(*three), "What reads audit entries?")) == ["AuditEntries", "AuditEntry", "Audit_Entry"]
    four = [*three, ("sql:dbo.AuditEntrys|VIEW", "VIEW")]
    assert _names(_graph(*four), "What reads audit entries?") == []


def test_a_type_counts_when_mapped_to_a_table_of_its_own():
    graph = _graph(("cs:Shop.Domain.ShippingLabel|TYPE", "TYPE"), ("cs:Shop.Domain.PackingSlip|TYPE", "TYPE"))
    graph.add_node("sql:dbo.ShippingLabels|TABLE", kind="TABLE", name="dbo.ShippingLabels")
    graph.add_edge("cs:Shop.Domain.ShippingLabel|TYPE", "sql:dbo.ShippingLabels|TABLE", key="MAPS_TO")
    assert _names(graph, "How is a shipping label stored?") == ["ShippingLabel", "ShippingLabels"]
    assert _names(graph, "How is a packing slip stored?") == []  # a class of no table is no entity


def test_only_when_nothing_else_names_a_subject():
    graph = _graph()
    named = asked_subjects(graph, "Which code writes manager invitations?", "list", [])
    assert [n.name for n in named] == ["dbo.ManagerInvite"]
    assert asked_subjects(graph, "Which code sends manager invitations?", "flow", []) == []


def test_a_plain_phrase_names_what_the_code_calls_by_its_own_word():
    """"sign-in attempts" are `LoginAttempt`s and "user sign-ins" `UserLogin`s: the code's word is said
    beside the plain phrase; a phrase the code has no word for names nothing."""
    graph = _graph(("sql:dbo.LoginAttempt|TABLE", "TABLE"))
    assert _names(graph, "Which pieces of code record sign-in attempts in the database?") == ["LoginAttempt"]
    assert _names(graph, "Where are the user's sign-ins kept?") == ["UserLogin"]
    assert _names(graph, "Which code records visit attempts?") == []
