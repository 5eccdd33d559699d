/**
 * A session's progress through its approved plan (docs/protocol.md §12.1): the wire's shapes,
 * each step's mark, the status bar's text and the quick picks that mark a step.
 *
 * No `vscode` import here: unit-tested under plain node. The wire's shapes are interfaces
 * (test/unit/wireTypes.test.ts checks each against the server's schema); the quick picks'
 * items are type aliases.
 */

export type StepStatus = "pending" | "inProgress" | "done";
export type StepSource = "todo" | "edit" | "user";

export interface Step {
  index: number;
  /** 0-based, in the approved plan. */
  line: number;
  text: string;
  status: StepStatus;
  source: StepSource | null;
}

export interface DriftEntry {
  path: string;
  tool: string;
  at: string;
}

/** The plan's own verification section, pointed out when every step is done. */
export interface Verification {
  line: number;
  title: string;
}

export interface Progress {
  sessionId: string;
  planFilePath: string;
  approvalId: string;
  steps: Step[];
  done: number;
  total: number;
  drift: DriftEntry[];
  verification: Verification | null;
  allowedPaths: string[];
}

export interface SetStepStatusParams {
  index: number;
  status: StepStatus;
  sessionId?: string;
  /** The approval whose steps the user picked from: a mark for an earlier plan is refused. */
  approvalId?: string;
}

/** How each status reads: the mark beside the step, and its name. */
export const STEP_STATUSES: Readonly<Record<StepStatus, { mark: string; label: string }>> = {
  done: { mark: "✓", label: "Done" },
  inProgress: { mark: "◐", label: "In progress" },
  pending: { mark: "•", label: "Pending" },
};

const SOURCES: Readonly<Record<StepSource, string>> = {
  todo: "the agent's todo list",
  edit: "the agent's edit of a file it names",
  user: "you",
};

/** What progressToShow reads of the sessions (state.ts's SessionTracker). */
export type SessionsView = {
  all(): readonly { sessionId: string; mode: string }[];
  current(): { sessionId: string } | undefined;
};

/**
 * The progress to show, of those a server reported (oldest change first): of the session
 * whose approved plan is `path`, else of the session the status bar shows, else the latest;
 * never of a session planning again (its plan is no longer carried out). `normal` makes two
 * spellings of one path equal.
 */
export function progressToShow(
  reported: readonly Progress[],
  sessions: SessionsView,
  path?: string,
  normal: (path: string) => string = (p) => p,
): Progress | undefined {
  const planning = new Set(
    sessions
      .all()
      .filter((s) => s.mode === "plan")
      .map((s) => s.sessionId),
  );
  const executing = reported.filter((p) => !planning.has(p.sessionId));
  const ofPath = path && executing.find((p) => normal(p.planFilePath) === path);
  if (ofPath) return ofPath;
  const current = sessions.current()?.sessionId;
  return executing.find((p) => p.sessionId === current) ?? executing.at(-1);
}

/** The status bar's text: `Plan 3/7`, with a check once every step is done. */
export function progressText(progress: Progress): string {
  const icon = progress.total > 0 && progress.done === progress.total ? "$(pass)" : "$(checklist)";
  return `${icon} Plan ${progress.done}/${progress.total}`;
}

export function progressTooltip(progress: Progress): string {
  const name = progress.planFilePath.split(/[\\/]/).pop() ?? progress.planFilePath;
  const lines = [`Approved plan ${name}: ${progress.done} of ${progress.total} steps done.`];
  for (const step of progress.steps) lines.push(`${STEP_STATUSES[step.status].mark} ${step.text}`);
  if (progress.drift.length > 0) {
    const paths = progress.drift.map((d) => d.path).join(", ");
    lines.push(`Written outside the plan: ${paths}`);
  }
  lines.push("Click to mark a step.");
  return lines.join("\n");
}

/** What a step's mark says when hovered. */
export function stepHover(step: Step): string {
  const status = STEP_STATUSES[step.status].label;
  const by = step.source === null ? "" : ` (marked by ${SOURCES[step.source]})`;
  return `Step ${step.index + 1}: ${status}${by}`;
}

export type StepPickItem = {
  label: string;
  description: string;
  index: number;
};

/** The quick pick of steps to mark, each with its mark and status. */
export function stepPickItems(progress: Progress): StepPickItem[] {
  return progress.steps.map((step) => ({
    label: `${STEP_STATUSES[step.status].mark} ${step.index + 1}. ${step.text}`,
    description: stepHover(step).replace(/^Step \d+: /, ""),
    index: step.index,
  }));
}

export type StatusPickItem = {
  label: string;
  status: StepStatus;
};

/** The statuses a step can be marked with; its own first (picked, it is marked yours). */
export function statusPickItems(current: StepStatus): StatusPickItem[] {
  const order: StepStatus[] = ["done", "inProgress", "pending"];
  return order
    .sort((a, b) => Number(b === current) - Number(a === current))
    .map((status) => ({
      label: `${STEP_STATUSES[status].mark} ${STEP_STATUSES[status].label}`,
      status,
    }));
}

/** A list item's marker and task box, as steps.py reads them. */
const ITEM_MARKER = /^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?/;

/**
 * The line a step is on in the plan as it is now: its approved line while that still starts
 * the step's text, else the first list item that does (the plan was edited since); undefined
 * when none does. An item's text may go on over several lines: its first line is a prefix.
 */
export function stepLine(lines: readonly string[], step: Step): number | undefined {
  const starts = (line: string | undefined): boolean => {
    const marker = line === undefined ? null : ITEM_MARKER.exec(line);
    if (line === undefined || marker === null) return false;
    const first = line.slice(marker[0].length).trim();
    return first.length > 0 && step.text.startsWith(first);
  };
  if (starts(lines[step.line])) return step.line;
  const found = lines.findIndex(starts);
  return found < 0 ? undefined : found;
}
