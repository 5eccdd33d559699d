"""How messages reach the server: Content-Length framing (:mod:`.framing`, stdlib only), the
agent endpoint (:mod:`.endpoint`) and ``planmode lsp --tcp`` (:mod:`.tcp`); stdio is pygls's
own loop over :mod:`.framing`'s stream. Import-free, so that the CLI can read framing without
pygls."""
