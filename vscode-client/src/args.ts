/** The params of the requests the client sends, and the arguments it forwards. */

import type { AllowedPrompt, Approval, PermissionMode } from "./state";

// The editor's decisions deliver the review comments written in the plan (README "Reviewing
// with comments"): notes with an approval, feedback with a rejection.
export interface ApproveParams {
  approvalId: string;
  sessionId?: string;
  mode?: PermissionMode;
  includeComments: true;
  /** The allowed prompts granted with the plan: only those the user was shown are sent. */
  allowedPrompts?: AllowedPrompt[];
}

/**
 * Approve `approval`; `granting` are the allowed prompts the user was shown and confirmed
 * (the server grants only those, docs/protocol.md §5.1).
 */
export function approveParams(
  approval: Approval,
  mode?: PermissionMode,
  granting: readonly AllowedPrompt[] = [],
): ApproveParams {
  return {
    approvalId: approval.approvalId,
    ...sessionOf(approval),
    ...(mode !== undefined ? { mode } : {}),
    includeComments: true,
    ...(granting.length > 0 ? { allowedPrompts: [...granting] } : {}),
  };
}

export interface RejectParams {
  approvalId: string;
  sessionId?: string;
  feedback?: string;
  includeComments: true;
}

/** Feedback as typed: blank means "no feedback", not an empty message to the agent. */
export function rejectParams(approval: Approval, feedback: string): RejectParams {
  return {
    approvalId: approval.approvalId,
    ...sessionOf(approval),
    ...withFeedback(feedback),
    includeComments: true,
  };
}

/**
 * The arguments of a `planMode.reject` command (the `Reject…` lens) with the user's feedback
 * added to its argument object, ready to forward to the server.
 */
export function rejectCommandArgs(args: readonly unknown[], feedback: string): unknown[] {
  const [first, ...rest] = args;
  const base = typeof first === "object" && first !== null && !Array.isArray(first) ? first : {};
  return [{ ...base, ...withFeedback(feedback) }, ...rest];
}

/** A teammate's request has no session: the lead's server decides it by its id alone. */
function sessionOf(approval: Approval): { sessionId?: string } {
  return approval.sessionId !== null ? { sessionId: approval.sessionId } : {};
}

function withFeedback(feedback: string): { feedback?: string } {
  const trimmed = feedback.trim();
  return trimmed ? { feedback: trimmed } : {};
}

export interface SetModeParams {
  mode: PermissionMode;
  sessionId?: string;
}

export function setModeParams(mode: PermissionMode, sessionId: string | undefined): SetModeParams {
  return sessionId !== undefined ? { mode, sessionId } : { mode };
}

/** The custom URI scheme under which the submitted plan text is served for the diff view. */
export const SUBMITTED_PLAN_SCHEME = "planmode-submitted";

/** The path part of the submitted-plan URI: the approval id, then the plan's file name. */
export function submittedPlanPath(approval: Approval): string {
  const name = approval.planFilePath.split(/[\\/]/).pop() ?? "plan.md";
  return `/${encodeURIComponent(approval.approvalId)}/${name}`;
}

/** The approval id a submitted-plan URI path names. */
export function approvalIdOfPath(path: string): string | undefined {
  const first = path.split("/").filter(Boolean)[0];
  return first === undefined ? undefined : decodeURIComponent(first);
}
