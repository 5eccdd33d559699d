"""The server's features, one module each (pygls's examples, esbonio's ``features/``): each
registers its handlers in ``register(server)`` (lsp/app.py lists them). Import-free."""
