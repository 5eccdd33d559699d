// End to end in real VS Code with a multi-root workspace (a .code-workspace of two folders):
// each folder gets its own server (docs/protocol.md §1: one server per workspace root) with its
// own log, one notification sets up the environment for both, the status bar follows the
// active editor's folder, and an agent planning in the second folder is reviewed and approved
// there. A folder added to the workspace while it is open gets a server; one removed, loses it.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { after, before } from "node:test";

import { AgentConnection } from "./agent";
import { openEditor, writeWorkspaceFile, type Editor } from "./codeServer";
import {
  endpointPid,
  lens,
  parseEndpoint,
  quickOpen,
  runCommand,
  statusItem,
  storySteps,
  toast,
  waitForFile,
  waitUntil,
} from "./helpers";

interface State {
  mode: string;
  planFilePath: string;
  pendingApproval: { approvalId: string } | null;
}

interface ExitResult {
  outcome: string;
  toolResult: string;
}

const PLAN = `# Serve the page

## Steps
1. Render \`index.html\` from \`src/app.py\`.
`;

const FOLDERS = ["api", "web"];
const channel = (folder: string) => `Plan Mode (${folder})`;

let editor: Editor;
let agent: AgentConnection;
const step = storySteps(() => editor, [...FOLDERS, "site"].map(channel));

function endpointFile(folder: string): string {
  return join(editor.workspace, folder, ".claude/plan-mode/endpoint.json");
}

/** The folder's log says its server runs, from the private environment. */
function serverRuns(folder: string): boolean {
  return /Server: planmode \S+ in \S+server-env\/bin\/python/.test(
    editor.clientLog(channel(folder)),
  );
}

before(async () => {
  editor = await openEditor(
    {},
    {
      "api/api-notes.md": "# API notes\n",
      "web/web-notes.md": "# Web notes\n",
      "web/src/app.py": 'print("<h1>Hello</h1>")\n',
      "site/site-notes.md": "# Site\n",
    },
    FOLDERS,
  );
});

after(async () => {
  agent?.close();
  await editor?.close();
});

step(
  "two folders, one notification: the environment it sets up starts both servers",
  async (page) => {
    const offer = toast(page, "Plan mode needs a Python environment with planmode");
    await offer.waitFor({ timeout: 60_000 });
    await waitUntil(
      () => FOLDERS.every((f) => /python3 has no planmode/.test(editor.clientLog(channel(f)))),
      30_000,
      "both folders' servers to look for a Python",
    );
    await page.waitForTimeout(600); // a second notification would be sliding in by now
    assert.equal(await page.locator(".notifications-toasts .notification-toast").count(), 1);
    await editor.screenshot("multi-0-one-notification");
    await offer.getByRole("button", { name: "Create Environment" }).click();
    await waitUntil(() => FOLDERS.every(serverRuns), 240_000, "both folders' servers to run");
    for (const folder of FOLDERS) {
      const endpoint = parseEndpoint(await waitForFile(endpointFile(folder), 30_000));
      assert.ok(existsSync(endpoint.socket), endpoint.socket);
    }
    assert.notEqual(endpointPid(endpointFile("api")), endpointPid(endpointFile("web")));
  },
);

step("the status bar follows the active editor into its folder's server", async (page) => {
  await quickOpen(page, "web-notes.md");
  await statusItem(page, "Default · web").waitFor({ timeout: 15_000 });
  await quickOpen(page, "api-notes.md");
  await statusItem(page, "Default · api").waitFor({ timeout: 15_000 });
  await quickOpen(page, "web-notes.md");
  const item = statusItem(page, "Default · web");
  await item.waitFor({ timeout: 15_000 });
  await item.hover();
  await page
    .locator(".workbench-hover", { hasText: "Workspace folder: web" })
    .waitFor({ timeout: 10_000 });
  await editor.screenshot("multi-1-second-folder");
  await page.mouse.move(640, 300);
});

step(
  "an agent in the second folder plans there: its plan opens with lenses and Approve answers it",
  async (page) => {
    agent = await AgentConnection.connect(
      parseEndpoint(readFileSync(endpointFile("web"), "utf8")).socket,
    );
    const entered = await agent.request<{ state: State }>("planMode/enter", {});
    const planPath = entered.state.planFilePath;
    assert.ok(planPath.startsWith(join(editor.workspace, "web") + sep), planPath);
    await statusItem(page, "Plan mode · web").waitFor({ timeout: 15_000 });
    mkdirSync(dirname(planPath), { recursive: true });
    writeFileSync(planPath, PLAN);
    const exit = agent.request<ExitResult>("planMode/exit", {});
    exit.catch(() => undefined); // awaited below; a failure before that must not go unhandled
    await lens(page, "Approve plan").waitFor({ timeout: 30_000 });
    await statusItem(page, "Plan ready for review · web").waitFor({ timeout: 15_000 });
    // Lenses from the plan's own folder's server only.
    assert.equal(await lens(page, "Approve plan").count(), 1);
    await editor.screenshot("multi-2-plan-in-second-folder");
    // The first folder's server has its own sessions: nothing of this plan.
    const apiAgent = await AgentConnection.connect(
      parseEndpoint(readFileSync(endpointFile("api"), "utf8")).socket,
    );
    const apiState = await apiAgent.request<State>("planMode/getState", {});
    apiAgent.close();
    assert.equal(apiState.mode, "default");
    assert.equal(apiState.pendingApproval, null);
    await lens(page, "Approve plan").click();
    const result = await exit;
    assert.equal(result.outcome, "approved");
    assert.match(result.toolResult, /Serve the page/);
    await statusItem(page, "Default · web").waitFor({ timeout: 15_000 });
    await lens(page, /^Approve plan/).waitFor({ state: "detached", timeout: 15_000 });
    await editor.screenshot("multi-3-approved");
  },
);

step("the Plans view groups the plans by folder, each listed by its own server", async (page) => {
  await runCommand(page, "Plan Mode: Focus on Plans View");
  const rows = page.locator("#workbench\\.parts\\.sidebar .monaco-list-row");
  await rows.filter({ hasText: /executing 0\/1/ }).waitFor({ timeout: 15_000 });
  const texts = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, " ").trim());
  // Each folder's row, and the approved plan under web's alone.
  assert.equal(texts.length, 3, JSON.stringify(texts));
  assert.deepEqual(texts.slice(0, 2), ["api", "web"]);
  assert.match(texts[2], /^[a-z]+-[a-z]+ ?executing 0\/1 · (just now|\d+ min ago)$/);
  await editor.screenshot("multi-3b-plans-view");
  await runCommand(page, "View: Show Explorer");
});

step("Show Server Log shows the active folder's own log", async (page) => {
  await runCommand(page, "Plan Mode: Show Server Log");
  const panel = page.locator("#workbench\\.parts\\.panel");
  await panel.locator(".view-lines", { hasText: "Starting the plan mode server" }).waitFor({
    timeout: 15_000,
  });
  // The Output view's channel picker: the folder's own log.
  const shown = await panel
    .locator("select.monaco-select-box option:checked")
    .first()
    .textContent();
  assert.equal(shown, channel("web"));
  // Its list: one log per folder.
  await panel.locator("select.monaco-select-box").first().click();
  const list = page.locator(".monaco-select-box-dropdown-container");
  for (const folder of FOLDERS) {
    await list.getByText(channel(folder), { exact: true }).waitFor({ timeout: 10_000 });
  }
  await editor.screenshot("multi-4-web-log");
  await page.keyboard.press("Escape");
  await runCommand(page, "View: Hide Panel");
});

step("a folder added to the open workspace gets its own server", async (page) => {
  writeWorkspaceFile(editor.workspaceFile!, [...FOLDERS, "site"]);
  await waitForFile(endpointFile("site"), 60_000);
  await waitUntil(() => serverRuns("site"), 30_000, "the site folder's server to run");
  await quickOpen(page, "site-notes.md");
  await statusItem(page, "Default · site").waitFor({ timeout: 15_000 });
  await editor.screenshot("multi-5-third-folder");
});

step("a folder removed from the workspace stops its server", async (page) => {
  const pid = endpointPid(endpointFile("site"));
  writeWorkspaceFile(editor.workspaceFile!, FOLDERS);
  await waitUntil(() => !existsSync(endpointFile("site")), 30_000, "the site server to stop");
  await waitUntil(
    () => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    },
    15_000,
    `the site server's process ${pid} to exit`,
  );
  // The other folders' servers still run.
  await statusItem(page, /Default · (api|web)/).waitFor({ timeout: 15_000 });
  for (const folder of FOLDERS) assert.ok(existsSync(endpointFile(folder)), folder);
});
