/**
 * The server's session state (docs/protocol.md §2 and §5) and which session the editor shows.
 *
 * No `vscode` import here: this is the client's pure logic, unit-tested under plain node.
 */

export type PermissionMode = "default" | "acceptEdits" | "plan" | "auto" | "bypassPermissions";

export const PERMISSION_MODES: readonly PermissionMode[] = [
  "default",
  "acceptEdits",
  "plan",
  "auto",
  "bypassPermissions",
];

export interface AllowedPrompt {
  tool: string;
  prompt: string;
}

/** An allowed prompt with the exact rule approving will grant (the server's wording). */
export interface Grant extends AllowedPrompt {
  rule: string;
}

/**
 * A plan waiting for a decision. A teammate's request to this lead is one too: its request id
 * is the approvalId, it has no session (`sessionId` null) and names its team.
 */
export interface Approval {
  approvalId: string;
  sessionId: string | null;
  agentId: string | null;
  teamName?: string;
  planFilePath: string;
  submittedPlan: string;
  allowedPrompts: AllowedPrompt[];
  /** Absent from servers older than the grants field. */
  grants?: Grant[];
  requestedAt: string;
}

/** `planMode/approvalResolved`: a decision was made; `restoredMode` when a mode was restored. */
export interface ApprovalResolved {
  approvalId: string;
  outcome: "approved" | "rejected" | "saved" | "cancelled";
  restoredMode?: PermissionMode;
}

/**
 * What approving `approval` grants besides the plan, one line per prompt with its exact rule;
 * undefined when it grants nothing. Prompts of an older server without rules are listed as
 * they are, marked as unexplained.
 */
export function grantsText(approval: Approval): string | undefined {
  const lines =
    approval.grants?.map((g) => `• ${g.rule}`) ??
    approval.allowedPrompts.map(
      (p) => `• ${p.tool} “${p.prompt}” (the server did not say which commands)`,
    );
  if (lines.length === 0) return undefined;
  return ["Approving also allows these commands without asking:", ...lines].join("\n");
}

/**
 * The OS sandbox planning Bash runs in (docs/sandbox.md). `mechanism` null: no sandbox works
 * here ("classifier only"); with `required`, Bash is then denied while planning.
 */
export interface SandboxState {
  mechanism: string | null;
  status: string;
  detail: string;
  required: boolean;
}

export interface SessionState {
  sessionId: string;
  mode: PermissionMode;
  prePlanMode: PermissionMode | null;
  planSlug: string;
  planFilePath: string;
  planExists: boolean;
  hasExitedPlanMode: boolean;
  needsPlanModeExitAttachment: boolean;
  autoModeActive: boolean;
  pendingApproval: Approval | null;
  /** The allowed prompts approving granted this session (its Bash commands run unasked). */
  grantedPrompts: AllowedPrompt[];
  /** Absent from servers older than the sandbox. */
  sandbox?: SandboxState;
}

/** The result of `planMode/enter`: the session's state once in plan mode. */
export interface EnterResult {
  message: string;
  state: SessionState;
}

/** The result of a decision (`planMode/approve`, `planMode/reject`): `ok: false` says why. */
export interface OkResult {
  ok: boolean;
  failureReason?: string;
}

/**
 * The states of every session the server told us about, and the one to show.
 *
 * One server serves many sessions (one per agent conversation). The status bar follows the
 * session that changed last — the one an agent is working in — except that a plan waiting for
 * review always wins: that is what the user has to act on.
 */
export class SessionTracker {
  private readonly states = new Map<string, SessionState>();

  update(state: SessionState): void {
    // Re-inserting moves the session to the end: Map keeps insertion order.
    this.states.delete(state.sessionId);
    this.states.set(state.sessionId, state);
  }

  clear(): void {
    this.states.clear();
  }

  /** The session to show and act on, or undefined before the server has said anything. */
  current(): SessionState | undefined {
    return this.pending() ?? this.latest();
  }

  /** The most recently changed session with a plan waiting for review. */
  pending(): SessionState | undefined {
    return [...this.states.values()].reverse().find((s) => s.pendingApproval !== null);
  }

  /** Every session's state, in the order they last changed. */
  all(): SessionState[] {
    return [...this.states.values()];
  }

  private latest(): SessionState | undefined {
    return [...this.states.values()].pop();
  }
}
