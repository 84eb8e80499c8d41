"""The version of tracediff, in a module of its own.

So that nothing imports the package for it."""

__version__ = "0.2.0"
