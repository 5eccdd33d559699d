/**
 * The agent's unreviewed revisions of a plan, shown in the plan itself (docs/protocol.md
 * §12.4): added lines highlighted as a diff's inserted text is, removed lines as faded, struck
 * ghost text beside them (hunkMarks.ts says where), next to the server's Keep/Undo lenses.
 *
 * Asked of the server (`planMode/listHunks`) for each visible plan when its text or its
 * session's state changes and after a Keep or Undo; a hunk kept or undone, or the plan
 * decided, leaves no hunk and so no mark.
 */

import * as vscode from "vscode";

import { hunkMarks, type ListHunksParams, type ListHunksResult } from "./hunkMarks";
import { LIST_HUNKS } from "./protocol";
import type { WorkspaceServers } from "./servers/workspaceServers";

// Asking once the typing or the agent's edits pause, not on every keystroke.
const SETTLE_MS = 250;

export class RevisionHighlights implements vscode.Disposable {
  private readonly added: vscode.TextEditorDecorationType;
  private readonly ghost: vscode.TextEditorDecorationType;
  private readonly subscriptions: vscode.Disposable[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  // Each refresh counts: an answer to an older one is dropped.
  private generation = 0;

  constructor(
    private readonly servers: WorkspaceServers,
    commandsRan: vscode.Event<string>,
  ) {
    this.added = vscode.window.createTextEditorDecorationType({
      isWholeLine: true,
      backgroundColor: new vscode.ThemeColor("diffEditor.insertedLineBackground"),
      overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.addedForeground"),
      overviewRulerLane: vscode.OverviewRulerLane.Left,
    });
    // The ghost's own look goes on each range's renderOptions (before or after the text).
    this.ghost = vscode.window.createTextEditorDecorationType({});
    this.subscriptions.push(
      this.added,
      this.ghost,
      servers.onDidChangeState(() => this.schedule()),
      commandsRan(() => this.schedule()),
      vscode.window.onDidChangeVisibleTextEditors(() => this.schedule()),
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.document.languageId === "markdown") this.schedule();
      }),
    );
    this.schedule();
  }

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    for (const subscription of this.subscriptions) subscription.dispose();
  }

  private schedule(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.refresh();
    }, SETTLE_MS);
  }

  private async refresh(): Promise<void> {
    const generation = ++this.generation;
    const editors = vscode.window.visibleTextEditors.filter(
      (e) => e.document.uri.scheme === "file" && this.servers.isPlan(e.document.uri.fsPath),
    );
    const answers = await Promise.all(
      editors.map(async (editor) => {
        const server = this.servers.forFile(editor.document.uri);
        const params: ListHunksParams = { path: editor.document.uri.fsPath };
        return server?.query<ListHunksResult>(LIST_HUNKS, params);
      }),
    );
    if (generation !== this.generation) return;
    const shown = new Set<vscode.TextEditor>();
    editors.forEach((editor, i) => {
      this.draw(editor, answers[i]);
      shown.add(editor);
    });
    for (const editor of vscode.window.visibleTextEditors)
      if (!shown.has(editor)) this.draw(editor, undefined);
  }

  private draw(editor: vscode.TextEditor, answer: ListHunksResult | undefined): void {
    const marks = hunkMarks(answer?.hunks ?? [], editor.document.lineCount);
    editor.setDecorations(
      this.added,
      marks.added.map(([first, last]) => new vscode.Range(first, 0, last, 0)),
    );
    editor.setDecorations(
      this.ghost,
      marks.ghosts.map((ghost): vscode.DecorationOptions => {
        const end = editor.document.lineAt(ghost.line).range.end;
        const look: vscode.ThemableDecorationAttachmentRenderOptions = {
          contentText: ghost.before ? `− ${ghost.text}` : `  − ${ghost.text}`,
          color: new vscode.ThemeColor("editorGhostText.foreground"),
          fontStyle: "italic",
          textDecoration: "line-through",
          backgroundColor: new vscode.ThemeColor("diffEditor.removedTextBackground"),
          margin: ghost.before ? "0 1em 0 0" : "0 0 0 1em",
        };
        return ghost.before
          ? {
              range: new vscode.Range(ghost.line, 0, ghost.line, 0),
              renderOptions: { before: look },
            }
          : { range: new vscode.Range(end, end), renderOptions: { after: look } };
      }),
    );
  }
}
