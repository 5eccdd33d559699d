"""A logging Gemini CLI hook for the end-to-end tests and the measurements (not planmode's).

Registered for every event (``<python> log_hook.py LOG ANSWERS``), it appends one JSON line to
LOG per call: the payload Gemini CLI wrote on stdin, the hook's environment variables that
Gemini CLI sets (``GEMINI_*`` but the API key, ``CLAUDE_PROJECT_DIR``), the names of all its
environment variables and its working directory. It then
answers from ANSWERS, a JSON object the test may rewrite at any time, looked up by
``"<event>:<tool_name>"`` and then ``"<event>"``; nothing found means no output (exit 0).
An answer is an object with any of:

* ``"stdout"``: an object printed as JSON on stdout (the hook's answer);
* ``"stderr"`` and ``"exit"``: text on stderr and the exit status (2 blocks);
* ``"hold"``: a path; the hook waits until that file exists (the user deciding elsewhere),
  then answers with the JSON object the file holds, if any, instead of ``"stdout"``;
* ``"sleep"``: seconds to wait before answering.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path


def main() -> int:
    log, answers = Path(sys.argv[1]), Path(sys.argv[2])
    raw = sys.stdin.read()
    try:
        payload = json.loads(raw)
    except ValueError:
        payload = {"unparsed": raw}
    env = {k: v for k, v in os.environ.items() if k.startswith("GEMINI_") and k != "GEMINI_API_KEY"}
    env.update({k: os.environ[k] for k in ("CLAUDE_PROJECT_DIR",) if k in os.environ})
    record = {
        "payload": payload,
        "env": env,
        "env_names": sorted(os.environ),  # which variables reach a hook (names only)
        "cwd": os.getcwd(),
        "time": time.time(),
    }
    with log.open("a") as out:
        out.write(json.dumps(record) + "\n")
    try:
        table = json.loads(answers.read_text())
    except (OSError, ValueError):
        table = {}
    event = str(payload.get("hook_event_name", ""))
    answer = table.get(f"{event}:{payload.get('tool_name', '')}") or table.get(event)
    if not isinstance(answer, dict):
        return 0
    stdout = answer.get("stdout")
    if answer.get("hold"):
        held = Path(answer["hold"])
        while not held.exists():
            time.sleep(0.05)
        time.sleep(0.05)  # the writer renames it into place whole; read it once settled
        text = held.read_text().strip()
        stdout = json.loads(text) if text else None
    if answer.get("sleep"):
        time.sleep(float(answer["sleep"]))
    if stdout is not None:
        print(json.dumps(stdout))
    if answer.get("stderr"):
        print(answer["stderr"], file=sys.stderr)
    return int(answer.get("exit", 0))


if __name__ == "__main__":
    sys.exit(main())
