"""The package version, in a module of its own so that any part of Primo can name it without importing
the package (and everything the package exports)."""
__version__ = "0.1.0"
