"""What a question asks of the graph, read from its English: its shape (a list, impact or flow
question), the relations and node kinds it asks about, the words and verbs a walk should prefer,
the objects it is about. Only words here; the graph is walked in `relations.py`.

"Which procedures write to T?" is a list question asking for WRITES edges to PROCEDURE nodes;
"how is X stored in the database?" a mapping question;
"what breaks if I rename column C of T?" an impact question; "how is X saved, from the
controller down to the tables?" a flow question whose paths end in WRITES first.
"""
from __future__ import annotations

import functools
import re

from ragstream.graph.entry_faces import API, HUB, JOB, PAGE
from ragstream.graph.named import Named
from ragstream.graph.relations import DATA_EDGES, TABLE_KINDS
from ragstream.keyword_tokens import keyword_tokens

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
# "which code accesses T" asks for every use; "which data-access methods delete ..." names a layer, not a use
_USES = re.compile(r"\b(?:uses?|using|(?<!data-)(?<!data\s)access\w*|touch\w*|depend\w*)\b", re.IGNORECASE)
_TABLES = re.compile(r"\b(?:which|what)\s+(?:other\s+)?tables\b", re.IGNORECASE)  # a list of tables, not code


# Question shapes. One grammar, read clause by clause: a question may be several sentences ("The
# users are stored in a table called Users. Where is that naming configured?"), and each may open
# with a clause of its own ("With SQL authentication turned on, how is a login checked ...", "When
# creating a course, how does ..."): what a sentence asks starts after that comma.
_LEAD = r"^(?:[^,.?!]{0,80},\s*)?\s*"
_SENTENCE_BREAK = re.compile(r"(?<=[.?!])\s+(?=[A-Z])")  # not "i.e. which"


def _sentences(question: str) -> list[str]:
    return [s for s in _SENTENCE_BREAK.split(question.strip()) if s]


def _opens(pattern: re.Pattern[str], question: str) -> bool:
    """Whether a sentence of the question opens (after its lead clause) as `pattern` says."""
    return any(pattern.search(sentence) for sentence in _sentences(question))


# A path from an entry point is asked: "from the controller down to the tables", "trace it", "walk me
# through", "what (code) runs", "what happens", "the code path", "end-to-end". A question asking for one
# is no mapping, and what it asks to follow is no impact's consequence.
_PATH = (r"\bfrom\b[^?]*\b(?:down\s+)?to\s+(?:the\s+)?(?:[\w-]+\s+){0,3}?(?:tables?|database|db|sql)\b|\bdown to\b"
         r"|\bend[- ]to[- ]end\b|\btrace\b|\bwalk (?:me )?(?:through|from)\b|\bwhat (?:code )?runs\b|\bcode path\b")
_PATH_ASKED = re.compile(_PATH + r"|\bwhat happens\b", re.IGNORECASE)
_FLOW = re.compile(_PATH + r"|\bend up\b"
                   # "how does X do Y in SQL Server", "how does saving X reach the database": the code path down to it
                   rf"|{_LEAD}(?:how|what happens|when)\b.*\b(?:in|from|to|into|and|against|reach(?:es)?)\s+(?:the\s+)?"
                   r"(?:sql(?:\s+server)?|database|db)\b"
                   # "what does deleting X do in the database", "which tables get written"
                   rf"|{_LEAD}(?:what|how|when|where)\b.*\b(?:do|does|did)\b.*\b(?:in|to)\s+(?:the\s+)?(?:database|db)\b"
                   # "which tables get written", "which procedures and tables are updated"
                   r"|\bwhich (?:\w+\s+(?:and|or)\s+)?tables? (?:get|are|is)\s+(?:written|read|updated|changed|touched|used)\b"
                   # "when a brand is deleted, which tables does it read and change": the action's path
                   r"|\bwhich (?:\w+\s+(?:and|or)\s+)?tables? (?:does|do|did|will) (?:it|this|that|they)\b"
                   # "what happens when payments are imported": what runs, from the top down
                   rf"|{_LEAD}what happens\s+(?:when|after|as soon as|once)\b",
                   re.IGNORECASE)

# An impact question asks what follows from a change to an object of the schema or the code, however
# the change is put: supposed ("if the column were renamed", "if I drop", "we want to drop the table",
# "if client ids no longer had to be unique"), in any tense and voice, or its consequence asked ("what
# breaks", "which code would be affected", "would need to change", "what relies on"). A change that
# is made as the application runs ("if the order status is changed to shipped", "if I add an item to my
# basket") names no such object: that is a flow.
_CHANGE = re.compile(r"\b(?:renam(?:e|es|ed|ing)|drop(?:s|ped|ping)?|remov(?:e|es|ed|ing)|delet(?:e|es|ed|ing)"
                     r"|chang(?:e|es|ed|ing)|alter(?:s|ed|ing)?|restructur(?:e|es|ed|ing)|retyp(?:e|es|ed|ing)"
                     r"|split(?:s|ting)?|merg(?:e|es|ed|ing)|replac(?:e|es|ed|ing)|add(?:s|ed|ing)?"
                     r"|(?:shorten|lengthen|widen|narrow)(?:s|ed|ing)?|bec[ao]me|becomes|becoming|no\s+longer"
                     r"|(?:made|make|makes|making)\s+(?:\w+\s+)?(?:longer|shorter|wider|nullable|optional|required|unique))\b",
                     re.IGNORECASE)
# what a supposed change is made to: a schema or code object, by its noun or its identifier
_SCHEMA_NOUN = re.compile(r"\b(?:columns?|tables?|views?|procedures?|propert(?:y|ies)|fields?|class(?:es)?|types?"
                          r"|entit(?:y|ies)|keys?|index(?:es)?|constraints?|schema)\b", re.IGNORECASE)
_IDENTIFIER = re.compile(r"\b(?:[A-Za-z_]*[a-z][A-Z]\w*|[A-Za-z_]\w*\.[A-Za-z_]\w*|[A-Za-z]\w*_\w+)\b")  # `StockQuantity`, `Order.Status`, `owner_id`
# the clause a change is supposed in, to its end (a parenthesis inside it is part of it): "if ...", "suppose
# ...", "were the column renamed", "is it safe to drop ...", "we want to ..." (the speaker's own plan);
# bounded, so a pasted script stays linear
_SUPPOSED = re.compile(r"(?:\b(?:if|in\s+case|suppos(?:e|ing)|assuming|safe(?:ly)?\s+to)|(?:^|(?<=[.?!]\s))(?:were|had)(?=\s+(?:the|a|an|i|we|you)\b)"
                       # a change named by its gerund: "the impact of renaming ...", "affected by dropping ..."
                       r"|\b(?:by|of|after|before)(?=\s+(?:renam|dropp|remov|delet|chang|alter|restructur|retyp|splitt|merg|replac"
                       r"|shorten|lengthen|widen|narrow)ing\b)"
                       r"|\b(?P<plan>(?:want|wants|plan|plans|planning|going|intend|intends)\s+to))"
                       r"\b(?P<clause>(?:\([^)]{0,200}\)|[^?.,;:(]){1,160})", re.IGNORECASE)
# the speaker's own change, of whatever it names: "if I delete a collection", "we want to shorten titles"
# (not "if I add an item to my basket", "if you replace step 6 with ...": adding or replacing is a
# change of the schema only with a schema object named)
_AGENT = re.compile(r"\s*(?:i|we|you)\s+", re.IGNORECASE)
_OWN_CHANGE = re.compile(r"\s*(?:rename|drop|change|remove|delete|alter|shorten|widen|lengthen|retype|split|restructure)\b",
                         re.IGNORECASE)
_CONSEQUENCE = re.compile(
    r"\bwhat\s+(?:\w+\s+){0,2}?(?:breaks?|affected|depends)\b|\bimpact\b"
    r"|\b(?:would|will|could|might|may)\s+(?:\w+\s+){0,2}?(?:break|be\s+(?:affected|impacted|broken)|stop\s+working"
    r"|affect|impact)\b"
    r"|\b(?:has|have|needs?|must)\s+to\s+(?:change|be\s+(?:changed|updated|adapted|rewritten))\b"
    r"|\b(?:rel(?:y|ies)|depends?|dependent)\s+(?:up)?on\b", re.IGNORECASE)  # not "depending on the provider"


# what asks for the code doing something: "which job does that", "what code handles it", "where is that done"
_ASKS_FOR_CODE = re.compile(r"\b(?:which|what)\s+(?:\w+\s+)?(?:jobs?|code|quer(?:y|ies)|methods?|services?|handlers?|tasks?"
                            r"|controllers?|endpoints?|functions?)\s+(?:does|do|did|runs?|handles?|is|are|will)\b"
                            r"(?!\s+(?:\w+\s+)?(?:affected|broken|impacted|break))"  # "which code is affected": a consequence
                            r"|\bwhere\s+(?:is|are)\s+(?:that|this|it|they)\s+(?:done|handled|implemented)\b", re.IGNORECASE)


def supposes_schema_change(question: str) -> bool:
    """Whether what the question supposes changed is a kind of schema or model object ("if the
    column that holds ... were renamed", "if we drop the table"), not the code doing something
    ("if deleting a user account were changed, ... which tables lose rows")."""
    return any(_SCHEMA_NOUN.search(supposed.group("clause")) for supposed in _SUPPOSED.finditer(question))


def _asks_impact(question: str) -> bool:
    for supposed in _SUPPOSED.finditer(question):
        clause = supposed.group("clause")
        if _CHANGE.search(clause) and (_SCHEMA_NOUN.search(clause) or _IDENTIFIER.search(clause)):
            return True
        agent = _AGENT.match(clause)
        # the speaker's own change of a thing that is no schema object ("if I delete a warehouse, what else
        # goes with it") asks what follows from it; not where it asks for the code doing it ("we want to
        # delete old orders every night: which job does that?", "where is that done") or for a path ("...,
        # what does the server do, down to the tables?"): that is what runs, a flow or a list
        if (agent or supposed.group("plan")) and _OWN_CHANGE.match(clause, agent.end() if agent else 0) \
                and not _PATH_ASKED.search(question) and not _ASKS_FOR_CODE.search(question):
            return True
    # a consequence asked: unless what is to be followed is a path from an entry point
    return bool(_CONSEQUENCE.search(question)) and not _PATH_ASKED.search(question)


# A mapping question asks how an object's storage is defined, not what runs: how or where it is
# mapped, stored, persisted or keyed; where its columns, keys, names or lengths are configured or
# defined; which class a table stores (or which table a class maps to); how it is linked or related in
# the database; which table holds or records it. Its rows turned into objects (and back) are a mapping
# even where a list's "which code" or a flow's "from the database" is said too: how a type is filled
# from a table.
_STORED = r"(?:mapped|mapping|stored(?!\s+(?:procs?|procedures?)\b)|persisted|keyed)"
_STORAGE = re.compile(
    rf"{_LEAD}(?:how|where)\b.*\b{_STORED}\b"
    # "how is an order linked to its addresses in the database": a relationship's mapping
    rf"|{_LEAD}how\b.*\b(?:linked|related|associated|connected|joined)\b.*\b(?:database|db|tables?|mapping|model)\b"
    # "which class is stored in T", "which C# class are rows of T mapped to", "which entity is stored"
    r"|\b(?:class(?:es)?|entit(?:y|ies)|types?)\s+(?:is|are)\s+(?:[\w'/{}]+\s+){0,5}?"
    r"(?:stored(?!\s+(?:procs?|procedures?)\b)|mapped|persisted)\b"
    # "which table does the Page entity map to", "which classes map those tables", "properties map onto it"
    r"|\b(?:tables?|class(?:es)?|entit(?:y|ies)|propert(?:y|ies)|types?)\b(?:\s+[\w#]+){0,4}?\s+maps?\s+"
    r"(?:to|onto|into|those|these|the|them|it)\b"
    # "which tables do the users live in", "which table holds a blog's settings", "which column records ..."
    r"|\bwhich\s+(?:\w+\s+)?(?:tables?|columns?)\b[^?]*\blive\s+in\b"
    r"|\bwhich\s+(?:\w+\s+)?(?:tables?|columns?)\s+(?:(?:and|or)\s+[\w\s]{0,30}?)?(?:holds?|stores?|records?|keeps?)\b"
    # "how is a money amount represented in the database", "what is the primary key of T"
    rf"|{_LEAD}(?:how|where)\b.*\brepresented\b.*\b(?:database|db|tables?|columns?|schema)\b"
    rf"|{_LEAD}what\s+(?:is|are)\b.*\b(?:primary|foreign|composite)\s+keys?\b",
    re.IGNORECASE)
# Where a part of the storage is defined: "where are that table's columns and keys defined", "where is
# that length set in the model and in the database migrations", "how is the relationship between orders
# and customers configured". Words that also name what is no table's ("the password length", "the API
# keys", "the grid's columns", "the naming of the log files") count where the question speaks of the
# database.
_STORAGE_PART = r"(?:(?:primary|foreign|composite)\s+keys?|(?:table|column)\s+names?|relations(?:hips?)?|indexes|indices|mapping|schema)"
_SHARED_PART = r"(?:columns?|keys|lengths?|naming|default\s+values?)"
_DEFINED = r"(?:configured|defined|declared|registered|set|specified)"


def _part_defined(part: str) -> re.Pattern[str]:
    return re.compile(rf"{_LEAD}(?:how|where)\b(?:.*\b{part}\b.*\b{_DEFINED}|.*\b{_DEFINED}\b.*\b{part})\b", re.IGNORECASE)


_PART_DEFINED = _part_defined(_STORAGE_PART)
_SHARED_PART_DEFINED = _part_defined(_SHARED_PART)
_DATABASE = re.compile(r"\b(?:database|db|sql|tables?|migrations?|model|entit(?:y|ies)|schema|mapping)\b",
                       re.IGNORECASE)


def _asks_storage(question: str) -> bool:
    return _opens(_STORAGE, question) or _opens(_PART_DEFINED, question) or \
        (_opens(_SHARED_PART_DEFINED, question) and bool(_DATABASE.search(question)))


# "how are the events dispatched and stored when the changes are committed": what runs on an
# event (a `when` clause naming one: something is done, or someone does something; a storing
# verb coordinated with one that is no mapping's), not how an object is mapped ("stored when
# using the EF Core mapping", "mapped when the table name differs", "owned and stored")
_PROCESS = re.compile(r"\b(?:stored|persisted|kept)\b.*\bwhen\b.*"
                      r"(?:\b(?:is|are|was|were|gets?|got|been)\s+\w+(?:ed|en|t)\b"  # the changes are committed
                      r"|\b[a-z]+s\s+(?:in|out|up|on|off|a|an|the)\b)"  # a user logs in, places an order
                      # "calculated and stored": code doing something, then storing (not "mapped and stored")
                      r"|\b(?!(?:mapp|own|configur|defin|declar|model+)ed\b)\w+ed\s+and\s+(?:stored|persisted|kept)\b"
                      # "how are their values stored and how do they become searchable columns": what the code
                      # then does with them, a second question that leads the answer to code, not to a mapping
                      r"|\b(?:stored|persisted|kept)\b.*\band\s+how\s+(?:do|does|did)\b",
                      re.IGNORECASE)
# Rows turned into objects: "which code copies the database columns into the Issue object", "how is a
# project row read from the database turned into a Project object", "how does a row of T become the
# user the API returns", "how are todo lists turned into the DTOs", "... and back into an entity".
_ROWS_INTO_OBJECTS = re.compile(
    r"\b(?:rows?|columns?|records?)\b.{0,80}?\b(?:turned|converted|copied|filled|read|mapped|loaded|made)\s+"
    r"(?:back\s+)?into\b"
    r"|\b(?:cop(?:y|ies)|fills?|turns?|converts?|maps?|reads?)\s+(?:the\s+|that\s+|this\s+|each\s+|a\s+)?"
    r"(?:[\w.]+\s+){0,2}?(?:rows?|columns?|records?)\s+(?:back\s+)?into\b"
    r"|\b(?:rows?|records?)\s+(?:of|from|in)\b.{0,60}?\bbecomes?\b"
    r"|\b(?:turned|converted|mapped|transformed|projected)\s+(?:back\s+)?(?:into|to|onto)\s+(?:the\s+|an?\s+)?"
    r"(?:[\w-]+\s+){0,2}?(?:dtos?|objects?|models?|view\s*models?|entit(?:y|ies))\b", re.IGNORECASE)

# A list question opens with what it lists: "which procedures write T", "in the admin area, which
# methods ...". One that opens with the code it lists ("which repository methods does the purge job call,
# and which tables do they clean up?") is a list whatever else it asks of that code (its tables, what
# it ends up calling), unless it asks for a path from an entry point; one that opens with a class may
# ask which class a table stores (a mapping), so only code opens a list before a mapping is looked for.
_CODE = (r"(?:methods?|procedures?|procs|sprocs?|code|functions?|callers?|triggers?|services?|repositor(?:y|ies)"
         r"|controllers?|handlers?|endpoints?|pages?|jobs?|tasks?|operations?|commands?|quer(?:y|ies)|consumers?)")
# its head a noun phrase ("which scheduled background tasks"), not a clause ("what does the code check")
_CODE_LIST = re.compile(rf"{_LEAD}(?:which|what)\s+(?:(?!(?:the|a|an|do|does|did|is|are|was|were|has|have|had|can|could"
                        rf"|will|would|should)\b)[\w#-]+\s+){{0,3}}?{_CODE}\b", re.IGNORECASE)
_LIST = re.compile(rf"{_LEAD}(?:which|what|list|show|name|find)\b.*\b(?:{_CODE}|class(?:es)?|tables?|views?)\b",
                   re.IGNORECASE)


# An event opens the question: "when a user reports a problem, what code stores it and which tables are
# touched?" asks what that event runs (a flow), where "which pieces of code remove issues, and which
# tables do they affect?" lists code.
_EVENT_LEAD = re.compile(r"^\s*(?:when(?:ever)?|after|once|as\s+soon\s+as)\b[^,?]{1,200},", re.IGNORECASE)


# What a question asks is said in its sentences, not in text pasted into it (a stack trace, a script,
# a log: one "sentence" of hundreds of characters): its shape is read from its sentences of at most
# _SENTENCE_CHARS characters, the first _SHAPE_CHARS of them (the longest question of ~400 written by
# ~20 writers has 255). This also bounds the work of the grammar's patterns, some of which rescan a
# sentence from each of its words.
_SENTENCE_CHARS, _SHAPE_CHARS = 400, 1500


def _asked_part(question: str) -> str:
    said = [s for s in _sentences(question) if len(s) <= _SENTENCE_CHARS]
    return (" ".join(said) or question[:_SENTENCE_CHARS])[:_SHAPE_CHARS]


@functools.lru_cache(maxsize=256)
def question_shape(question: str) -> str | None:
    """flow, impact, list, mapping, or None when the question is none of these (read from its
    sentences: `_asked_part`; the relate stage and the neighbourhood ask it of one question)."""
    return _shape(_asked_part(question))


def _shape(question: str) -> str | None:
    # impact first: "what happens if I rename X ... in the database" asks what breaks; a mapping
    # question ("how is X stored") before a flow, unless it asks for a path or opens with code
    if _asks_impact(question):
        return "impact"
    if _ROWS_INTO_OBJECTS.search(question):
        return "mapping"
    path = bool(_PATH_ASKED.search(question))
    lists_code = _opens(_CODE_LIST, question)
    if not path and not lists_code and _asks_storage(question) and not _PROCESS.search(question):
        return "mapping"
    if lists_code and not path:
        return "flow" if _EVENT_LEAD.match(question) else "list"
    if _FLOW.search(question):  # what runs from the question's start: "what happens when" opens it
        return "flow"
    if _opens(_LIST, question):
        return "list"
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
    """Whether a list question asks for tables ("which other tables ..."), not for code: not one
    that opens with the code it lists ("which jobs clear the caches, and which tables do they
    clear?" lists the jobs; their tables come with them)."""
    return bool(_TABLES.search(question)) and not _opens(_CODE_LIST, question)


def asked_words(question: str) -> frozenset[str]:
    """The question's keyword tokens: what an answer's names are matched against. A `get` that is
    the auxiliary of a passive ("the tables that get written", "rows get updated"), or says a table
    is written ("which tables get rows"), asks for no `Get` method, so it is no word of the question."""
    return frozenset(keyword_tokens(_PASSIVE_GET.sub(" ", _NEGATED.sub(" ", question))))


# What a question says it is not about: "an ordinary chat message (not a slash command)", "a post,
# not a page," -- its words name what the answer must not start from
_NEGATED = re.compile(r"\(\s*not\b[^()]*\)|,\s*not\s+(?:a|an|the|any)\b[^,.;:()?]*", re.IGNORECASE)


def asked_subject_words(question: str) -> frozenset[str]:
    """The asked words less those of how the question is put: its question words and the code it
    asks for as such ("what code runs", "which code path", "the code that"): an entry point whose
    route says `{cryptoCode}` is not what "what code runs when an invoice is created" describes. A
    code of the domain keeps its word ("the discount code a customer redeems")."""
    return asked_words(_DOWN_TO.sub(" ", _CODE_FRAME.sub(" ", question))) - _QUESTION_TOKENS - _FUNCTION_TOKENS


# "down to the database": where a walk goes, not what it starts at (`DownvoteMovie`, `Download`)
_DOWN_TO = re.compile(r"\b(?:all\s+the\s+way\s+)?down\s+(?:to|into)\b", re.IGNORECASE)


# Words of English no identifier is named for, which a name may still contain ("through" would meet
# `CreatePayoutThroughStore` in "archived through the API").
_FUNCTION_TOKENS = frozenset(keyword_tokens(
    "through against already about across after before between during into onto upon within without while "
    "whether also just then there their them they this that these those"))


# "code" asked for as code: after a determiner or question word, or before what it does to run
_CODE_FRAME = re.compile(r"\b(?:what|which|whose|the|any|all|this|that|our|its)\s+(?:\w+\s+)?code"
                         r"(?:\s+(?:paths?|runs?|executes?|is\s+run|gets\s+run))?\b", re.IGNORECASE)


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
_PASSIVE_GET = re.compile(r"\b(?:get|gets|got|gotten|getting)\b(?=\s+(?:(?:new\s+)?rows?|" + "|".join(_PARTICIPLES)
                          + r")\b)", re.IGNORECASE)  # "which tables get rows": the tables are written


# Words of how a question is put, not of what it asks about.
QUESTION_WORDS = frozenset("how what where which who why when does do is are can could should would "
                           "please explain show tell me find about".split())
_QUESTION_TOKENS = frozenset(keyword_tokens(" ".join(QUESTION_WORDS)))
_DONE = re.compile(r"\b[A-Za-z]{3,}ed\b")


def asked_done(question: str) -> frozenset[str]:
    """The keyword tokens of what the question says is done to its subject, its words in `-ed`
    ("how are requests validated", "results cached", "errors logged"): what code run around
    every request (a behaviour, an interceptor, a filter) is named for."""
    return frozenset(token for word in _DONE.findall(question) for token in keyword_tokens(word))


# Where a walk is asked to start: "walk me from the scheduled job to the tables", "trace it from the
# controller action down to ...", "from X down to", "from the upload endpoint until the file is
# recorded". Bounded, so a long text stays linear.
_START = re.compile(r"\b(?:walk|trace|follow|start)\w*\b[^.?!]{0,80}?\b(?:from|at)\s+(?:the\s+|a\s+|an\s+)?"
                    r"([\w\s'-]{1,60}?)\s*,?\s+(?:(?:all\s+the\s+way\s+)?(?:down\s+)?(?:to|into|through)|and)\b"
                    r"|\bfrom\s+(?:the\s+|a\s+|an\s+)?([\w\s.'-]{1,60}?)\s*,?\s+(?:(?:all\s+the\s+way\s+)?down\s+to|until|till)\b",
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
    if _START_TIME.match(phrase):
        return frozenset()
    # "from the API endpoint", "from the admin page": the kind of entry point, which the face decides
    # (`asked_face`, from what the code is), not words of its type's name. A job's words stay: a job
    # is often known by its name alone (`ImportLevyDeclarationsJob`), its scheduler outside the code.
    for face, pattern in _ASKED_FACES:
        phrase = pattern.sub(" ", phrase) if face in (API, PAGE) else phrase
    return frozenset(keyword_tokens(phrase))


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
    (HUB, re.compile(r"\b(?:signalr(?:\s+hubs?)?|hub\s+methods?|real-?time\s+hubs?"
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
