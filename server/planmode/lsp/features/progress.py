"""After approval: the plan's progress and drift, as every editor shows them (docs/protocol.md
§12.1–§12.2).

Core keeps each executing session's progress (core/executions.py) and tells this feature of
every change; this feature tells the editor, right after the answer to the request that made
the change: ``planMode/didChangeProgress`` (only on a change), a message for each file
written outside the plan (a ``window/showMessageRequest`` whose action "Allow this file for
this plan" widens the plan, where the client declares message actions; else a message naming
``planMode.allowFile``), a message when every step is done (pointing at the plan's
verification), and the marks in the plan itself:

* inlay hints (lsp/features/inlayhints.py) at the end of each step's line — ``✓ done``,
  ``◐ in progress``, ``○ pending`` — and the count of drifting files on the first line;
* for an editor without inlay hints, a Hint diagnostic per step with the same mark;
* a Warning diagnostic per drifting file the user has not allowed;
* a code lens ``Plan 3/7 done`` on the first line (``planMode.showProgress``);
* code actions on a step's line: ``Mark step done`` / ``in progress`` / ``pending``
  (``planMode.setStepStatus``), and anywhere in the plan ``Allow <path> for this plan``
  (``planMode.allowFile``).

Saving the progress files and refreshing the marks wait :data:`SETTLE` seconds, once for a
burst of tool calls (and happen at shutdown): checkTool stays as fast as without progress
(``make bench``). The marks sit on the lines the steps have in the plan file now: an edit of
the file after approval moves them with their lines, and a step whose line was changed or
removed shows no mark (core/executions.py, :func:`~planmode.core.executions.current_lines`).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types

from planmode.core import drift
from planmode.core import progress as core
from planmode.core.executions import ProgressEvent, current_lines
from planmode.core.lines import lsp_lines
from planmode.core.progress import progress_text
from planmode.core.service import PlanModeService
from planmode.core.steps import MARKS
from planmode.lsp import protocol
from planmode.lsp.features import diagnostics, inlayhints
from planmode.lsp.features.state import session_for
from planmode.lsp.params import (
    AllowFileParams,
    GetProgressParams,
    ListProgressParams,
    SetStepStatusParams,
)
from planmode.lsp.results import ListProgressResult, Progress
from planmode.lsp.server import Feature, PlanModeServer

ALLOW_ACTION = "Allow this file for this plan"
STATUS_WORDS = {"done": "done", "inProgress": "in progress", "pending": "pending"}
SOURCE = "planmode"
DRIFT_CODE = "drift"
STEP_CODE = "step"
# Seconds from a change to the save of its progress file and the refresh of the plan's marks.
SETTLE = 0.2
# Files outside the plan told one by one, per execution; the rest are shown on the plan only
# (an agent that generates hundreds of files must not bring as many messages).
MAX_TOLD = 5
# Drifting files with a diagnostic of their own in the plan; one more names how many else.
MAX_DRIFT_MARKS = 20


class ProgressFeature(Feature):
    """Tells the editor of each change of a session's progress (the module's rules)."""

    def __init__(self, server: PlanModeServer) -> None:
        self.server = server
        # The changes not told yet: told right after the request that made them is answered
        # (checkTool's answer waits for none of this).
        self.untold: list[ProgressEvent] = []
        # Saving the progress files and refreshing the plans' marks waits a moment: a burst
        # of tool calls costs one of each.
        self.unrefreshed: set[Path] = set()
        self.settling: asyncio.TimerHandle | None = None
        # Approval id -> the drifting files told of its execution.
        self.told: dict[str, int] = {}

    def service_started(self, service: PlanModeService) -> None:
        service.executions.save_later = True
        service.executions.listeners.append(self.changed)

    def changed(self, event: ProgressEvent) -> None:
        self.untold.append(event)
        if len(self.untold) > 1:
            return  # told with the others
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop (a handler called directly): now
            self.tell()
            self.settle()
            return
        # Twice around the loop: the answer of the request that made the change (a done
        # callback of its task) is written first.
        loop.call_soon(loop.call_soon, self.tell)

    def tell(self) -> None:
        """Each session's progress as it is now (one notification for the changes of one
        request), each drifting file and each completion; the rest a moment later."""
        server = self.server
        events, self.untold = self.untold, []
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:  # a handler called directly: changed() settles at once
            loop = None
        latest = {event.session_id: event for event in events}
        for event in latest.values():
            if event.progress is not None:
                server.notify(protocol.DID_CHANGE_PROGRESS, Progress.model_validate(event.progress))
        for event in events:
            self.unrefreshed.add(event.plan_file)
            if event.progress is None:
                continue
            for entry in event.drift:
                approval = event.progress.approval_id
                count = self.told[approval] = self.told.get(approval, 0) + 1
                if count > MAX_TOLD:
                    if count == MAX_TOLD + 1:
                        server.show_message(too_many_message(event.progress))
                    continue
                if loop is None:
                    text = drift.warning_message(entry.path, entry.tool, event.progress.plan_file)
                    server.show_message(text)
                else:
                    server.run_task(tell_drift(server, event.progress, entry))
            if event.completed:
                server.show_message(event.progress.completion_message(), types.MessageType.Info)
        if loop is not None and self.settling is None:
            self.settling = loop.call_later(SETTLE, self.settle)

    def settle(self) -> None:
        """Save what changed, and refresh the plans' diagnostics, lenses and inlay hints."""
        if self.settling is not None:
            self.settling.cancel()
            self.settling = None
        server = self.server
        server.service.executions.flush()
        plan_files, self.unrefreshed = self.unrefreshed, set()
        for plan_file in plan_files:
            diagnostics.refresh(server, plan_file)
        if plan_files:
            server.refresh_code_lenses()
            inlayhints.refresh(server)

    # -- a hint source (lsp/features/inlayhints.py) --------------------------------------
    def inlay_hints(
        self, server: PlanModeServer, path: Path, text: str, requested: types.Range
    ) -> list[types.InlayHint]:
        hints = []
        lines = lsp_lines(text) or [""]
        for progress in server.service.executions.executing(path):
            for step, line in step_lines(progress, text):
                if inlayhints.inside(line, requested):
                    hints.append(
                        hint(line, lines, f"{MARKS[step.status]} {STATUS_WORDS[step.status]}")
                    )
            outside = unallowed_drift(progress)
            if outside and inlayhints.inside(0, requested):
                files = "file" if len(outside) == 1 else "files"
                hints.append(hint(0, lines, f"⚠ {len(outside)} {files} outside the plan"))
        return hints


def hint(line: int, lines: list[str], label: str) -> types.InlayHint:
    end = len(lines[line]) if line < len(lines) else 0
    return types.InlayHint(
        position=types.Position(line=line, character=end), label=label, padding_left=True
    )


def step_lines(progress: core.Progress, text: str | None) -> list[tuple[core.Step, int]]:
    """Each step with its line in the plan file as it is now (steps whose line is gone are
    left out)."""
    where = current_lines(progress.plan.text, text, (step.line for step in progress.steps))
    return [(step, where[step.line]) for step in progress.steps if step.line in where]


def unallowed_drift(progress: core.Progress) -> list[core.DriftEntry]:
    return [entry for entry in progress.drift if entry.path not in progress.allowed]


# -- what the editor is told ---------------------------------------------------------------
def too_many_message(progress: core.Progress) -> str:
    return (
        f"Still more files are written outside the approved plan ({progress.plan_file.name}): "
        "more files written outside the plan are shown on the plan itself (its diagnostics "
        "and its lens) and by planmode progress, no longer told one by one."
    )


async def tell_drift(
    server: PlanModeServer, progress: core.Progress, entry: core.DriftEntry
) -> None:
    """A file written outside the plan: named in a message; where the client offers message
    actions, one allows it for this plan."""
    text = drift.warning_message(entry.path, entry.tool, progress.plan_file)
    if not server.client_supports("window", "show_message"):
        server.show_message(
            f"{text} To allow it: the code action on the plan, or the command "
            f'{protocol.COMMAND_ALLOW_FILE} with {{"path": "{entry.path}"}}.',
            types.MessageType.Warning,
        )
        return
    choice = await server.window_show_message_request_async(
        types.ShowMessageRequestParams(
            type=types.MessageType.Warning,
            message=text,
            actions=[types.MessageActionItem(title=ALLOW_ACTION)],
        )
    )
    if getattr(choice, "title", None) != ALLOW_ACTION:
        return
    session = server.service.sessions.get(progress.session_id)
    if session is None or server.service.executions.get(session.id) is not progress:
        return  # that execution is over: nothing to widen
    server.service.executions.allow(session, entry.path)


async def confirm_drift(server: PlanModeServer, outcome: drift.DriftOutcome) -> bool:
    """``planMode/applyEdit`` under ``drift: ask``: the user answers in the editor (no agent
    prompt shows for an edit the editor applies); no answer, or no way to ask, is no."""
    if not server.client_supports("window", "show_message"):
        return False
    apply = "Apply anyway"
    choice = await server.window_show_message_request_async(
        types.ShowMessageRequestParams(
            type=types.MessageType.Warning,
            message=outcome.message,
            actions=[types.MessageActionItem(title=apply), types.MessageActionItem(title="Don't")],
        )
    )
    return getattr(choice, "title", None) == apply


def plan_diagnostics(server: PlanModeServer, path: Path, text: str) -> list[types.Diagnostic]:
    """The approved plan's own diagnostics: a Warning per file written outside it, and, for
    an editor without inlay hints, a Hint per step with its mark."""
    found = []
    lines = lsp_lines(text) or [""]
    hints = not inlayhints.supported(server)
    for progress in server.service.executions.executing(path):
        outside = unallowed_drift(progress)
        for entry in outside[:MAX_DRIFT_MARKS]:
            found.append(
                diagnostic(
                    0,
                    lines,
                    drift.warning_message(entry.path, entry.tool, progress.plan_file),
                    types.DiagnosticSeverity.Warning,
                    DRIFT_CODE,
                )
            )
        if len(outside) > MAX_DRIFT_MARKS:
            more = len(outside) - MAX_DRIFT_MARKS
            found.append(
                diagnostic(
                    0,
                    lines,
                    f"And {more} more files written outside the plan: planmode progress lists "
                    f"them, and the command {protocol.COMMAND_ALLOW_FILE} allows one.",
                    types.DiagnosticSeverity.Warning,
                    DRIFT_CODE,
                )
            )
        if hints:
            for step, line in step_lines(progress, text):
                label = f"{MARKS[step.status]} step {step.index + 1}: {STATUS_WORDS[step.status]}"
                found.append(
                    diagnostic(line, lines, label, types.DiagnosticSeverity.Hint, STEP_CODE)
                )
    return found


def diagnostic(
    line: int, lines: list[str], message: str, severity: types.DiagnosticSeverity, code: str
) -> types.Diagnostic:
    line = min(line, len(lines) - 1)
    return types.Diagnostic(
        range=types.Range(
            start=types.Position(line=line, character=0),
            end=types.Position(line=line, character=len(lines[line])),
        ),
        message=message,
        severity=severity,
        code=code,
        source=SOURCE,
    )


def lenses(server: PlanModeServer, path: Path) -> list[types.CodeLens]:
    """``Plan 3/7 done`` on the first line of a plan being carried out."""
    found = []
    for progress in server.service.executions.executing(path):
        title = f"Plan {progress.done}/{progress.total} done"
        outside = unallowed_drift(progress)
        if outside:
            title += f" · {len(outside)} outside the plan"
        found.append(
            types.CodeLens(
                range=types.Range(
                    start=types.Position(line=0, character=0),
                    end=types.Position(line=0, character=0),
                ),
                command=types.Command(
                    title=title,
                    command=protocol.COMMAND_SHOW_PROGRESS,
                    arguments=[{"sessionId": progress.session_id}],
                ),
            )
        )
    return found


def actions(server: PlanModeServer, path: Path, requested: types.Range) -> list[types.Command]:
    """Marking the steps on the requested lines; allowing each drifting file."""
    found = []
    text = server.service.read_text(path)
    for progress in server.service.executions.executing(path):
        session = progress.session_id
        for step, line in step_lines(progress, text):
            if not inlayhints.inside(line, requested):
                continue
            for status, word in STATUS_WORDS.items():
                if status != step.status:
                    found.append(
                        types.Command(
                            title=f"Mark step {word}",
                            command=protocol.COMMAND_SET_STEP_STATUS,
                            arguments=[
                                {
                                    "index": step.index,
                                    "status": status,
                                    "sessionId": session,
                                    "approvalId": progress.approval_id,
                                }
                            ],
                        )
                    )
        for entry in unallowed_drift(progress)[:MAX_DRIFT_MARKS]:  # those with a diagnostic
            found.append(
                types.Command(
                    title=f"Allow {entry.path} for this plan",
                    command=protocol.COMMAND_ALLOW_FILE,
                    arguments=[
                        {
                            "path": entry.path,
                            "sessionId": session,
                            "approvalId": progress.approval_id,
                        }
                    ],
                )
            )
    return found


# -- requests and commands -----------------------------------------------------------------
def get_progress(server: PlanModeServer, params: GetProgressParams) -> Progress:
    session = session_for(server, params)
    return Progress.model_validate(server.service.executions.require(session))


def list_progress(server: PlanModeServer, params: ListProgressParams) -> ListProgressResult:
    """Every executing session's progress (with ``sessionId``, that session's only)."""
    found = server.service.executions.all()
    if params.session_id is not None:
        found = [p for p in found if p.session_id == params.session_id]
    return ListProgressResult(progress=[Progress.model_validate(p) for p in found])


def set_step_status(server: PlanModeServer, params: SetStepStatusParams) -> Progress:
    session = session_for(server, params)
    changed = server.service.executions.set_step_status(
        session, params.index, params.status, params.approval_id
    )
    return Progress.model_validate(changed)


def allow_file(server: PlanModeServer, params: AllowFileParams) -> Progress:
    session = session_for(server, params)
    allowed = server.service.executions.allow(session, params.path, params.approval_id)
    return Progress.model_validate(allowed)


def show_progress(server: PlanModeServer, params: GetProgressParams) -> Progress:
    """The lens's command: the progress in a message, for editors with no view of it."""
    found = get_progress(server, params)
    server.show_message(progress_text(found.wire()), types.MessageType.Info)
    return found


def register(server: PlanModeServer) -> None:
    feature = server.add_feature(ProgressFeature(server))
    server.get_feature(inlayhints.InlayHints).add(feature)
    server.get_feature(diagnostics.Diagnostics).add(plan_diagnostics)
    server.request(protocol.GET_PROGRESS, GetProgressParams)(get_progress)
    server.request(protocol.LIST_PROGRESS, ListProgressParams)(list_progress)
    server.request(protocol.SET_STEP_STATUS, SetStepStatusParams)(set_step_status)
    server.command_request(protocol.COMMAND_SET_STEP_STATUS, SetStepStatusParams, set_step_status)
    server.command_request(protocol.COMMAND_ALLOW_FILE, AllowFileParams, allow_file)
    server.command_request(protocol.COMMAND_SHOW_PROGRESS, GetProgressParams, show_progress)
