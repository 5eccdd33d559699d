/**
 * Running a Python: a program run to its end with its output, whether an interpreter has
 * planmode (and which version), and everything the resolution order (resolve.ts) needs from
 * this machine and VS Code.
 */

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";

import type * as vscode from "vscode";

import { pythonExtensionInterpreter } from "./pythonExtension";
import { readProbe, type Environment, type Probe } from "./resolve";

const PROBE_SCRIPT = "import planmode; print('planmode', planmode.__version__)";
const VERSION_SCRIPT = "import sys; print(sys.version_info[0], sys.version_info[1])";

export interface RunResult {
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

export async function pythonVersion(python: string): Promise<[number, number] | undefined> {
  const result = await run(python, ["-c", VERSION_SCRIPT], { timeoutMs: 30_000 });
  const match = /^(\d+) (\d+)/.exec(result.stdout.trim());
  return result.code === 0 && match ? [Number(match[1]), Number(match[2])] : undefined;
}

/** What `environment` reads of the private environment (a `PrivateEnvironment`). */
export interface ManagedPython {
  readonly python: string;
  readonly bundledVersion: string | undefined;
}

/** Everything `resolveServer` needs for `folder`'s server, from VS Code and this machine. */
export function environment(
  setting: string | undefined,
  managed: ManagedPython,
  folder: vscode.Uri,
): Environment {
  return {
    setting,
    pythonExtension: () => pythonExtensionInterpreter(folder),
    privatePython: managed.python,
    bundledVersion: managed.bundledVersion,
    probe,
  };
}
