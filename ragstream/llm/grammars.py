"""Constrained output for the protocol roles on a llama.cpp server (GBNF grammars, JSON mode).

A small local model rarely follows a format from the prompt alone; llama.cpp's server can
enforce one while sampling. The router's reply is then always one prefix line, the answer
always starts with its marker, and the JSON roles always reply JSON. The OpenAI API does not
know these fields: send them only to a llama.cpp server (`connect` gives the client `extra_body_for` only for the local provider).
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ragstream.llm.protocol import ANSWER_MARKER, REQUEST_MARKER, ROUTES

JSON_ROLES = ("shaper", "gate", "condenser")


def _literal(text: str) -> str:
    """`text` as a GBNF string literal (GBNF escapes like JSON for these ASCII markers)."""
    return json.dumps(text)


# A query or a request is one line of bounded length: a small model otherwise repeats itself
# until it runs out of tokens.
LINE_CHARS = 160

# Exactly one line: a known prefix, one space, then text that does not start blank.
ROUTER_GRAMMAR = (
    f"root ::= \"[\" ({' | '.join(_literal(prefix) for prefix in ROUTES)}) \":] \" [^ \\t\\r\\n] "
    f"[^\\r\\n]{{0,{LINE_CHARS}}}\n"
)

# The answer may run over many lines; a request for more data is one line (it becomes a query).
ANSWER_GRAMMAR = (
    "root ::= answer | request\n"
    f"answer ::= {_literal(ANSWER_MARKER + ' ')} [^ \\t\\r\\n] .*\n"
    f"request ::= {_literal(REQUEST_MARKER + ' ')} [^ \\t\\r\\n] [^\\r\\n]{{0,{LINE_CHARS}}}\n"
)

GRAMMARS = {"router": ROUTER_GRAMMAR, "answer": ANSWER_GRAMMAR}


def extra_body_for(role: str, schema: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The request fields that constrain `role`'s reply; {} for a free-text role.

    A JSON role replies any JSON object, or one that follows `schema` (a JSON Schema) if given.
    """
    if role in GRAMMARS:
        return {"grammar": GRAMMARS[role]}
    if role in JSON_ROLES:
        if schema is None:
            return {"response_format": {"type": "json_object"}}
        return {"response_format": {"type": "json_schema", "json_schema": {"name": role, "schema": dict(schema)}}}
    return {}


# JSON Schemas for the JSON roles. A small model fills an unbounded string or list until it runs
# out of tokens (and the JSON is cut off), so every string and list here has a bound.
def text(max_chars: int) -> dict[str, Any]:
    return {"type": "string", "maxLength": max_chars}


def choice(values: Sequence[str]) -> dict[str, Any]:
    return {"enum": list(values)}


def text_list(max_items: int, max_chars: int) -> dict[str, Any]:
    return {"type": "array", "items": text(max_chars), "maxItems": max_items}


def object_schema(**properties: Mapping[str, Any]) -> dict[str, Any]:
    """One JSON object with exactly these keys, all required."""
    return {"type": "object", "properties": {key: dict(value) for key, value in properties.items()},
            "required": list(properties), "additionalProperties": False}


def gate_schema(ids: Sequence[str], decisions: Sequence[str], reason_chars: int) -> dict[str, Any]:
    """The gate's reply `{"decisions": [{"id", "decision", "reason"}]}` with only the given ids."""
    decision = object_schema(id=choice(ids), decision=choice(decisions), reason=text(reason_chars))
    return object_schema(decisions={"type": "array", "items": decision, "maxItems": len(ids)})
