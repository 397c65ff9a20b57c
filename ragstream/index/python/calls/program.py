"""The whole repository's Python scopes, as the solver reads them: records, names, modules, MRO.

Built once per graph build from every file's flow facts (`index/python/flow`). A scope's id is
its qualified name; a second definition of the same name (under `if TYPE_CHECKING:`, say) gets
`#2`, `#3` so both are solved, and both are reported under the one name.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field


@dataclass
class Program:
    scopes: dict[str, dict] = field(default_factory=dict)  # scope id -> flow record
    binds: dict[str, dict[str, list[int]]] = field(default_factory=dict)  # scope -> name -> indices
    modules: set[str] = field(default_factory=set)
    packages: set[str] = field(default_factory=set)  # dotted prefixes of modules
    methods_named: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))

    @classmethod
    def from_records(cls, files: list[list[dict]]) -> "Program":
        program = cls()
        for records in files:
            renamed: dict[str, str] = {}
            for record in records:
                scope_id = record["name"]
                copies = 1
                while scope_id in program.scopes:
                    copies += 1
                    scope_id = f"{record['name']}#{copies}"
                renamed[record["name"]] = renamed.get(record["name"], scope_id)
                parent = record["parent"]
                record = {**record, "id": scope_id, "parent": renamed.get(parent, parent)}
                if record["class"]:
                    record["class"] = renamed.get(record["class"], record["class"])
                program.scopes[scope_id] = record
                names: dict[str, list[int]] = defaultdict(list)
                for index, (name, _) in enumerate(record["binds"]):
                    names[name].append(index)
                program.binds[scope_id] = names
                if record["kind"] == "module":
                    program.modules.add(scope_id)
                    parts = scope_id.split(".")
                    program.packages.update(".".join(parts[:i]) for i in range(1, len(parts)))
                if record["method"] is not None:
                    program.methods_named[record["name"].rsplit(".", 1)[-1]].append(scope_id)
        return program

    def is_module(self, dotted: str) -> bool:
        return dotted in self.modules or dotted in self.packages

    def module_of(self, scope_id: str) -> str:
        record = self.scopes[scope_id]
        while record["parent"] is not None:
            record = self.scopes[record["parent"]]
        return record["id"]

    def bound_outside(self, scope: str, name: list) -> bool:
        """A name read in `scope` (`l` local, `n` free: the module's) is bound only by imports
        of modules outside the repository."""
        if name[0] not in ("l", "n"):
            return False
        owner = self.module_of(scope) if name[0] == "n" else scope
        binds = self.scopes[owner]["binds"]
        values = [binds[i][1] for i in self.binds[owner].get(name[1], ())]
        return bool(values) and all(v[0] == "i" and not self.is_module(v[1].split(".")[0]) for v in values)

    def display(self, scope_id: str) -> str:
        """The qualified name a scope is reported under (an external callee is its own name)."""
        return self.scopes[scope_id]["name"] if scope_id in self.scopes else scope_id


def c3_linearization(cls: str, bases_of: dict[str, list[str]]) -> list[str]:
    """Python's method resolution order among known classes; a depth-first order where C3 has
    no solution (an inconsistent hierarchy Python itself would reject)."""
    memo: dict[str, list[str]] = {}

    def linearize(current: str, visiting: frozenset[str]) -> list[str]:
        if current in memo:
            return memo[current]
        if current in visiting:
            return [current]
        bases = [b for b in bases_of.get(current, []) if b != current]
        sequences = [linearize(b, visiting | {current}) for b in bases] + [list(bases)]
        result = [current]
        sequences = [list(s) for s in sequences if s]
        while sequences:
            head = next((s[0] for s in sequences
                         if not any(s[0] in other[1:] for other in sequences)), None)
            if head is None:  # no consistent order: fall back to depth-first, first seen wins
                for sequence in sequences:
                    result.extend(x for x in sequence if x not in result)
                break
            result.append(head)
            sequences = [[x for x in s if x != head] for s in sequences]
            sequences = [s for s in sequences if s]
        memo[current] = result
        return result

    return linearize(cls, frozenset())
