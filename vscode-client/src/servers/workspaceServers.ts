/**
 * One plan mode server per workspace folder (docs/protocol.md §1: one server process serves
 * one workspace root), started and stopped as folders come and go, and which of them the
 * status bar shows and a command acts on: the active editor's folder's.
 */

import * as vscode from "vscode";

import type { Progress } from "../progressModel";
import { PrivateEnvironment } from "../python/privateEnvironment";
import type { SessionState } from "../state";
import { serverNaming } from "../status";
import type { Shared } from "./controller";
import { FolderServer } from "./folderServer";
import { ProblemNotices } from "./problems";

export class WorkspaceServers implements vscode.Disposable {
  /** By folder URI. */
  private readonly servers = new Map<string, FolderServer>();
  private readonly shared: Shared;
  /** The folder of the last editor that was in one: the status bar's while none is. */
  private lastActive: string | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly stateChanged = new vscode.EventEmitter<SessionState>();
  private readonly progressChanged = new vscode.EventEmitter<Progress>();
  /** What the status bar shows changed (a server's state, or which server it shows). */
  readonly onDidChange = this.changed.event;
  /** A session's state, as its server reported it. */
  readonly onDidChangeState = this.stateChanged.event;
  /** A session's progress through its approved plan, as its server reported it. */
  readonly onDidChangeProgress = this.progressChanged.event;

  constructor(context: vscode.ExtensionContext) {
    const privateEnv = new PrivateEnvironment(context);
    this.shared = { context, privateEnv, notices: new ProblemNotices() };
    this.subscriptions.push(
      privateEnv,
      vscode.workspace.onDidChangeWorkspaceFolders((event) => void this.foldersChanged(event)),
      vscode.window.onDidChangeActiveTextEditor((editor) => this.follow(editor)),
    );
  }

  /** Start a server for every folder of the workspace. */
  async start(): Promise<void> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    const starting = folders.map((folder) => this.add(folder));
    this.follow(vscode.window.activeTextEditor);
    await Promise.all(starting);
  }

  async stop(): Promise<void> {
    await Promise.all(this.all().map((server) => server.stop()));
  }

  all(): FolderServer[] {
    return [...this.servers.values()];
  }

  /**
   * The server of a file: its workspace folder's; for a file outside every folder (Claude
   * Code's ~/.claude/plans), the server one of whose sessions has it as its plan.
   */
  forFile(uri: vscode.Uri): FolderServer | undefined {
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    if (folder !== undefined) return this.servers.get(folder.uri.toString());
    return uri.scheme === "file" ? this.all().find((s) => s.hasPlan(uri.fsPath)) : undefined;
  }

  /** The server the status bar shows: the active editor's, else the last one shown. */
  active(): FolderServer | undefined {
    return (this.lastActive && this.servers.get(this.lastActive)) || this.all()[0];
  }

  /**
   * The server a palette command acts on: `target`'s (the status bar passes its folder), else
   * the active editor's; else the only one, or the only one `suits`, or the one the user picks.
   */
  async forCommand(
    target?: unknown,
    suits?: (server: FolderServer) => boolean,
  ): Promise<FolderServer | undefined> {
    const targeted = target instanceof vscode.Uri ? this.forFile(target) : undefined;
    const editor = vscode.window.activeTextEditor;
    const found = targeted ?? (editor && this.forFile(editor.document.uri));
    if (found !== undefined) return found;
    const all = this.all();
    if (all.length === 0) {
      void vscode.window.showInformationMessage(
        "Plan mode serves a workspace folder: open a folder first.",
      );
      return undefined;
    }
    const suited = suits ? all.filter(suits) : [];
    const choices = suited.length > 0 ? suited : all;
    if (choices.length === 1) return choices[0];
    const picked = await vscode.window.showQuickPick(
      choices.map((server) => ({
        label: server.folder.name,
        description: server.view().text,
        detail: server.folder.uri.fsPath,
        server,
      })),
      { title: "Plan Mode: which workspace folder?", matchOnDescription: true },
    );
    return picked?.server;
  }

  /**
   * The server a lens's or code action's command goes to: the one that announced its
   * approval, else the one of its `path` (a hunk's), else as for a palette command.
   */
  forServerCommand(args: readonly unknown[]): Promise<FolderServer | undefined> {
    const first: unknown = args[0];
    const argument = typeof first === "object" && first !== null ? first : {};
    if ("approvalId" in argument && typeof argument.approvalId === "string") {
      const id = argument.approvalId;
      const server = this.all().find((s) => s.hasApproval(id));
      if (server !== undefined) return Promise.resolve(server);
    }
    if ("path" in argument && typeof argument.path === "string") {
      const server = this.forFile(vscode.Uri.file(argument.path));
      if (server !== undefined) return Promise.resolve(server);
    }
    return this.forCommand();
  }

  // Which files are plans, for ReviewComments: the sessions' plan files, the ones under review
  // above all.

  underReview(path: string): boolean {
    return this.all().some((server) => server.reviews(path));
  }

  isPlan(path: string): boolean {
    return this.all().some((server) => server.hasPlan(path));
  }

  dispose(): void {
    for (const server of this.all()) server.dispose();
    this.servers.clear();
    for (const subscription of this.subscriptions) subscription.dispose();
    this.changed.dispose();
    this.stateChanged.dispose();
    this.progressChanged.dispose();
  }

  private async add(folder: vscode.WorkspaceFolder): Promise<void> {
    const key = folder.uri.toString();
    if (this.servers.has(key)) return;
    // A window on one folder keeps the plain names; a workspace (a .code-workspace, which may
    // gain folders) names each server's folder.
    const several = vscode.workspace.workspaceFile !== undefined;
    const taken = new Set(this.all().map((server) => server.name));
    const naming = serverNaming(several ? folder.name : undefined, taken);
    const server = new FolderServer(folder, naming, this.shared);
    this.servers.set(key, server);
    server.onDidChange(() => this.changed.fire());
    server.onDidChangeState((state) => this.stateChanged.fire(state));
    server.onDidChangeProgress((progress) => this.progressChanged.fire(progress));
    this.changed.fire();
    await server.start();
  }

  private async remove(folder: vscode.WorkspaceFolder): Promise<void> {
    const key = folder.uri.toString();
    const server = this.servers.get(key);
    if (server === undefined) return;
    this.servers.delete(key);
    if (this.lastActive === key) this.lastActive = undefined;
    this.changed.fire();
    await server.close();
  }

  private async foldersChanged(event: vscode.WorkspaceFoldersChangeEvent): Promise<void> {
    await Promise.all([
      ...event.removed.map((f) => this.remove(f)),
      ...event.added.map((f) => this.add(f)),
    ]);
  }

  /** The status bar follows the active editor into its folder's server. */
  private follow(editor: vscode.TextEditor | undefined): void {
    const server = editor && this.forFile(editor.document.uri);
    if (server === undefined) return;
    const key = server.folder.uri.toString();
    if (key === this.lastActive) return;
    this.lastActive = key;
    this.changed.fire();
  }
}
