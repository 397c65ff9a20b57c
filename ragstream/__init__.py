"""ragstream: ask questions about a real codebase and see how the answer's context was made."""
from ragstream import offline

offline.enforce()

__version__ = "0.1.0"
