"""The package version (one place; setup.cfg reads it without importing the package)."""

__version__ = "0.1.0"
