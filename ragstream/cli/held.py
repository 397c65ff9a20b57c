"""The controller a `ragstream serve` process holds for the commands it runs for its clients
(`resident`): a command run there uses it, its indexes loaded, instead of making its own."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ragstream.config import Settings

if TYPE_CHECKING:
    from ragstream.controller import Controller

_HELD: Controller | None = None  # this process's controller, when it is a server


def pinned(settings: Settings) -> Settings:
    """The settings with the data folder made absolute (from the working folder): what two
    processes compare to know that they ask the same indexes the same way."""
    data_dir = str(Path(settings.index.data_dir).expanduser().resolve())
    return replace(settings, index=replace(settings.index, data_dir=data_dir))


def held(settings: Settings) -> Controller | None:
    """The server's controller when it was made from these settings; None in a plain CLI
    process or for other settings."""
    if _HELD is not None and pinned(_HELD.settings) == pinned(settings):
        return _HELD
    return None


def hold(controller: Controller | None) -> None:
    """Make `controller` the one commands run in this process use (None: none)."""
    global _HELD
    _HELD = controller
