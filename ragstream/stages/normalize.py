"""Stage 1, normalize: prompt headers into `body`, then intent, domain, concepts and synonyms.

Headers (`Task: ...`, `Zielgruppe: ...`, `fromat: ...`) map onto fields by the ladder of
`config/prompt_schema.yaml`: normalise, exact, alias, tiny typo, bilingual, template, keyword,
else unknown (kept in `extras`). A prompt none of whose `word:` lines resolves to a field has no
headers at all, so `Why does ValueError: x happen?` stays one question. MUST fields get their
defaults; `task` defaults to the question.

Deterministic path: understanding by rules; a question marked not English is kept as written
and the trace says so. Model path: the `translator` turns the task into English (driven by
`is_english`, no language detection) and the `shaper` gives intent, domain, concepts,
synonyms and the five closed fields (system, audience, tone, depth, confidence) the user left
unwritten; anything outside a closed set becomes its default, with a warning.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import yaml

from ragstream.config import PROJECT_ROOT
from ragstream.errors import ConfigError, ProtocolError
from ragstream.graph.questions import QUESTION_WORDS
from ragstream.keyword_tokens import STOPWORDS, identifier_parts
from ragstream.llm.client import LLMClient
from ragstream.llm.grammars import choice, object_schema, text_list
from ragstream.llm.protocol import parse_json_object, plain_text, string_list
from ragstream.stages.action import Action
from ragstream.stages.model_call import ModelReply, ask
from ragstream.super_prompt import SuperPrompt

ACTIONS = (Action(
    "normalize", "normalize", lambda sp, rt, step, settings: run(sp, rt.llm, step, settings),
    reads=frozenset({"question_raw", "is_english"}),
    writes=frozenset({"question_en", "body", "intent", "domain", "concepts", "synonyms", "extras.normalize"})),)

SCHEMA_FILE = PROJECT_ROOT / "config" / "prompt_schema.yaml"
LADDER = ("exact", "alias", "typo", "bilingual", "template", "keyword")
INTENTS = ("how_implemented", "where_is", "impact", "bug", "explain", "other")
DOMAINS = ("code", "db", "mixed")
UNTRANSLATED = "not translated: no model plays the translator; the question is used as written"
_HEADER = re.compile(r"^\s*([^\W\d][\w' -]{0,40}?)\s*:\s*(.*)$")
_IDENTIFIER = re.compile(r"\b(?:[A-Za-z_]\w*_\w+|[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*|\w+\.\w+(?:\.\w+)*)\b")
# Rules in precedence order: the first intent whose pattern matches wins.
INTENT_RULES = (
    ("bug", r"\b(bug|\w*error|\w*exception|fails?|failing|broken|crash\w*|traceback|wrong|regression)\b"),
    ("impact", r"\b(impact|affect\w*|breaks?|depends? on|who calls|callers?|if i change|ripple)\b"),
    ("where_is", r"\b(where|which|locate|find|defined)\b"),
    ("how_implemented", r"\b(how (does|do|is|are)|implement\w*|works?)\b"),
    ("explain", r"\b(explain|what (is|are|does)|why|describe)\b"),
)
# Only words that mean the database side: `rows`, `keys`, `views`, `update` are as common in code.
DB_WORDS = frozenset("table tables column columns sql procedure procedures stored schema schemas database "
                     "databases join joins foreign dbo".split())
CODE_WORDS = frozenset("function functions method methods class classes module modules call calls code api "
                       "service services python csharp c# entity entities repository".split())


@dataclass(frozen=True)
class Field:
    name: str
    must: bool
    default: str | None
    aliases: tuple[str, ...]
    bilingual: tuple[str, ...]
    templates: tuple[str, ...]
    keywords: tuple[str, ...]
    choices: tuple[str, ...]


@lru_cache(maxsize=1)
def schema() -> tuple[Field, ...]:
    try:
        data = yaml.safe_load(SCHEMA_FILE.read_text(encoding="utf-8"))["fields"]
    except (OSError, KeyError, TypeError, yaml.YAMLError) as exc:
        raise ConfigError(f"cannot read the prompt schema: {exc}", where=str(SCHEMA_FILE)) from exc
    return tuple(_field(name, spec) for name, spec in data.items())


def _field(name: str, spec: Mapping[str, Any]) -> Field:
    """One field of the schema file from its entry."""
    aliases, bilingual, templates, keywords = (tuple(_norm(v) for v in spec.get(key, [])) for key in
                                               ("aliases", "bilingual", "templates", "keywords"))
    return Field(name, bool(spec.get("must")), spec.get("default"), aliases, bilingual, templates, keywords,
                 tuple(spec.get("choices", [])))


def resolve_header(header: str) -> tuple[str | None, str]:
    """(field, ladder step) for a written header; (None, "unknown") when nothing matches."""
    name = _norm(header)
    for step in LADDER:
        for spec in schema():
            if _matches(step, name, spec):
                return spec.name, step
    return None, "unknown"


def parse_headers(prompt: str) -> tuple[dict[str, str], list[dict[str, str]], dict[str, str], str]:
    """(known fields, how each header resolved, unknown headers, the question outside the known
    fields). A known header's section is one paragraph of prose (see `_section_end`); all else
    (text before the headers, unknown headers' sections, what follows a known field's paragraph)
    stays in the question as written, so a pasted issue report with `Output:` or `dask: 2.10.1`
    lines keeps its text. Lines inside fenced code blocks are never headers."""
    lines = prompt.split("\n")
    fenced = _fenced(lines)
    candidates = [(i, m) for i, line in enumerate(lines) if not fenced[i] and (m := _HEADER.match(line))]
    if not any(resolve_header(m.group(1))[0] for _, m in candidates):
        return {}, [], {}, prompt.strip()
    known: dict[str, str] = {}
    unknown: dict[str, str] = {}
    trail: list[dict[str, str]] = []
    taken: set[int] = set()  # lines that belong to a known field
    for n, (index, match) in enumerate(candidates):
        end = candidates[n + 1][0] if n + 1 < len(candidates) else len(lines)
        field, step = resolve_header(match.group(1))
        if field:
            end = _section_end(lines, fenced, index, end, bool(match.group(2).strip()))
            taken.update(range(index, end))
        value = "\n".join([match.group(2), *lines[index + 1:end]]).strip()
        trail.append({"header": match.group(1).strip(), "field": field or "", "step": step})
        target = known if field else unknown
        key = field or match.group(1).strip()
        target[key] = f"{target[key]}\n{value}" if key in target else value
    rest = "\n".join(line for i, line in enumerate(lines) if i not in taken).strip()
    return known, trail, unknown, rest


def _section_end(lines: list[str], fenced: list[bool], start: int, limit: int, has_value: bool) -> int:
    """Where a known field's section ends (before `limit`, the next header): at the first blank
    or fenced-code line after its text (a header with no text of its own skips blank lines first:
    "Context:", an empty line, then the context)."""
    i = start + 1
    if not has_value:
        while i < limit and not lines[i].strip():
            i += 1
    while i < limit and lines[i].strip() and not fenced[i]:
        i += 1
    return i


def _fenced(lines: list[str]) -> list[bool]:
    """Per line, whether it lies inside a ``` fenced block (its fences included)."""
    inside, marks = False, []
    for line in lines:
        fence = line.lstrip().startswith("```")
        marks.append(inside or fence)
        inside ^= fence
    return marks


def understand(question: str) -> tuple[str, str, list[str], list[str]]:
    """(intent, domain, concepts, synonyms) of a question, by rules."""
    lowered = question.lower()
    intent = next((name for name, pattern in INTENT_RULES if re.search(pattern, lowered)), "other")
    identifiers = _IDENTIFIER.findall(question)
    prose = _IDENTIFIER.sub(" ", question)
    words = set(re.findall(r"[a-z#]+", prose.lower()))
    db = bool(words & DB_WORDS)
    code = bool(words & CODE_WORDS) or bool(identifiers)  # a named symbol is code
    domain = "mixed" if db and code else "db" if db else "code"
    concepts = list(dict.fromkeys(
        [*identifiers, *(w for w in re.findall(r"[A-Za-z][A-Za-z0-9]+", prose)
                         if len(w) > 2 and w.lower() not in STOPWORDS | QUESTION_WORDS)]))
    synonyms = list(dict.fromkeys(s for c in concepts for s in _variants(c) if s.lower() != c.lower()))
    return intent, domain, concepts, synonyms


def run(sp: SuperPrompt, llm: LLMClient | None, step: Mapping[str, Any], settings: Mapping[str, Any]) -> str:
    known, trail, unknown, rest = parse_headers(sp.question_raw)
    body = {spec.name: known.get(spec.name, "") for spec in schema()}
    body["task"] = body["task"] or rest or sp.question_raw.strip()
    for spec in schema():
        if spec.must and not body[spec.name] and spec.default is not None:
            body[spec.name] = spec.default
    decisions: dict[str, Any] = {"headers": trail, "unknown_headers": unknown, "path": "deterministic",
                                 "llm_calls": [], "warnings": []}
    sp.question_en = body["task"]
    if sp.is_english:
        decisions["translation"] = "none needed"
    elif llm is not None and llm.uses_model("translator"):
        reply = ask(llm, "translator", {"text": body["task"], "target": "English"},
                    lambda text: plain_text(text, "translator"))
        sp.question_en = reply.value if reply.value is not None else body["task"]
        decisions = _merge(decisions, reply)
        decisions["translation"] = "translated by the model" if reply.value is not None else "not translated"
    else:
        decisions["translation"] = UNTRANSLATED
        decisions["warnings"].append(UNTRANSLATED)
    sp.intent, sp.domain, sp.concepts, sp.synonyms = understand(sp.question_en)
    if llm is not None and llm.uses_model("shaper"):
        values = {"question": sp.question_en, **{f"{spec.name}_choices": ", ".join(spec.choices)
                                                 for spec in schema() if spec.choices}}
        shaped = ask(llm, "shaper", values, lambda text: parse_json_object(text, "shaper"), schema=shaper_schema())
        decisions = _merge(decisions, shaped)
        if shaped.value is not None:
            clamped = _apply_shape(sp, body, known, shaped.value)
            decisions["warnings"] += clamped
    sp.body = body
    sp.extras = {**sp.extras, "normalize": decisions}
    return "ok"


def shaper_schema() -> dict[str, Any]:
    """The shaper's reply as a JSON Schema (a server that can enforce it keeps a small model in line)."""
    closed = {spec.name: choice(spec.choices) for spec in schema() if spec.choices}
    return object_schema(intent=choice(INTENTS), domain=choice(DOMAINS), concepts=text_list(12, 80),
                         synonyms=text_list(12, 80), **closed)


def _merge(decisions: dict[str, Any], reply: ModelReply) -> dict[str, Any]:
    """Decisions with a model call's calls, warnings and path added (model if any call parsed)."""
    path = "model" if reply.value is not None or decisions["path"] == "model" else reply.path
    return {**decisions, "path": path, "llm_calls": decisions["llm_calls"] + reply.calls,
            "warnings": decisions["warnings"] + reply.warnings}


def _apply_shape(sp: SuperPrompt, body: dict[str, str], written: Mapping[str, str], shape: Mapping[str, Any]) -> list[str]:
    """Take the shaper's understanding and the fields the user did not write; a value outside
    its closed set becomes the default, and each such clamp is returned as a warning."""
    warnings: list[str] = []

    def closed(name: str, allowed: tuple[str, ...], default: str) -> str:
        value = shape.get(name)
        if value in allowed:
            return value
        warnings.append(f"shaper: {name}={value!r} is not one of {list(allowed)}; {default!r} used")
        return default

    sp.intent = closed("intent", INTENTS, sp.intent)
    sp.domain = closed("domain", DOMAINS, sp.domain)
    for key in ("concepts", "synonyms"):
        try:
            setattr(sp, key, list(dict.fromkeys([*string_list(shape, key, "shaper"), *getattr(sp, key)])))
        except ProtocolError as exc:
            warnings.append(f"{exc.message}; the rules' {key} kept")
    for spec in schema():
        if spec.choices and not written.get(spec.name):
            body[spec.name] = closed(spec.name, spec.choices, spec.default or spec.choices[0])
    return warnings


def _matches(step: str, name: str, spec: Field) -> bool:
    if step == "exact":
        return name == spec.name
    if step == "alias":
        return name in spec.aliases
    if step == "typo":
        # From five letters: one edit turns a shorter word into another one ("dask" -> "task").
        return len(name) >= 5 and any(_within_one_edit(name, known) for known in (spec.name, *spec.aliases))
    if step == "bilingual":
        return name in spec.bilingual
    if step == "template":
        return any(template in name for template in spec.templates)
    words = name.split()
    # Only short headers: `Error output: KeyError 'id'` is pasted text, not the answer format.
    return len(words) <= 2 and any(keyword in words for keyword in spec.keywords)


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w# ]+", " ", text.lower()).split())


def _within_one_edit(a: str, b: str) -> bool:
    """Levenshtein distance <= 1 (a swap of neighbours counts as one, as in `fromat`)."""
    if a == b:
        return True
    if len(a) == len(b):
        diffs = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diffs) == 1 or (len(diffs) == 2 and diffs[1] == diffs[0] + 1
                                   and a[diffs[0]] == b[diffs[1]] and a[diffs[1]] == b[diffs[0]])
    if abs(len(a) - len(b)) != 1:
        return False
    short, long_ = sorted((a, b), key=len)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


def _variants(concept: str) -> list[str]:
    """Identifier parts and singular/plural forms (no index vocabulary: it could name hidden code)."""
    parts = [p for p in identifier_parts(concept) if p != concept.lower() and len(p) > 1 and p not in STOPWORDS]
    word = concept.lower()
    identifier = not word.isalpha() or (concept != word and not concept.istitle())  # snake, dotted, camel
    if identifier or word.endswith(("ed", "ing")):  # identifiers and verbs get no plural
        forms = []
    elif word.endswith("ies") and len(word) > 4:
        forms = [word[:-3] + "y"]
    elif word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        forms = [word[:-1]]
    else:
        forms = [word + ("es" if word.endswith(("s", "x", "ch", "sh")) else "s")]
    return parts + forms
