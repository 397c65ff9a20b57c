"""Tree-sitter helpers for C#: the grammar, names and arguments as written, node text and
lines. Everything here reads syntax; nothing knows about the graph."""
from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from functools import lru_cache

import tree_sitter
import tree_sitter_c_sharp


LANGUAGE = "csharp"


@lru_cache(maxsize=1)
def grammar() -> tree_sitter.Language:
    """The grammar is loaded once per process; parsers are cheap and made per file."""
    return tree_sitter.Language(tree_sitter_c_sharp.language())


def callee_of(node: tree_sitter.Node) -> tuple[tree_sitter.Node | None, tree_sitter.Node] | None:
    """(receiver or None, name node) of an invocation: `f()`, `r.f()`, `r?.f()`, `r!.f()` (the
    receiver `r`: see `forgiven`)."""
    if node.type != "invocation_expression":
        return None
    function = required_child(node, "function")
    if function.type in ("identifier", "generic_name"):
        return None, function
    if function.type == "member_access_expression":
        return forgiven(required_child(function, "expression")), required_child(function, "name")
    if function.type == "conditional_access_expression":
        binding = function.named_children[-1]
        if binding.type == "member_binding_expression":
            return forgiven(required_child(function, "condition")), required_child(binding, "name")
    return None


def forgiven(expression: tree_sitter.Node) -> tree_sitter.Node:
    """`e` of `e!`: the null-forgiving operator only silences a nullable warning, the expression's
    type and value are e's (C# spec, "Null-forgiving expressions"), so `RepoFactory.Users!.Save(u)`
    is a call on `RepoFactory.Users`."""
    while expression.type == "postfix_unary_expression" and expression.named_children \
            and any(child.type == "!" for child in expression.children):
        expression = expression.named_children[0]
    return expression


def type_name(node: tree_sitter.Node | None) -> str | None:
    """A type (or member) name as written, without type arguments; None for `var`, `int`,
    arrays, tuples and other types no repository declares."""
    if node is None:
        return None
    if node.type == "identifier":
        return node_text(node)
    if node.type == "generic_name":
        return node_text(node.named_children[0])
    if node.type == "qualified_name":
        qualifier = type_name(node.child_by_field_name("qualifier"))
        name = type_name(node.child_by_field_name("name"))
        return f"{qualifier}.{name}" if qualifier and name else None
    if node.type == "nullable_type":
        return type_name(node.child_by_field_name("type"))
    if node.type == "alias_qualified_name":  # `global::System` (generated code writes it): the name
        return type_name(node.child_by_field_name("name"))
    return None


def type_arguments(generic: tree_sitter.Node, positional: bool = False) -> list[str]:
    """The named type arguments of a generic name; with `positional`, every argument in its place
    (a built-in one, `int` of `Base<int, Order>`, as written), so they line up with the type's
    parameters (`type_bindings`, `base_bindings`)."""
    argument_list = child_of_type(generic, "type_argument_list")
    children = argument_list.named_children if argument_list else []
    if positional:
        return [type_name(child) or node_text(child) for child in children]
    return [name for name in (type_name(child) for child in children) if name]


def argument_shapes(generic: tree_sitter.Node) -> list[list[str]]:
    """Each type argument of a generic name in its place, as the names it is written with at every
    depth, outermost first (`IPipe<IProcess<Topic>, int>`: [["IProcess", "Topic"], ["int"]]):
    what tells `IPipe<Topic>` from `IPipe<IProcess<Topic>>` (`bound_dispatch`). An explicit stack,
    not recursion: generics nested a thousand deep are text, not a crash."""
    argument_list = child_of_type(generic, "type_argument_list")
    shapes = []
    for argument in argument_list.named_children if argument_list else []:
        shape, stack = [], [argument]
        while stack:
            node = stack.pop()
            shape.append(type_name(node) or node_text(node))
            inner = node.child_by_field_name("name") if node.type == "qualified_name" else node
            nested = child_of_type(inner, "type_argument_list") if inner is not None and inner.type == "generic_name" else None
            stack.extend(reversed(nested.named_children) if nested is not None else ())
        shapes.append(shape)
    return shapes


def call_arguments(argument_list: tree_sitter.Node) -> list[tuple[str | None, tree_sitter.Node]]:
    """(name or None, value) of each argument of a call or an attribute."""
    out = []
    for argument in argument_list.named_children:
        if argument.type in ("argument", "attribute_argument") and argument.named_children:
            name = argument.child_by_field_name("name")
            out.append((node_text(name) if name else None, argument.named_children[-1]))
    return out


def created_type(expression: tree_sitter.Node | None) -> str | None:
    """`T` of `new T(...)`."""
    if expression is None or expression.type != "object_creation_expression":
        return None
    return type_name(expression.child_by_field_name("type"))


def initializer(declarator: tree_sitter.Node) -> tree_sitter.Node | None:
    value = declarator.named_children[-1] if declarator.named_children else None
    return None if value is None or value == declarator.child_by_field_name("name") else value


def body_members(syntax: tree_sitter.Node) -> list[tree_sitter.Node]:
    body = syntax.child_by_field_name("body")
    return body.named_children if body is not None else []


def required_child(node: tree_sitter.Node, name: str) -> tree_sitter.Node:
    """The child in field `name` that the grammar requires (`name` of a
    `member_access_expression`, `right` of an `assignment_expression`, ...)."""
    child = node.child_by_field_name(name)
    if child is None:
        raise ValueError(f"{node.type} at line {line_of(node)} has no `{name}`, which the grammar requires")
    return child


def parent_of(node: tree_sitter.Node) -> tree_sitter.Node:
    """The parent of a node that is never the root (a `variable_declarator`, an `argument`)."""
    parent = node.parent
    if parent is None:
        raise ValueError(f"{node.type} at line {line_of(node)} has no parent")
    return parent


def child_of_type(node: tree_sitter.Node, kind: str) -> tree_sitter.Node | None:
    return next(iter(children_of_type(node, kind)), None)


def children_of_type(node: tree_sitter.Node, kind: str) -> list[tree_sitter.Node]:
    return [child for child in node.children if child.type == kind]


# The walks kept (per thread), most recent last: a method's body is walked by some twenty passes
# (calls, SQL, readers, strings, ...) and the file's root by a pass per method, so each is walked
# once and read from the list after. A walk of fewer nodes than `_KEPT_FROM` is not worth keeping.
_WALKS_KEPT = 64
_KEPT_FROM = 8
_walks = threading.local()


def descendants(node: tree_sitter.Node | None) -> Iterator[tree_sitter.Node]:
    """`node` and everything below it, in source order."""
    if node is None:
        return iter(())
    kept: dict[tree_sitter.Node, list[tree_sitter.Node]] = _walks.__dict__.setdefault("kept", {})
    found = kept.pop(node, None)
    if found is None:
        found = _walk(node)
    if len(found) >= _KEPT_FROM:
        kept[node] = found
        if len(kept) > _WALKS_KEPT:
            del kept[next(iter(kept))]
    return iter(found)


def forget_walks() -> None:
    """Drop this thread's kept walks: each holds its tree alive, and nodes of one file's tree never
    equal another's, so a walk kept past its file only costs memory (`parse.parse_source`)."""
    _walks.__dict__.pop("kept", None)


def _walk(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    found, stack = [], [node]
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(reversed(current.children))
    return found


def attribute_arguments(declaration: tree_sitter.Node, names: tuple[str, ...]) -> tree_sitter.Node | None:
    """The argument list of the declaration's first attribute of one of `names` (`[Table("X")]`,
    `[Column("X")]`: either spelling, `Table` or `TableAttribute`, may be given), or None."""
    for attribute_list in children_of_type(declaration, "attribute_list"):
        for attribute in children_of_type(attribute_list, "attribute"):
            name = (type_name(attribute.child_by_field_name("name")) or "").rsplit(".", 1)[-1]
            if name in names or name.removesuffix("Attribute") in names:
                return child_of_type(attribute, "attribute_argument_list")
    return None


def has_attribute(declaration: tree_sitter.Node, names: tuple[str, ...]) -> bool:
    """The declaration carries an attribute of one of `names` (`NotMapped` or `NotMappedAttribute`)."""
    return any((type_name(attribute.child_by_field_name("name")) or "").rsplit(".", 1)[-1].removesuffix("Attribute")
               in names for attribute_list in children_of_type(declaration, "attribute_list")
               for attribute in children_of_type(attribute_list, "attribute"))


def first_error_line(root: tree_sitter.Node) -> int:
    return next((line_of(node) for node in descendants(root) if node.is_error or node.is_missing),
                line_of(root))


def enclosing_scopes(scope: str) -> list[str]:
    """`A.B.C` -> [`A.B.C`, `A.B`, `A`]."""
    parts = scope.split(".") if scope else []
    return [".".join(parts[:end]) for end in range(len(parts), 0, -1)]


def qualify(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def unique(items: Iterable) -> tuple:
    return tuple(dict.fromkeys(items))


def node_text(node: tree_sitter.Node | None) -> str:
    """The node's source text; "" for a node that error recovery left out."""
    return source_bytes(node).decode("utf-8", errors="replace") if node is not None else ""


def source_bytes(node: tree_sitter.Node) -> bytes:
    """The node's source; a tree parsed from bytes, as every tree here is, always has it."""
    text = node.text
    if text is None:
        raise ValueError(f"{node.type} at line {line_of(node)} has no source text")
    return text


def line_of(node: tree_sitter.Node) -> int:
    return node.start_point.row + 1


def end_line_of(node: tree_sitter.Node) -> int:
    return node.end_point.row + 1


def lambda_parameter(value: tree_sitter.Node) -> str | None:
    """`x` of `x => ...` or `(x, y) => ...`; None for anything else."""
    if value.type != "lambda_expression":
        return None
    parameters = value.child_by_field_name("parameters")
    if parameters is None:
        return None
    if parameters.type in ("identifier", "implicit_parameter"):
        return node_text(parameters)
    first = next((p for p in parameters.named_children if p.type == "parameter"), None)
    return node_text(first.child_by_field_name("name")) if first else None


def called_name(call: tree_sitter.Node) -> str | None:
    """`M` of `x.M(...)`, `M<T>(...)` or `M(...)`."""
    callee = callee_of(call)
    return type_name(callee[1]) if callee else None


def fluent_chain(call: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    """The calls chained onto `call`: `call.A().B()` yields A's then B's invocation."""
    access = call.parent
    while access is not None and access.type == "member_access_expression" \
            and access.parent is not None and access.parent.type == "invocation_expression":
        yield access.parent
        access = access.parent.parent
