"""Claude Code sessions recorded from the real CLI (2.1.197, 2.1.332), replayed through
``planmode hook`` as Claude Code runs it: ``hook_payloads/claude_code/<version>/`` holds each
version's hook payloads in order and its transcript, with the workspace, home and session id
replaced by placeholders. tests/e2e/conftest.py's ``recorded`` fixture places one session per
recorded version in the test's workspace and home."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RECORDED = Path(__file__).parent.parent / "hook_payloads" / "claude_code"
VERSIONS = sorted(p.name for p in RECORDED.iterdir() if p.is_dir())


@dataclass
class Recorded:
    """One recorded Claude Code session, placed in this test's workspace and home."""

    version: str
    root: Path
    home: Path
    session_id: str

    def text(self, name: str) -> str:
        raw = (RECORDED / self.version / name).read_text()
        return (
            raw.replace("WORKSPACE", str(self.root))
            .replace("HOME", str(self.home))
            .replace("SESSION_ID", self.session_id)
        )

    def event(self, event: str, tool: str | None = None, **changes: Any) -> dict[str, Any]:
        """The first recorded payload of ``event`` (for ``tool``) matching ``changes``' keys
        named ``where_*``, with the other ``changes`` applied."""
        where = {k[6:]: v for k, v in changes.items() if k.startswith("where_")}
        for path in sorted((RECORDED / self.version).glob(f"*_{event}_*.json")):
            payload = json.loads(self.text(path.name))
            if tool is not None and payload.get("tool_name") != tool:
                continue
            if all(where_holds(payload, k, v) for k, v in where.items()):
                payload.update({k: v for k, v in changes.items() if not k.startswith("where_")})
                return payload
        raise AssertionError(f"no recorded {event} {tool} {where} for {self.version}")

    @property
    def transcript(self) -> Path:
        return Path(self.event("PreToolUse", "Read")["transcript_path"])

    def write_transcript(self, lines: int | None = None) -> None:
        """The recorded transcript where Claude Code keeps it (its first ``lines`` only)."""
        recorded = self.text("transcript.jsonl").splitlines(keepends=True)
        self.transcript.parent.mkdir(parents=True, exist_ok=True)
        self.transcript.write_text("".join(recorded[:lines]))

    @property
    def plan_file(self) -> Path:
        return Path(self.event("PermissionRequest", "ExitPlanMode")["tool_input"]["planFilePath"])

    @property
    def env(self) -> dict[str, str]:
        """Claude Code's environment for its hooks (a private HOME, no CLAUDE_CONFIG_DIR)."""
        env = {**os.environ, "HOME": str(self.home), "CLAUDE_PROJECT_DIR": str(self.root)}
        env.pop("CLAUDE_CONFIG_DIR", None)
        return env


def where_holds(payload: dict[str, Any], key: str, value: Any) -> bool:
    if key == "file_path":
        return bool(payload.get("tool_input", {}).get("file_path", "").endswith(value))
    return payload.get(key) == value


def hook(recorded: Recorded, event: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "planmode", "hook"],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        timeout=60,
        env=recorded.env,
        cwd=event.get("cwd"),
    )


async def ask(recorded: Recorded, event: dict[str, Any]) -> dict[str, Any] | None:
    result = await asyncio.get_running_loop().run_in_executor(None, hook, recorded, event)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout) if result.stdout else None


def decision_of(output: dict[str, Any] | None) -> str | None:
    return None if output is None else output["hookSpecificOutput"]["permissionDecision"]
