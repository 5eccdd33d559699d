/**
 * The Python side of starting the server: probing interpreters, the Python extension's
 * selected interpreter (its public `environments` API), and the private environment the
 * extension creates in its global storage (venv + pip install of the bundled wheel, or of
 * `planmode` from the package index when no wheel is bundled).
 */

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

import * as vscode from "vscode";

import {
  chooseBasePython,
  PATH_PYTHON,
  readProbe,
  venvPython,
  wheelVersion,
  type Environment,
  type Probe,
} from "./resolve";

const PROBE_SCRIPT = "import planmode; print('planmode', planmode.__version__)";
const VERSION_SCRIPT = "import sys; print(sys.version_info[0], sys.version_info[1])";

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  error?: string;
}

/** Run a program to the end; `onLine` sees its output as it comes. */
export function run(
  command: string,
  args: readonly string[],
  options: {
    timeoutMs?: number;
    onLine?: (line: string) => void;
    token?: vscode.CancellationToken;
  } = {},
): Promise<RunResult> {
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let settled = false;
    const child = spawn(command, args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, PYTHONUTF8: "1" },
    });
    const finish = (result: RunResult) => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        cancel?.dispose();
        resolve(result);
      }
    };
    const timer = setTimeout(() => {
      child.kill();
      finish({ code: null, stdout, stderr, error: `timed out after ${options.timeoutMs} ms` });
    }, options.timeoutMs ?? 600_000);
    const cancel = options.token?.onCancellationRequested(() => {
      child.kill();
      finish({ code: null, stdout, stderr, error: "cancelled" });
    });
    const lines = (chunk: string) => {
      for (const line of chunk.split(/\r?\n/)) {
        if (line.trim()) options.onLine?.(line);
      }
    };
    child.stdout.on("data", (data: Buffer) => {
      stdout += data.toString();
      lines(data.toString());
    });
    child.stderr.on("data", (data: Buffer) => {
      stderr += data.toString();
      lines(data.toString());
    });
    child.on("error", (error: NodeJS.ErrnoException) =>
      finish({ code: null, stdout, stderr, error: error.code ?? error.message }),
    );
    child.on("close", (code) => finish({ code, stdout, stderr }));
  });
}

export async function probe(python: string): Promise<Probe> {
  if (python.includes("/") && !existsSync(python)) {
    return { ok: false, reason: "was not found" };
  }
  const result = await run(python, ["-c", PROBE_SCRIPT], { timeoutMs: 30_000 });
  return readProbe(result.code, result.stdout, result.stderr, result.error);
}

async function pythonVersion(python: string): Promise<[number, number] | undefined> {
  const result = await run(python, ["-c", VERSION_SCRIPT], { timeoutMs: 30_000 });
  const match = /^(\d+) (\d+)/.exec(result.stdout.trim());
  return result.code === 0 && match ? [Number(match[1]), Number(match[2])] : undefined;
}

/** The subset of ms-python.python's exported API used here (`@vscode/python-extension`). */
interface PythonExtensionApi {
  ready?: Promise<void>;
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { id: string; path: string };
    resolveEnvironment(
      environment: { id: string; path: string } | string,
    ): Promise<{ executable: { uri?: vscode.Uri } } | undefined>;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
}

async function pythonExtensionApi(): Promise<PythonExtensionApi | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>("ms-python.python");
  if (extension === undefined) {
    return undefined;
  }
  try {
    const api = extension.isActive ? extension.exports : await extension.activate();
    await api?.ready;
    return api?.environments ? api : undefined;
  } catch {
    return undefined;
  }
}

/** The interpreter the Python extension has selected for the workspace, if any. */
export async function pythonExtensionInterpreter(): Promise<string | undefined> {
  const api = await pythonExtensionApi();
  if (api?.environments === undefined) {
    return undefined;
  }
  try {
    const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
    const active = api.environments.getActiveEnvironmentPath(resource);
    const resolved = await api.environments.resolveEnvironment(active);
    return resolved?.executable.uri?.fsPath ?? (active.path || undefined);
  } catch {
    return undefined;
  }
}

/** Calls `listener` when the user selects another interpreter in the Python extension. */
export async function onPythonInterpreterChange(
  listener: () => void,
): Promise<vscode.Disposable | undefined> {
  const api = await pythonExtensionApi();
  return api?.environments?.onDidChangeActiveEnvironmentPath?.(() => listener());
}

export class PrivateEnvironment {
  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {}

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

  /** Create (or refresh) the environment, with progress; throws with the reason on failure. */
  async create(): Promise<void> {
    await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: "Plan Mode: setting up the server's Python environment",
        cancellable: true,
      },
      async (progress, token) => {
        const step = (message: string) => {
          progress.report({ message });
          this.log.info(message);
        };
        // venv's and pip's own output: what a failed install needs, shown as it comes.
        const log = (line: string) => this.log.info(`  ${line}`);
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
            onLine: log,
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
          { onLine: log, token },
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

/** Everything `resolveServer` needs, from VS Code and this machine. */
export function environment(setting: string | undefined, managed: PrivateEnvironment): Environment {
  return {
    setting,
    pythonExtension: pythonExtensionInterpreter,
    privatePython: managed.python,
    bundledVersion: managed.bundledVersion,
    probe,
  };
}
