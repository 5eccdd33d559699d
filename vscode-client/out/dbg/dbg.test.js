// ../../../tmp/dbg/dbg.test.ts
var import_node_test = require("node:test");

// test/e2e/codeServer.ts
var import_node_child_process = require("node:child_process");
var import_node_fs = require("node:fs");
var import_node_net = require("node:net");
var import_node_os = require("node:os");
var import_node_path = require("node:path");
var import_playwright_core = require("playwright-core");
function repoRoot() {
  let dir = __dirname;
  while (!(0, import_node_fs.existsSync)((0, import_node_path.join)(dir, "pyproject.toml"))) {
    const parent = (0, import_node_path.dirname)(dir);
    if (parent === dir) throw new Error(`no pyproject.toml above ${__dirname}`);
    dir = parent;
  }
  return dir;
}
var CLIENT = (0, import_node_path.join)(repoRoot(), "vscode-client");
var PYTHON = (0, import_node_path.join)(repoRoot(), ".venv/bin/python");
var VSIX = (0, import_node_path.join)(CLIENT, "planmode.vsix");
var CODE_SERVER = (0, import_node_path.join)(CLIENT, ".e2e/code-server/node_modules/.bin/code-server");
var SCREENSHOTS = (0, import_node_path.join)(CLIENT, ".e2e/screenshots");
function freePort() {
  return new Promise((resolve, reject) => {
    const server = (0, import_node_net.createServer)();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")));
    });
  });
}
async function waitForHttp(url, timeoutMs, log) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`code-server did not answer at ${url}:
${log()}`);
}
async function openEditor(settings, files = {}) {
  for (const [what, path] of [
    ["the packaged extension (npm run package)", VSIX],
    ["code-server (scripts/setup-e2e.sh)", CODE_SERVER],
    ["the server's virtualenv (make install)", PYTHON]
  ]) {
    if (!(0, import_node_fs.existsSync)(path)) throw new Error(`missing ${what}: ${path}`);
  }
  const base = (0, import_node_fs.mkdtempSync)((0, import_node_path.join)((0, import_node_os.tmpdir)(), "planmode-e2e-"));
  const workspace = (0, import_node_path.join)(base, "workspace");
  const userData = (0, import_node_path.join)(base, "user-data");
  const extensions = (0, import_node_path.join)(base, "extensions");
  for (const dir of [workspace, (0, import_node_path.join)(userData, "User"), extensions]) (0, import_node_fs.mkdirSync)(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    (0, import_node_fs.mkdirSync)((0, import_node_path.dirname)((0, import_node_path.join)(workspace, name)), { recursive: true });
    (0, import_node_fs.writeFileSync)((0, import_node_path.join)(workspace, name), text);
  }
  (0, import_node_fs.writeFileSync)(
    (0, import_node_path.join)(userData, "User/settings.json"),
    JSON.stringify(
      {
        "security.workspace.trust.enabled": false,
        "workbench.startupEditor": "none",
        "workbench.tips.enabled": false,
        "extensions.ignoreRecommendations": true,
        "telemetry.telemetryLevel": "off",
        ...settings
      },
      null,
      2
    )
  );
  const env = {
    ...process.env,
    XDG_CONFIG_HOME: (0, import_node_path.join)(base, "xdg/config"),
    XDG_DATA_HOME: (0, import_node_path.join)(base, "xdg/data"),
    XDG_CACHE_HOME: (0, import_node_path.join)(base, "xdg/cache")
  };
  const dirs = ["--user-data-dir", userData, "--extensions-dir", extensions];
  const install = (0, import_node_child_process.spawnSync)(CODE_SERVER, [...dirs, "--install-extension", VSIX], { env, encoding: "utf8" });
  if (install.status !== 0) throw new Error(`--install-extension failed:
${install.stdout}
${install.stderr}`);
  const port = await freePort();
  let output = "";
  const server = (0, import_node_child_process.spawn)(
    CODE_SERVER,
    ["--auth", "none", "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust", ...dirs, "--bind-addr", `127.0.0.1:${port}`, workspace],
    { env, detached: true, stdio: ["ignore", "pipe", "pipe"] }
  );
  server.stdout?.on("data", (d) => output += d);
  server.stderr?.on("data", (d) => output += d);
  const log = () => output;
  let browser;
  const close = async () => {
    await browser?.close().catch(() => void 0);
    try {
      process.kill(-server.pid, "SIGTERM");
    } catch {
    }
    await new Promise((r) => setTimeout(r, 300));
    (0, import_node_fs.rmSync)(base, { recursive: true, force: true });
  };
  try {
    await waitForHttp(`http://127.0.0.1:${port}/healthz`, 3e4, log);
    browser = await import_playwright_core.chromium.launch({
      executablePath: "/usr/bin/chromium",
      headless: true,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync"
      ]
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
    await page.locator(".monaco-workbench").waitFor({ timeout: 6e4 });
    (0, import_node_fs.mkdirSync)(SCREENSHOTS, { recursive: true });
    const screenshot = async (name) => {
      const path = (0, import_node_path.join)(SCREENSHOTS, `${name}.png`);
      await page.screenshot({ path });
      return path;
    };
    return { page, workspace, log, screenshot, close };
  } catch (error) {
    await close();
    throw error;
  }
}

// ../../../tmp/dbg/dbg.test.ts
(0, import_node_test.test)("dbg", async () => {
  const e = await openEditor({ "planMode.server.pythonPath": PYTHON }, { "README.md": "# x\n" });
  await new Promise((r) => setTimeout(r, 2e4));
  await e.screenshot("dbg");
  console.log(await e.page.locator("#workbench\\.parts\\.statusbar").innerHTML());
  console.log(e.log());
  const ud = e.workspace.replace("workspace", "user-data");
  console.log(require("child_process").execSync(`find ${ud}/logs -name '*.log' | head -50; cat $(find ${ud}/logs -name '*Plan*' -o -name 'exthost.log' | head -5)`).toString());
  await e.close();
});
