"use strict";
var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(
  // If the importer is in node compatibility mode or this is not an ESM
  // file that has been converted to a CommonJS file using a Babel-
  // compatible transform (i.e. "__esModule" has not been set), then set
  // "default" to the CommonJS "module.exports" for node compatibility.
  isNodeMode || !mod || !mod.__esModule ? __defProp(target, "default", { value: mod, enumerable: true }) : target,
  mod
));

// test/e2e/approval.test.ts
var import_strict = __toESM(require("node:assert/strict"));
var import_node_fs2 = require("node:fs");
var import_node_path2 = require("node:path");
var import_node_test = require("node:test");

// test/e2e/agent.ts
var import_node_net = require("node:net");
var RpcError = class extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
};
var AgentConnection = class _AgentConnection {
  constructor(socket) {
    this.socket = socket;
    socket.on("data", (chunk) => this.receive(chunk));
    socket.on("close", () => {
      for (const { reject } of this.pending.values()) reject(new Error("agent connection closed"));
      this.pending.clear();
    });
  }
  buffer = Buffer.alloc(0);
  nextId = 1;
  pending = /* @__PURE__ */ new Map();
  static connect(socketPath) {
    return new Promise((resolve, reject) => {
      const socket = (0, import_node_net.createConnection)(socketPath);
      socket.once("connect", () => resolve(new _AgentConnection(socket)));
      socket.once("error", reject);
    });
  }
  request(method, params = {}) {
    const id = this.nextId++;
    const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", id, method, params }), "utf8");
    this.socket.write(`Content-Length: ${body.length}\r
\r
`);
    this.socket.write(body);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
    });
  }
  close() {
    this.socket.destroy();
  }
  receive(chunk) {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (; ; ) {
      const headerEnd = this.buffer.indexOf("\r\n\r\n");
      if (headerEnd < 0) return;
      const header = this.buffer.subarray(0, headerEnd).toString("ascii");
      const length = Number(/Content-Length:\s*(\d+)/i.exec(header)?.[1]);
      if (!Number.isFinite(length)) throw new Error(`bad header: ${header}`);
      const start = headerEnd + 4;
      if (this.buffer.length < start + length) return;
      const message = JSON.parse(this.buffer.subarray(start, start + length).toString("utf8"));
      this.buffer = this.buffer.subarray(start + length);
      if (typeof message.id === "number" && this.pending.has(message.id) && !("method" in message)) {
        const { resolve, reject } = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.error) reject(new RpcError(message.error.code, message.error.message));
        else resolve(message.result);
      }
    }
  }
};

// test/e2e/codeServer.ts
var import_node_child_process = require("node:child_process");
var import_node_fs = require("node:fs");
var import_node_net2 = require("node:net");
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
    const server = (0, import_node_net2.createServer)();
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

// test/e2e/approval.test.ts
var PLAN = `# Greet by name

## Steps
1. Read the name from the first argument in \`src/app.py\`.
2. Fall back to \`world\`.
`;
var editor;
var agent;
function statusItem(page, text) {
  return page.locator("#workbench\\.parts\\.statusbar .statusbar-item", { hasText: text });
}
function lens(page, title) {
  return page.locator(".codelens-decoration a", { hasText: title });
}
async function waitForFile(path, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!(0, import_node_fs2.existsSync)(path)) {
    if (Date.now() > deadline) throw new Error(`${path} did not appear within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return (0, import_node_fs2.readFileSync)(path, "utf8");
}
(0, import_node_test.before)(async () => {
  editor = await openEditor(
    { "planMode.server.pythonPath": PYTHON },
    { "src/app.py": 'print("Hello, world!")\n', "README.md": "# Demo workspace\n" }
  );
});
(0, import_node_test.after)(async () => {
  agent?.close();
  await editor?.close();
});
(0, import_node_test.test)("the agent's plan is reviewed, rejected, edited and approved in VS Code", async (t) => {
  const { page, workspace } = editor;
  await t.test("the extension starts the server: status bar shows the default mode", async () => {
    await statusItem(page, "Default").waitFor({ timeout: 6e4 });
  });
  const endpoint = JSON.parse(await waitForFile((0, import_node_path2.join)(workspace, ".claude/plan-mode/endpoint.json"), 3e4));
  agent = await AgentConnection.connect(endpoint.socket);
  const entered = await agent.request("planMode/enter", {});
  import_strict.default.equal(entered.state.mode, "plan");
  const planPath = entered.state.planFilePath;
  await statusItem(page, "Plan mode").waitFor({ timeout: 15e3 });
  (0, import_node_fs2.writeFileSync)(planPath, PLAN);
  await t.test("Reject\u2026 asks for feedback and the agent gets it, still in plan mode", async () => {
    const exit = agent.request("planMode/exit", {});
    await lens(page, "Approve plan").waitFor({ timeout: 3e4 });
    await statusItem(page, "Plan ready for review").waitFor({ timeout: 15e3 });
    await editor.screenshot("1-plan-under-review");
    await lens(page, "Reject\u2026").click();
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ timeout: 1e4 });
    await input.fill("Also handle an empty name");
    await input.press("Enter");
    const result = await exit;
    import_strict.default.equal(result.outcome, "rejected");
    import_strict.default.equal(result.feedback, "Also handle an empty name");
    import_strict.default.match(result.toolResult, /^User rejected the plan\. Keep planning/);
    import_strict.default.match(result.toolResult, /Also handle an empty name/);
    await statusItem(page, "Plan mode").waitFor({ timeout: 15e3 });
    await lens(page, "Approve plan").waitFor({ state: "detached", timeout: 15e3 });
  });
  await t.test("an edit in the editor shows in the lens and is what gets approved", async () => {
    const exit = agent.request("planMode/exit", {});
    await lens(page, "Approve plan").waitFor({ timeout: 3e4 });
    await page.locator(".monaco-editor .view-lines").first().click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("3. Handle an empty name.");
    const edited = lens(page, /^Approve plan \(edited: \+1 −0\)$/);
    await edited.waitFor({ timeout: 3e4 });
    await editor.screenshot("2-plan-edited");
    await edited.click();
    const result = await exit;
    import_strict.default.equal(result.outcome, "approved");
    import_strict.default.equal(result.planWasEdited, true);
    import_strict.default.equal(result.restoredMode, "default");
    import_strict.default.match(result.toolResult, /## Approved Plan \(edited by user\):/);
    import_strict.default.match(result.toolResult, /3\. Handle an empty name\./);
    await statusItem(page, "Default").waitFor({ timeout: 15e3 });
    await lens(page, /^Approve plan/).waitFor({ state: "detached", timeout: 15e3 });
    await editor.screenshot("3-approved");
  });
  await t.test("the status bar switches mode through the quick pick", async () => {
    await statusItem(page, "Default").click();
    const item = page.locator(".quick-input-widget .monaco-list-row", { hasText: "Accept edits" });
    await item.waitFor({ timeout: 1e4 });
    await editor.screenshot("4-mode-pick");
    await item.click();
    await statusItem(page, "Accept edits").waitFor({ timeout: 15e3 });
    const state = await agent.request("planMode/getState", {});
    import_strict.default.equal(state.mode, "acceptEdits");
  });
});
