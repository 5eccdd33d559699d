/**
 * Review comments through VS Code's Comments API: the gutter's `+` on a plan under review
 * opens a thread; submitting it writes the comment syntax into the document (one source of
 * truth: the server reads the comments from the text, README "Reviewing with comments"), and
 * every comment written in a plan is shown as a thread on its lines.
 */

import * as vscode from "vscode";

import { commentInsertion, findComments, splitLines } from "./reviewComments";

export const CONTROLLER_ID = "planMode.review";

/** Which files are plans (the sessions' plan files, the ones under review above all). */
export interface PlanFiles {
  underReview(path: string): boolean;
  isPlan(path: string): boolean;
}

export class ReviewComments implements vscode.Disposable {
  private readonly controller: vscode.CommentController;
  private readonly threads = new Map<string, vscode.CommentThread[]>();
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly plans: PlanFiles) {
    this.controller = vscode.comments.createCommentController(CONTROLLER_ID, "Plan review");
    this.controller.options = {
      prompt: "Comment for the agent…",
      placeHolder:
        "What should the agent change here? It is written into the plan as > [!review] …",
    };
    this.controller.commentingRangeProvider = {
      provideCommentingRanges: (document) => {
        if (!this.plans.underReview(document.uri.fsPath)) return [];
        return [new vscode.Range(0, 0, Math.max(0, document.lineCount - 1), 0)];
      },
    };
    this.subscriptions.push(
      this.controller,
      vscode.workspace.onDidOpenTextDocument((document) => this.show(document)),
      vscode.workspace.onDidChangeTextDocument((event) => this.show(event.document)),
      vscode.workspace.onDidCloseTextDocument((document) => this.clear(document.uri.toString())),
    );
  }

  /** Show the comments of every open plan again (after the set of plans changed). */
  refresh(): void {
    for (const document of vscode.workspace.textDocuments) this.show(document);
  }

  /**
   * The thread's `Add Comment` button: write the comment after the block the thread is on.
   * The new comment then shows as a thread of its own, from the text.
   */
  async add(reply: vscode.CommentReply): Promise<void> {
    const text = reply.text.trim();
    const thread = reply.thread;
    if (!text) return;
    const document = await vscode.workspace.openTextDocument(thread.uri);
    const line = thread.range?.end.line ?? 0;
    const { at, lines } = commentInsertion(splitLines(document.getText()), line, text);
    const eol = document.eol === vscode.EndOfLine.CRLF ? "\r\n" : "\n";
    const edit = new vscode.WorkspaceEdit();
    if (at >= document.lineCount) {
      // After a last line without a line break.
      const last = document.lineAt(document.lineCount - 1);
      edit.insert(document.uri, last.range.end, eol + lines.join(eol));
    } else {
      edit.insert(document.uri, new vscode.Position(at, 0), lines.join(eol) + eol);
    }
    if (await vscode.workspace.applyEdit(edit)) thread.dispose();
  }

  private show(document: vscode.TextDocument): void {
    const key = document.uri.toString();
    if (document.uri.scheme !== "file" || !this.plans.isPlan(document.uri.fsPath)) {
      this.clear(key);
      return;
    }
    const found = findComments(splitLines(document.getText()));
    const shown = this.threads.get(key) ?? [];
    // Threads are recreated only when the comments changed, so an open one stays open.
    const same =
      shown.length === found.length &&
      shown.every(
        (thread, i) =>
          thread.range?.start.line === found[i].start &&
          (thread.comments[0]?.body as vscode.MarkdownString | undefined)?.value === found[i].text,
      );
    if (same) return;
    this.clear(key);
    this.threads.set(
      key,
      found.map((comment) => {
        const body = new vscode.MarkdownString(comment.text);
        const thread = this.controller.createCommentThread(
          document.uri,
          new vscode.Range(comment.start, 0, comment.end - 1, 0),
          [{ body, mode: vscode.CommentMode.Preview, author: { name: "Review comment" } }],
        );
        thread.canReply = false;
        thread.label = "For the agent — edit it in the plan";
        thread.contextValue = "planModeWritten";
        thread.collapsibleState = vscode.CommentThreadCollapsibleState.Collapsed;
        return thread;
      }),
    );
  }

  private clear(key: string): void {
    for (const thread of this.threads.get(key) ?? []) thread.dispose();
    this.threads.delete(key);
  }

  dispose(): void {
    for (const key of [...this.threads.keys()]) this.clear(key);
    for (const subscription of this.subscriptions) subscription.dispose();
  }
}
