"""A tiny Codex command hook for the end-to-end tests: log the payload, answer as told.

``python3 log_hook.py DIR`` reads the hook payload from standard input and saves it as
``DIR/NNN_<event>[_<tool>].json`` (numbered in arrival order, written atomically). The answer
comes from ``DIR/answers.json`` if it exists: a list of rules, the first that matches wins::

    [{"event": "PreToolUse", "tool": "apply_patch", "contains": "src/app.py",
      "stdout": {...} or "text", "stderr": "…", "exit": 0, "sleep": 0.0, "once": false}]

``tool`` and ``contains`` (a substring of the payload's ``tool_input`` as JSON) are optional;
``once`` removes the rule after its first use. No rule: no output, exit 0 — the hook has no
opinion. Only the standard library: it runs under any python3.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any


def save(directory: Path, payload: dict[str, Any], raw: str) -> Path:
    event = str(payload.get("hook_event_name") or "unknown")
    tool = str(payload.get("tool_name") or "")
    name = f"{event}_{tool}" if tool else event
    # One number per payload across events (hooks of one event may run in parallel): the
    # number is reserved by creating its empty marker exclusively.
    reserved = directory / ".numbers"
    reserved.mkdir(exist_ok=True)
    for number in range(10_000):
        try:
            os.close(os.open(reserved / str(number), os.O_WRONLY | os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            continue
        path = directory / f"{number:03d}_{name}.json"
        temporary = path.with_suffix(".part")
        temporary.write_text(raw if not payload else json.dumps(payload, indent=1))
        temporary.replace(path)
        return path
    raise RuntimeError("too many payloads")


def matches(rule: dict[str, Any], payload: dict[str, Any]) -> bool:
    if rule.get("event") not in (None, payload.get("hook_event_name")):
        return False
    if rule.get("tool") not in (None, payload.get("tool_name")):
        return False
    contains = rule.get("contains")
    return contains is None or contains in json.dumps(payload.get("tool_input"))


def answer(directory: Path, payload: dict[str, Any]) -> dict[str, Any] | None:
    rules_file = directory / "answers.json"
    try:
        rules = json.loads(rules_file.read_text())
    except (OSError, ValueError):
        return None
    for index, rule in enumerate(rules):
        if matches(rule, payload):
            if rule.get("once"):
                del rules[index]
                temporary = rules_file.with_suffix(f".{os.getpid()}")
                temporary.write_text(json.dumps(rules))
                temporary.replace(rules_file)
            return dict(rule)
    return None


def main() -> int:
    directory = Path(sys.argv[1])
    directory.mkdir(parents=True, exist_ok=True)
    raw = sys.stdin.read()
    try:
        payload = json.loads(raw)
    except ValueError:
        payload = {}
    if not isinstance(payload, dict):
        payload = {}
    save(directory, payload, raw)
    rule = answer(directory, payload)
    if rule is None:
        return 0
    time.sleep(float(rule.get("sleep") or 0))
    stdout = rule.get("stdout")
    if stdout is not None:
        sys.stdout.write(stdout if isinstance(stdout, str) else json.dumps(stdout))
        sys.stdout.flush()
    if rule.get("stderr"):
        sys.stderr.write(str(rule["stderr"]))
    return int(rule.get("exit") or 0)


if __name__ == "__main__":
    sys.exit(main())
