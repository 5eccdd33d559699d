/**
 * Every wire name of the plan-mode protocol: a mirror of server/planmode/lsp/protocol.py.
 *
 * Same names, same values. test/unit/protocol.test.ts parses the Python module and fails when
 * the two differ, so a name changed there must change here.
 */

// Requests (client -> server)
export const GET_STATE = "planMode/getState";
export const SET_MODE = "planMode/setMode";
export const ENTER = "planMode/enter";
export const SLASH_COMMAND = "planMode/slashCommand";
export const CHECK_TOOL = "planMode/checkTool";
export const APPLY_EDIT = "planMode/applyEdit";
export const EXIT = "planMode/exit";
export const APPROVE = "planMode/approve";
export const REJECT = "planMode/reject";
export const NEXT_TURN = "planMode/nextTurn";
export const RESUME = "planMode/resume";
export const FORK = "planMode/fork";
export const LIST_PLANS = "planMode/listPlans";
// The Explore and Plan agent definitions (docs/protocol.md §4).
export const AGENT_DEFINITIONS = "planMode/agentDefinitions";
// Ours: plan history (every revision with author, time and reason) and diffs between two.
export const LIST_REVISIONS = "planMode/listRevisions";
export const REVISION_DIFF = "planMode/revisionDiff";
// Ours: the agent conversation ended (Claude Code's SessionEnd hook); its grants end with it.
export const END_SESSION = "planMode/endSession";
// Ours: every decision waiting in the workspace, unreviewed hunks, Keep / Undo as requests.
export const LIST_APPROVALS = "planMode/listApprovals";
export const LIST_HUNKS = "planMode/listHunks";
export const KEEP_HUNK = "planMode/keepHunk";
export const UNDO_HUNK = "planMode/undoHunk";
// Ours: a teammate's server hands the lead's server the key that authenticates the answer to
// one plan approval request (docs/protocol.md §5.1, "Teammates: authenticated answers").
export const TEAMMATE_KEY = "planMode/teammateKey";
// Ours: answered at once; a hook waiting on a pending exit asks after a silence, and takes no
// answer for a dead or hung server (docs/protocol.md §10).
export const PING = "planMode/ping";
// After approval (docs/protocol.md §12.1): a session's progress, the user's mark of a step.
export const GET_PROGRESS = "planMode/getProgress";
export const SET_STEP_STATUS = "planMode/setStepStatus";
// Ours: every executing session's progress (the CLI's `planmode progress`, a status bar).
export const LIST_PROGRESS = "planMode/listProgress";
// Ours: the plan library (docs/protocol.md §12.3): a plan saved for later (the contract's
// name), taken up again by a session, and any version of a plan's history in full.
export const SAVE_FOR_LATER = "planMode/saveForLater";
export const TAKE_UP_PLAN = "planMode/takeUpPlan";
export const REVISION_TEXT = "planMode/revisionText";

// Notifications (server -> client)
export const DID_CHANGE_STATE = "planMode/didChangeState";
export const APPROVAL_REQUESTED = "planMode/approvalRequested";
export const APPROVAL_RESOLVED = "planMode/approvalResolved";
export const DID_CHANGE_PROGRESS = "planMode/didChangeProgress";

// workspace/executeCommand commands (also the code lenses' commands)
export const COMMAND_APPROVE = "planMode.approve";
export const COMMAND_REJECT = "planMode.reject";
export const COMMAND_SAVE_FOR_LATER = "planMode.saveForLater";
// Ours: a saved plan taken up again, from its code action (docs/protocol.md §12.3).
export const COMMAND_TAKE_UP_PLAN = "planMode.takeUpPlan";
export const COMMAND_KEEP_HUNK = "planMode.keepHunk";
export const COMMAND_UNDO_HUNK = "planMode.undoHunk";
// Ours (docs/protocol.md §12): a step's mark, a file allowed for the plan being carried out,
// the progress shown in a message (the "Plan 3/7 done" lens).
export const COMMAND_SET_STEP_STATUS = "planMode.setStepStatus";
export const COMMAND_ALLOW_FILE = "planMode.allowFile";
export const COMMAND_SHOW_PROGRESS = "planMode.showProgress";

// Lens titles
export const LENS_APPROVE = "Approve plan";
export const LENS_APPROVE_ACCEPT_EDITS = "Approve & auto-accept edits";
export const LENS_REJECT = "Reject…";
export const LENS_SAVE_FOR_LATER = "Save for later";
export const ACTION_TAKE_UP_PLAN = "Take up this plan";
// Appended to the Approve lens while the open buffer did not take the server's last change.
export const LENS_BUFFER_OUT_OF_DATE = "(buffer out of date: approves the file)";

// Diagnostic codes of the revision marks (docs/protocol.md §12.4; the VS Code client draws its
// own and drops these)
export const DIAGNOSTIC_REVISION_ADDED = "revision-added";
export const DIAGNOSTIC_REVISION_REMOVED = "revision-removed";

// Error codes
export const INVALID_PARAMS = -32602;
export const NOT_IN_PLAN_MODE = -32001;
export const AGENT_CONTEXT = -32002;
export const PLAN_MODE_DISABLED = -32003;
export const NO_PLAN_FILE = -32004;
export const NO_PENDING_APPROVAL = -32005;
export const PLAN_CHANGED = -32006;
export const NO_APPROVED_PLAN = -32007;

// initializationOptions / workspace configuration section
export const SETTINGS_SECTION = "planMode";
