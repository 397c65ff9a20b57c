"""Python parsing and cross-file resolution on the sample repository's `billing` package."""
from __future__ import annotations

import pytest

from ragstream.index.chunks import build_chunks
from ragstream.index.graph_build import build_graph
from ragstream.index.model import ParsedFile
from ragstream.index.python.parser import module_names, parse_python
from ragstream.token_count import token_counter
from tests.conftest import SAMPLE_REPO

FILES = ["billing/__init__.py", "billing/cli.py", "billing/models.py", "billing/repository.py",
         "billing/service.py", "billing/util.py"]


def parse_package() -> list[ParsedFile]:
    modules = module_names(FILES)
    return [parse_python(p, (SAMPLE_REPO / p).read_text(), modules[p]) for p in FILES]


def edges(graph, *types):
    return {(u, k, v) for u, v, k in graph.edges(keys=True) if k in types}


def test_module_names_follow_packages():
    names = module_names(["src/pkg/__init__.py", "src/pkg/a.py", "src/pkg/sub/__init__.py",
                          "src/pkg/sub/b.py", "scripts/tool.py", "setup.py", "pkg/__init__.py"])
    assert names == {
        # `pkg/` sorts first and takes the name; the second root shipping `pkg` falls back
        # to its path instead of colliding
        "pkg/__init__.py": "pkg", "src/pkg/__init__.py": "src.pkg", "src/pkg/a.py": "pkg.a",
        "src/pkg/sub/__init__.py": "pkg.sub", "src/pkg/sub/b.py": "pkg.sub.b",
        "scripts/tool.py": "scripts.tool", "setup.py": "setup",
    }


def test_nodes_spans_signatures_docstrings():
    graph, _ = build_graph(parse_package())
    assert {n for n in graph if n.startswith("py:")} == {
        "py:billing|MODULE", "py:billing.cli|MODULE", "py:billing.cli.main|FUNCTION",
        "py:billing.models|MODULE", "py:billing.models.Entity|CLASS",
        "py:billing.models.Entity.key|METHOD", "py:billing.models.Customer|CLASS",
        "py:billing.models.Invoice|CLASS", "py:billing.models.Invoice.balance|METHOD",
        "py:billing.models.Invoice.mark_paid|METHOD", "py:billing.repository|MODULE",
        "py:billing.repository.InvoiceRepository|CLASS",
        "py:billing.repository.InvoiceRepository.__init__|METHOD",
        "py:billing.repository.InvoiceRepository.get|METHOD",
        "py:billing.repository.InvoiceRepository.save_payment|METHOD",
        "py:billing.service|MODULE", "py:billing.service.InvoiceService|CLASS",
        "py:billing.service.InvoiceService.__init__|METHOD",
        "py:billing.service.InvoiceService.record_payment|METHOD",
        "py:billing.service.InvoiceService._validate|METHOD",
        "py:billing.service.AuditedInvoiceService|CLASS",
        "py:billing.service.AuditedInvoiceService.record_payment|METHOD",
        "py:billing.util|MODULE", "py:billing.util.log_event|FUNCTION",
    }
    invoice = graph.nodes["py:billing.models.Invoice|CLASS"]
    assert (invoice["start_line"], invoice["end_line"]) == (25, 41)  # the decorator line included
    balance = graph.nodes["py:billing.models.Invoice.balance|METHOD"]
    assert balance["signature"] == "def balance(self) -> Decimal"
    assert balance["docstring"] == "What is still owed on this invoice."
    assert balance["parent"] == "py:billing.models.Invoice|CLASS"


def test_defines_imports_inherits():
    graph, _ = build_graph(parse_package())
    assert ("py:billing.models.Invoice|CLASS", "DEFINES", "py:billing.models.Invoice.balance|METHOD") in edges(graph, "DEFINES")
    assert edges(graph, "IMPORTS") == {
        ("py:billing|MODULE", "IMPORTS", "py:billing.service|MODULE"),
        ("py:billing.cli|MODULE", "IMPORTS", "py:billing|MODULE"),
        ("py:billing.cli|MODULE", "IMPORTS", "py:billing.repository|MODULE"),
        ("py:billing.repository|MODULE", "IMPORTS", "py:billing.models|MODULE"),
        ("py:billing.service|MODULE", "IMPORTS", "py:billing.repository|MODULE"),
        ("py:billing.service|MODULE", "IMPORTS", "py:billing.util|MODULE"),  # relative import
    }
    assert edges(graph, "INHERITS") == {
        ("py:billing.models.Customer|CLASS", "INHERITS", "py:billing.models.Entity|CLASS"),
        ("py:billing.models.Invoice|CLASS", "INHERITS", "py:billing.models.Entity|CLASS"),
        ("py:billing.service.AuditedInvoiceService|CLASS", "INHERITS", "py:billing.service.InvoiceService|CLASS"),
    }


def test_calls_resolved_through_imports_self_attributes_super_and_reexports():
    graph, stats = build_graph(parse_package())
    internal = {e for e in edges(graph, "CALLS") if not e[2].startswith("ext:")}
    assert internal == {
        # `billing.InvoiceService(...)`: `billing/__init__.py` re-exports the class
        ("py:billing.cli.main|FUNCTION", "CALLS", "py:billing.service.InvoiceService|CLASS"),
        ("py:billing.cli.main|FUNCTION", "CALLS", "py:billing.repository.InvoiceRepository|CLASS"),
        # (the __init__ each runs is not a second edge); `service.record_payment` is typed by that call
        ("py:billing.cli.main|FUNCTION", "CALLS", "py:billing.service.InvoiceService.record_payment|METHOD"),
        ("py:billing.cli|MODULE", "CALLS", "py:billing.cli.main|FUNCTION"),
        ("py:billing.models.Invoice.mark_paid|METHOD", "CALLS", "py:billing.models.Invoice.balance|METHOD"),
        ("py:billing.repository.InvoiceRepository.get|METHOD", "CALLS", "py:billing.models.Invoice|CLASS"),
        # self.repository: typed by the annotated __init__ parameter it is bound from
        ("py:billing.service.InvoiceService.record_payment|METHOD", "CALLS", "py:billing.repository.InvoiceRepository.get|METHOD"),
        ("py:billing.service.InvoiceService.record_payment|METHOD", "CALLS", "py:billing.repository.InvoiceRepository.save_payment|METHOD"),
        ("py:billing.service.InvoiceService.record_payment|METHOD", "CALLS", "py:billing.service.InvoiceService._validate|METHOD"),
        ("py:billing.service.InvoiceService.record_payment|METHOD", "CALLS", "py:billing.util.log_event|FUNCTION"),
        # `invoice` is what InvoiceRepository.get returns: an Invoice
        ("py:billing.service.InvoiceService.record_payment|METHOD", "CALLS", "py:billing.models.Invoice.balance|METHOD"),
        ("py:billing.service.InvoiceService.record_payment|METHOD", "CALLS", "py:billing.models.Invoice.mark_paid|METHOD"),
        # inherited self method and super() resolve through INHERITS
        ("py:billing.service.AuditedInvoiceService.record_payment|METHOD", "CALLS", "py:billing.service.InvoiceService._validate|METHOD"),
        ("py:billing.service.AuditedInvoiceService.record_payment|METHOD", "CALLS", "py:billing.service.InvoiceService.record_payment|METHOD"),
        ("py:billing.service.AuditedInvoiceService.record_payment|METHOD", "CALLS", "py:billing.util.log_event|FUNCTION"),
    }
    how = {(u, v): d["resolution"] for u, v, k, d in graph.edges(keys=True, data=True) if k == "CALLS"}
    assert how[("py:billing.service.InvoiceService.record_payment|METHOD",
                "py:billing.models.Invoice.mark_paid|METHOD")] == "inferred"
    assert how[("py:billing.cli|MODULE", "py:billing.cli.main|FUNCTION")] == "static"
    assert "by_name" not in how.values()
    # Unresolved calls with a known name become EXTERNAL nodes; `super()` itself is not a call edge.
    assert ("py:billing.util.log_event|FUNCTION", "CALLS", "ext:logging.getLogger|EXTERNAL") in edges(graph, "CALLS")
    assert graph.nodes["ext:logging.getLogger|EXTERNAL"]["kind"] == "EXTERNAL"
    assert "ext:builtins.super|EXTERNAL" not in graph
    assert stats.by_name["CALLS"] == 0


def test_common_method_names_never_resolve_by_name():
    code = "class Bag:\n    def append(self, x):\n        pass\n\ndef f(items):\n    items.append(1)\n"
    parsed = parse_python("bag.py", code, "bag")
    graph, _ = build_graph([parsed])
    assert not edges(graph, "CALLS")


def test_a_class_call_is_one_edge_to_the_class_and_an_explicit_init_call_stays():
    """`K()` runs `K.__init__`, but the index draws the call once (to the class), so expansion
    does not weigh a constructor call twice; `super().__init__()` is a call of its own."""
    code = ("class Base:\n    def __init__(self):\n        pass\n\n"
            "class Child(Base):\n    def __init__(self):\n        super().__init__()\n\n"
            "def make():\n    return Child()\n")
    graph, _ = build_graph([parse_python("shapes.py", code, "shapes")])
    assert edges(graph, "CALLS") == {
        ("py:shapes.make|FUNCTION", "CALLS", "py:shapes.Child|CLASS"),
        ("py:shapes.Child.__init__|METHOD", "CALLS", "py:shapes.Base.__init__|METHOD"),
    }


COMPAT = """import sys
import warnings
from typing import TYPE_CHECKING

if sys.version_info[0] == 2:
    def iteritems(d):
        return d.iteritems()
else:
    def iteritems(d):
        return iter(d.items())

try:
    from fastjson import loads
except ImportError:
    def loads(text):
        return parse_slowly(text)


def parse_slowly(text):
    return text.split()


if TYPE_CHECKING:
    class Loader:
        def load(self, text): ...


class Box:
    if sys.version_info >= (3, 8):
        def size(self):
            return len(self.items())

    def items(self):
        return list(iteritems({}))


with warnings.catch_warnings():
    warnings.simplefilter("ignore")

    def quiet_loads(text):
        return loads(text)
"""
USE = """from compat import iteritems, loads, Box


def count(d):
    return sum(1 for _ in iteritems(d))


def read(text):
    return loads(text), Box().size()
"""


def test_definitions_under_if_try_and_with_are_symbols_of_their_own():
    """`if PY2: def iteritems`, an `except ImportError:` fallback, a `TYPE_CHECKING` protocol,
    a method under a version check and a function defined under `with` each get a node and a chunk; a call reaches the function,
    not the module that holds it (which it did, as if `count` called `compat`). Of two
    definitions of one name the first is the node; the second stays in the module's text."""
    graph, _ = build_graph([parse_python("compat.py", COMPAT, "compat"), parse_python("use.py", USE, "use")])
    spans = {n: (d["start_line"], d["end_line"]) for n, d in graph.nodes(data=True) if n.startswith("py:compat")}
    assert spans == {
        "py:compat|MODULE": (1, 42), "py:compat.iteritems|FUNCTION": (6, 7), "py:compat.loads|FUNCTION": (15, 16),
        "py:compat.parse_slowly|FUNCTION": (19, 20), "py:compat.Loader|CLASS": (24, 25),
        "py:compat.Loader.load|METHOD": (25, 25), "py:compat.Box|CLASS": (28, 34),
        "py:compat.Box.size|METHOD": (30, 31), "py:compat.Box.items|METHOD": (33, 34),
        "py:compat.quiet_loads|FUNCTION": (40, 41),
    }
    assert edges(graph, "CALLS") >= {
        ("py:use.count|FUNCTION", "CALLS", "py:compat.iteritems|FUNCTION"),
        ("py:use.read|FUNCTION", "CALLS", "py:compat.loads|FUNCTION"),
        ("py:use.read|FUNCTION", "CALLS", "py:compat.Box.size|METHOD"),
        ("py:compat.loads|FUNCTION", "CALLS", "py:compat.parse_slowly|FUNCTION"),
        ("py:compat.Box.items|METHOD", "CALLS", "py:compat.iteritems|FUNCTION"),
        ("py:compat.quiet_loads|FUNCTION", "CALLS", "py:compat.loads|FUNCTION"),
    }
    assert not {(u, v) for u, _, v in edges(graph, "CALLS") if v == "py:compat|MODULE"}
    chunks = {c.node_id: c.text for c in build_chunks(graph, {"compat.py": COMPAT, "use.py": USE}, token_counter(), 400, 8)}
    assert "return parse_slowly(text)" in chunks["py:compat.loads|FUNCTION"]
    module = chunks["py:compat|MODULE"]
    assert "[function iteritems: own chunk]" in module and "return d.iteritems()" not in module
    assert "return iter(d.items())" in module  # the second definition of the name


def test_syntax_error_raises_for_the_caller_to_degrade():
    with pytest.raises(SyntaxError):
        parse_python("billing/legacy.py", (SAMPLE_REPO / "billing/legacy.py").read_text(), "billing.legacy")


def test_inherited_framework_methods_are_not_guessed_by_name():
    """Regression: `self.save()` in a Django model resolved to an unrelated DiskCache.save."""
    models = ("from django.db import models\n\nclass Order(models.Model):\n"
              "    def place(self):\n        self.save()\n")
    cache = "class DiskCache:\n    def save(self):\n        pass\n"
    graph, _ = build_graph([parse_python("shop/models.py", models, "shop.models"),
                            parse_python("shop/cache.py", cache, "shop.cache")])
    assert not edges(graph, "CALLS")


def test_scope_names_bind_through_every_expression_and_not_through_loads():
    # The walk skips leaves (contexts, operators, constants): a binding nested anywhere in an
    # expression is still met, and a name only read, stored into or deleted through is not bound.
    import ast

    from ragstream.index.python.syntax import scope_names

    tree = ast.parse(
        "def f(p, *, k=lambda q: q):\n"
        "    global g\n"
        "    a.b = 1\n"
        "    c[0] += 2\n"
        "    if (w := -len(x)) > 1 and not [z for z in y if (v := z)]:\n"
        "        yield {**d}\n"
        "    for (i, *j) in e: del h[i]\n"
        "    g = 3\n"
    )
    scopes = scope_names(tree)
    function = tree.body[0]
    names = scopes[function]
    assert names.bound == {"p", "k", "w", "z", "v", "i", "j"}
    assert names.declared == {"g": "global"} and names.generator
    assert scopes[tree].bound == {"f"}
    lambda_ = next(n for n in ast.walk(function) if isinstance(n, ast.Lambda))
    assert scopes[lambda_].bound == {"q"}
