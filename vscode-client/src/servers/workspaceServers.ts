/**
 * The workspace's plan mode servers, and which one the status bar shows and a command acts on.
 */

import * as vscode from "vscode";

import { PrivateEnvironment } from "../python/privateEnvironment";
import type { SessionState } from "../state";
import { FolderServer } from "./folderServer";
import { ProblemNotices } from "./problems";

export class WorkspaceServers implements vscode.Disposable {
  private readonly server: FolderServer;
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly stateChanged = new vscode.EventEmitter<SessionState>();
  /** What the status bar shows changed. */
  readonly onDidChange = this.changed.event;
  /** A session's state, as its server reported it. */
  readonly onDidChangeState = this.stateChanged.event;

  constructor(context: vscode.ExtensionContext) {
    const name = "Plan Mode";
    const log = vscode.window.createOutputChannel(name, { log: true });
    const privateEnv = new PrivateEnvironment(context, log);
    this.server = new FolderServer(name, log, context, privateEnv, new ProblemNotices());
    this.subscriptions.push(
      this.server,
      this.server.onDidChange(() => this.changed.fire()),
      this.server.onDidChangeState((state) => this.stateChanged.fire(state)),
    );
  }

  start(): Promise<void> {
    return this.server.start();
  }

  stop(): Promise<void> {
    return this.server.stop();
  }

  all(): FolderServer[] {
    return [this.server];
  }

  /** The server the status bar shows. */
  active(): FolderServer | undefined {
    return this.server;
  }

  /** The server a command acts on. */
  forCommand(): Promise<FolderServer | undefined> {
    return Promise.resolve(this.server);
  }

  // Which files are plans (ReviewComments): the sessions' plan files, the ones under review
  // above all.

  underReview(path: string): boolean {
    return this.sessions().some(
      (s) => s.pendingApproval !== null && samePath(s.pendingApproval.planFilePath, path),
    );
  }

  isPlan(path: string): boolean {
    return this.sessions().some(
      (s) =>
        samePath(s.planFilePath, path) ||
        (s.pendingApproval !== null && samePath(s.pendingApproval.planFilePath, path)),
    );
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.changed.dispose();
    this.stateChanged.dispose();
  }

  private sessions(): SessionState[] {
    return this.all().flatMap((server) => server.sessions.all());
  }
}

function samePath(a: string, b: string): boolean {
  return vscode.Uri.file(a).fsPath === vscode.Uri.file(b).fsPath;
}
