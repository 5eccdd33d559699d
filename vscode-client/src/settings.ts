/**
 * The client's settings: how to start the server, and what to tell it.
 *
 * Only values the user actually set are passed on. A default sent as if chosen would outrank
 * the server's lower sources (Claude Code's `.claude/settings*.json`, docs/protocol.md §7):
 * an unset `plansDirectory` must stay unset.
 */

import { SETTINGS_SECTION } from "./protocol";

/**
 * Settings under these prefixes configure the client itself and are never sent to the server:
 * how to start it, and the language client's JSON-RPC trace (`planMode.trace.server`).
 */
export const CLIENT_PREFIXES: readonly string[] = ["server.", "trace."];

export const DEFAULT_PYTHON = "python3";
export const DEFAULT_ARGS: readonly string[] = ["-m", "planmode", "lsp"];

export interface ServerCommand {
  command: string;
  args: string[];
}

/** The command line that starts the server; bad values fall back to the defaults. */
export function serverCommand(pythonPath: unknown, args: unknown): ServerCommand {
  const command =
    typeof pythonPath === "string" && pythonPath.trim() ? pythonPath.trim() : DEFAULT_PYTHON;
  const argv =
    Array.isArray(args) && args.every((a) => typeof a === "string") ? [...args] : [...DEFAULT_ARGS];
  return { command, args: argv };
}

/** The shape of `WorkspaceConfiguration.inspect` that matters here. */
export interface Inspected {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/**
 * The explicitly set `planMode.*` values (not the client's own), most specific scope first.
 *
 * `keys` are the setting names relative to the section, e.g. `plansDirectory`.
 */
export function explicitSettings(
  keys: readonly string[],
  inspect: (key: string) => Inspected | undefined,
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const key of keys) {
    if (CLIENT_PREFIXES.some((prefix) => key.startsWith(prefix))) {
      continue;
    }
    const found = inspect(key);
    if (found === undefined) {
      continue;
    }
    for (const value of [found.workspaceFolderValue, found.workspaceValue, found.globalValue]) {
      if (value !== undefined) {
        values[key] = value;
        break;
      }
    }
  }
  return values;
}

/** `initializationOptions` as the server reads them: `{planMode: {...}}`. */
export function initializationOptions(settings: Record<string, unknown>): Record<string, unknown> {
  return { [SETTINGS_SECTION]: settings };
}

/** The setting keys a `package.json` contributes under `planMode.`, relative to the section. */
export function contributedKeys(properties: Record<string, unknown>): string[] {
  const prefix = `${SETTINGS_SECTION}.`;
  return Object.keys(properties)
    .filter((name) => name.startsWith(prefix))
    .map((name) => name.slice(prefix.length));
}
