"""What makes a C# method an HTTP entry point, and for which verb (attrs `entry` of a METHOD).

A flow question ("how is an order created, from the API down to the tables?") starts at the
action that handles the request, which the search's best word match often is not. ASP.NET says
what an action is in a few ways, all read here from the syntax:

- an attribute: `[HttpPost]`, `[HttpGet("{id}")]`, `[AcceptVerbs("PUT")]` (kind `action`);
- a public method of a controller (a type whose name or base ends in `Controller`, or that has
  `[ApiController]`), with no verb attribute: any verb (kind `action`);
- a Razor Pages handler `OnGet` / `OnPostDelete[Async]` in a `PageModel` (kind `page_handler`);
- a minimal API method group `app.MapPost("/", CreateOrder)` / `group.MapPost(CreateOrder)`
  naming a method of the same type (kind `minimal_api`);
- an endpoint class that registers its route with a verb call in its own code
  (`Post("/orders")` in `Configure()`, as FastEndpoints does): its `HandleAsync` /
  `ExecuteAsync` (kind `endpoint`);
- a Web Forms page's or user control's event handler (a method `(object sender, XEventArgs e)` of
  a type deriving from a `...Page`, `UserControl` or `MasterPage`): a postback, verb POST (kind
  `event_handler`: `btnSave_Click`), except the page's life-cycle handlers (`Page_Load`,
  `Page_Init`, ...), which run for every request (verb ANY, kind `page_event`);
- an HTTP handler's `ProcessRequest(HttpContext)` (`ProcessRequestAsync`) in a type implementing
  `IHttpHandler` / `IHttpAsyncHandler` or deriving from `HttpTaskAsyncHandler` (an `.ashx`; kind
  `http_handler`, verb ANY), and an ASMX service's or page's `[WebMethod]` (kind `web_method`, POST);
- a public method of a SignalR hub (a type deriving from `Hub` or `Hub<T>`): what a client invokes
  over the hub's connection (kind `hub_method`, verb ANY).

`entry = {"verb": GET|POST|PUT|DELETE|PATCH|ANY, "kind": ..., "route": str (when written),
"who": [roles and policies of `[Authorize]` on the method or its type] (when written)}`: who may
call it is part of what an entry point is ("when a moderator saves a post" is the action only
moderators may call).
"""
from __future__ import annotations

import re

import tree_sitter

from ragstream.index.csharp.declarations import TypeDecl
from ragstream.index.csharp.attributes import attributes
from ragstream.index.csharp.strings import string_value
from ragstream.index.csharp.syntax import call_arguments, callee_of, descendants, node_text, type_name

VERBS = ("GET", "POST", "PUT", "DELETE", "PATCH")
_VERB_ATTRIBUTE = re.compile(r"^Http(Get|Post|Put|Delete|Patch)(Attribute)?$")
_PAGE_HANDLER = re.compile(r"^On(Get|Post|Put|Delete|Patch)(\w*?)(Async)?$")
_MAP_CALL = re.compile(r"^Map(Get|Post|Put|Delete|Patch)$")
_HANDLER_METHODS = frozenset({"HandleAsync", "ExecuteAsync", "Handle", "Execute"})


def type_entries(decl: TypeDecl) -> dict[str, dict]:
    """Entries a type registers for its own methods: minimal API method groups by method name,
    and an endpoint class's handler methods (`*` stands for them)."""
    found: dict[str, dict] = {}
    for method in decl.methods:
        for node in descendants(method):
            callee = callee_of(node)
            name = type_name(callee[1]) if callee else None
            if callee is None or not name:
                continue
            mapped = _MAP_CALL.match(name)
            argument_list = node.child_by_field_name("arguments")
            arguments = call_arguments(argument_list) if argument_list is not None else []
            if mapped:
                route = next((string_value(v, {}) for _, v in arguments if string_value(v, {}) is not None), None)
                for _, value in arguments:
                    if value.type == "identifier":
                        found[node_text(value)] = _entry(mapped.group(1), "minimal_api", route)
            elif callee[0] is None and name.upper() in VERBS and arguments:
                found["*"] = _entry(name, "endpoint", string_value(arguments[0][1], {}))
    return found


def entry_point(syntax: tree_sitter.Node, name: str, decl: TypeDecl, registered: dict[str, dict]) -> dict | None:
    """The `entry` attrs of a method, or None when it is no entry point."""
    entry = _entry_of(syntax, name, decl, registered)
    anonymous = any(a in ("AllowAnonymous", "AllowAnonymousAttribute") for a, _ in attributes(syntax))
    who = [] if anonymous else _authorized(syntax) + _authorized(decl.syntax)
    return entry if entry is None or not who else {**entry, "who": list(dict.fromkeys(who))}


def _entry_of(syntax: tree_sitter.Node, name: str, decl: TypeDecl, registered: dict[str, dict]) -> dict | None:
    written = attributes(syntax)
    # `[HttpGet][Route("finance/{year}/{month}")]`: the route may stand in an attribute of its own
    routed = next((_values(arguments)[0] for attribute, arguments in written
                   if attribute in ("Route", "RouteAttribute") and _values(arguments)), None)
    for attribute, arguments in written:
        verb = _VERB_ATTRIBUTE.match(attribute)
        if verb:
            return _entry(verb.group(1), "action", next(iter(_values(arguments)), routed))
        if attribute in ("AcceptVerbs", "AcceptVerbsAttribute") and _values(arguments):
            return _entry(_values(arguments)[0], "action", None)
    if name in registered:
        return registered[name]
    if name in _HANDLER_METHODS and "*" in registered:
        return registered["*"]
    page = _PAGE_HANDLER.match(name)
    if page and any(base.endswith("PageModel") for base in decl.bases):
        return _entry(page.group(1), "page_handler", None)
    if _is_web_form(decl) and _handles_event(syntax):
        if _event_arguments(syntax) in NOT_ACTIONS:
            return None
        return _entry("ANY", "page_event", None) if name.startswith("Page_") else _entry("POST", "event_handler", None)
    if name in _HTTP_HANDLER_METHODS and any(base.rsplit(".", 1)[-1] in HTTP_HANDLER_BASES for base in decl.bases):
        return _entry("ANY", "http_handler", None)
    if any(a in ("WebMethod", "WebMethodAttribute") for a, _ in written):
        return _entry("POST", "web_method", None)
    public = "public" in (node_text(child) for child in syntax.children if child.type == "modifier")
    if public and syntax.type == "method_declaration" and any(base.rsplit(".", 1)[-1] == "Hub" for base in decl.bases) \
            and "static" not in (node_text(child) for child in syntax.children if child.type == "modifier"):
        return _entry("ANY", "hub_method", None)
    if public and syntax.type == "method_declaration" and _is_controller(decl) \
            and not any(a in ("NonAction", "NonActionAttribute") for a, _ in written):
        return _entry("ANY", "action", None)
    return None


def _authorized(syntax: tree_sitter.Node) -> list[str]:
    """The roles and policies an `[Authorize]` on a declaration names: `[Authorize(Roles =
    "Admin,Moderator")]`, `[Authorize("Policy")]`, `[Authorize(Policy = "P")]`."""
    found = []
    for attribute, arguments in attributes(syntax):
        if attribute in ("Authorize", "AuthorizeAttribute"):
            found += [part.strip() for argument, value in arguments if argument in (None, "Roles", "Policy")
                      for part in value.split(",") if part.strip()]
    return found


def _entry(verb: str, kind: str, route: str | None) -> dict:
    found = {"verb": verb.upper() if verb.upper() in VERBS else "ANY", "kind": kind}
    if route:
        found["route"] = route
    return found


def _is_controller(decl: TypeDecl) -> bool:
    named = decl.name.rsplit(".", 1)[-1].endswith("Controller")
    return named or any(base.rsplit(".", 1)[-1].endswith(("Controller", "ControllerBase")) for base in decl.bases) \
        or any(a in ("ApiController", "ApiControllerAttribute") for a, _ in attributes(decl.syntax))


def _is_web_form(decl: TypeDecl) -> bool:
    """A Web Forms page, user control or master page (`Post : BasePage`, `Header : UserControl`)."""
    return any(base.rsplit(".", 1)[-1].endswith(WEB_FORM_BASES) for base in decl.bases)


WEB_FORM_BASES = ("Page", "UserControl", "MasterPage")
HTTP_HANDLER_BASES = frozenset({"IHttpHandler", "IHttpAsyncHandler", "HttpTaskAsyncHandler"})
_HTTP_HANDLER_METHODS = frozenset({"ProcessRequest", "ProcessRequestAsync"})


def _handles_event(syntax: tree_sitter.Node) -> bool:
    """An event handler's signature: `(object sender, EventArgs e)`, any `...EventArgs`."""
    written = _parameter_types(syntax)
    return len(written) == 2 and written[0].lower() in ("object", "system.object") and written[1].endswith("EventArgs")


def _event_arguments(syntax: tree_sitter.Node) -> str:
    """An event handler's `...EventArgs` type, without its namespace."""
    return _parameter_types(syntax)[1].rsplit(".", 1)[-1]


def _parameter_types(syntax: tree_sitter.Node) -> list[str]:
    parameters = syntax.child_by_field_name("parameters")
    return [type_name(p.child_by_field_name("type")) or node_text(p.child_by_field_name("type"))
            for p in parameters.named_children if p.type == "parameter"] if parameters is not None else []


# Web Forms events that are no request of the user's: a validator's server check, which runs inside
# the postback of the button that submits (`cvPassword_ServerValidate`), and a data-bound control's
# row being made or bound for rendering (`ItemDataBound`, `RowDataBound`, `ItemCreated`); a row's
# command (`ItemCommand`, `RowCommand`: `...CommandEventArgs`) is one.
NOT_ACTIONS = frozenset({"ServerValidateEventArgs", "RepeaterItemEventArgs", "DataListItemEventArgs",
                         "GridViewRowEventArgs", "ListViewItemEventArgs", "DataGridItemEventArgs"})


def _values(arguments: list[tuple[str | None, str]]) -> list[str]:
    return [value for _, value in arguments]
