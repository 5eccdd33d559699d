"""The editor's open buffers, as the LSP layer tells the service about them
(lsp/features/buffers.py): what the user types there is theirs (core/provenance.py)."""

from __future__ import annotations

from pathlib import Path

from planmode.core.service import PlanModeService


class Buffers:
    def __init__(self, service: PlanModeService) -> None:
        self.service = service
        self.texts: dict[Path, str] = {}
        service.open_document_text = self.texts.get

    def open(self, path: Path) -> None:
        """The editor opens the plan as the file holds it."""
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        self.texts[path] = text
        self.service.editor_opened(path, text)

    def type(self, path: Path, text: str) -> None:
        """The user types in the buffer until it holds ``text`` (unsaved)."""
        if path not in self.texts:
            self.open(path)
        self.texts[path] = text
        disk = path.read_text(encoding="utf-8") if path.exists() else None
        self.service.editor_changed(path, text, disk)

    def reload(self, path: Path) -> None:
        """The editor reloads the file, which someone else changed."""
        text = path.read_text(encoding="utf-8")
        self.texts[path] = text
        self.service.editor_changed(path, text, text)

    def close(self, path: Path) -> None:
        self.texts.pop(path, None)
