"""The HTTP verbs an English question or an identifier says: "how is an order created" -> POST,
"edited" -> PUT, an action named `DenyMovie` -> PUT. One vocabulary for both, so that what a flow
question asks to be done and what an entry point's name says it does are read alike.
"""
from __future__ import annotations

import re

from ragstream.keyword_tokens import identifier_parts, keyword_tokens


def _verbs(*stems: str) -> str:
    """Alternatives matching each verb's inflections and its noun of action, not other words it
    begins: "create(s|d)", "creating", "creation", not "creator"; "add" but not "address", "read"
    but not "reader", "import" but not "important", "mark" but not "market" (each stem is the verb
    less a final `e`; a doubled consonant is its own stem: "submitt", "cancell")."""
    return "|".join(f"{stem}(?:e|es|s|ed|d|ing|ion|ions|al)?" for stem in stems)


# What a flow question does, as the HTTP verbs of the actions that do it ("created" -> POST).
HTTP_VERBS = (
    ("POST", re.compile(r"\b(?:" + _verbs("creat", "add", "plac", "submit", "submitt", "register", "registration",
                                          "sav", "insert", "post", "upload", "import", "send") +
                        r"|new|sign(?:s|ed|ing)?\s+up"
                        # logging in submits credentials: "signs a user in", "logs in", "log on" (not
                        # "what is logged in the audit table")
                        r"|(?:sign|log)(?:s|ed|ged|ing|ging)?\s+(?:\w+\s+){0,2}?"
                        r"(?:in(?!\s+(?:the|a|an|this|that|its|their)\b)|on)(?![\w-])"
                        r")\b", re.IGNORECASE)),
    # a save creates or changes (both verbs, at the same place); a change of state is a change
    ("PUT", re.compile(r"\b(?:" + _verbs("updat", "edit", "chang", "renam", "modifi", "sav", "approv", "reject", "declin",
                                         "deni", "accept", "dismiss", "toggl", "enabl", "disabl", "publish", "unpublish",
                                         "lock", "unlock", "block", "unblock", "mark", "assign", "unassign") +
                       r"|modify|modifying|deny|denying)\b", re.IGNORECASE)),
    ("DELETE", re.compile(r"\b(?:" + _verbs("delet", "remov", "cancel", "cancell", "archiv", "purg") + r")\b",
                          re.IGNORECASE)),
    # "which tables get written": a passive "get", not a read
    # "which tables get rows": a table that gets rows is written, a request gets what it asks for
    ("GET", re.compile(r"\b(?:(?<!\btable\s)(?<!\btables\s)(?<!\bdatabase\s)get\w*(?!\s+(?:new\s+)?rows?\b)(?!\s+(?:\w+(?:ed|en)|made|sent|paid|built|kept|set|put|run|done|sold|lost)"
                       r"(?:\s*(?:[?.,;!]|$)|\s+(?:by|in|into|to|from|when|after|before|and|or|during|on|at|for|with|if|once|while|again|back|out|up)\b))|"
                       + _verbs("list", "show", "view", "display", "load", "read", "fetch", "search", "find", "brows")
                       + r"|shown|found|see|open(?:s|ed|ing)?)\b", re.IGNORECASE)),
)
_NAMED_VERB = re.compile(r"\b(GET|POST|PUT|PATCH|DELETE)\b")  # "after the PUT request": the verb itself
# A change may be posted from a form as well as put or deleted through an API.
_ALSO_POSTED = frozenset({"PUT", "DELETE"})


def asked_http_verbs(question: str) -> frozenset[str]:
    """The HTTP verbs of the actions a flow question is about: those it names ("after the PUT
    request"), else those its verbs mean ("how is an order created ..." -> POST; "edited" -> PUT,
    PATCH or a form's POST); empty when it says none."""
    found = set(asked_actions(question))
    if _NAMED_VERB.search(question):
        return frozenset(found)
    if found & _ALSO_POSTED:
        found.add("POST")
    return frozenset(found)


def _first_verbs(question: str) -> frozenset[str]:
    """The verbs of the action the question opens with: the entry's ("how does saving content reach
    the database, and what does the save read ...": a POST that reads, not a GET); what it then
    does is said after it."""
    starts = {verb: match.start() for verb, pattern in HTTP_VERBS if (match := pattern.search(question))}
    return frozenset(verb for verb, start in starts.items() if start == min(starts.values()))


def asked_actions(question: str) -> frozenset[str]:
    """The HTTP verbs of what a flow question opens with doing, as said ("adds a new user" ->
    POST; "edits" -> PUT), without the verbs a form may use for it as well (`asked_http_verbs`)."""
    named = set(_NAMED_VERB.findall(question))
    if named:
        return frozenset(named)
    found = set(_first_verbs(question))
    if _NEW_THING.search(question):  # "publishes a new article": what is done to it creates it
        found.add("POST")
    return frozenset(found | ({"PATCH"} if "PUT" in found else set()))


_NEW_THING = re.compile(r"\b(?:a|an|the)\s+new\b", re.IGNORECASE)


def acted_on(question: str) -> frozenset[str]:
    """The words of what the question's actions are done to: the noun after an action's verb
    ("confirms deleting a single bug" -> bug) or before its passive ("how is an order created"
    -> order), as keyword tokens. Of two entry points saying the same number of the question's
    words, the one naming what is deleted is asked about, not the one naming who deletes it
    (`delete_bug`, not `delete_user`, for "when a user ... confirms deleting a single bug")."""
    verbs = "|".join(f"(?:{pattern.pattern})" for _, pattern in HTTP_VERBS)
    noun = r"[A-Za-z][\w-]*"
    said = [m.group("after") for m in re.finditer(rf"(?:{verbs})\s+(?:{_DETERMINERS}\s+)*(?P<after>{noun}(?:\s+{noun})?)",
                                                  question, re.IGNORECASE)]
    # "an order is created", and asked: "is an order created"
    said += [m.group("before") for m in re.finditer(
        rf"\b(?P<before>{noun})\s+(?:is|are|was|were|gets?|got|being|been)\s+(?:\w+ly\s+)?(?:{verbs})",
        question, re.IGNORECASE)]
    said += [m.group("inverted") for m in re.finditer(
        rf"\b(?:is|are|was|were|does|do|did|gets?)\s+(?:{_DETERMINERS}\s+)*(?P<inverted>{noun})\s+(?:\w+ly\s+)?(?:{verbs})",
        question, re.IGNORECASE)]
    objects: set[str] = set()
    for words in said:
        for word in words.split():
            if word.lower() in _NOT_OBJECTS:
                break  # "bug from the web UI": the object ends before a preposition
            objects.update(keyword_tokens(word))
    return frozenset(objects)


# what may stand between a verb and its object ("deleting a single bug", "creates the new order")
_DETERMINERS = (r"(?:a|an|the|this|that|these|those|one|single|new|existing|its|their|his|her|our|your|some|any|all|each"
                r"|every|specific|particular|given|selected|whole|entire|first|last|second|next|previous|old|current|same|other)")
# words after a verb that are no object of it ("deleted from", "saved to the database", "it")
_NOT_OBJECTS = frozenset({"from", "to", "into", "in", "on", "at", "by", "for", "with", "and", "or", "is", "are", "it",
                          "them", "when", "what", "which", "how", "then", "as", "up", "out", "down", "back", "of", "through", "via",
                          "over", "after", "before", "so", "that", "if", "while", "once", "there", "here", "a", "an", "the",
                          "request", "requests", "action", "button", "rights", "permission", "permissions", "page"})


def said_actions(name: str) -> frozenset[str]:
    """The HTTP verbs a method's own name says by its first word that says one (`CreateUserByName`
    -> POST, `UpdateUserPassword` -> PUT, `DeleteTodoList` -> DELETE, not a list's GET;
    `Subscribe` -> none), read with the question's vocabulary. A transport's verb counts only
    where nothing else is said: `Delete_POST` deletes, `Post` and `ExecutePatch` post and patch."""
    words = identifier_parts(name.split("(", 1)[0].rsplit(".", 1)[-1])
    said = [w for w in words if w.upper() not in _TRANSPORT]
    for i in range(len(said)):  # a verb of two words as well: `SignIn`, `LogOn`
        verbs = frozenset(verb for verb, pattern in HTTP_VERBS if pattern.match(" ".join(said[i:i + 3])))
        if verbs:
            return verbs
    return frozenset(word.upper() for word in words) & _TRANSPORT


_TRANSPORT = frozenset({"POST", "PUT", "PATCH"})
