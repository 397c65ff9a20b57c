"""The names of every parsed file, for linking references: qualified and short names per
language, and a C# type's own methods, properties and fields by name."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from ragstream.index.model import Node, ParsedFile
from ragstream.index.sql.templates import has_placeholder


class SymbolTable:
    """Lookups of qualified and short names, per language."""

    def __init__(self, files: list[ParsedFile]):
        self.nodes: dict[str, Node] = {}
        self.by_name: dict[tuple[str, str], Node] = {}
        self.by_short: dict[tuple[str, str], list[Node]] = defaultdict(list)
        # (type id, method short name) -> the type's own methods of that name (overloads)
        self.members: dict[tuple[str, str], list[Node]] = defaultdict(list)
        # (type id, property name) -> the type's own property of that name
        self.properties: dict[tuple[str, str], list[Node]] = defaultdict(list)
        # (type id, field name) -> [type as written, qualified guesses, private], merged from every
        # file a part of the type is declared in (`csharp.member_fields`)
        self.fields: dict[tuple[str, str], list] = {}
        self.aliases: dict[str, dict[str, str]] = {}  # python module name -> its import aliases
        self.files: list[Node] = []  # FILE nodes, for names of files written in code
        for parsed in files:
            if parsed.language == "python":
                self.aliases[parsed.nodes[0].name] = parsed.aliases
            for node in parsed.nodes:
                self.nodes[node.id] = node
                self.by_name.setdefault((node.language, _key(node.language, node.name)), node)
                self.by_short[(node.language, _key(node.language, node.short_name))].append(node)
                if node.kind == "FILE":
                    self.files.append(node)
                    for type_id, fields in node.attrs.get("member_fields", {}).items():
                        self.fields.update(((type_id, name), field) for name, field in fields.items())
                if node.kind == "METHOD" and node.parent:
                    self.members[(node.parent, node.short_name)].append(node)
                elif node.kind == "PROPERTY" and node.parent:
                    self.properties[(node.parent, node.short_name)].append(node)

    def find(self, language: str, name: str, kinds: tuple[str, ...]) -> Node | None:
        node = self.by_name.get((language, _key(language, name)))
        return node if node and (not kinds or node.kind in kinds) else None

    def first(self, language: str, guesses: Iterable[str], kinds: tuple[str, ...]) -> Node | None:
        """The node of the first of `guesses` (qualified names, in lookup order) that exists."""
        return next((node for node in (self.find(language, g, kinds) for g in guesses) if node), None)

    def short(self, language: str, name: str, kinds: tuple[str, ...]) -> list[Node]:
        found = self.by_short.get((language, _key(language, name)), [])
        return [n for n in found if not kinds or n.kind in kinds]

    def file_named(self, name: str) -> Node | None:
        """The one FILE that a name written in code stands for (`names_file`), if only one does."""
        found = [node for node in self.files if names_file(name, node.path)]
        return found[0] if len(found) == 1 else None


def _key(language: str, name: str) -> str:
    return name.lower() if language == "sql" else name  # SQL identifiers ignore case


def names_file(name: str, path: str) -> bool:
    """Whether `name` names the file at `path`: as a relative path (`Scripts/Install.sql`,
    `..\\Install.sql`) or as an embedded resource, folders joined by dots after the project's
    namespace (`Hangfire.SqlServer.Install.sql` for `src/Hangfire.SqlServer/Install.sql`)."""
    written = name.replace("\\", "/").lower()
    while written.startswith(("./", "../", "~/")):
        written = written.split("/", 1)[1]
    path = path.lower()
    if path == written or path.endswith("/" + written):
        return True
    dotted = path.replace("/", ".")
    return "/" not in written and (dotted == written or dotted.endswith("." + written))


def is_interface(node: Node | None) -> bool:
    return node is not None and node.attrs.get("type_kind") == "interface"


def without_template_copies(ids: list[str]) -> list[str]:
    """The ids without the copies a script template makes under a placeholder schema (SQLCMD's
    `$(Schema).Job`), when a concrete one is among them: the concrete object is the real one."""
    concrete = [i for i in ids if not has_placeholder(i)]
    return concrete or ids
