/**
 * One workspace folder's plan mode server and what it has said: the sessions it reported,
 * which Python runs it, or why it cannot run. The status bar and the commands read it here.
 */

import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";

import type { PrivateEnvironment } from "../python/privateEnvironment";
import { SOURCE_LABELS } from "../python/resolve";
import { SessionTracker, type Approval, type SessionState } from "../state";
import { problemView, serverLine, statusView, type StatusView } from "../status";
import { ServerController, type ClientEvents, type ServerInfo } from "./controller";
import type { Problem, ProblemNotices } from "./problems";

export class FolderServer implements ClientEvents, vscode.Disposable {
  /** Its log channel (levels, timestamps, "Set Log Level…" in the Output view). */
  readonly log: vscode.LogOutputChannel;
  readonly sessions = new SessionTracker();
  private readonly controller: ServerController;
  // Which Python runs the server: every tooltip says it once the server runs.
  private serverInfo: string | undefined;
  private problem: Problem | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly stateChanged = new vscode.EventEmitter<SessionState>();
  /** What the status bar shows changed. */
  readonly onDidChange = this.changed.event;
  /** A session's state, as the server reported it. */
  readonly onDidChangeState = this.stateChanged.event;

  constructor(
    readonly name: string,
    log: vscode.LogOutputChannel,
    context: vscode.ExtensionContext,
    privateEnv: PrivateEnvironment,
    notices: ProblemNotices,
  ) {
    this.log = log;
    this.controller = new ServerController(name, context, this.log, privateEnv, notices, this);
  }

  /** What the status bar shows for this server. */
  view(): StatusView {
    return this.problem !== undefined
      ? problemView(this.problem)
      : statusView(this.sessions.current(), this.serverInfo);
  }

  /** The plan waiting for review, if any. */
  pendingApproval(): Approval | undefined {
    return this.sessions.pending()?.pendingApproval ?? undefined;
  }

  /** A state a request answered with (the server's notification may come later). */
  update(state: SessionState): void {
    this.sessions.update(state);
    this.changed.fire();
  }

  /** The running client, or an error message and undefined. */
  client(): LanguageClient | undefined {
    const running = this.controller.running;
    if (running === undefined) {
      void vscode.window
        .showErrorMessage("The plan mode server is not running.", "Show Log")
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

  dispose(): void {
    this.controller.dispose();
    this.changed.dispose();
    this.stateChanged.dispose();
    this.log.dispose();
  }

  // What the controller reports.

  onStarting(): void {
    // A new server: what the old one said (a plan under review included) is gone with it.
    this.sessions.clear();
    this.serverInfo = undefined;
    this.problem = undefined;
    this.changed.fire();
  }

  onState(state: SessionState): void {
    const review = state.pendingApproval === null ? "" : ", a plan waiting for review";
    this.log.debug(`Session ${state.sessionId}: ${state.mode}${review}`);
    this.sessions.update(state);
    this.stateChanged.fire(state);
    this.changed.fire();
  }

  onStarted(info: ServerInfo): void {
    this.serverInfo = serverLine({ ...info, sourceLabel: SOURCE_LABELS[info.source] });
    this.log.info(this.serverInfo);
    this.changed.fire();
  }

  onProblem(problem: Problem): void {
    this.sessions.clear();
    this.serverInfo = undefined;
    this.problem = problem;
    this.changed.fire();
  }
}
