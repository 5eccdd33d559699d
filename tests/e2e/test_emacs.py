"""Real Emacs 28 (eglot 1.9, lsp-mode 8) as the user's editor, driven by keystrokes in tmux.

The user decides only through what the editor offers: ``M-x eglot-code-actions`` (eglot shows
no lenses), lsp-mode's lenses and ``M-x lsp-execute-code-action``. The agent talks to the
server Emacs started through the agent endpoint, as the CLI and Claude Code's hook do.
"""

from __future__ import annotations

import asyncio
import base64
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from planmode.lsp.transport.discovery import connect, discovery_path
from tests.e2e.emacs.driver import AVAILABLE, Emacs, elisp_string

pytestmark = pytest.mark.skipif(not AVAILABLE, reason="emacs and tmux are needed (make editors)")

P1 = "# Plan\n\n1. Read the code\n2. Change it\n3. Test it\n\n## Verification\nRun the tests\n"
P2 = (
    "# Plan\n\n1. Read the code\n2. Change it, carefully\n3. Test it\n4. Document it\n\n"
    "## Verification\nRun the tests\n"
)
COMMENT = "Keep the old name working"
P1_COMMENTED = P1.replace("2. Change it\n", f"2. Change it\n> [!review] {COMMENT}\n")
# P2 with the agent's change of line 4 undone ("Change it" back), its addition kept.
UNDONE = P2.replace("2. Change it, carefully\n", "2. Change it\n")
ADDED = "Added by the agent's revision (Keep or Undo it from the code actions)"


class Agent:
    """The agent's side: plan mode and ExitPlanMode through the server's endpoint."""

    def __init__(self, root: Path) -> None:
        self.root = root
        deadline = time.monotonic() + 30
        while not discovery_path(root).exists():
            assert time.monotonic() < deadline, "the server Emacs started never came up"
            time.sleep(0.05)
        with connect(root, timeout=30) as conn:
            state = conn.request("planMode/enter", {"sessionId": "agent"})["state"]
        self.plan_path = Path(state["planFilePath"])

    def exit(self, plan: str) -> Callable[[], dict[str, Any]]:
        """ExitPlanMode with ``plan``; returns a function waiting for the user's decision."""
        answer: list[dict[str, Any]] = []

        def wait() -> None:
            with connect(self.root, timeout=120) as conn:
                answer.append(conn.request("planMode/exit", {"sessionId": "agent", "plan": plan}))

        thread = threading.Thread(target=wait, daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while self.pending() is None:
            assert time.monotonic() < deadline, "the exit never became pending"
            time.sleep(0.05)

        def result() -> dict[str, Any]:
            thread.join(30)
            assert answer, "the agent's ExitPlanMode was never answered"
            return answer[0]

        return result

    def write(self, plan: str) -> None:
        """The agent's own Write of its plan file: asked of plan mode first, then run."""
        with connect(self.root, timeout=30) as conn:
            decision = conn.request(
                "planMode/checkTool",
                {
                    "sessionId": "agent",
                    "tool": "Write",
                    "input": {"file_path": str(self.plan_path), "content": plan},
                },
            )
        assert decision["behavior"] == "allow", decision
        self.plan_path.write_text(plan)

    def todo(self, content: str, status: str) -> None:
        """The agent's TodoWrite of one todo, as its hook asks of plan mode."""
        with connect(self.root, timeout=30) as conn:
            conn.request(
                "planMode/checkTool",
                {
                    "sessionId": "agent",
                    "tool": "TodoWrite",
                    "input": {"todos": [{"content": content, "status": status}]},
                },
            )

    def progress(self) -> dict[str, Any]:
        with connect(self.root, timeout=30) as conn:
            progress: dict[str, Any] = conn.request("planMode/getProgress", {"sessionId": "agent"})
            return progress

    def state(self) -> dict[str, Any]:
        with connect(self.root, timeout=30) as conn:
            state: dict[str, Any] = conn.request("planMode/getState", {"sessionId": "agent"})
            return state

    def pending(self) -> dict[str, Any] | None:
        pending: dict[str, Any] | None = self.state()["pendingApproval"]
        return pending

    def mode(self) -> str:
        return str(self.state()["mode"])


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = (tmp_path / "workspace").resolve()
    (root / ".git").mkdir(parents=True)  # a project root for eglot and lsp-mode
    (root / "notes.md").write_text("# Notes\n")
    return root


@pytest.fixture
def emacs_with(tmp_path: Path, workspace: Path) -> Iterator[Callable[[str], Emacs]]:
    started: list[Emacs] = []

    def start(init: str) -> Emacs:
        # Emacs starts the server for the project on its first Markdown file.
        started.append(Emacs(tmp_path, workspace, init, workspace / "notes.md"))
        return started[-1]

    yield start
    for emacs in started:
        emacs.close()


def find_file(emacs: Emacs, path: Path) -> None:
    emacs.keys("C-x", "C-f")
    emacs.wait_screen("Find file")
    emacs.keys("C-a", "C-k")
    emacs.type(str(path))
    emacs.keys("Enter")
    emacs.wait_for(f"(and (find-buffer-visiting {elisp_string(str(path))}) t)", "t")


def goto_line(emacs: Emacs, line: int) -> None:
    emacs.keys("M-g", "g")
    emacs.wait_screen("Goto line")
    emacs.type(str(line))
    emacs.keys("Enter")


def pick(emacs: Emacs, command: str, prompt: str, choice: str) -> None:
    """Run the code-action command and choose ``choice`` (a unique prefix) from its menu."""
    emacs.command(command)
    emacs.wait_screen(prompt)
    emacs.type(choice)
    emacs.keys("Tab", "Enter")


def allow_edit(emacs: Emacs) -> None:
    """Answer the questions a server's edit of the plan brings, as a user would: eglot's
    before it applies one (eglot-confirm-server-initiated-edits), then Emacs's own, the file
    having changed on disk; reading it leaves the buffer clean."""
    emacs.wait_screen("Server wants to edit:")
    emacs.type("y")
    emacs.wait_screen("changed on disk.  Reread from disk?")
    emacs.type("yes")
    emacs.keys("Enter")


def flymake_notes(emacs: Emacs, path: Path) -> list[str]:
    """Flymake's diagnostics of the plan's buffer, each ``line: text`` (eglot writes the text
    as ``<source> [<code>]: <message>``)."""
    shown = emacs.eval(
        f"(with-current-buffer (find-buffer-visiting {elisp_string(str(path))}) "
        "(base64-encode-string (encode-coding-string (mapconcat (lambda (d) (format "
        '"%d: %s" (line-number-at-pos (flymake-diagnostic-beg d)) '
        '(flymake-diagnostic-text d))) (flymake-diagnostics) "\\n") \'utf-8) t))'
    )
    return [n for n in base64.b64decode(shown.strip('"')).decode("utf-8").split("\n") if n]


def revision_marks(emacs: Emacs, path: Path, wanted: set[str]) -> None:
    """Flymake shows exactly ``wanted`` of the plan's revision marks: ``line: code: text``."""
    deadline = time.monotonic() + 15
    while True:
        found = set()
        for note in flymake_notes(emacs, path):
            line, _, rest = note.partition(": planmode review [")
            code, _, message = rest.partition("]: ")
            if code.startswith("revision-"):
                found.add(f"{line}: {code}: {message}")
        if found == wanted:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"revision marks {found}, wanted {wanted}\n{emacs.screen()}")
        time.sleep(0.2)


def step_marks(emacs: Emacs, path: Path, wanted: dict[int, str]) -> None:
    """Flymake shows these step marks (among others) on these lines (1-based)."""
    deadline = time.monotonic() + 15
    while True:
        found = {}
        for note in flymake_notes(emacs, path):
            line, _, rest = note.partition(": ")
            if "[step]: " in rest:
                found[int(line)] = rest.partition("[step]: ")[2]
        if all(found.get(line) == text for line, text in wanted.items()):
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"step marks {found}, wanted {wanted}\n{emacs.screen()}")
        time.sleep(0.2)


def synced(emacs: Emacs, path: Path, text: str, modified: bool = False) -> None:
    """The buffer holds exactly the file's bytes, ``text``, and is ``modified`` or not."""
    deadline = time.monotonic() + 15
    while True:
        held, is_modified = emacs.buffer(path)
        on_disk = path.read_bytes().decode("utf-8")
        if held == on_disk == text and is_modified == modified:
            return
        if time.monotonic() > deadline:
            raise AssertionError(
                f"buffer {held!r} (modified: {is_modified}), file {on_disk!r}, wanted {text!r}\n"
                f"{emacs.screen()}"
            )
        time.sleep(0.1)


async def test_eglot_code_actions_revision_undo_and_approval(
    emacs_with: Callable[[str], Emacs], workspace: Path
) -> None:
    await asyncio.get_running_loop().run_in_executor(None, eglot_flow, emacs_with, workspace)


def eglot_flow(emacs_with: Callable[[str], Emacs], workspace: Path) -> None:
    emacs = emacs_with("eglot-init.el")
    agent = Agent(workspace)
    first = agent.exit(P1)
    relative = str(agent.plan_path.relative_to(workspace))
    # eglot cannot be asked to show a document: the server's message says which and how.
    deadline = time.monotonic() + 15
    while f"The agent asks you to approve its plan: {relative}" not in emacs.messages():
        assert time.monotonic() < deadline, emacs.messages()
        time.sleep(0.1)

    find_file(emacs, agent.plan_path)
    # A review comment typed under the step it is about (C-o: no markdown indentation), saved.
    goto_line(emacs, 5)
    emacs.keys("C-o")
    emacs.type(f"> [!review] {COMMENT}")
    emacs.keys("C-x", "C-s")
    synced(emacs, agent.plan_path, P1_COMMENTED)
    # The Reject action carries it; the agent gets it anchored, and keeps planning.
    pick(emacs, "eglot-code-actions", "Pick an action (default Approve plan)", "Reject… (1")
    rejected = first()
    assert rejected["outcome"] == "rejected"
    assert rejected["comments"] == [
        {
            "text": COMMENT,
            "quote": "2. Change it",
            "headingPath": ["Plan"],
            "line": 4,
            "outdated": False,
        }
    ]
    assert COMMENT in rejected["toolResult"]
    # The code action sends no remark: no feedback heading with nothing under it.
    assert "The user's feedback:" not in rejected["toolResult"]
    assert agent.mode() == "plan"

    # The agent revises the open plan with its own Write, as Claude Code does. eglot reloads
    # nothing (no auto-revert here) and the user runs no revert: the server's edit brings the
    # revision, Emacs asks whether to read the changed file, and the buffer is the file, byte
    # for byte, unmodified — before the agent even asks to exit.
    agent.write(P2)
    allow_edit(emacs)
    synced(emacs, agent.plan_path, P2)
    second = agent.exit(P2)  # what the buffer holds: nothing more to bring
    synced(emacs, agent.plan_path, P2)
    # The revision's marks (eglot 1.9 has no inlay hints): flymake notes on the changed line —
    # its removed text and that it was added — and on the added line. eglot holds diagnostics
    # that arrive before flymake's first check of a reverted buffer until its next check (any
    # change, a save, M-x flymake-start).
    emacs.command("flymake-start")
    revision_marks(
        emacs,
        agent.plan_path,
        {
            "4: revision-removed: Removed by the agent's revision: 2. Change it",
            f"4: revision-added: {ADDED}",
            f"6: revision-added: {ADDED}",
        },
    )
    # On the changed line the menu has its Keep and Undo; Undo brings the old line back.
    goto_line(emacs, 4)
    pick(emacs, "eglot-code-actions", "Pick an action", "Undo")
    allow_edit(emacs)
    synced(emacs, agent.plan_path, UNDONE)
    # The undone hunk's marks went; the other hunk's stay.
    revision_marks(emacs, agent.plan_path, {f"6: revision-added: {ADDED}"})

    # A line of the user's own, unsaved, then Approve: the buffer is the plan, never out of
    # date. The file gets the approved plan, but no LSP request saves or reverts a buffer, so
    # eglot keeps it modified; the server says how to leave it clean, and reverting does.
    emacs.keys("M->")
    emacs.type("5. Tell the team\n")
    edited = UNDONE + "5. Tell the team\n"
    emacs.wait_for(
        f"(with-current-buffer (find-buffer-visiting {elisp_string(str(agent.plan_path))}) "
        '(and (buffer-modified-p) (string-suffix-p "team\\n" (buffer-string))))',
        "t",
    )
    emacs.command("eglot-code-actions")
    menu = emacs.wait_screen("Pick an action")
    emacs.type("?")  # the completions: every action's title
    menu = emacs.wait_screen("Approve & auto-accept edits")
    assert "out of date" not in menu, menu
    emacs.keys("C-g")
    pick(emacs, "eglot-code-actions", "Pick an action", "Approve plan")
    result = second()
    assert result["outcome"] == "approved"
    assert result["plan"] == edited
    assert agent.plan_path.read_text() == edited
    deadline = time.monotonic() + 15
    while "Its buffer still has unsaved changes" not in emacs.messages():
        assert time.monotonic() < deadline, emacs.messages()
        time.sleep(0.1)
    assert emacs.buffer(agent.plan_path) == (edited, True)
    emacs.command("revert-buffer")
    emacs.wait_screen("(yes or no)")
    emacs.type("yes")
    emacs.keys("Enter")
    synced(emacs, agent.plan_path, edited)

    # After approval the steps fill in: eglot 1.9 has no inlay hints, so each step's mark is a
    # flymake note on its line. The agent's todo moves the first step; the user marks the
    # second with the code action on its line.
    agent.todo("Read the code", "completed")
    emacs.command("flymake-start")  # the reverted buffer's first check (see above)
    step_marks(emacs, agent.plan_path, {3: "✓ step 1: done", 4: "○ step 2: pending"})
    goto_line(emacs, 4)
    pick(emacs, "eglot-code-actions", "Pick an action", "Mark step done")
    step_marks(emacs, agent.plan_path, {3: "✓ step 1: done", 4: "✓ step 2: done"})
    progress = agent.progress()
    assert (progress["done"], progress["total"]) == (2, 4)
    assert [step["source"] for step in progress["steps"][:2]] == ["todo", "user"]


async def test_lsp_mode_lenses_and_code_actions(
    emacs_with: Callable[[str], Emacs], workspace: Path
) -> None:
    await asyncio.get_running_loop().run_in_executor(None, lsp_mode_flow, emacs_with, workspace)


def lens_titles(emacs: Emacs, path: Path) -> str:
    return emacs.eval(
        f"(with-current-buffer (find-buffer-visiting {elisp_string(str(path))}) "
        "(mapconcat (lambda (o) (substring-no-properties (or (overlay-get o 'after-string) "
        '(overlay-get o \'before-string) ""))) '
        '(seq-filter (lambda (o) (overlay-get o \'lsp-lens)) (overlays-in 1 (point-max))) "\\n"))'
    )


def lsp_mode_flow(emacs_with: Callable[[str], Emacs], workspace: Path) -> None:
    emacs = emacs_with("lsp-mode-init.el")
    agent = Agent(workspace)
    first = agent.exit(P1)
    find_file(emacs, agent.plan_path)
    # lsp-mode shows the lenses above the plan.
    emacs.wait_screen("Approve plan|Approve & auto-accept edits|Reject…")
    pick(emacs, "lsp-execute-code-action", "Select code action", "Rej")
    assert first()["outcome"] == "rejected"

    second = agent.exit(P2)
    synced(emacs, agent.plan_path, P2)
    deadline = time.monotonic() + 15
    while "Undo: restores “2. Change it”" not in lens_titles(emacs, agent.plan_path):
        assert time.monotonic() < deadline, lens_titles(emacs, agent.plan_path)
        time.sleep(0.2)
    assert "Approve plan (2 changes unreviewed)" in lens_titles(emacs, agent.plan_path)

    # The user adds a line of their own and saves; the approval carries it.
    emacs.keys("M->")
    emacs.type("5. Tell the team\n")
    emacs.keys("C-x", "C-s")
    edited = P2 + "5. Tell the team\n"
    synced(emacs, agent.plan_path, edited)
    pick(emacs, "lsp-execute-code-action", "Select code action", "Approve plan")
    result = second()
    assert result["outcome"] == "approved"
    assert result["plan"] == edited
    assert "5. Tell the team" in result["userEditsDiff"]
    synced(emacs, agent.plan_path, edited)
