/**
 * Why a server cannot run, and the one action that fixes it: the notification's words and
 * its button. Shown once per problem, however often a start meets it again.
 */

import * as vscode from "vscode";

import { SETTINGS_SECTION } from "../protocol";

/** Why the server is not running, and the one action that fixes it. */
export interface Problem {
  reason: string;
  fix: "openSetting" | "createEnvironment" | "restart";
}

/** The setting's own entry in the Settings editor (not a search that may hide it). */
export const PYTHON_PATH_SETTING = `${SETTINGS_SECTION}.server.pythonPath`;

export function openPythonPathSetting(): Thenable<unknown> {
  return vscode.commands.executeCommand(
    "workbench.action.openSettings",
    `@id:${PYTHON_PATH_SETTING}`,
  );
}

const FIX_LABELS: Record<Problem["fix"], string> = {
  openSetting: "Open Setting",
  createEnvironment: "Create Environment",
  restart: "Restart Server",
};

/**
 * The message of the one notification a problem gets; `folder` names the server's folder in a
 * window of several (the other problems are the same for every folder's server).
 */
export function problemMessage(problem: Problem, folder?: string): string {
  switch (problem.fix) {
    case "openSetting":
      return `Plan mode server cannot start: ${problem.reason}. Set ${PYTHON_PATH_SETTING} to a Python with planmode, or clear it to let the extension find or create one.`;
    case "createEnvironment":
      return `Plan mode needs a Python environment with planmode (${problem.reason}). Create a private one for this extension now? (python -m venv in VS Code's storage, then pip install planmode)`;
    case "restart":
      return folder === undefined
        ? `Plan mode server stopped: ${problem.reason}.`
        : `Plan mode server of ${folder} stopped: ${problem.reason}.`;
  }
}

/**
 * The problems' notifications: one per problem, so a repeated start that meets the same
 * problem stays quiet until the server has run again.
 */
export class ProblemNotices {
  /** Each problem told, by its message, and the servers that have it now. */
  private readonly told = new Map<string, Set<string>>();

  /**
   * `server` (its name) has `problem`: tell the user, unless they were told already (of the
   * same problem of another folder's server too); the notification's button runs `fix`, its
   * `Show Log` shows `log`.
   */
  notify(
    server: string,
    problem: Problem,
    folder: string | undefined,
    log: vscode.LogOutputChannel,
    fix: () => void,
  ): void {
    const message = problemMessage(problem, folder);
    this.forget(server, message);
    const having = this.told.get(message);
    if (having !== undefined) {
      having.add(server);
      return;
    }
    this.told.set(message, new Set([server]));
    const show =
      problem.fix === "createEnvironment"
        ? vscode.window.showInformationMessage
        : vscode.window.showErrorMessage;
    void show(message, FIX_LABELS[problem.fix], "Show Log").then((choice) => {
      if (choice === FIX_LABELS[problem.fix]) {
        fix();
      } else if (choice === "Show Log") {
        log.show();
      }
    });
  }

  /** `server` runs: its next problem is news again. */
  clear(server: string): void {
    this.forget(server);
  }

  private forget(server: string, except?: string): void {
    for (const [message, having] of this.told) {
      if (message === except) continue;
      having.delete(server);
      if (having.size === 0) this.told.delete(message);
    }
  }
}
