"""The pygls layer: thin wiring from LSP messages to the core service."""
