/**
 * One workspace folder's server, its life cycle: find the Python that runs it, start the
 * language client on it for that folder, restart it when `planMode.server.*` changes, and pass
 * on what it says.
 */

import * as vscode from "vscode";
import {
  CloseAction,
  type DynamicFeature,
  ErrorAction,
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  type Middleware,
  type ResponseError,
  RevealOutputChannelOn,
  type ServerOptions,
  State,
  type StaticFeature,
} from "vscode-languageclient/node";

import {
  APPROVAL_REQUESTED,
  APPROVAL_RESOLVED,
  DIAGNOSTIC_REVISION_ADDED,
  DIAGNOSTIC_REVISION_REMOVED,
  DID_CHANGE_PROGRESS,
  DID_CHANGE_STATE,
  SETTINGS_SECTION,
} from "../protocol";
import type { Progress } from "../progressModel";
import { environment } from "../python/interpreters";
import { type PrivateEnvironment } from "../python/privateEnvironment";
import { onPythonInterpreterChange } from "../python/pythonExtension";
import { resolveServer, SOURCE_LABELS, type Found, type Source } from "../python/resolve";
import {
  contributedKeys,
  explicitSettings,
  initializationOptions,
  serverCommand,
} from "../settings";
import type { Approval, ApprovalResolved, SessionState } from "../state";
import type { ServerNaming } from "../status";
import { DocumentScope } from "./documentScope";
import { openPythonPathSetting, type Problem, type ProblemNotices } from "./problems";

/** The Python that runs the server, and where it was found. */
export interface ServerInfo {
  python: string;
  source: Source;
  version: string;
}

export interface ClientEvents {
  onStarting(): void;
  onState(state: SessionState): void;
  onApprovalRequested(approval: Approval): void;
  onApprovalResolved(resolved: ApprovalResolved): void;
  onProgress(progress: Progress): void;
  onStarted(server: ServerInfo): void;
  onProblem(problem: Problem): void;
}

/**
 * A folder's language client, without its own registration of the server's commands: every
 * folder's server offers the same ones and VS Code takes a command id once, so they are
 * registered once for all folders (serverCommands.ts) and sent to the right server.
 */
class FolderLanguageClient extends LanguageClient {
  override registerFeature(feature: StaticFeature | DynamicFeature<unknown>): void {
    if ("registrationType" in feature) {
      if (feature.registrationType.method === ExecuteCommandRequest.method) return;
    }
    super.registerFeature(feature);
  }
}

/** What every folder's server shares: one private environment, one notification per problem. */
export interface Shared {
  context: vscode.ExtensionContext;
  privateEnv: PrivateEnvironment;
  notices: ProblemNotices;
}

/** The part of the extension's package.json that lists its settings. */
interface ContributedSettings {
  contributes?: { configuration?: { properties?: Record<string, unknown> } };
}

/**
 * The life cycle: find a Python with planmode (resolve.ts), start the language client on it,
 * restart it when `planMode.server.*` changes (stop, dispose, start), and turn every reason it
 * cannot run into one problem with one fix.
 */
export class ServerController implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];
  // Serializes start/stop so a settings change during start-up cannot run two servers.
  private queue: Promise<void> = Promise.resolve();
  private problem: Problem | undefined;
  private current: ServerInfo | undefined;
  // Disposed: nothing may start the server again (its folder left the workspace).
  private disposed = false;

  private readonly context: vscode.ExtensionContext;
  private readonly privateEnv: PrivateEnvironment;
  private readonly notices: ProblemNotices;

  constructor(
    private readonly folder: vscode.WorkspaceFolder,
    private readonly naming: ServerNaming,
    private readonly log: vscode.LogOutputChannel,
    shared: Shared,
    private readonly events: ClientEvents,
  ) {
    this.context = shared.context;
    this.privateEnv = shared.privateEnv;
    this.notices = shared.notices;
    this.subscriptions.push(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration(`${SETTINGS_SECTION}.server`)) {
          this.log.info("planMode.server settings changed: restarting the server.");
          void this.restart();
        }
      }),
    );
    this.subscriptions.push(
      this.privateEnv.onDidCreate(() => {
        if (this.problem?.fix === "createEnvironment") {
          this.log.info("The private environment is ready: starting the server.");
          void this.restart();
        }
      }),
    );
    void onPythonInterpreterChange((folder) => {
      const ours = folder === undefined || folder.toString() === this.folder.uri.toString();
      if (ours && this.current?.source !== "setting") {
        this.log.info("The Python extension's interpreter changed: looking for the server again.");
        void this.restart();
      }
    }).then((listener) => {
      if (listener === undefined) return;
      if (this.disposed) listener.dispose();
      else this.subscriptions.push(listener);
    });
  }

  /** The running client, or undefined while stopped. */
  get running(): LanguageClient | undefined {
    return this.client?.state === State.Running ? this.client : undefined;
  }

  start(): Promise<void> {
    return this.enqueue(() => this.doStart());
  }

  restart(): Promise<void> {
    return this.enqueue(async () => {
      await this.doStop();
      await this.doStart();
    });
  }

  stop(): Promise<void> {
    return this.enqueue(() => this.doStop());
  }

  /** What the status bar and the notification's button do: fix the current problem. */
  async fix(): Promise<void> {
    const problem = this.problem;
    if (problem === undefined) {
      return this.restart();
    }
    if (problem.fix === "openSetting") {
      await openPythonPathSetting();
    } else if (problem.fix === "createEnvironment") {
      await this.setUpPrivateEnvironment();
    } else {
      await this.restart();
    }
  }

  /** No more restarts from settings or the environment; `stop` stops the server itself. */
  dispose(): void {
    this.disposed = true;
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(step, step);
    return this.queue;
  }

  private setUpPrivateEnvironment(): Promise<void> {
    return this.enqueue(async () => {
      await this.doStop();
      // This server starts once the environment is created: its onDidCreate is for the others.
      this.problem = undefined;
      try {
        await this.privateEnv.create(this.log);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        this.log.error(`Creating the private environment failed: ${reason}`);
        this.report({
          reason: `creating the private environment failed: ${reason}`,
          fix: "createEnvironment",
        });
        return;
      }
      await this.doStart();
    });
  }

  /** The server cannot run: say why, once (ProblemNotices), and offer the fix. */
  private report(problem: Problem): void {
    this.problem = problem;
    this.current = undefined;
    this.events.onProblem(problem);
    const { name, folder } = this.naming;
    this.notices.notify(name, problem, folder, this.log, () => void this.fix());
  }

  private async doStart(): Promise<void> {
    this.events.onStarting();
    const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    const setting = config.get<string>("server.pythonPath")?.trim() || undefined;
    this.log.info("Looking for a Python with planmode:");
    const env = () => environment(setting, this.privateEnv, this.folder.uri);
    let resolution = await resolveServer(env());
    for (const line of resolution.tried) this.log.info(`  ${line}`);
    if (resolution.kind === "needsEnvironment" && resolution.update) {
      // Consent was given when the environment was created: bring it to the bundled version.
      this.log.info(`Updating the private environment: ${resolution.reason}.`);
      try {
        await this.privateEnv.create(this.log);
        resolution = await resolveServer(env());
      } catch (error) {
        // The environment as it is may still run the server: resolved below as it stands.
        this.log.warn(`Updating failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (resolution.kind === "settingBroken") {
      this.report({ reason: resolution.reason, fix: "openSetting" });
      return;
    }
    if (resolution.kind === "needsEnvironment") {
      this.report({ reason: resolution.reason, fix: "createEnvironment" });
      return;
    }
    await this.startClient(resolution);
  }

  private async startClient(found: Found): Promise<void> {
    const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    const { command, args } = serverCommand(found.python, config.get("server.args"));
    // No `transport`: with TransportKind.stdio the client would append `--stdio` to args.
    const serverOptions: ServerOptions = { command, args };
    let stopReason: string | undefined;
    const settings = this.currentSettings();
    this.log.debug(`Settings sent as initializationOptions: ${JSON.stringify(settings)}`);
    const scope = new DocumentScope(this.folder);
    const clientOptions: LanguageClientOptions = {
      // Its root (docs/protocol.md §1): rootUri and workspaceFolders are this folder alone, and
      // `workspace/configuration` answers with this folder's settings.
      workspaceFolder: this.folder,
      // Plan files are Markdown; the server needs their open (unsaved) text and gives lenses.
      // Which of them are this folder's: DocumentScope.
      documentSelector: [{ scheme: "file", pattern: "**/*.md" }],
      // One log for the client, the server's stderr and window/logMessage, and the JSON-RPC
      // traffic when `planMode.trace.server` asks for it.
      outputChannel: this.log,
      traceOutputChannel: this.log,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: initializationOptions(settings),
      synchronize: { configurationSection: SETTINGS_SECTION },
      middleware: { ...scope.middleware(), ...this.middleware() },
      // A server that dies is not restarted in a loop: the user gets one notification
      // (report) with the button that restarts it.
      initializationFailedHandler: () => false,
      errorHandler: {
        error: () => ({ action: ErrorAction.Continue, handled: true }),
        closed: () => {
          stopReason ??= "the server process exited";
          return { action: CloseAction.DoNotRestart, handled: true };
        },
      },
    };
    const info: ServerInfo = { python: found.python, source: found.source, version: found.version };
    this.log.info(
      `Starting the plan mode server (planmode ${found.version}, ${SOURCE_LABELS[found.source]}): ${[command, ...args].join(" ")}`,
    );
    // The id is the section the language client reads `trace.server` from: planMode.trace.server.
    const client = new FolderLanguageClient(
      SETTINGS_SECTION,
      this.naming.name,
      serverOptions,
      clientOptions,
    );
    client.onNotification(DID_CHANGE_STATE, (state: SessionState) => this.events.onState(state));
    client.onNotification(APPROVAL_REQUESTED, (approval: Approval) =>
      this.events.onApprovalRequested(approval),
    );
    client.onNotification(APPROVAL_RESOLVED, (resolved: ApprovalResolved) =>
      this.events.onApprovalResolved(resolved),
    );
    client.onNotification(DID_CHANGE_PROGRESS, (progress: Progress) =>
      this.events.onProgress(progress),
    );
    client.onDidChangeState((change) => {
      if (
        change.newState === State.Stopped &&
        this.client === client &&
        this.current !== undefined
      ) {
        this.report({ reason: stopReason ?? "the server exited", fix: "restart" });
      }
    });
    this.client = client;
    try {
      await client.start();
      this.problem = undefined;
      this.notices.clear(this.naming.name);
      this.current = info;
      this.events.onStarted(info);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.log.error(`The plan mode server did not start: ${reason}`);
      this.report({
        reason: `it did not start (${reason}); its log has the details`,
        fix: "restart",
      });
    }
  }

  private async doStop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client === undefined) {
      return;
    }
    try {
      if (client.isRunning()) {
        await client.stop();
      }
    } catch (error) {
      this.log.warn(`Stopping the server failed: ${String(error)}`);
    }
    try {
      await client.dispose();
    } catch {
      // Already stopped: dispose has nothing left to do.
    }
  }

  /** The user's explicitly set `planMode.*` values, without the client's own (`server.*`, `trace.*`). */
  private currentSettings(): Record<string, unknown> {
    const config = vscode.workspace.getConfiguration(SETTINGS_SECTION, this.folder.uri);
    const manifest = this.context.extension.packageJSON as ContributedSettings | undefined;
    const properties = manifest?.contributes?.configuration?.properties ?? {};
    return explicitSettings(contributedKeys(properties), (key) => config.inspect(key));
  }

  private middleware(): Middleware {
    return {
      // The server's inlay hints draw step marks and removed text for editors without this
      // client (docs/protocol.md §12.4); here progress.ts and revisionHighlights.ts draw them.
      provideInlayHints: () => [],
      // Likewise the revision marks' Hint diagnostics: revisionHighlights.ts draws the hunks.
      handleDiagnostics: (uri, diagnostics, next) =>
        next(
          uri,
          diagnostics.filter(
            (d) => d.code !== DIAGNOSTIC_REVISION_ADDED && d.code !== DIAGNOSTIC_REVISION_REMOVED,
          ),
        ),
      workspace: {
        // Answer with what the user set, like initializationOptions (see settings.ts).
        configuration: async (params, token, next) => {
          const answers: unknown[] | ResponseError = await next(params, token);
          if (!Array.isArray(answers)) {
            return answers;
          }
          return params.items.map((item, index) => {
            if (item.section !== SETTINGS_SECTION) return answers[index];
            const settings = this.currentSettings();
            this.log.debug(
              `Settings sent for workspace/configuration: ${JSON.stringify(settings)}`,
            );
            return settings;
          });
        },
      },
    };
  }
}
