from .escape import escape
from .render import render

__all__ = ["escape", "render"]
