/**
 * The language client's life cycle: start the server from the settings, restart it when
 * `planMode.server.*` changes (stop, dispose, start), and route its notifications.
 */

import * as vscode from "vscode";
import {
  LanguageClient,
  type LanguageClientOptions,
  type Middleware,
  type ServerOptions,
  State,
} from "vscode-languageclient/node";

import { rejectCommandArgs } from "./args";
import { COMMAND_REJECT, DID_CHANGE_STATE, SETTINGS_SECTION } from "./protocol";
import {
  contributedKeys,
  explicitSettings,
  initializationOptions,
  serverCommand,
} from "./settings";
import type { SessionState } from "./state";

export interface ClientEvents {
  onStarting(): void;
  onState(state: SessionState): void;
  onStarted(): void;
  onStopped(reason: string): void;
}

/** The feedback box of `Plan Mode: Reject Plan…` and of the `Reject…` lens. */
export async function askRejectFeedback(): Promise<string | undefined> {
  return vscode.window.showInputBox({
    title: "Reject the plan",
    prompt: "What should the agent change? (optional — the agent keeps planning)",
    placeHolder: "e.g. Keep the public API unchanged",
    ignoreFocusOut: true,
  });
}

export class ServerController implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];
  // Serializes start/stop so a settings change during start-up cannot run two servers.
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly output: vscode.OutputChannel,
    private readonly events: ClientEvents,
  ) {
    this.subscriptions.push(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration(`${SETTINGS_SECTION}.server`)) {
          this.output.appendLine("planMode.server settings changed: restarting the server.");
          void this.restart();
        }
      }),
    );
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

  dispose(): void {
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(step, step);
    return this.queue;
  }

  private async doStart(): Promise<void> {
    this.events.onStarting();
    const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    const { command, args } = serverCommand(
      config.get("server.pythonPath"),
      config.get("server.args"),
    );
    // No `transport`: with TransportKind.stdio the client would append `--stdio` to args.
    const serverOptions: ServerOptions = { command, args };
    const clientOptions: LanguageClientOptions = {
      // Plan files are Markdown; the server needs their open (unsaved) text and gives lenses.
      documentSelector: [{ scheme: "file", pattern: "**/*.md" }],
      outputChannel: this.output,
      initializationOptions: initializationOptions(this.currentSettings()),
      synchronize: { configurationSection: SETTINGS_SECTION },
      middleware: this.middleware(),
    };
    this.output.appendLine(`Starting the plan mode server: ${[command, ...args].join(" ")}`);
    const client = new LanguageClient("planMode", "Plan Mode", serverOptions, clientOptions);
    client.onNotification(DID_CHANGE_STATE, (state: SessionState) => this.events.onState(state));
    client.onDidChangeState((change) => {
      if (change.newState === State.Stopped && this.client === client) {
        this.events.onStopped("the server exited");
      }
    });
    this.client = client;
    try {
      await client.start();
      this.events.onStarted();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.output.appendLine(`The plan mode server did not start: ${reason}`);
      this.events.onStopped(reason);
      void vscode.window
        .showErrorMessage(
          `Plan mode server did not start (${command}). Check planMode.server.pythonPath.`,
          "Open Settings",
          "Show Log",
        )
        .then((choice) => {
          if (choice === "Open Settings") {
            void vscode.commands.executeCommand("workbench.action.openSettings", "planMode.server");
          } else if (choice === "Show Log") {
            this.output.show();
          }
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
      this.output.appendLine(`Stopping the server failed: ${String(error)}`);
    }
    try {
      await client.dispose();
    } catch {
      // Already stopped: dispose has nothing left to do.
    }
  }

  /** The user's explicitly set `planMode.*` values, without the client's own `server.*`. */
  private currentSettings(): Record<string, unknown> {
    const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    const properties =
      (this.context.extension.packageJSON?.contributes?.configuration?.properties as
        | Record<string, unknown>
        | undefined) ?? {};
    return explicitSettings(contributedKeys(properties), (key) => config.inspect(key));
  }

  private middleware(): Middleware {
    return {
      // The `Reject…` lens runs planMode.reject: ask for feedback before it reaches the server.
      executeCommand: async (command, args, next) => {
        if (command !== COMMAND_REJECT) {
          return next(command, args);
        }
        const feedback = await askRejectFeedback();
        if (feedback === undefined) {
          return undefined; // Escape: the plan stays under review.
        }
        return next(command, rejectCommandArgs(args, feedback));
      },
      workspace: {
        // Answer with what the user set, like initializationOptions (see settings.ts).
        configuration: async (params, token, next) => {
          const answers = await next(params, token);
          if (!Array.isArray(answers)) {
            return answers;
          }
          return params.items.map((item, index) =>
            item.section === SETTINGS_SECTION ? this.currentSettings() : answers[index],
          );
        },
      },
    };
  }
}
