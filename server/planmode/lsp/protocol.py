"""Every wire name of the plan-mode protocol; the contract is ``docs/protocol.md``.

The VS Code client mirrors this module in ``vscode-client/src/protocol.ts``; a test compares
the two, so a name changed here must change there; ``tests/unit/test_protocol_doc.py`` fails
when a name here (or a method or command the server registers) is missing from the doc.
"""

from __future__ import annotations

# Requests (client -> server)
GET_STATE = "planMode/getState"
SET_MODE = "planMode/setMode"
ENTER = "planMode/enter"
SLASH_COMMAND = "planMode/slashCommand"
CHECK_TOOL = "planMode/checkTool"
APPLY_EDIT = "planMode/applyEdit"
EXIT = "planMode/exit"
APPROVE = "planMode/approve"
REJECT = "planMode/reject"
NEXT_TURN = "planMode/nextTurn"
RESUME = "planMode/resume"
FORK = "planMode/fork"
LIST_PLANS = "planMode/listPlans"
# Additions to the original table: the Explore and Plan agent definitions.
AGENT_DEFINITIONS = "planMode/agentDefinitions"
# Ours: plan history (every revision with author, time and reason) and diffs between two.
LIST_REVISIONS = "planMode/listRevisions"
REVISION_DIFF = "planMode/revisionDiff"
# Ours: the agent conversation ended (Claude Code's SessionEnd hook); its grants end with it.
END_SESSION = "planMode/endSession"
# Ours: every decision waiting in the workspace (all sessions' approvals and teammate
# requests), the unreviewed hunks of revised plans, and Keep / Undo as requests (the CLI).
LIST_APPROVALS = "planMode/listApprovals"
LIST_HUNKS = "planMode/listHunks"
KEEP_HUNK = "planMode/keepHunk"
UNDO_HUNK = "planMode/undoHunk"
# Ours: a teammate's server hands the lead's server the key that authenticates the answer to
# one plan approval request (docs/protocol.md §5.1, "Teammates: authenticated answers").
TEAMMATE_KEY = "planMode/teammateKey"
# Ours: answered at once; a hook waiting on a pending exit asks after a silence, and takes no
# answer for a dead or hung server (docs/protocol.md §10).
PING = "planMode/ping"
# After approval (docs/protocol.md §12.1): a session's progress, the user's mark of a step.
GET_PROGRESS = "planMode/getProgress"
SET_STEP_STATUS = "planMode/setStepStatus"
# Ours: every executing session's progress (the CLI's `planmode progress`, a status bar).
LIST_PROGRESS = "planMode/listProgress"
# Ours: the plan library (docs/protocol.md §12.3): a plan saved for later (the contract's
# name), taken up again by a session, and any version of a plan's history in full.
SAVE_FOR_LATER = "planMode/saveForLater"
TAKE_UP_PLAN = "planMode/takeUpPlan"
REVISION_TEXT = "planMode/revisionText"

# Notifications (server -> client)
DID_CHANGE_STATE = "planMode/didChangeState"
APPROVAL_REQUESTED = "planMode/approvalRequested"
APPROVAL_RESOLVED = "planMode/approvalResolved"
DID_CHANGE_PROGRESS = "planMode/didChangeProgress"

# workspace/executeCommand commands (also the code lenses' commands)
COMMAND_APPROVE = "planMode.approve"
COMMAND_REJECT = "planMode.reject"
COMMAND_SAVE_FOR_LATER = "planMode.saveForLater"
# Ours: a saved plan taken up again, from its code action (docs/protocol.md §12.3).
COMMAND_TAKE_UP_PLAN = "planMode.takeUpPlan"
COMMAND_KEEP_HUNK = "planMode.keepHunk"
COMMAND_UNDO_HUNK = "planMode.undoHunk"
# Ours (docs/protocol.md §12): a step's mark, a file allowed for the plan being carried out,
# the progress shown in a message (the "Plan 3/7 done" lens).
COMMAND_SET_STEP_STATUS = "planMode.setStepStatus"
COMMAND_ALLOW_FILE = "planMode.allowFile"
COMMAND_SHOW_PROGRESS = "planMode.showProgress"

# Lens titles
LENS_APPROVE = "Approve plan"
LENS_APPROVE_ACCEPT_EDITS = "Approve & auto-accept edits"
LENS_REJECT = "Reject…"
LENS_SAVE_FOR_LATER = "Save for later"
ACTION_TAKE_UP_PLAN = "Take up this plan"
# Appended to the Approve lens while the open buffer did not take the server's last change.
LENS_BUFFER_OUT_OF_DATE = "(buffer out of date: approves the file)"

# Diagnostic codes of the revision marks (docs/protocol.md §12.4; the VS Code client draws its
# own and drops these)
DIAGNOSTIC_REVISION_ADDED = "revision-added"
DIAGNOSTIC_REVISION_REMOVED = "revision-removed"

# Error codes
INVALID_PARAMS = -32602
NOT_IN_PLAN_MODE = -32001
AGENT_CONTEXT = -32002
PLAN_MODE_DISABLED = -32003
NO_PLAN_FILE = -32004
NO_PENDING_APPROVAL = -32005
PLAN_CHANGED = -32006
NO_APPROVED_PLAN = -32007

# initializationOptions / workspace configuration section
SETTINGS_SECTION = "planMode"
