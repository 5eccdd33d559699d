/**
 * The server's own commands (`planMode.approve`, `planMode.reject`, …: the lenses' and code
 * actions'), registered once for every folder's server — VS Code takes a command id once —
 * and sent to the server they belong to (WorkspaceServers.forServerCommand).
 */

import * as vscode from "vscode";

import { rejectCommandArgs } from "../args";
import { SERVER_COMMANDS } from "../commands";
import { askRejectFeedback } from "../planReview";
import { COMMAND_REJECT } from "../protocol";
import type { WorkspaceServers } from "./workspaceServers";

export class ServerCommands implements vscode.Disposable {
  private readonly registrations: vscode.Disposable[];
  private readonly ran = new vscode.EventEmitter<string>();
  /** A command went to its server and was answered (a hunk kept, a plan decided, …). */
  readonly onDidRun = this.ran.event;

  constructor(private readonly servers: WorkspaceServers) {
    this.registrations = SERVER_COMMANDS.map((command) =>
      vscode.commands.registerCommand(command, (...args: unknown[]) => this.run(command, args)),
    );
  }

  dispose(): void {
    for (const registration of this.registrations) registration.dispose();
    this.ran.dispose();
  }

  private async run(command: string, args: unknown[]): Promise<unknown> {
    try {
      return await this.send(command, args);
    } finally {
      this.ran.fire(command);
    }
  }

  private async send(command: string, args: unknown[]): Promise<unknown> {
    const server = await this.servers.forServerCommand(args);
    if (server === undefined) return undefined;
    if (command === COMMAND_REJECT) {
      // The `Reject…` lens: ask for feedback before it reaches the server.
      const feedback = await askRejectFeedback();
      if (feedback === undefined) return undefined; // Escape: the plan stays under review.
      return server.executeCommand(command, rejectCommandArgs(args, feedback));
    }
    return server.executeCommand(command, args);
  }
}
