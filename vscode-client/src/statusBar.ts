/**
 * The status bar item: the mode of the active editor's folder's server (of the last folder
 * shown while no editor is in one), or what that server needs. A click acts on that server.
 */

import * as vscode from "vscode";

import { COMMANDS } from "./commands";
import type { WorkspaceServers } from "./servers/workspaceServers";
import type { StatusView } from "./status";

const STATUS_COMMAND: Record<StatusView["action"], string> = {
  pickMode: COMMANDS.pickMode,
  reviewPlan: COMMANDS.reviewPlan,
  showOutput: COMMANDS.showOutput,
  fixServer: COMMANDS.fixServer,
};

export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly servers: WorkspaceServers) {
    this.item = vscode.window.createStatusBarItem(
      "planMode.status",
      vscode.StatusBarAlignment.Left,
      100,
    );
    this.item.name = "Plan Mode";
    this.subscriptions.push(
      this.item,
      servers.onDidChange(() => this.render()),
    );
    this.render();
  }

  private render(): void {
    const server = this.servers.active();
    if (server === undefined) {
      this.item.hide();
      return;
    }
    const view = server.view();
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.command = {
      title: view.text,
      command: STATUS_COMMAND[view.action],
      arguments: [server.folder.uri],
    };
    this.item.backgroundColor = view.warning
      ? new vscode.ThemeColor("statusBarItem.warningBackground")
      : undefined;
    this.item.show();
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
  }
}
