from .environment import Environment, Template

__all__ = ["Environment", "Template"]
