/**
 * The private environment the extension creates in its global storage when no Python with
 * planmode is found: a venv, then pip install of the wheel bundled in the .vsix (or of
 * `planmode` from the package index when no wheel is bundled).
 */

import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

import * as vscode from "vscode";

import { pythonVersion, run } from "./interpreters";
import { pythonExtensionInterpreter } from "./pythonExtension";
import { chooseBasePython, PATH_PYTHON, venvPython, wheelVersion } from "./resolve";

/** One for the extension: every folder's server may run from it. */
export class PrivateEnvironment implements vscode.Disposable {
  private creating: Promise<void> | undefined;
  private readonly created = new vscode.EventEmitter<void>();
  /** The environment was created or refreshed: a server that waited for it can start. */
  readonly onDidCreate = this.created.event;

  constructor(private readonly context: vscode.ExtensionContext) {}

  get directory(): string {
    return join(this.context.globalStorageUri.fsPath, "server-env");
  }

  get python(): string {
    return venvPython(this.directory, process.platform);
  }

  /** The planmode wheel inside the .vsix (`server/planmode-*.whl`), if the build put one there. */
  get bundledWheel(): string | undefined {
    const dir = join(this.context.extensionPath, "server");
    const name = existsSync(dir)
      ? readdirSync(dir).find((n) => wheelVersion(n) !== undefined)
      : undefined;
    return name === undefined ? undefined : join(dir, name);
  }

  get bundledVersion(): string | undefined {
    const wheel = this.bundledWheel;
    return wheel === undefined ? undefined : wheelVersion(wheel.split(/[\\/]/).pop() ?? "");
  }

  /** What to install: the bundled wheel, else the package from the index. */
  get installTarget(): string {
    return this.bundledWheel ?? "planmode";
  }

  /**
   * Create (or refresh) the environment, with progress, its output in `log`; throws with the
   * reason on failure. One at a time: a second caller waits for the one under way.
   */
  create(log: vscode.LogOutputChannel): Promise<void> {
    if (this.creating !== undefined) {
      log.info("Waiting for the private environment being set up.");
      return this.creating;
    }
    const creating = this.doCreate(log).finally(() => (this.creating = undefined));
    this.creating = creating;
    creating.then(
      () => this.created.fire(),
      () => undefined, // the callers report it
    );
    return creating;
  }

  dispose(): void {
    this.created.dispose();
  }

  private async doCreate(log: vscode.LogOutputChannel): Promise<void> {
    await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: "Plan Mode: setting up the server's Python environment",
        cancellable: true,
      },
      async (progress, token) => {
        const step = (message: string) => {
          progress.report({ message });
          log.info(message);
        };
        // venv's and pip's own output: what a failed install needs, shown as it comes.
        const output = (line: string) => log.info(`  ${line}`);
        if (!existsSync(this.python)) {
          const base = await chooseBasePython(
            [await pythonExtensionInterpreter(), PATH_PYTHON, "python"],
            pythonVersion,
          );
          if (base.python === undefined) {
            throw new Error(base.reason);
          }
          step(`Creating ${this.directory} with ${base.python} -m venv…`);
          mkdirSync(this.context.globalStorageUri.fsPath, { recursive: true });
          const venv = await run(base.python, ["-m", "venv", this.directory], {
            onLine: output,
            token,
          });
          if (venv.code !== 0) {
            rmSync(this.directory, { recursive: true, force: true });
            throw new Error(
              `${base.python} -m venv failed: ${venv.error ?? lastLine(venv.stderr)}`,
            );
          }
        }
        const target = this.installTarget;
        step(`Installing ${target.split(/[\\/]/).pop()} and its dependencies (pip)…`);
        const pip = await run(
          this.python,
          [
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--no-input",
            "--upgrade",
            target,
          ],
          { onLine: output, token },
        );
        if (pip.code !== 0) {
          throw new Error(`pip install ${target} failed: ${pip.error ?? lastLine(pip.stderr)}`);
        }
        step("The server's environment is ready.");
      },
    );
  }
}

function lastLine(text: string): string {
  return text.trim().split("\n").pop()?.trim() ?? "";
}
