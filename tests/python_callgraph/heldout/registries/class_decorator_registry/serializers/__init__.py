from .registry import get_serializer, register
from . import formats

__all__ = ["get_serializer", "register", "formats"]
