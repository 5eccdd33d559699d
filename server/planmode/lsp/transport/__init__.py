"""How messages reach the server: Content-Length framing (:mod:`.framing`), the agent
endpoint (:mod:`.endpoint`) and its client (:mod:`.discovery`), and ``planmode lsp --tcp``
(:mod:`.tcp`); stdio is pygls's own loop over :mod:`.framing`'s stream. Import-free, as is
``planmode.lsp``: the CLI imports framing and discovery (stdlib only) without pygls."""
