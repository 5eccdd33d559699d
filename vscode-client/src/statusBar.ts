/** The status bar item: the mode of the server a command would act on, or what it needs. */

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
    this.item.command = STATUS_COMMAND[view.action];
    this.item.backgroundColor = view.warning
      ? new vscode.ThemeColor("statusBarItem.warningBackground")
      : undefined;
    this.item.show();
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
  }
}
