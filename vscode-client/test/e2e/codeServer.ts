/** Real VS Code (code-server 4.100.3) with the packaged extension, in headless Chromium. */

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";

import { chromium, type Browser, type Page } from "playwright-core";

/** The repository root: the nearest parent directory with a pyproject.toml. */
export function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, "pyproject.toml"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no pyproject.toml above ${__dirname}`);
    dir = parent;
  }
  return dir;
}

export const CLIENT = join(repoRoot(), "vscode-client");
export const VSIX = join(CLIENT, "planmode.vsix");
/** Where scripts/setup-e2e.sh installed code-server (a per-user cache, shared by clones). */
const CACHE =
  process.env.PLANMODE_E2E_CACHE ??
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "planmode-e2e");
export const CODE_SERVER = join(CACHE, "code-server/node_modules/.bin/code-server");
export const SCREENSHOTS = join(CLIENT, ".e2e/screenshots");

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address
          ? resolve(address.port)
          : reject(new Error("no port")),
      );
    });
  });
}

async function waitForHttp(url: string, timeoutMs: number, log: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`code-server did not answer at ${url}:\n${log()}`);
}

export interface Editor {
  page: Page;
  /** The folder opened, or the directory holding the workspace's folders and its file. */
  workspace: string;
  /** The `.code-workspace` file opened, when `openEditor` was given `folders`. */
  workspaceFile?: string;
  /** code-server's own output. */
  log(): string;
  /**
   * An output channel of the extension (the client's and its server's log): "Plan Mode" in a
   * window on one folder, "Plan Mode (<folder>)" in a workspace of several.
   */
  clientLog(channel?: string): string;
  screenshot(
    name: string,
    clip?: { x: number; y: number; width: number; height: number },
  ): Promise<string>;
  close(): Promise<void>;
}

/**
 * Starts code-server on a fresh workspace with its own user data, extensions and XDG dirs
 * (nothing lands in $HOME), installs the .vsix, and opens the workspace in Chromium. The
 * profile is clean: only `settings` are set, and PATH holds nothing of the checkout.
 *
 * With `folders` (directories under the workspace directory, where `files` go too) it opens a
 * multi-root workspace: `workspace.code-workspace` listing those folders.
 */
export async function openEditor(
  settings: Record<string, unknown>,
  files: Record<string, string> = {},
  folders?: string[],
): Promise<Editor> {
  for (const [what, path] of [
    ["the packaged extension (npm run package)", VSIX],
    ["code-server (scripts/setup-e2e.sh)", CODE_SERVER],
  ]) {
    if (!existsSync(path)) throw new Error(`missing ${what}: ${path}`);
  }
  const base = mkdtempSync(join(tmpdir(), "planmode-e2e-"));
  const workspace = join(base, "workspace");
  const userData = join(base, "user-data");
  const extensions = join(base, "extensions");
  for (const dir of [workspace, join(userData, "User"), extensions])
    mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(workspace, name)), { recursive: true });
    writeFileSync(join(workspace, name), text);
  }
  const workspaceFile =
    folders === undefined ? undefined : join(workspace, "workspace.code-workspace");
  if (workspaceFile !== undefined) {
    for (const folder of folders ?? []) mkdirSync(join(workspace, folder), { recursive: true });
    writeWorkspaceFile(workspaceFile, folders ?? []);
  }
  const opened = workspaceFile ?? workspace;
  const settingsFile = join(userData, "User/settings.json");
  const userSettings: Record<string, unknown> = {
    "security.workspace.trust.enabled": false,
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "extensions.ignoreRecommendations": true,
    "telemetry.telemetryLevel": "off",
    ...settings,
  };
  writeFileSync(settingsFile, JSON.stringify(userSettings, null, 2));
  // A user's machine: nothing from the checkout on PATH (no planmode there), no virtualenv.
  const { VIRTUAL_ENV: _venv, PYTHONPATH: _path, ...inherited } = process.env;
  const env = {
    ...inherited,
    PATH: (process.env.PATH ?? "")
      .split(":")
      .filter((dir) => !dir.startsWith(repoRoot()))
      .join(":"),
    // The private environment's pip downloads are cached with the rest of the e2e cache.
    PIP_CACHE_DIR: join(CACHE, "pip"),
    XDG_CONFIG_HOME: join(base, "xdg/config"),
    XDG_DATA_HOME: join(base, "xdg/data"),
    XDG_CACHE_HOME: join(base, "xdg/cache"),
  };
  const dirs = ["--user-data-dir", userData, "--extensions-dir", extensions];
  const install = spawnSync(CODE_SERVER, [...dirs, "--install-extension", VSIX], {
    env,
    encoding: "utf8",
  });
  if (install.status !== 0)
    throw new Error(`--install-extension failed:\n${install.stdout}\n${install.stderr}`);

  const port = await freePort();
  let output = "";
  const server: ChildProcess = spawn(
    CODE_SERVER,
    [
      "--auth",
      "none",
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      ...dirs,
      "--bind-addr",
      `127.0.0.1:${port}`,
      opened,
    ],
    { env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  server.stdout?.on("data", (d) => (output += d));
  server.stderr?.on("data", (d) => (output += d));
  const log = () => output;
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close().catch(() => undefined);
    try {
      process.kill(-server.pid!, "SIGTERM"); // the whole group: code-server, extension host, language server
    } catch {
      // already gone
    }
    await new Promise((r) => setTimeout(r, 300));
    rmSync(base, { recursive: true, force: true });
  };
  try {
    await waitForHttp(`http://127.0.0.1:${port}/healthz`, 30_000, log);
    browser = await chromium.launch({
      executablePath: "/usr/bin/chromium",
      headless: true,
      env, // its crash reports go to XDG_CONFIG_HOME too, not $HOME
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
    const query = workspaceFile === undefined ? "folder" : "workspace";
    await page.goto(`http://127.0.0.1:${port}/?${query}=${encodeURIComponent(opened)}`);
    await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
    mkdirSync(SCREENSHOTS, { recursive: true });
    const screenshot = async (
      name: string,
      clip?: { x: number; y: number; width: number; height: number },
    ) => {
      const path = join(SCREENSHOTS, `${name}.png`);
      await page.screenshot({ path, clip });
      return path;
    };
    const clientLog = (channel = "Plan Mode") => {
      const logs = join(userData, "logs");
      const files = existsSync(logs) ? (readdirSync(logs, { recursive: true }) as string[]) : [];
      return files
        .filter((name) => name.endsWith(`${channel}.log`))
        .map((name) => readFileSync(join(logs, name), "utf8"))
        .join("\n");
    };
    return { page, workspace, workspaceFile, log, clientLog, screenshot, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** A `.code-workspace` file listing `folders` (paths relative to the file). */
export function writeWorkspaceFile(file: string, folders: string[]): void {
  writeFileSync(file, JSON.stringify({ folders: folders.map((path) => ({ path })) }, null, 2));
}
