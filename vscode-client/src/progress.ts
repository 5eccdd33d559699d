/**
 * Progress through an approved plan in VS Code (docs/protocol.md §12.1): a mark before each
 * step in the plan (✓ done, ◐ in progress, • pending), a status bar item `Plan 3/7`, and
 * `Plan Mode: Mark Plan Step…` (the item's click) that sends the user's own mark.
 *
 * The marks are `before` decorations, not gutter icons: they take the theme's colours, need
 * no image per status, and leave the gutter to the review comments' `+`. The server's own
 * inlay hints for the same marks are for other editors: the client drops them
 * (servers/controller.ts).
 */

import * as vscode from "vscode";

import { COMMANDS } from "./commands";
import {
  type Progress,
  progressText,
  progressTooltip,
  type SetStepStatusParams,
  STEP_STATUSES,
  stepHover,
  stepLine,
  stepPickItems,
  type StepStatus,
  statusPickItems,
} from "./progressModel";
import { SET_STEP_STATUS } from "./protocol";
import type { FolderServer } from "./servers/folderServer";
import type { WorkspaceServers } from "./servers/workspaceServers";

const COLORS: Readonly<Record<StepStatus, string>> = {
  done: "testing.iconPassed",
  inProgress: "charts.yellow",
  pending: "descriptionForeground",
};

export class ProgressMarks implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly marks: Record<StepStatus, vscode.TextEditorDecorationType>;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly servers: WorkspaceServers) {
    this.item = vscode.window.createStatusBarItem(
      "planMode.progress",
      vscode.StatusBarAlignment.Left,
      99,
    );
    this.item.name = "Plan Mode: progress";
    const mark = (status: StepStatus) =>
      vscode.window.createTextEditorDecorationType({
        before: {
          contentText: STEP_STATUSES[status].mark,
          color: new vscode.ThemeColor(COLORS[status]),
          fontWeight: "bold",
          width: "1.4em",
        },
        overviewRulerColor:
          status === "done" ? new vscode.ThemeColor("testing.iconPassed") : undefined,
        overviewRulerLane: vscode.OverviewRulerLane.Left,
      });
    this.marks = { done: mark("done"), inProgress: mark("inProgress"), pending: mark("pending") };
    this.subscriptions.push(
      this.item,
      ...Object.values(this.marks),
      servers.onDidChange(() => this.render()),
      vscode.window.onDidChangeVisibleTextEditors(() => this.render()),
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (this.planOf(event.document) !== undefined) this.render();
      }),
      vscode.commands.registerCommand(COMMANDS.markStep, (target?: unknown) =>
        this.markStep(target),
      ),
    );
    this.render();
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
  }

  /** The progress whose approved plan `document` is. */
  private planOf(document: vscode.TextDocument): Progress | undefined {
    if (document.uri.scheme !== "file") return undefined;
    const server = this.servers.forFile(document.uri);
    return server?.currentProgress(document.uri.fsPath);
  }

  private render(): void {
    const server = this.servers.active();
    const editor = vscode.window.activeTextEditor;
    const progress = server?.currentProgress(editor?.document.uri.fsPath);
    if (server === undefined || progress === undefined || progress.total === 0) {
      this.item.hide();
    } else {
      this.item.text = progressText(progress);
      this.item.tooltip = progressTooltip(progress);
      this.item.command = {
        title: "Mark a step",
        command: COMMANDS.markStep,
        arguments: [server.folder.uri],
      };
      this.item.show();
    }
    for (const visible of vscode.window.visibleTextEditors) this.decorate(visible);
  }

  private decorate(editor: vscode.TextEditor): void {
    const progress = this.planOf(editor.document);
    const ranges: Record<StepStatus, vscode.DecorationOptions[]> = {
      done: [],
      inProgress: [],
      pending: [],
    };
    if (progress !== undefined && samePath(progress.planFilePath, editor.document.uri.fsPath)) {
      const lines = editor.document.getText().split(/\r?\n/);
      for (const step of progress.steps) {
        const line = stepLine(lines, step);
        if (line === undefined) continue;
        ranges[step.status].push({
          range: new vscode.Range(line, 0, line, 0),
          hoverMessage: stepHover(step),
        });
      }
    }
    for (const status of Object.keys(ranges) as StepStatus[])
      editor.setDecorations(this.marks[status], ranges[status]);
  }

  /** Pick a step, then its status: the user's own mark, which wins over the agent's. */
  private async markStep(target?: unknown): Promise<void> {
    const server = await this.servers.forCommand(target, (s) => s.currentProgress() !== undefined);
    const path = vscode.window.activeTextEditor?.document.uri.fsPath;
    const progress = server?.currentProgress(path);
    if (server === undefined || progress === undefined) {
      void vscode.window.showInformationMessage("No approved plan is being carried out.");
      return;
    }
    const step = await vscode.window.showQuickPick(stepPickItems(progress), {
      title: `Plan Mode: mark a step (${progress.done}/${progress.total} done)`,
      placeHolder: "Which step?",
    });
    if (step === undefined) return;
    const current = progress.steps[step.index].status;
    const status = await vscode.window.showQuickPick(statusPickItems(current), {
      title: `Plan Mode: step ${step.index + 1}`,
      placeHolder: "Mark it as",
    });
    if (status === undefined) return;
    await this.setStatus(server, progress, step.index, status.status);
  }

  private async setStatus(
    server: FolderServer,
    progress: Progress,
    index: number,
    status: StepStatus,
  ): Promise<void> {
    const params: SetStepStatusParams = {
      index,
      status,
      sessionId: progress.sessionId,
      approvalId: progress.approvalId,
    };
    const result = await server.request<Progress>(SET_STEP_STATUS, params);
    if (result !== undefined) server.updateProgress(result);
  }
}

function samePath(a: string, b: string): boolean {
  return vscode.Uri.file(a).fsPath === vscode.Uri.file(b).fsPath;
}
