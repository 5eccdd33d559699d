/** What the status bar item and the mode quick pick show for a session state. */

import type { PermissionMode, SessionState } from "./state";
import { PERMISSION_MODES } from "./state";

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

/** The command the status bar item runs: switch mode, or show the plan under review. */
export type StatusAction = "pickMode" | "reviewPlan" | "showOutput";

export interface StatusView {
  text: string;
  tooltip: string;
  action: StatusAction;
  /** Drawn with the warning background: something needs the user, or nothing is guarded. */
  warning: boolean;
}

export function statusView(state: SessionState | undefined): StatusView {
  if (state === undefined) {
    return {
      text: "$(sync~spin) Plan mode",
      tooltip: "Plan mode: starting the server…",
      action: "showOutput",
      warning: false,
    };
  }
  if (state.pendingApproval !== null) {
    return {
      text: "$(book) Plan ready for review",
      tooltip: `The agent is waiting for your review of ${basename(state.pendingApproval.planFilePath)}. Click to open it.`,
      action: "reviewPlan",
      warning: true,
    };
  }
  const mode = MODES[state.mode] ?? { icon: "$(question)", label: state.mode, detail: "" };
  return {
    text: `${mode.icon} ${mode.label}`,
    tooltip: `Permission mode: ${mode.label}. Click to switch.`,
    action: "pickMode",
    warning: state.mode === "bypassPermissions",
  };
}

/** The status bar when the server is not running. */
export function stoppedView(reason: string): StatusView {
  return {
    text: "$(error) Plan mode",
    tooltip: `Plan mode server is not running: ${reason}. Click for its log.`,
    action: "showOutput",
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
