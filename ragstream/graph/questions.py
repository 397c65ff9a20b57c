"""What a question asks of the graph, read from its English: its shape (a list, impact or flow
question), the relations and node kinds it asks about, the words and verbs a walk should prefer,
the objects it is about. Only words here; the graph is walked in `relations.py`.

"Which procedures write to T?" is a list question asking for WRITES edges to PROCEDURE nodes;
"how is X stored in the database?" a mapping question;
"what breaks if I rename column C of T?" an impact question; "how is X saved, from the
controller down to the tables?" a flow question whose paths end in WRITES first.
"""
from __future__ import annotations

import re

from ragstream.graph.entry_faces import API, HUB, JOB, PAGE
from ragstream.graph.named import Named
from ragstream.graph.relations import DATA_EDGES, TABLE_KINDS
from ragstream.keyword_tokens import keyword_tokens

# Question shapes, first match wins.
# A question may open with a clause of its own ("With SQL authentication turned on, how is a login
# checked ...", "When creating a course, how does ..."): what it asks starts after that comma.
_LEAD = r"^(?:[^,.?!]{0,80},\s*)?\s*"
_FLOW = re.compile(r"\bfrom\b.*\b(?:down\s+)?to\b.*\b(?:tables?|database|db|sql)\b|\bdown to\b|\bend[- ]to[- ]end\b"
                   # "how does X do Y in SQL Server": the code path down to the database
                   rf"|{_LEAD}(?:how|what happens|when)\b.*\b(?:in|from|to|into|and|against)\s+(?:the\s+)?"
                   r"(?:sql(?:\s+server)?|database|db)\b"
                   # "trace it", "walk me through", "what code runs": a path is asked for
                   r"|\btrace\b|\bwalk (?:me )?(?:through|from)\b|\bwhat code runs\b|\bend up\b"
                   # "what does deleting X do in the database", "which tables get written"
                   rf"|{_LEAD}(?:what|how|when|where)\b.*\b(?:do|does|did)\b.*\b(?:in|to)\s+(?:the\s+)?(?:database|db)\b"
                   # "which tables get written", "which procedures and tables are updated"
                   r"|\bwhich (?:\w+\s+(?:and|or)\s+)?tables? (?:get|are|is)\s+(?:written|read|updated|changed|touched|used)\b"
                   # "when a brand is deleted, which tables does it read and change": the action's path
                   r"|\bwhich (?:\w+\s+(?:and|or)\s+)?tables? (?:does|do|did|will) (?:it|this|that|they)\b"
                   # "what happens when payments are imported": what runs, from the top down
                   rf"|{_LEAD}what happens\s+(?:when|after|as soon as|once)\b",
                   re.IGNORECASE)
_SCHEMA_OBJECT = (r"(?:columns?|tables?|views?|procedures?|propert(?:y|ies)|fields?|class(?:es)?|types?|entit(?:y|ies)"
                  r"|(?-i:[A-Za-z_]*[a-z][A-Z]\w*)|\w+\.\w+)")  # a named object: `StockQuantity`, `Order.Status`
_IMPACT = re.compile(
    # "what breaks", "what would be affected", "what code is affected", "what else depends"
    r"\bwhat\s+(?:\w+\s+){0,2}?(?:breaks?|affected|depends)\b|\bimpact\b"
    # "which code has to change along with the column", "what else needs to change"
    r"|\b(?:which|what)\s+(?:\w+\s+){0,3}?(?:has|have|needs?|must)\s+to\s+(?:change|be changed|be updated)\b"
    r"|\bif\s+(?:i|we|you)\s+(?:rename|drop|change|remove|delete|alter|shorten|widen|lengthen|retype|split)\b"
    r"|\bif\s+(?:i|we|you)\s+add\s+(?:an?\s+|the\s+)?(?:new\s+)?(?:columns?|fields?|propert(?:y|ies)|index|parameters?)\b"
    # "if the StockQuantity column were renamed", "if the UserRoles join table changes": a schema or
    # code object, not "if the order is cancelled" (a flow); bounded, so a pasted script stays linear
    rf"|\bif\b[^?.,;]{{0,80}}\b{_SCHEMA_OBJECT}\s+(?:is|are|was|were|gets?|got)\s+(?:renamed|dropped|removed|changed|altered)\b"
    r"|\bif\b[^?.,;]{0,80}\b(?:column|table|view|procedure|type)\s+changes\b"
    r"|\bis renamed\b|\bis dropped\b|\bdepends? on\b",
    re.IGNORECASE)
_LIST = re.compile(rf"{_LEAD}(?:which|what|list|show|name)\b.*\b(?:methods?|procedures?|procs|class(?:es)?|code|functions?|"
                   r"tables?|views?|callers?|triggers?|services?|repositories|controllers?|handlers?|endpoints?|"
                   r"pages?|jobs?|commands?|quer(?:y|ies)|consumers?)\b"
                   r"|\b(?:rows?|tables?)\b.*\bmapped\b", re.IGNORECASE)
# Relation words -> edge types; "read or write" takes both.
_VERBS = (
    ("FOREIGN_KEY", re.compile(r"\bforeign keys?\b|\breferenc\w+ the \w+ table\b", re.IGNORECASE)),
    ("WRITES", re.compile(r"\b(?:writes?|writing|written|modif\w+|inserts?|updates?|deletes?|saves?|changes?|"
                          r"stores?|persists?|creat(?:es?|ed|ing)|adds?|added|adding|import(?:s|ed|ing)?|"
                          r"remov(?:es?|ed|ing)|renam(?:es?|ed|ing)|record(?:s|ed|ing))\b", re.IGNORECASE)),
    ("READS", re.compile(r"\b(?:reads?|reading|selects?|quer(?:y|ies)|loads?|fetch\w*)\b", re.IGNORECASE)),
    ("MAPS_TO", re.compile(r"\bmap(?:s|ped|ping)?\b", re.IGNORECASE)),
    ("CALLS", re.compile(r"\bcall(?:s|ed|ers?)?\b", re.IGNORECASE)),
)
# Nouns of a list question -> the kinds of node it lists (none named: every kind).
_NOUNS = (
    (re.compile(r"\b(?:stored\s+)?(?:procedures?|procs|sprocs?)\b", re.IGNORECASE), ("PROCEDURE",)),
    # the noun, not the verb ("the events that trigger them", "what triggers the job")
    (re.compile(r"\b(?:which|what|the|a|any|sql|database|table)\s+triggers?\b(?!\s+(?:the|a|an|them|it|this|that)\b)"
                r"|\btriggers\b(?!\s+(?:the|a|an|them|it|this|that)\b)", re.IGNORECASE), ("TRIGGER",)),
    (re.compile(r"\bmethods?\b", re.IGNORECASE), ("METHOD", "FUNCTION")),
    (re.compile(r"\bfunctions?\b", re.IGNORECASE), ("FUNCTION",)),
)
_CLASSES = re.compile(r"\bclass(?:es)?\b|\btypes?\b|\bentit(?:y|ies)\b", re.IGNORECASE)
_USES = re.compile(r"\b(?:uses?|using|access\w*|touch\w*|depend\w*)\b", re.IGNORECASE)
_TABLES = re.compile(r"\b(?:which|what)\s+(?:other\s+)?tables\b", re.IGNORECASE)  # a list of tables, not code


# How an object is mapped or stored: "how is a todo list's colour stored in the database", "how is
# the Course entity mapped to the Course table" (not a flow: no path from an entry is asked for).
_MAPPING = re.compile(rf"{_LEAD}(?:how|where)\b.*\b(?:mapped|mapping|stored|persisted|configured|kept)\b"
                      # "how is an order linked to its addresses in the database": a relationship's mapping
                      rf"|{_LEAD}how\b.*\b(?:linked|related|associated|connected|joined)\b.*\b(?:database|db|tables?|mapping)\b",
                      re.IGNORECASE)
# "how are the events dispatched and stored when the changes are committed": what runs on an
# event (a `when` clause naming one: something is done, or someone does something; a storing
# verb coordinated with one that is no mapping's), not how an object is mapped ("stored when
# using the EF Core mapping", "mapped when the table name differs", "owned and stored")
_PROCESS = re.compile(r"\b(?:stored|persisted|kept)\b.*\bwhen\b.*"
                      r"(?:\b(?:is|are|was|were|gets?|got|been)\s+\w+(?:ed|en|t)\b"  # the changes are committed
                      r"|\b[a-z]+s\s+(?:in|out|up|on|off|a|an|the)\b)"  # a user logs in, places an order
                      # "calculated and stored": code doing something, then storing (not "mapped and stored")
                      r"|\b(?!(?:mapp|own|configur|defin|declar|model+)ed\b)\w+ed\s+and\s+(?:stored|persisted|kept)\b",
                      re.IGNORECASE)
# Rows turned into objects: "which code copies the database columns into the Issue object", "how is a
# project row read from the database turned into a Project object": how a type is filled from a table
# (a mapping, even where a list's "which code" or a flow's "from the database" is said too).
_ROWS_INTO_OBJECTS = re.compile(
    r"\b(?:rows?|columns?|records?)\b.{0,60}?\b(?:turned|converted|copied|filled|read|mapped|loaded)\s+into\b.{0,40}?\bobjects?\b"
    r"|\b(?:cop(?:y|ies)|fills?|turns?|converts?|maps?)\s+(?:the\s+)?(?:\w+\s+)?(?:rows?|columns?|records?)\s+"
    r"into\b.{0,40}?\bobjects?\b", re.IGNORECASE)
_PATH_ASKED = re.compile(r"\bfrom\b.*\b(?:down\s+)?to\b|\bdown to\b|\btrace\b|\bwalk\b|\bwhat code runs\b|"
                         r"\bwhat happens\b|\bwhich tables?\b", re.IGNORECASE)


def question_shape(question: str) -> str | None:
    """flow, impact, list, mapping, or None when the question is none of these."""
    # impact first: "what happens if I rename X ... in the database" asks what breaks; a mapping
    # question ("how is X stored") before a flow, unless it asks for a path or lists tables
    if _IMPACT.search(question):
        return "impact"
    if _ROWS_INTO_OBJECTS.search(question):
        return "mapping"
    if _MAPPING.search(question) and not _PATH_ASKED.search(question) and not _LIST.search(question) \
            and not _PROCESS.search(question):
        return "mapping"  # "which class are rows of T mapped to" stays a list: its readers are asked too
    for shape, pattern in (("flow", _FLOW), ("list", _LIST)):
        if pattern.search(question):
            return shape
    return None


def asked_relations(question: str) -> tuple[str, ...]:
    """The edge types a list question asks about ("read or write" -> READS and WRITES), in the
    order the question names them (its first verb is what it is about: "mapped ... loads")."""
    positions = {edge: match.start() for edge, pattern in _VERBS if (match := pattern.search(question))}
    found = tuple(sorted(positions, key=positions.__getitem__))
    if "FOREIGN_KEY" in found:
        return ("FOREIGN_KEY",)
    if not found or _USES.search(question):
        return DATA_EDGES
    return found


def asked_kinds(question: str) -> tuple[str, ...]:
    """The node kinds a list question asks for ("which procedures ..." -> PROCEDURE); empty
    when it names none or asks for code or classes too (a class is answered by its mapped type
    and by its methods that read or write)."""
    if _CLASSES.search(question):
        return ()
    return tuple(dict.fromkeys(kind for pattern, kinds in _NOUNS if pattern.search(question) for kind in kinds))


# A column's length changed: "the maximum length of a contributor's name", "shorten titles to 100 characters".
_LENGTH = re.compile(r"\b(?:max(?:imum)?\s*length|length\s+of|(?:shorten|lengthen|widen|narrow)\w*|\d+\s+characters?|"
                     r"column\s+(?:size|width))\b", re.IGNORECASE)


def asks_about_length(question: str) -> bool:
    """Whether an impact question is about a text column's length (where else it is written)."""
    return bool(_LENGTH.search(question))


# Code running its own SQL: "which classes run raw SQL queries", "where is inline SQL used".
_RAW_SQL = re.compile(r"\b(?:raw|inline|hand[- ]?written|literal)\s+sql\b", re.IGNORECASE)


def asks_for_raw_sql(question: str) -> bool:
    """Whether a list question asks for the code that runs SQL of its own (not the ORM's)."""
    return bool(_RAW_SQL.search(question))


# "which class is stored in T", "what entity are its rows mapped to": the mapped type is asked for
_STORED_CLASS = re.compile(r"\b(?:class(?:es)?|entit(?:y|ies)|types?)\s+(?:is|are|gets?)\s+"
                           r"(?:stored|mapped|persisted|saved|kept)\b", re.IGNORECASE)


def asks_what_is_stored(question: str) -> bool:
    """Whether a list question asks which class a table stores: its mapping joins the answer."""
    return bool(_STORED_CLASS.search(question))


def asks_for_classes(question: str) -> bool:
    """Whether a list question asks for classes ("which classes read or write T"), whose answer
    names the ORM's mapping classes of the table too."""
    return bool(_CLASSES.search(question))


def asks_for_tables(question: str) -> bool:
    """Whether a list question asks for tables ("which other tables ..."), not for code."""
    return bool(_TABLES.search(question))


def asked_words(question: str) -> frozenset[str]:
    """The question's keyword tokens: what an answer's names are matched against. A `get` that is
    the auxiliary of a passive ("the tables that get written", "rows get updated") asks for no
    `Get` method, so it is no word of the question."""
    return frozenset(keyword_tokens(_PASSIVE_GET.sub(" ", question)))


# English's get-passive: a form of "get" before a past participle. Only a closed list counts:
# what code does to data ("tables that get written", "rows get updated") and common irregular
# participles. Any word in `-ed` would be too loose: "get feed items", "get seed data", "get red
# flags" ask for a `GetFeedItems`, `GetSeedData`, `GetRedFlags`.
_PARTICIPLES = ("written", "taken", "given", "chosen", "broken", "hidden", "forgotten", "driven", "shown",
                "known", "thrown", "drawn", "done", "made", "sent", "paid", "built", "kept", "set", "put",
                "run", "held", "found", "lost", "sold", "told", "read", "cut", "hit", "left", "shut", "spent",
                "updated", "inserted", "deleted", "created", "saved", "stored", "removed", "imported", "exported",
                "added", "changed", "modified", "loaded", "processed", "called", "published", "archived",
                "cleared", "filled", "populated", "purged", "copied", "moved", "renamed", "marked", "flagged",
                "locked", "unlocked", "approved", "rejected", "cancelled", "canceled", "logged", "cached",
                "indexed", "synced", "recorded", "registered", "assigned", "notified", "emailed", "queued",
                "scheduled", "triggered", "validated", "verified", "banned", "blocked", "edited", "posted")
_PASSIVE_GET = re.compile(r"\b(?:get|gets|got|gotten|getting)\b(?=\s+(?:" + "|".join(_PARTICIPLES) + r")\b)",
                          re.IGNORECASE)


# Words of how a question is put, not of what it asks about.
QUESTION_WORDS = frozenset("how what where which who why when does do is are can could should would "
                           "please explain show tell me find about".split())
_DONE = re.compile(r"\b[A-Za-z]{3,}ed\b")


def asked_done(question: str) -> frozenset[str]:
    """The keyword tokens of what the question says is done to its subject, its words in `-ed`
    ("how are requests validated", "results cached", "errors logged"): what code run around
    every request (a behaviour, an interceptor, a filter) is named for."""
    return frozenset(token for word in _DONE.findall(question) for token in keyword_tokens(word))


# Where a walk is asked to start: "walk me from the scheduled job to the tables", "trace it from the
# controller action down to ...", "from X down to". Bounded, so a long text stays linear.
_START = re.compile(r"\b(?:walk|trace|follow|start)\w*\b[^.?!]{0,80}?\b(?:from|at)\s+(?:the\s+|a\s+|an\s+)?"
                    r"([\w\s'-]{1,60}?)\s*,?\s+(?:(?:all\s+the\s+way\s+)?(?:down\s+)?(?:to|into|through)|and)\b"
                    r"|\bfrom\s+(?:the\s+|a\s+|an\s+)?([\w\s.'-]{1,60}?)\s*,?\s+(?:all\s+the\s+way\s+)?down\s+to\b",
                    re.IGNORECASE)
# what qualifies the start ("the job that imports declarations") is not where it is
_START_CLAUSE = re.compile(r"\s+(?:that|which|who|whose|where|when|while|for|of|with|in|on)\b.*", re.IGNORECASE | re.S)
_START_TIME = re.compile(r"^(?:moment|time|point|beginning|start|top)\b", re.IGNORECASE)  # "from the moment ..."


def asked_start(question: str) -> frozenset[str]:
    """The keyword tokens of where the question asks a walk to start ("from the scheduled job" ->
    `schedul`, `job`); none when it names no start."""
    found = _START.search(question)
    if not found:
        return frozenset()
    phrase = _START_CLAUSE.sub("", found.group(1) or found.group(2))
    return frozenset() if _START_TIME.match(phrase) else frozenset(keyword_tokens(phrase))


# The SQL operation a write question names: "which procedures insert rows into T".
_OPERATION_WORDS = (
    ("INSERT", re.compile(r"\b(?:insert\w*|add(?:s|ed|ing)?|creat(?:es?|ed|ing))\b", re.IGNORECASE)),
    ("UPDATE", re.compile(r"\b(?:updat\w*|renam\w*|edit\w*)\b", re.IGNORECASE)),  # "modify": any write
    ("DELETE", re.compile(r"\b(?:delet\w*|remov\w*|purg\w*|truncat\w*)\b", re.IGNORECASE)),
)


def asked_operations(question: str) -> frozenset[str]:
    """The write operations a question asks about (INSERT, UPDATE, DELETE); none when it names
    none of them ("which code writes T", "saves", "changes") or all three."""
    found = frozenset(op for op, pattern in _OPERATION_WORDS if pattern.search(question))
    return frozenset() if len(found) == len(_OPERATION_WORDS) else found


# What was written is what is asked for: "which procedures and tables get written", "what gets
# written to the database", "down to the tables that get written" (not "what happens when ... saved").
_WRITTEN_ASKED = re.compile(r"\b(?:which|what)\b(?!\s+happens\b)(?:\s+\w+){0,4}?\s+(?:(?:gets?|are|is)\s+(?:written|updated|modified)|(?:gets?|receives?)\s+(?:new\s+)?rows)\b"
                            r"|\btables?\s+that\s+(?:gets?|are)\s+(?:written|updated|modified)\b", re.IGNORECASE)


def asks_for_writes(question: str) -> bool:
    """The question's object is what gets written ("which tables get rows"): a flow then shows
    the paths that write."""
    return bool(_WRITTEN_ASKED.search(question))


def asked_verbs(question: str) -> tuple[str, ...]:
    """READS and WRITES in the order the question asks for them ("saves": WRITES first); none
    for no question."""
    return tuple(r for r in asked_relations(question) if r in ("READS", "WRITES")) if question else ()


# What a flow question does, as the HTTP verbs of the actions that do it ("created" -> POST).
_HTTP_VERBS = (
    ("POST", re.compile(r"\b(?:creat\w*|add\w*|new|plac\w*|submit\w*|regist\w*|sav\w*|insert\w*|post\w*|"
                        r"sign(?:s|ed|ing)?\s+up|upload\w*|import\w*)\b", re.IGNORECASE)),
    ("PUT", re.compile(r"\b(?:updat\w*|edit\w*|chang\w*|renam\w*|modif\w*)\b", re.IGNORECASE)),
    ("DELETE", re.compile(r"\b(?:delet\w*|remov\w*|cancel\w*|archiv\w*)\b", re.IGNORECASE)),
    # "which tables get written": a passive "get", not a read
    # "which tables get rows": a table that gets rows is written, a request gets what it asks for
    ("GET", re.compile(r"\b(?:(?<!\btable\s)(?<!\btables\s)(?<!\bdatabase\s)get\w*(?!\s+(?:new\s+)?rows?\b)(?!\s+(?:\w+(?:ed|en)|made|sent|paid|built|kept|set|put|run|done|sold|lost)"
                       r"(?:\s*(?:[?.,;!]|$)|\s+(?:by|in|into|to|from|when|after|before|and|or|during|on|at|for|with|if|once|while|again|back|out|up)\b))|list\w*|show\w*|view\w*|display\w*|load\w*|read\w*|fetch\w*|search\w*|"
                       r"find\w*|brows\w*|see|open(?:s|ed|ing)?)\b", re.IGNORECASE)),
)
_NAMED_VERB = re.compile(r"\b(GET|POST|PUT|PATCH|DELETE)\b")  # "after the PUT request": the verb itself
# A change may be posted from a form as well as put or deleted through an API.
_ALSO_POSTED = frozenset({"PUT", "DELETE"})


def asked_http_verbs(question: str) -> frozenset[str]:
    """The HTTP verbs of the actions a flow question is about: those it names ("after the PUT
    request"), else those its verbs mean ("how is an order created ..." -> POST; "edited" -> PUT,
    PATCH or a form's POST); empty when it says none."""
    named = set(_NAMED_VERB.findall(question))
    if named:
        return frozenset(named)
    found = {verb for verb, pattern in _HTTP_VERBS if pattern.search(question)}
    if "PUT" in found:
        found.add("PATCH")
    if found & _ALSO_POSTED:
        found.add("POST")
    return frozenset(found)


# What kind of entry point a flow question starts at (`entry_faces`): an API ("through the REST
# API", "to the endpoint") or a page ("the MVC web site's remove page", "the Edit Instructor form").
# "view" is left out: "the tables and views" are the database's. A job is asked as one the
# application runs by itself ("the background purge job", "the scheduled task", "the hosted
# service", "every hour", "that timer", "when the app starts"), not by the word "job" alone: a job
# library's questions say it of every job. A hub is asked by name ("the SignalR hub").
_ASKED_FACES = (
    (API, re.compile(r"\b(?:api|apis|rest|restful|endpoints?)\b", re.IGNORECASE)),
    (PAGE, re.compile(r"\b(?:pages?|forms?|screens?|ui|user\s+interface|web\s*sites?|browser|razor|mvc)\b", re.IGNORECASE)),
    (JOB, re.compile(r"\b(?:background\s+(?:\w+\s+){0,2}(?:jobs?|tasks?|services?|workers?)|(?:scheduled|recurring|cron)"
                     r"\s+(?:\w+\s+)?(?:jobs?|tasks?)|hosted\s+services?|nightly|periodically"
                     # a timer, a hub, a start-up are also things of an app's domain ("the quiz timer", "the notification
                     # hub", "the start-up of the checkout"): only their scheduling / SignalR sense counts
                     r"|(?:on|by|from)\s+(?:a|the|that)\s+timer|timer\s+(?:jobs?|tasks?|services?|fires|ticks)"
                     r"|every\s+(?:\d+\s+|few\s+)?(?:seconds?|minutes?|hours?|days?|nights?|weeks?|months?)"
                     r"|on\s+a\s+schedule|(?:when|as)\s+the\s+(?:app|application|service|server|host)\s+starts(?:\s+up)?"
                     r"|(?:at|on)\s+(?:app(?:lication)?\s+)?start-?up(?!\s+of\b))\b", re.IGNORECASE)),
    (HUB, re.compile(r"\b(?:signalr(?:\s+hubs?)?|hub\s+methods?"
                     r"|real-?time\s+(?:\w+\s+)?(?:clients?|connections?|messages?|updates?))\b", re.IGNORECASE)),
)


def asked_face(question: str) -> str | None:
    """API, PAGE or JOB when the question says which kind of entry point it starts at; None when
    it says none or more ("the API the page calls")."""
    found = [face for face, pattern in _ASKED_FACES if pattern.search(question)]
    return found[0] if len(found) == 1 else None


def main_subjects(named: list[Named]) -> list[Named]:
    """The objects a list or impact question is about: columns and database objects named with
    a cue before bare identifiers (a table is what `which methods write the Job table` asks
    about, not a class that happens to be called Job)."""
    for cues in (("column",), ("table", "procedure", "function"), ("class", "identifier")):
        chosen = [n for n in named if n.cue in cues]
        if chosen:
            return chosen
    return named


def without_namesake_types(subjects: list[Named]) -> list[Named]:
    """A list question's subjects less the classes named as a table is ("which procedures insert
    rows into TransactionLine": the table, not a class `TransactionLine`): a class reads and
    writes no rows, so as a subject it answers nothing and takes the table's place."""
    tables = {s.name.rsplit(".", 1)[-1].lower() for s in subjects if s.kind in TABLE_KINDS}
    return [s for s in subjects if s.kind != "TYPE" or s.name.rsplit(".", 1)[-1].lower() not in tables]
