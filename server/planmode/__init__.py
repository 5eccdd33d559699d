"""planmode: an AI coding agent's plan mode as a language server."""

__version__ = "0.1.0"
