/** What the status bar item and the mode quick pick show for a session state. */

import type { PermissionMode, SessionState } from "./state";
import { grantsText, PERMISSION_MODES } from "./state";

export interface ModeInfo {
  icon: string;
  label: string;
  detail: string;
}

export const MODES: Readonly<Record<PermissionMode, ModeInfo>> = {
  plan: {
    icon: "$(book)",
    label: "Plan mode",
    detail: "The agent explores and writes a plan; nothing else is changed until you approve it.",
  },
  acceptEdits: {
    icon: "$(pencil)",
    label: "Accept edits",
    detail: "File edits inside the workspace are accepted without asking; commands still ask.",
  },
  default: {
    icon: "$(shield)",
    label: "Default",
    detail: "Read-only tools run; every edit and command asks first.",
  },
  auto: {
    icon: "$(zap)",
    label: "Auto",
    detail: "A classifier decides what is safe to run without asking.",
  },
  bypassPermissions: {
    icon: "$(warning)",
    label: "Bypass permissions",
    detail: "Everything runs without asking.",
  },
};

/**
 * The command the status bar item runs: switch mode, show the plan under review, show the
 * log, or fix what keeps the server from running (the same fix its notification offers).
 */
export type StatusAction = "pickMode" | "reviewPlan" | "showOutput" | "fixServer";

export interface StatusView {
  text: string;
  tooltip: string;
  action: StatusAction;
  /** Drawn with the warning background: something needs the user, or nothing is guarded. */
  warning: boolean;
}

/**
 * `server` is the line that says which Python runs the server (see serverLine), added to every
 * tooltip once the server runs.
 */
export function statusView(state: SessionState | undefined, server?: string): StatusView {
  const view = sessionView(state);
  return server === undefined ? view : { ...view, tooltip: `${view.tooltip}\n\n${server}` };
}

function sessionView(state: SessionState | undefined): StatusView {
  if (state === undefined) {
    return {
      text: "$(sync~spin) Plan mode",
      tooltip: "Plan mode: starting the server…",
      action: "showOutput",
      warning: false,
    };
  }
  if (state.pendingApproval !== null) {
    const grants = grantsText(state.pendingApproval);
    const review = `The agent is waiting for your review of ${basename(state.pendingApproval.planFilePath)}. Click to open it.`;
    return {
      text: "$(book) Plan ready for review",
      tooltip: grants === undefined ? review : `${review}\n\n${grants}`,
      action: "reviewPlan",
      warning: true,
    };
  }
  const mode = MODES[state.mode] ?? { icon: "$(question)", label: state.mode, detail: "" };
  const tooltip = `Permission mode: ${mode.label}. Click to switch.`;
  const sandbox = state.mode === "plan" ? state.sandbox : undefined;
  if (sandbox !== undefined && sandbox.mechanism === null) {
    // Nothing but the classifier stands between the agent's Bash and the machine.
    const bash = sandbox.required
      ? "Bash is denied while planning (requireSandbox)"
      : "Bash commands the classifier allows run unsandboxed";
    return {
      text: `${mode.icon} ${mode.label} (classifier only)`,
      tooltip: `${tooltip}\n\nNo OS sandbox here: ${sandbox.detail}. ${bash}.`,
      action: "pickMode",
      warning: true,
    };
  }
  return {
    text: `${mode.icon} ${mode.label}`,
    tooltip:
      sandbox === undefined
        ? tooltip
        : `${tooltip}\n\nBash runs sandboxed: ${sandbox.status} (${sandbox.detail}).`,
    action: "pickMode",
    warning: state.mode === "bypassPermissions",
  };
}

/**
 * The status bar of a workspace with several folders names the folder its server serves
 * (the active editor's, docs/protocol.md §1: one server per workspace root).
 */
export function inFolder(view: StatusView, folder: string): StatusView {
  return {
    ...view,
    text: `${view.text} · ${folder}`,
    tooltip: `${view.tooltip}\n\nWorkspace folder: ${folder}`,
  };
}

/** The name of a server's client and log, unique in the window. */
export const SERVER_NAME = "Plan Mode";

export interface ServerNaming {
  /** The language client's and its log's name. */
  name: string;
  /** The folder, as messages and the status bar name it in a window of several. */
  folder?: string;
}

/**
 * A window on one folder (`folder` undefined) has a plain "Plan Mode"; a workspace of several
 * names each server's folder, with a number when two folders have the same name.
 */
export function serverNaming(folder: string | undefined, taken: ReadonlySet<string>): ServerNaming {
  if (folder === undefined) return { name: SERVER_NAME };
  let label = folder;
  for (let n = 2; taken.has(`${SERVER_NAME} (${label})`); n += 1) label = `${folder} ${n}`;
  return { name: `${SERVER_NAME} (${label})`, folder: label };
}

/** Which Python runs the server and why that one: for tooltips and the output channel. */
export function serverLine(server: {
  python: string;
  version: string;
  sourceLabel: string;
}): string {
  return `Server: planmode ${server.version} in ${server.python} (${server.sourceLabel})`;
}

/** What clicking the item does about a problem, in the words of its tooltip. */
const FIX_WORDS = {
  openSetting: "open the setting",
  createEnvironment: "create a private Python environment with planmode",
  restart: "restart the server",
} as const;

/** The status bar when the server cannot run: why, and a click that fixes it. */
export function problemView(problem: { reason: string; fix: keyof typeof FIX_WORDS }): StatusView {
  const setup = problem.fix === "createEnvironment";
  return {
    text: setup ? "$(cloud-download) Plan mode: set up" : "$(error) Plan mode",
    tooltip: `Plan mode server is not running: ${problem.reason}. Click to ${FIX_WORDS[problem.fix]}.`,
    action: "fixServer",
    warning: true,
  };
}

export interface ModePickItem {
  label: string;
  description?: string;
  detail: string;
  mode: PermissionMode;
}

/** One item per mode, the current one marked. */
export function modePickItems(current: PermissionMode | undefined): ModePickItem[] {
  return PERMISSION_MODES.map((mode) => ({
    label: `${MODES[mode].icon} ${MODES[mode].label}`,
    description: mode === current ? "current" : undefined,
    detail: MODES[mode].detail,
    mode,
  }));
}

function basename(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}
