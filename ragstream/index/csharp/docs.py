"""Declaration headers, modifiers and `///` XML doc comments as plain text."""
from __future__ import annotations

from xml.etree import ElementTree

import tree_sitter

from ragstream.index.csharp.syntax import children_of_type, node_text, source_bytes


def doc_comment(syntax: tree_sitter.Node) -> str:
    """The `///` XML doc comment right above a declaration, as plain text."""
    lines = []
    sibling = syntax.prev_sibling
    while sibling is not None and sibling.type == "comment" \
            and node_text(sibling).startswith("///"):
        lines.append(node_text(sibling)[3:])
        sibling = sibling.prev_sibling
    return _doc_text("\n".join(reversed(lines))) if lines else ""


def _doc_text(xml: str) -> str:
    """Tags stripped: one line per element, `<param name="x">` as `x: ...`, crefs by name."""
    try:
        root = ElementTree.fromstring(f"<doc>{xml}</doc>")
    except ElementTree.ParseError:
        return " ".join(xml.split())
    blocks = [root.text or ""]
    for element in root:
        label = element.get("name") if element.tag in ("param", "typeparam") else None
        text = _inline_text(element)
        blocks += [f"{label}: {text}" if label else text, element.tail or ""]
    return "\n".join(" ".join(block.split()) for block in blocks if block.strip())


def _inline_text(element: ElementTree.Element) -> str:
    parts = [element.text or ""]
    for child in element:
        reference = child.get("cref") or child.get("name") or child.get("langword") or ""
        parts += [_inline_text(child) or reference.split(":")[-1], child.tail or ""]
    return "".join(parts)


def header(syntax: tree_sitter.Node) -> str:
    """The declaration without attributes and body: `public class A : B`, `void M(int x)`."""
    start = next((child for child in syntax.children if child.type != "attribute_list"), syntax)
    body = syntax.child_by_field_name("body")
    end = body.start_byte if body is not None else syntax.end_byte
    text = source_bytes(syntax)[start.start_byte - syntax.start_byte:end - syntax.start_byte]
    return " ".join(text.decode("utf-8", errors="replace").split()).rstrip(";").rstrip()


def modifiers(syntax: tree_sitter.Node) -> list[str]:
    return [node_text(child) for child in children_of_type(syntax, "modifier")]
