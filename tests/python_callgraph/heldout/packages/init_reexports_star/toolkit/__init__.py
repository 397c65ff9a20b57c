"""Public API: everything users need, re-exported from the submodules."""
from .text import *
from .numbers import *
from .numbers import round_half_up as round_price
from . import dates

__version__ = "1.0"
