"""Razor views (`.cshtml`, `.razor`): the markup as one text FILE node, and what it points at in
the C# code as references that `graph_build` resolves.

- `@model`, `@inject` -> REFERENCES to each type named; `@inherits` -> INHERITS, `@implements`
  -> IMPLEMENTS (graph_build turns an INHERITS to an interface into IMPLEMENTS as for C#).
- Handlers -> CALLS to the C# method that runs: Razor Pages `asp-page-handler` (the `@model`'s
  `OnPost<H>` / `OnGet<H>`, GET first on a link), MVC `asp-action` / `asp-controller`,
  `Html.BeginForm`, `Html.ActionLink`, `Url.Action`, `Html.Action`, `Html.RenderAction`
  (`<C>Controller.<A>` or `<A>Async`), Blazor `@onclick="Save"` / `@onclick="() => Save()"` and
  `EditForm`'s `OnValidSubmit` (the component's class, i.e. its `X.razor.cs` code-behind, or an
  `@inherits` base; a handler declared in the file's own `@code` block stays in its text).
- Partial views (`Html.Partial`, `<partial name>`) and `asp-page` -> REFERENCES to the view file;
  the code-behind (`Edit.cshtml.cs`, `Counter.razor.cs`) -> REFERENCES to its C# FILE node.

Names are qualified the way the Razor compiler places a view: in the namespace its folder path
gives (every suffix of the folder, since the project's root folder is not known to one file),
in `@namespace`, then by the file's `@using`s; controllers in `<root>.Controllers` beside the
`Views` folder or beside a `@using` namespace. A type (`@model Invoice`, often imported by
`_ViewImports.cshtml`, which one file cannot see) falls back to a unique short name, which
graph_build marks as a guess. Methods never do: a handler whose class is not found makes no
edge. A controller taken from the view's folder
(`Views/Invoices/Edit.cshtml` -> `InvoicesController`) is a convention: its edges carry
`guess=True` and `controller_from="folder"`. Every edge carries `via` (the construct).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from ragstream.index.model import ParsedFile, Reference, file_node

LANGUAGE = "razor"

_DIRECTIVE = re.compile(
    r"(?m)^[ \t]*@(model|inject|inherits|implements|using|namespace)[ \t]+([^\n;]+?)[ \t]*;?[ \t]*$")
_TYPE_NAME = re.compile(r"[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*")
_KEYWORDS = frozenset({"bool", "byte", "sbyte", "char", "decimal", "double", "float", "int", "uint",
                       "long", "ulong", "short", "ushort", "string", "object", "dynamic", "global",
                       "nint", "nuint", "var"})
_TAG = re.compile(r"<([A-Za-z][\w:.-]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>")
_ATTRIBUTE = re.compile(r"([@\w:.-]+)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")
_HELPER = re.compile(r"\b(Html\.(?:ActionLink|BeginForm|Action|RenderAction|Partial|PartialAsync"
                     r"|RenderPartial|RenderPartialAsync)|Url\.Action)\s*\(")
_STRING = re.compile(r'^@?"([^"]*)"$')
# Helpers whose first string argument is the action (ActionLink's is the link text).
_ACTION_ARGUMENT = {"Html.ActionLink": 1, "Html.BeginForm": 0, "Html.Action": 0,
                    "Html.RenderAction": 0, "Url.Action": 0}
_EVENT_ATTRIBUTE = re.compile(r"^(@on[a-z]+|OnValidSubmit|OnInvalidSubmit|OnSubmit)$")
_METHOD_GROUP = re.compile(r"\(?\s*([A-Za-z_]\w*)\s*\)?")
_LAMBDA_CALL = re.compile(r"=>\s*(?:await\s+)?([A-Za-z_]\w*)\s*\(")
_CODE_BLOCK = re.compile(r"@(?:code|functions)\s*\{")
_DECLARED_METHOD = re.compile(r"(?m)^[ \t]*(?:[\w<>\[\]?,.]+[ \t]+)+([A-Za-z_]\w*)[ \t]*\(")
_NOT_METHODS = frozenset({"if", "while", "for", "foreach", "switch", "using", "return", "catch",
                          "lock", "await", "new", "nameof", "typeof", "when"})
_VIEW_ROOTS = ("Views", "Pages")
_PAGE = re.compile(r"(?m)^[ \t]*@page\b")


@dataclass(frozen=True)
class View:
    """Where a view sits and what it declares: what its names are qualified by."""

    path: str
    source: str  # the FILE node's id
    component: str  # the class the view compiles to: its file name (Counter.razor -> Counter)
    directives: tuple[tuple[str, str, int], ...]  # (keyword, value, line)
    namespaces: tuple[str, ...]  # where a type written in the view is looked up, in order
    controller_namespaces: tuple[str, ...]
    folder_controller: str | None  # Views/<X>/... -> X (not Shared)
    app_root: tuple[str, ...]  # the folders above the Views / Pages folder
    view_folders: tuple[str, ...]  # where a partial view's bare name is looked up
    code_methods: frozenset[str]  # methods declared in the file's @code / @functions blocks
    may_have_code_behind: bool  # a component or a Razor Page (an MVC view never has one)

    def values(self, keyword: str) -> list[tuple[str, int]]:
        return [(value, line) for key, value, line in self.directives if key == keyword]


def parse_razor(path: str, text: str) -> ParsedFile:
    """The view as one FILE node (chunked as text) with its references to C# code and views."""
    file = file_node(path, text.count("\n") + 1, LANGUAGE)
    view = _view(path, file.id, text)
    references = [*_directive_references(view), *_code_behind_references(view),
                  *_tag_references(view, text), *_helper_references(view, text)]
    return ParsedFile(path=path, language=LANGUAGE, root_id=file.id, nodes=[file],
                      references=references)


def _view(path: str, source: str, text: str) -> View:
    """The view's directives and the names its place in the project gives it."""
    directives = tuple((m.group(1), m.group(2).strip(), _line(text, m.start()))
                       for m in _DIRECTIVE.finditer(text))
    folders = PurePosixPath(path).parent.parts
    cut = next((i for i, part in enumerate(folders) if part in _VIEW_ROOTS), len(folders))
    root, under = folders[:cut], folders[cut + 1:]
    declared = [value for key, value, _ in directives if key == "namespace"]
    usings = [value for key, value, _ in directives if key == "using" and _is_name(value)]
    is_mvc_view = cut < len(folders) and folders[cut] == "Views"
    shared = ["/".join([*folders[:cut + 1], "Shared"])] if cut < len(folders) else []
    return View(
        path=path, source=source, component=PurePosixPath(path).name.split(".", 1)[0],
        directives=directives,
        namespaces=_unique([*declared, *_suffixes(folders), *usings]),
        controller_namespaces=_unique([*(f"{s}.Controllers" for s in _suffixes(root)),
                                       *(f"{p}.Controllers" for u in usings for p in _prefixes(u)),
                                       *usings]),
        folder_controller=under[0] if is_mvc_view and under and under[0] != "Shared" else None,
        app_root=root,
        view_folders=_unique(["/".join(folders), *shared]),
        code_methods=_code_methods(text),
        may_have_code_behind=path.endswith(".razor") or _PAGE.search(text) is not None,
    )


def _directive_references(view: View) -> list[Reference]:
    """@model / @inject types, @inherits base, @implements interfaces (the view's own class,
    as in `ILogger<Counter>`, is left out: it is this file)."""
    refs = []
    for keyword, edge_type in (("model", "REFERENCES"), ("inject", "REFERENCES"),
                               ("inherits", "INHERITS"), ("implements", "IMPLEMENTS")):
        for value, line in view.values(keyword):
            written = value.rsplit(None, 1)[0] if keyword == "inject" else value
            refs += [_type_reference(view, edge_type, name, line, f"@{keyword}")
                     for name in _type_names(written) if name != view.component]
    return refs


def _code_behind_references(view: View) -> list[Reference]:
    """The view's code-behind file (`Edit.cshtml.cs`, `Counter.razor.cs`), when there is one."""
    if not view.may_have_code_behind:
        return []
    return [Reference(source=view.source, edge_type="REFERENCES", target=f"{view.path}.cs",
                      target_language="csharp", candidates=(f"{view.path}.cs",),
                      target_kinds=("FILE",), external=False, attrs={"via": "code-behind"})]


def _type_reference(view: View, edge_type: str, name: str, line: int, via: str) -> Reference:
    return Reference(
        source=view.source, edge_type=edge_type, target=name, target_language="csharp",
        candidates=_qualified(name, view.namespaces), target_kinds=("TYPE",), by_name=True,
        line=line, attrs={"via": via})


def _tag_references(view: View, text: str) -> list[Reference]:
    """Tag helpers and event attributes, read per tag so asp-action meets its asp-controller."""
    refs = []
    for tag in _TAG.finditer(text):
        attributes = {m.group(1): m.group(2) if m.group(2) is not None else m.group(3)
                      for m in _ATTRIBUTE.finditer(tag.group(2))}
        line = _line(text, tag.start())
        if "asp-action" in attributes:
            refs += _action_references(view, attributes["asp-action"],
                                       attributes.get("asp-controller"), line, "asp-action")
        if "asp-page-handler" in attributes and not attributes.get("asp-page"):
            refs += _page_handler_references(view, attributes["asp-page-handler"],
                                             tag.group(1).lower() == "a", line)
        if attributes.get("asp-page"):
            refs += _view_references(view, _page_paths(view, attributes["asp-page"]), line, "asp-page")
        if tag.group(1) == "partial" and attributes.get("name"):
            refs += _view_references(view, _partial_paths(view, attributes["name"]), line, "partial")
        for name, value in attributes.items():
            if view.path.endswith(".razor") and _EVENT_ATTRIBUTE.match(name):
                refs += _event_references(view, value, line, name)
    return refs


def _helper_references(view: View, text: str) -> list[Reference]:
    """`Html.*` and `Url.Action` calls whose action, controller or view name is a string literal."""
    refs = []
    for call in _HELPER.finditer(text):
        helper, line = call.group(1), _line(text, call.start())
        strings = [_literal(a) for a in _arguments(text, call.end())]
        if "Partial" in helper:
            if strings and strings[0]:
                refs += _view_references(view, _partial_paths(view, strings[0]), line, "partial")
            continue
        index = _ACTION_ARGUMENT[helper]
        action = strings[index] if len(strings) > index else None
        if action:
            controller = strings[index + 1] if len(strings) > index + 1 else None
            refs += _action_references(view, action, controller, line, helper)
    return refs


def _action_references(view: View, action: str, controller: str | None, line: int,
                       via: str) -> list[Reference]:
    """An MVC action: `<controller>Controller.<action>` (or `<action>Async`); the controller is
    the view's folder's by convention when the view does not name it."""
    attrs: dict = {"via": via}
    if not controller:
        controller = view.folder_controller
        attrs.update(guess=True, controller_from="folder")
    if not controller or not _is_name(action):
        return []
    types = _qualified(f"{controller}Controller", view.controller_namespaces)
    return [_method_reference(view, f"{controller}Controller.{action}", types,
                              (action, f"{action}Async"), line, attrs)]


def _page_handler_references(view: View, handler: str, is_link: bool, line: int) -> list[Reference]:
    """A Razor Pages handler on the page model (`@model`): OnPost<H> / OnGet<H>, async or not."""
    models = view.values("model")
    if not models or not _is_name(handler):
        return []
    model = _type_names(models[0][0])[0]
    verbs = ("Get", "Post") if is_link else ("Post", "Get")
    methods = tuple(f"On{verb}{handler}{suffix}" for verb in verbs for suffix in ("", "Async"))
    return [_method_reference(view, f"{model}.{methods[0]}", _qualified(model, view.namespaces),
                              methods, line, {"via": "asp-page-handler"})]


def _event_references(view: View, value: str, line: int, via: str) -> list[Reference]:
    """A Blazor event handler: a method of the component's class (its code-behind partial) or
    of an @inherits base; none when the file's own @code block declares it."""
    method = _handler_name(value)
    if method is None or method in view.code_methods:
        return []
    types = _unique([*_qualified(view.component, view.namespaces),
                     *(c for base, _ in view.values("inherits")
                       for name in _type_names(base)[:1] for c in _qualified(name, view.namespaces))])
    return [_method_reference(view, f"{view.component}.{method}", tuple(types), (method,), line,
                              {"via": via})]


def _method_reference(view: View, target: str, types: tuple[str, ...], methods: tuple[str, ...],
                      line: int, attrs: dict) -> Reference:
    """CALLS to the first of `methods` on the first of `types` that exists; nothing otherwise
    (a short-name guess would link to any same-named method)."""
    return Reference(
        source=view.source, edge_type="CALLS", target=target, target_language="csharp",
        candidates=tuple(f"{t}.{m}" for t in types for m in methods), target_kinds=("METHOD",),
        external=False, line=line, attrs=attrs)


def _view_references(view: View, paths: list[str], line: int, via: str) -> list[Reference]:
    return [Reference(source=view.source, edge_type="REFERENCES", target=paths[0],
                      target_language=LANGUAGE, candidates=tuple(paths), target_kinds=("FILE",),
                      external=False, line=line, attrs={"via": via})] if paths else []


def _partial_paths(view: View, name: str) -> list[str]:
    """Where a partial view named `name` may be: an app-relative path (`~/Views/...`), else the
    view's own folder, then the Shared folder of its Views/Pages root."""
    file = name if name.endswith((".cshtml", ".razor")) else f"{name}.cshtml"
    if name.startswith(("~/", "/")):
        return [_app_path(view, file.lstrip("~/"))]
    return [f"{folder}/{file}".lstrip("/") for folder in view.view_folders]


def _page_paths(view: View, page: str) -> list[str]:
    """`asp-page="/Invoices/Edit"` -> <root>/Pages/Invoices/Edit.cshtml."""
    return [_app_path(view, f"Pages/{page.strip('/')}.cshtml")] if page.startswith("/") else []


def _app_path(view: View, relative: str) -> str:
    """A path relative to the application root: the folder holding the Views/Pages folder."""
    return "/".join([*view.app_root, relative])


def _handler_name(value: str) -> str | None:
    """`Save`, `@Save`, `@(Save)`, `() => Save()`, `@(async e => await Save(e))` -> Save."""
    expression = value.strip().lstrip("@")
    found = _METHOD_GROUP.fullmatch(expression) or _LAMBDA_CALL.search(expression)
    return found.group(1) if found else None


def _code_methods(text: str) -> frozenset[str]:
    """Names of methods declared after the first @code / @functions block opens."""
    start = _CODE_BLOCK.search(text)
    if start is None:
        return frozenset()
    names = (m.group(1) for m in _DECLARED_METHOD.finditer(text, start.end()))
    return frozenset(n for n in names if n not in _NOT_METHODS)


def _arguments(text: str, start: int) -> list[str]:
    """The top-level arguments of the call whose `(` ends just before `start`."""
    arguments: list[str] = []
    current: list[str] = []
    depth, quote = 0, ""
    for char in text[start:start + 2000]:
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif char == "," and depth == 0:
            arguments.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    return [*arguments, "".join(current).strip()]


def _literal(argument: str) -> str | None:
    found = _STRING.match(argument)
    return found.group(1) if found else None


def _type_names(written: str) -> list[str]:
    """Every type a written type names, outer first: `PagedList<Models.User>` -> PagedList,
    Models.User (C# keywords and `global::` left out)."""
    names = (re.sub(r"\s+", "", m.group(0)) for m in _TYPE_NAME.finditer(written.replace("global::", "")))
    return [n for n in names if n not in _KEYWORDS]


def _qualified(name: str, namespaces: tuple[str, ...]) -> tuple[str, ...]:
    return _unique([*(f"{ns}.{name}" for ns in namespaces), name])


def _prefixes(namespace: str) -> list[str]:
    """`A.B.C` -> A.B.C, A.B, A: the namespaces enclosing a namespace, innermost first."""
    parts = namespace.split(".")
    return [".".join(parts[:i]) for i in range(len(parts), 0, -1)]


def _suffixes(folders: tuple[str, ...]) -> list[str]:
    """`a/b/c` -> a.b.c, b.c, c: the namespace a folder gives under any project root folder."""
    return [".".join(folders[i:]) for i in range(len(folders))]


def _is_name(value: str) -> bool:
    return re.fullmatch(r"[A-Za-z_][\w.]*", value) is not None


def _unique(items: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1
