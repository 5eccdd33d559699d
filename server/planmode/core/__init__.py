"""Plan mode itself, with no transport: pure Python, no pygls import below here."""
