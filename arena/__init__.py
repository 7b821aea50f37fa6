"""Thirteen Arena: bots play Friday the 13th, 13 and the 13thg board games."""

# First, before a module of the compiled engine can load: whether it runs compiled or as source.
from arena import compiled as compiled

__version__ = "0.1.0"
