/**
 * One workspace folder's plan mode server and what it has said: the sessions it reported, the
 * approvals it announced, which Python runs it, or why it cannot run. The status bar and the
 * commands read it here.
 */

import * as vscode from "vscode";
import { ExecuteCommandRequest, type LanguageClient } from "vscode-languageclient/node";

import { type Progress, progressToShow } from "../progressModel";
import { LIST_PROGRESS } from "../protocol";
import { SOURCE_LABELS } from "../python/resolve";
import { SessionTracker, type Approval, type ApprovalResolved, type SessionState } from "../state";
import {
  inFolder,
  problemView,
  serverLine,
  statusView,
  type ServerNaming,
  type StatusView,
} from "../status";
import { ServerController, type ClientEvents, type ServerInfo, type Shared } from "./controller";
import type { Problem } from "./problems";

export class FolderServer implements ClientEvents, vscode.Disposable {
  /** Its log channel (levels, timestamps, "Set Log Level…" in the Output view). */
  readonly log: vscode.LogOutputChannel;
  readonly sessions = new SessionTracker();
  private readonly controller: ServerController;
  // Which Python runs the server: every tooltip says it once the server runs.
  private serverInfo: string | undefined;
  private problem: Problem | undefined;
  /** The approvals the server announced and has not resolved (a teammate's among them). */
  private readonly approvals = new Set<string>();
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly stateChanged = new vscode.EventEmitter<SessionState>();
  private readonly progressChanged = new vscode.EventEmitter<Progress>();
  /** Each session's progress through its approved plan, by session id. */
  private readonly progress = new Map<string, Progress>();
  /** The sessions whose progress was asked for once since the server started. */
  private readonly askedProgress = new Set<string>();
  /** What the status bar shows changed. */
  readonly onDidChange = this.changed.event;
  /** A session's state, as the server reported it. */
  readonly onDidChangeState = this.stateChanged.event;
  /** A session's progress, as the server reported it or a request answered. */
  readonly onDidChangeProgress = this.progressChanged.event;

  constructor(
    readonly folder: vscode.WorkspaceFolder,
    private readonly naming: ServerNaming,
    shared: Shared,
  ) {
    this.log = vscode.window.createOutputChannel(naming.name, { log: true });
    this.controller = new ServerController(folder, naming, this.log, shared, this);
  }

  get name(): string {
    return this.naming.name;
  }

  /** What the status bar shows for this server. */
  view(): StatusView {
    const view =
      this.problem !== undefined
        ? problemView(this.problem)
        : statusView(this.sessions.current(), this.serverInfo);
    return this.naming.folder === undefined ? view : inFolder(view, this.naming.folder);
  }

  /** The plan waiting for review, if any. */
  pendingApproval(): Approval | undefined {
    return this.sessions.pending()?.pendingApproval ?? undefined;
  }

  /** Whether `approvalId` is one of this server's approvals still waiting. */
  hasApproval(approvalId: string): boolean {
    return (
      this.approvals.has(approvalId) ||
      this.sessions.all().some((s) => s.pendingApproval?.approvalId === approvalId)
    );
  }

  /** Whether `path` is the plan file of one of this server's sessions. */
  hasPlan(path: string): boolean {
    return this.sessions
      .all()
      .some(
        (s) =>
          samePath(s.planFilePath, path) ||
          (s.pendingApproval !== null && samePath(s.pendingApproval.planFilePath, path)),
      );
  }

  /** Whether `path` is a plan of this server's waiting for review. */
  reviews(path: string): boolean {
    return this.sessions
      .all()
      .some((s) => s.pendingApproval !== null && samePath(s.pendingApproval.planFilePath, path));
  }

  /** A state a request answered with (the server's notification may come later). */
  update(state: SessionState): void {
    this.sessions.update(state);
    this.changed.fire();
  }

  /**
   * The progress to show: of the session whose approved plan is `path`, else of the session
   * shown in the status bar; none for a session planning again (its plan is no longer
   * carried out).
   */
  currentProgress(path?: string): Progress | undefined {
    const file = path === undefined ? undefined : vscode.Uri.file(path).fsPath;
    return progressToShow(
      [...this.progress.values()],
      this.sessions,
      file,
      (p) => vscode.Uri.file(p).fsPath,
    );
  }

  /** A progress a request answered with (the server's notification may come later). */
  updateProgress(progress: Progress): void {
    this.progress.delete(progress.sessionId); // the latest last: currentProgress's fallback
    this.progress.set(progress.sessionId, progress);
    this.progressChanged.fire(progress);
    this.changed.fire();
  }

  /** The running client, or an error message and undefined. */
  client(): LanguageClient | undefined {
    const running = this.controller.running;
    if (running === undefined) {
      void vscode.window
        .showErrorMessage(`The plan mode server${this.of()} is not running.`, "Show Log")
        .then((choice) => {
          if (choice) this.log.show();
        });
    }
    return running;
  }

  /** A request to the server; its failure is shown, and undefined returned. */
  async request<T>(method: string, params: object): Promise<T | undefined> {
    const running = this.client();
    if (running === undefined) return undefined;
    try {
      return await running.sendRequest<T>(method, params);
    } catch (error) {
      void vscode.window.showErrorMessage(
        `Plan mode: ${error instanceof Error ? error.message : String(error)}`,
      );
      return undefined;
    }
  }

  /**
   * A request whose failure is only logged: what the editor asks on its own (the Plans view,
   * the marks in a plan), not on the user's click. Undefined while the server is not running.
   */
  async query<T>(method: string, params: object): Promise<T | undefined> {
    const running = this.controller.running;
    if (running === undefined) return undefined;
    try {
      return await running.sendRequest<T>(method, params);
    } catch (error) {
      this.log.debug(`${method}: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }

  /**
   * One of the server's commands (`workspace/executeCommand`); a failure is logged and shown
   * by the language client, as for the commands it registers itself.
   */
  async executeCommand(command: string, args: unknown[]): Promise<unknown> {
    const running = this.client();
    if (running === undefined) return undefined;
    try {
      return await running.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
    } catch (error) {
      return running.handleFailedRequest(ExecuteCommandRequest.type, undefined, error, undefined);
    }
  }

  start(): Promise<void> {
    return this.controller.start();
  }

  restart(): Promise<void> {
    return this.controller.restart();
  }

  stop(): Promise<void> {
    return this.controller.stop();
  }

  fix(): Promise<void> {
    return this.controller.fix();
  }

  /** Its folder left the workspace: stop the server for good, and drop its log. */
  async close(): Promise<void> {
    this.controller.dispose();
    await this.controller.stop();
    this.dispose();
  }

  dispose(): void {
    this.controller.dispose();
    this.changed.dispose();
    this.stateChanged.dispose();
    this.progressChanged.dispose();
    this.log.dispose();
  }

  /** " of <folder>" where the window has several, for messages. */
  private of(): string {
    return this.naming.folder === undefined ? "" : ` of ${this.naming.folder}`;
  }

  // What the controller reports.

  onStarting(): void {
    // A new server: what the old one said (a plan under review included) is gone with it.
    this.sessions.clear();
    this.approvals.clear();
    this.progress.clear();
    this.askedProgress.clear();
    this.serverInfo = undefined;
    this.problem = undefined;
    this.changed.fire();
  }

  onState(state: SessionState): void {
    const review = state.pendingApproval === null ? "" : ", a plan waiting for review";
    this.log.debug(`Session ${state.sessionId}: ${state.mode}${review}`);
    this.sessions.update(state);
    // Planning again ends the execution; the server says so only here (docs/protocol.md §12.1).
    if (state.mode === "plan") this.progress.delete(state.sessionId);
    else void this.askProgress(state.sessionId);
    this.stateChanged.fire(state);
    this.changed.fire();
  }

  /**
   * A session seen for the first time may carry out a plan approved before this server or
   * this window started; after that, the server notifies every change.
   */
  private async askProgress(sessionId: string): Promise<void> {
    if (this.askedProgress.has(sessionId) || this.progress.has(sessionId)) return;
    this.askedProgress.add(sessionId);
    // listProgress, not getProgress: a session not executing is no error (nor a line in the log).
    const listed = await this.query<{ progress: Progress[] }>(LIST_PROGRESS, { sessionId });
    const progress = listed?.progress[0];
    if (progress !== undefined && !this.progress.has(sessionId)) this.updateProgress(progress);
  }

  onProgress(progress: Progress): void {
    this.log.debug(`Session ${progress.sessionId}: ${progress.done}/${progress.total} steps done`);
    this.updateProgress(progress);
  }

  onApprovalRequested(approval: Approval): void {
    this.approvals.add(approval.approvalId);
  }

  onApprovalResolved(resolved: ApprovalResolved): void {
    this.approvals.delete(resolved.approvalId);
  }

  onStarted(info: ServerInfo): void {
    this.serverInfo = serverLine({ ...info, sourceLabel: SOURCE_LABELS[info.source] });
    this.log.info(this.serverInfo);
    this.changed.fire();
    void this.query<{ progress: Progress[] }>(LIST_PROGRESS, {}).then((listed) => {
      for (const progress of listed?.progress ?? []) this.updateProgress(progress);
    });
  }

  onProblem(problem: Problem): void {
    this.sessions.clear();
    this.approvals.clear();
    this.progress.clear();
    this.askedProgress.clear();
    this.serverInfo = undefined;
    this.problem = problem;
    this.changed.fire();
  }
}

function samePath(a: string, b: string): boolean {
  return vscode.Uri.file(a).fsPath === vscode.Uri.file(b).fsPath;
}
