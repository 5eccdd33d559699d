import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

import type { Approval, SessionState } from "../../src/state";

/** The repository root: the nearest parent directory with a pyproject.toml. */
export function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, "pyproject.toml"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no pyproject.toml above ${__dirname}`);
    dir = parent;
  }
  return dir;
}

export function clientRoot(): string {
  return join(repoRoot(), "vscode-client");
}

/** The parts of package.json the tests read. */
export interface Manifest {
  engines: { vscode: string };
  capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
  contributes: {
    commands: { command: string; category?: string }[];
    configuration: {
      properties: Record<string, { default?: unknown; scope?: string; enum?: unknown[] }>;
    };
  };
}

/** The client's package.json. */
export function readManifest(): Manifest {
  return JSON.parse(readFileSync(join(clientRoot(), "package.json"), "utf8")) as Manifest;
}

/** The VS Code versions a bundled dependency (a package under node_modules/) supports. */
export function dependencyEngine(name: string): string {
  const path = join(clientRoot(), "node_modules", name, "package.json");
  return (JSON.parse(readFileSync(path, "utf8")) as { engines: { vscode: string } }).engines.vscode;
}

export function makeState(overrides: Partial<SessionState> = {}): SessionState {
  return {
    sessionId: "s1",
    mode: "default",
    prePlanMode: null,
    planSlug: "bold-eagle",
    planFilePath: "/ws/.claude/plans/bold-eagle.md",
    planExists: false,
    hasExitedPlanMode: false,
    needsPlanModeExitAttachment: false,
    autoModeActive: false,
    pendingApproval: null,
    grantedPrompts: [],
    ...overrides,
  };
}

export function makeApproval(overrides: Partial<Approval> = {}): Approval {
  return {
    approvalId: "a-1",
    sessionId: "s1",
    agentId: null,
    planFilePath: "/ws/.claude/plans/bold-eagle.md",
    submittedPlan: "# Plan\n",
    allowedPrompts: [],
    requestedAt: "2026-01-01T00:00:00Z",
    ...overrides,
  };
}
