"""Thirteen Arena: bots play Friday the 13th, 13 and the 13thg board games."""

__version__ = "0.1.0"
