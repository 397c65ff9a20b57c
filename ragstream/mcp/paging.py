"""Results cut to a client's token budget, never silently: the items that fit go now, the rest
wait behind a cursor that the `more` tool takes.

Items are taken whole, in order, while their JSON fits what the budget leaves after the reply's
head (the answer of `ask`, a search's debug record). A page always holds at least one item, so
an item bigger than the budget comes alone rather than never. Cursors are random, held in this
process for the last KEPT results only (an agent pages on at once; an old cursor is an error
that says to ask again), and a cursor is the only key to its items.
"""
from __future__ import annotations

import json
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ragstream.errors import RetrievalError

KEPT = 64  # results whose later pages are held


@dataclass(frozen=True)
class Page:
    items: list[dict[str, Any]]
    total: int
    offset: int
    more: str | None  # the cursor of the next page; None on the last one


@dataclass
class _Rest:
    tool: str
    items: list[dict[str, Any]]
    total: int
    offset: int


class Pager:
    """Pages of results under a token budget (`count` counts a text's tokens)."""

    def __init__(self, count: Callable[[str], int]):
        self._count = count
        self._held: OrderedDict[str, _Rest] = OrderedDict()
        self._lock = threading.Lock()

    def first(self, tool: str, items: Sequence[dict[str, Any]], max_tokens: int, head: Any = None) -> Page:
        """The first page of `items` within `max_tokens`, less what `head` (the rest of the reply)
        takes."""
        room = max_tokens - (self.tokens(head) if head is not None else 0)
        return self._page(_Rest(tool, list(items), len(items), 0), room)

    def next(self, cursor: str, max_tokens: int) -> tuple[str, Page]:
        """(the tool, the next page) of the result behind `cursor`; a RetrievalError for a cursor
        this server does not hold (unknown, used up or too old)."""
        with self._lock:
            rest = self._held.pop(cursor, None)
        if rest is None:
            raise RetrievalError(f"no result is held under cursor {cursor!r} (each cursor is used once, and only "
                                 f"the last {KEPT} results are kept)", where="cursor",
                                 hint="call the tool again, with a larger max_tokens if the page was too small")
        return rest.tool, self._page(rest, max_tokens)

    def tokens(self, value: Any) -> int:
        return self._count(json.dumps(value, ensure_ascii=False, default=str))

    def _page(self, rest: _Rest, room: int) -> Page:
        taken, used = 0, 0
        for item in rest.items:
            cost = self.tokens(item)
            if taken and used + cost > room:
                break
            taken, used = taken + 1, used + cost
        page, left = rest.items[:taken], rest.items[taken:]
        cursor = None
        if left:
            cursor = secrets.token_urlsafe(12)
            with self._lock:
                self._held[cursor] = _Rest(rest.tool, left, rest.total, rest.offset + taken)
                while len(self._held) > KEPT:
                    self._held.popitem(last=False)
        return Page(page, rest.total, rest.offset, cursor)
