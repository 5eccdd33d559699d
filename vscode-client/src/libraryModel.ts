/**
 * The plan library as the Plans view shows it (docs/protocol.md §12.3): the wire's shapes of
 * `planMode/listPlans`, `listRevisions` and `revisionText`, and how a plan and a version read.
 *
 * No `vscode` import here: unit-tested under plain node.
 */

import type { SessionState } from "./state";

export type PlanStatus = "drafting" | "underReview" | "executing" | "done" | "rejected" | "saved";

export interface StepCount {
  done: number;
  total: number;
}

/** A `planMode/listPlans` entry. */
export interface LibraryPlan {
  path: string;
  slug: string;
  sessionId?: string;
  agentId?: string;
  modified: string;
  sizeBytes: number;
  pending: boolean;
  /** Absent from servers older than the library. */
  status?: PlanStatus;
  progress?: StepCount;
  agent?: string;
  decidedAt?: string;
  /** When the library first saw the plan. */
  firstSeen?: string;
}

export interface ListPlansResult {
  plans: LibraryPlan[];
}

/** One version of a plan's history (`planMode/listRevisions`). */
export interface Revision {
  id: number;
  author: "agent" | "user";
  time: string;
  reason: string;
  sizeBytes: number;
  lines: number;
  /** The review comments written in this version, when it had any. */
  comments?: unknown[];
}

export interface ListRevisionsResult {
  path: string;
  revisions: Revision[];
}

export interface RevisionTextParams {
  path: string;
  id: number;
}

export interface RevisionTextResult {
  path: string;
  id: number;
  author: "agent" | "user";
  time: string;
  reason: string;
  text: string;
}

export interface TakeUpPlanParams {
  path: string;
  sessionId?: string;
}

export interface TakeUpPlanResult {
  planFilePath: string;
  takenUpFrom: string;
  state: SessionState;
}

export interface SaveForLaterParams {
  approvalId: string;
  sessionId?: string;
  planSha256?: string;
}

const STATUS_LABELS: Readonly<Record<PlanStatus, string>> = {
  drafting: "drafting",
  underReview: "under review",
  executing: "executing",
  done: "done",
  rejected: "rejected",
  saved: "saved",
};

/** A codicon per status, for the tree's items. */
export const STATUS_ICONS: Readonly<Record<PlanStatus, string>> = {
  drafting: "edit",
  underReview: "eye",
  executing: "play-circle",
  done: "pass",
  rejected: "circle-slash",
  saved: "bookmark",
};

/** `executing 3/7`, `saved`, …; `drafting` for a server that does not say. */
export function statusLabel(plan: LibraryPlan): string {
  const label = STATUS_LABELS[plan.status ?? "drafting"];
  return plan.progress ? `${label} ${plan.progress.done}/${plan.progress.total}` : label;
}

const AGENT_NAMES: Readonly<Record<string, string>> = {
  "claude-code": "Claude Code",
  gemini: "Gemini CLI",
  codex: "Codex",
  opencode: "OpenCode",
};

export function agentName(agent: string | undefined): string | undefined {
  if (agent === undefined) return undefined;
  return AGENT_NAMES[agent] ?? agent;
}

/** How long ago `iso` was, from `now`: `just now`, `5 min ago`, `3 h ago`, `2 days ago`, or the date. */
export function ago(iso: string, now: Date = new Date()): string {
  const then = new Date(iso);
  if (Number.isNaN(then.getTime())) return iso;
  const seconds = Math.max(0, (now.getTime() - then.getTime()) / 1000);
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ago`;
  if (seconds < 7 * 86400) return `${Math.floor(seconds / 86400)} days ago`;
  return then.toISOString().slice(0, 10);
}

/** The tree item's description: status, agent and when it last changed. */
export function planDescription(plan: LibraryPlan, now?: Date): string {
  const agent = agentName(plan.agent);
  return [statusLabel(plan), agent, ago(plan.modified, now)]
    .filter((part) => part !== undefined)
    .join(" · ");
}

/** The tree item's tooltip: everything the library knows of the plan, a line each. */
export function planTooltip(plan: LibraryPlan): string {
  const lines = [plan.path, `Status: ${statusLabel(plan)}`];
  const agent = agentName(plan.agent);
  if (agent !== undefined) lines.push(`Agent: ${agent}`);
  if (plan.sessionId !== undefined) lines.push(`Session: ${plan.sessionId}`);
  if (plan.firstSeen !== undefined) lines.push(`First seen: ${plan.firstSeen}`);
  if (plan.decidedAt !== undefined) lines.push(`Decided: ${plan.decidedAt}`);
  lines.push(`Modified: ${plan.modified}`);
  return lines.join("\n");
}

/** Saved and rejected plans can be taken up again (docs/protocol.md §12.3). */
export function canTakeUp(plan: LibraryPlan): boolean {
  return plan.status === "saved" || plan.status === "rejected";
}

/** The newest first, as a library reads; a plan under review before everything. */
export function sortPlans(plans: readonly LibraryPlan[]): LibraryPlan[] {
  const key = (p: LibraryPlan) => (p.status === "underReview" ? 1 : 0);
  return [...plans].sort((a, b) => key(b) - key(a) || b.modified.localeCompare(a.modified));
}

/** A version's label, e.g. `#3 agent`, and description, its reason and time. */
export function revisionLabel(revision: Revision): string {
  return `#${revision.id} ${revision.author}`;
}

export function revisionDescription(revision: Revision, now?: Date): string {
  return `${revision.reason} · ${ago(revision.time, now)}`;
}

/**
 * The two versions a diff compares, older first: two chosen ones in either order, or one and
 * the version before it; undefined when there is none before.
 */
export function diffPair(
  revisions: readonly Revision[],
  chosen: readonly number[],
): [number, number] | undefined {
  if (chosen.length >= 2) {
    const [a, b] = [...chosen].sort((x, y) => x - y);
    return a === b ? undefined : [a, b];
  }
  if (chosen.length !== 1) return undefined;
  const ids = revisions.map((r) => r.id).sort((x, y) => x - y);
  const at = ids.indexOf(chosen[0]);
  return at > 0 ? [ids[at - 1], chosen[0]] : undefined;
}
