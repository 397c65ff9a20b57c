"""The value of C# string expressions: regular, verbatim, raw and interpolated literals,
`+` concatenations, `??` defaults, `nameof`, `typeof(T).Name`, `String.Format`, and locals,
fields and properties holding such a string (constant propagation within a type). Interpolation
and format holes of unknown value become `@p0`, `@p1`, ... so the text stays parseable SQL."""
from __future__ import annotations

import codecs
import re
import textwrap

import tree_sitter

from ragstream.index.csharp.syntax import (
    body_members, call_arguments, child_of_type, descendants, initializer, node_text, required_child, type_name,
)


def string_fields(syntax: tree_sitter.Node) -> dict[str, str]:
    """Fields, constants and properties of a type whose value is a string: initialised with one
    (`= "Invoice"`, `=> "Invoice"`), or assigned one in a constructor (`Table = table ??
    typeof(T).Name`: the default). A type parameter's name stands as `{T}` (`typeof(T).Name`),
    for the graph to bind with each subclass's type argument."""
    found: dict[str, str] = {f"typeof({name}).Name": f"{{{name}}}" for name in type_parameters(syntax)}
    for member in body_members(syntax):
        if member.type == "field_declaration":
            found.update(string_bindings(member, found))
        elif member.type == "property_declaration":
            value = member.child_by_field_name("value")
            if value is not None and value.type == "arrow_expression_clause" and value.named_children:
                value = value.named_children[0]
            text = value is not None and string_value(value, found)
            if text:
                found[node_text(member.child_by_field_name("name"))] = text
    for member in body_members(syntax):
        if member.type == "constructor_declaration":
            found.update(_assigned_in(member, found))
    return found


def type_parameters(syntax: tree_sitter.Node) -> list[str]:
    """`["T", "TId"]` of `class Repository<T, TId>`."""
    parameters = child_of_type(syntax, "type_parameter_list")
    return [node_text(child.child_by_field_name("name") or child) for child in parameters.named_children
            if child.type == "type_parameter"] if parameters is not None else []


# Constraints that name no type (`where T : class, new()`); `default` only overrides a nullable one.
_NO_TYPE_CONSTRAINTS = frozenset({"class", "struct", "unmanaged", "notnull", "default", "new"})


def type_constraints(syntax: tree_sitter.Node, outer: dict[str, list[str]] | None = None) -> dict[str, list[str]]:
    """`{"TDbContext": ["DbContext", "IAdminDbContext"]}` of `where TDbContext : DbContext,
    IAdminDbContext, new()`: the types each type parameter of a type or method is constrained to, as
    written without type arguments (not `class`, `struct`, `unmanaged`, `notnull`, `default`,
    `new()`). A parameter constrained to another (`where X : U`) has that one's types. `outer`: the
    enclosing type's, which a method's type parameter of the same name hides (and their constraints)."""
    own = set(type_parameters(syntax))
    # each of its own parameters, unconstrained ones too: they hide the outer ones
    found: dict[str, list[str]] = {**{name: types for name, types in (outer or {}).items() if name not in own},
                                   **{name: [] for name in own}}
    for clause in syntax.named_children:
        if clause.type != "type_parameter_constraints_clause":
            continue
        names = [type_name(c.named_children[0]) for c in clause.named_children
                 if c.type == "type_parameter_constraint" and c.named_children]
        parameter = child_of_type(clause, "identifier")
        if parameter is not None:
            found[node_text(parameter)] = [n for n in names if n and n not in _NO_TYPE_CONSTRAINTS]
    return {name: _followed(found, name) for name in found}


def _followed(constraints: dict[str, list[str]], parameter: str) -> list[str]:
    """`parameter`'s types, a constraint naming another type parameter replaced by that one's."""
    found: list[str] = []
    seen, stack = {parameter}, list(reversed(constraints[parameter]))
    while stack:
        name = stack.pop()
        if name not in constraints:
            found.append(name)
        elif name not in seen:  # `where A : B where B : A` is an error C# reports; no loop here
            seen.add(name)
            stack.extend(reversed(constraints[name]))
    return list(dict.fromkeys(found))


def _assigned_in(constructor: tree_sitter.Node, known: dict[str, str]) -> dict[str, str]:
    """Members a constructor assigns a string (`Table = table ?? typeof(T).Name`) that no
    initialiser gave one."""
    found: dict[str, str] = {}
    for node in descendants(constructor):
        if node.type != "assignment_expression" or node_text(node.child_by_field_name("operator")) != "=":
            continue
        left = required_child(node, "left")
        if left.type == "member_access_expression" and required_child(left, "expression").type == "this":
            left = required_child(left, "name")
        name = node_text(left) if left.type == "identifier" else ""
        text = name and name not in known and string_value(required_child(node, "right"), known)
        if text:
            found.setdefault(name, text)
    return found


def string_bindings(scope: tree_sitter.Node, known: dict[str, str]) -> dict[str, str]:
    """Variables declared in `scope` whose initialiser is a string (`const string sql = ...`)."""
    found: dict[str, str] = {}
    for declarator in descendants(scope):
        value = initializer(declarator) if declarator.type == "variable_declarator" else None
        text = value is not None and string_value(value, {**known, **found})
        if text:
            found[node_text(declarator.child_by_field_name("name"))] = text
    return found


def string_value(expression: tree_sitter.Node, strings: dict[str, str]) -> str | None:
    """The text of a string expression: literals of every kind, `+` and known variables."""
    kind = expression.type
    if kind == "string_literal":
        return "".join(_unescape(piece) for piece in expression.named_children)
    if kind == "verbatim_string_literal":
        return node_text(expression)[2:-1].replace('""', '"')
    if kind == "raw_string_literal":
        content = child_of_type(expression, "raw_string_content")
        return _raw_text(node_text(content)) if content else ""
    if kind == "interpolated_string_expression":
        return _interpolated_text(expression, strings)
    if _is_concatenation(expression):
        pieces = [string_value(term, strings) for term in _concatenated_terms(expression)]
        return "".join(piece for piece in pieces if piece is not None) if None not in pieces else None
    if kind == "parenthesized_expression":
        return string_value(expression.named_children[0], strings)
    if kind == "binary_expression" and node_text(expression.child_by_field_name("operator")) == "??":
        # `table ?? typeof(T).Name`: the default, when the left side is not known
        left = string_value(required_child(expression, "left"), strings)
        return left if left is not None else string_value(required_child(expression, "right"), strings)
    if kind == "identifier":
        return strings.get(node_text(expression))
    if kind == "member_access_expression":
        if required_child(expression, "expression").type == "this":
            return strings.get(node_text(expression.child_by_field_name("name")))
        typed = required_child(expression, "expression")
        if typed.type == "typeof_expression" and node_text(expression.child_by_field_name("name")) == "Name":
            written = node_text(typed.child_by_field_name("type"))
            return strings.get(f"typeof({written}).Name", written.rsplit(".", 1)[-1])
        return None
    if kind == "invocation_expression":  # `nameof(Invoice.Total)` is "Total"
        function = expression.child_by_field_name("function")
        arguments = expression.child_by_field_name("arguments")
        if node_text(function) == "nameof" and arguments is not None and arguments.named_children:
            return node_text(arguments.named_children[0]).rsplit(".", 1)[-1]
        if is_format(expression) and arguments is not None:
            return _formatted([value for _, value in call_arguments(arguments)], strings)
    return None


def _is_concatenation(expression: tree_sitter.Node) -> bool:
    return expression.type == "binary_expression" \
        and node_text(expression.child_by_field_name("operator")) == "+"


def _concatenated_terms(expression: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The terms of `a + b + c`, in order: `+` nests to the left, so the chain is walked as a loop,
    not by recursion (a generated file concatenating thousands of literals overflowed the stack)."""
    terms = []
    while _is_concatenation(expression):
        terms.append(required_child(expression, "right"))
        expression = required_child(expression, "left")
    terms.append(expression)
    return terms[::-1]


def is_format(expression: tree_sitter.Node) -> bool:
    """Whether the expression is a `String.Format(...)` call."""
    return expression.type == "invocation_expression" \
        and node_text(expression.child_by_field_name("function")).replace(" ", "") in _FORMAT_FUNCTIONS


# `String.Format(format, args...)` and `String.Format(provider, format, args...)`
_FORMAT_FUNCTIONS = frozenset({"string.Format", "String.Format", "System.String.Format"})
# `{0}`, `{1,-10}`, `{2:N0}`; `{{` and `}}` stand for one brace
_FORMAT_ITEM = re.compile(r"\{\{|\}\}|\{(\d+)(?:,[^{}:]*)?(?::[^{}]*)?\}")
# What a format provider is written as: `CultureInfo.InvariantCulture`, `null`, a provider variable
_PROVIDER = re.compile(r"culture|provider|^null$", re.IGNORECASE)


def _formatted(arguments: list[tree_sitter.Node], strings: dict[str, str]) -> str | None:
    """The value of `String.Format(...)`: the format with each `{n}` replaced by the value of
    argument n (unknown: a hole, as in an interpolated string). The format may come from a
    template helper given a lambda (`GetQueryFromTemplate(s => $"...")`): its text."""
    if arguments and _PROVIDER.search(node_text(arguments[0])) and arguments[0].type not in STRING_LITERALS:
        arguments = arguments[1:]
    if not arguments:
        return None
    format_ = string_value(arguments[0], strings) or _template_text(arguments[0], strings)
    if format_ is None:
        return None
    values = [string_value(argument, strings) for argument in arguments[1:]]

    def fill(match: re.Match) -> str:
        if match.group(1) is None:
            return match.group(0)[0]
        index = int(match.group(1))
        value = values[index] if index < len(values) else None
        return value if value is not None else _HOLE
    return _with_parameters(_FORMAT_ITEM.sub(fill, format_))


def _template_text(call: tree_sitter.Node, strings: dict[str, str]) -> str | None:
    """The string a lambda returns when it is the one argument of a call (a template helper:
    `storage.GetQueryFromTemplate(static schemaName => $"... [{schemaName}].[Job] ...")`); the
    lambda's parameters are unknown here (holes)."""
    arguments = call.child_by_field_name("arguments") if call.type == "invocation_expression" else None
    values = [value for _, value in call_arguments(arguments)] if arguments is not None else []
    if len(values) != 1 or values[0].type != "lambda_expression":
        return None
    body = values[0].child_by_field_name("body")
    parameters = {node_text(node) for node in descendants(values[0].child_by_field_name("parameters"))
                  if node.type in ("identifier", "implicit_parameter")}
    known = {name: text for name, text in strings.items() if name not in parameters}
    return string_value(body, known) if body is not None and body.type in STRING_LITERALS else None


def _interpolated_text(expression: tree_sitter.Node, strings: dict[str, str]) -> str:
    """`$"... {x} ..."` with each hole whose value is known (a constant, a field or property
    holding a string, `nameof`, `typeof(T).Name`) replaced by that value, and each other hole by
    a SQL parameter (`@p0`, `@p1`, ...), except an unknown hole that qualifies a name
    (`[{schema}].Job`, `{prefix}.Job`): it and its dot are dropped, so the name is read
    unqualified (a schema chosen at run time is unknown here)."""
    start = node_text(child_of_type(expression, "interpolation_start"))
    raw = child_of_type(expression, "interpolation_quote") is not None
    parts = []
    for piece in expression.named_children:
        if piece.type == "interpolation":
            value = next((string_value(child, strings) for child in piece.named_children
                          if child.type != "interpolation_brace"), None)
            parts.append(value if value is not None else _HOLE)
        elif piece.type == "string_content":
            content = node_text(piece).replace('""', '"') if "@" in start else node_text(piece)
            # `{{0}}` is the text `{0}` (a format item left for `String.Format`)
            parts.append(content if raw else content.replace("{{", "{").replace("}}", "}"))
        elif piece.type == "escape_sequence":
            parts.append(_unescape(piece))
    text = _with_parameters("".join(parts))
    return _raw_text(text) if raw else text


def _with_parameters(text: str) -> str:
    """Holes of unknown value as SQL parameters (`@p0`, ...), a hole that qualifies a name
    dropped with its dot, one that starts a name marked as its unknown prefix."""
    text = _PREFIXING_HOLE.sub(UNKNOWN_PREFIX, _QUALIFYING_HOLE.sub("", text))
    holes = 0
    while _HOLE in text:
        text = text.replace(_HOLE, f"@p{holes}", 1)
        holes += 1
    return text


STRING_LITERALS = frozenset({"string_literal", "verbatim_string_literal", "raw_string_literal",
                             "interpolated_string_expression"})
_HOLE = "\x00"
# A hole (optionally bracketed or quoted) right before a dot: it qualifies the name after it.
_QUALIFYING_HOLE = re.compile(r'[\["`]?\x00[\]"`]?\s*\.\s*')
# A hole that starts a name (`{0}Posts`; not `@{0}`, a parameter's): the name's unknown prefix.
_PREFIXING_HOLE = re.compile(r"(?<![\w@$#])\x00(?=[A-Za-z_])")
UNKNOWN_PREFIX = "__prefix__"  # an identifier to SQL, so the name parses as one
UNKNOWN_SHOWN = "{?}"  # the unknown prefix as users see it (`{?}Posts`)


def shown_sql(text: str) -> str:
    """SQL as users see it: the unknown prefix of a composed name written `{?}`, not as the
    placeholder the SQL parser was given."""
    return text.replace(UNKNOWN_PREFIX, UNKNOWN_SHOWN)


def _unescape(piece: tree_sitter.Node) -> str:
    text = node_text(piece)
    if piece.type != "escape_sequence":
        return text
    try:
        return codecs.decode(text, "unicode_escape")
    except UnicodeDecodeError:  # C#'s variable-length `\x4` has no Python equivalent
        return text


def _raw_text(content: str) -> str:
    """A raw string's value: its lines without their common indentation."""
    return textwrap.dedent(content).strip()
