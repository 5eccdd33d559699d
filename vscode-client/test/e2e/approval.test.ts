// End to end in real VS Code: the agent plans over the server's agent endpoint, the user
// reviews in the editor — rejects with feedback through the Reject… lens, edits the plan in
// place, approves through the lens — and switches mode from the status bar.
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";

import type { Page } from "playwright-core";

import { AgentConnection } from "./agent";
import { openEditor, PYTHON, type Editor } from "./codeServer";

interface State {
  mode: string;
  planFilePath: string;
  pendingApproval: { approvalId: string } | null;
}
interface ExitResult {
  outcome: string;
  planWasEdited: boolean;
  restoredMode: string;
  feedback: string | null;
  toolResult: string;
}

const PLAN = `# Greet by name

## Steps
1. Read the name from the first argument in \`src/app.py\`.
2. Fall back to \`world\`.
`;

let editor: Editor;
let agent: AgentConnection;

function statusItem(page: Page, text: string) {
  return page.locator("#workbench\\.parts\\.statusbar .statusbar-item", { hasText: text });
}

function lens(page: Page, title: string | RegExp) {
  return page.locator(".codelens-decoration a", { hasText: title });
}

async function waitForFile(path: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`${path} did not appear within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return readFileSync(path, "utf8");
}

before(async () => {
  editor = await openEditor(
    { "planMode.server.pythonPath": PYTHON },
    { "src/app.py": 'print("Hello, world!")\n', "README.md": "# Demo workspace\n" },
  );
});

after(async () => {
  agent?.close();
  await editor?.close();
});

test("the agent's plan is reviewed, rejected, edited and approved in VS Code", async (t) => {
  const { page, workspace } = editor;
  await t.test("the extension starts the server: status bar shows the default mode", async () => {
    await statusItem(page, "Default").waitFor({ timeout: 60_000 });
  });

  const endpoint = JSON.parse(await waitForFile(join(workspace, ".claude/plan-mode/endpoint.json"), 30_000));
  agent = await AgentConnection.connect(endpoint.socket);

  const entered = await agent.request<{ message: string; state: State }>("planMode/enter", {});
  assert.equal(entered.state.mode, "plan");
  const planPath = entered.state.planFilePath;
  await statusItem(page, "Plan mode").waitFor({ timeout: 15_000 });
  writeFileSync(planPath, PLAN);

  await t.test("Reject… asks for feedback and the agent gets it, still in plan mode", async () => {
    const exit = agent.request<ExitResult>("planMode/exit", {});
    await lens(page, "Approve plan").waitFor({ timeout: 30_000 });
    await statusItem(page, "Plan ready for review").waitFor({ timeout: 15_000 });
    await editor.screenshot("1-plan-under-review");
    await lens(page, "Reject…").click();
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ timeout: 10_000 });
    await input.fill("Also handle an empty name");
    await input.press("Enter");
    const result = await exit;
    assert.equal(result.outcome, "rejected");
    assert.equal(result.feedback, "Also handle an empty name");
    assert.match(result.toolResult, /^User rejected the plan\. Keep planning/);
    assert.match(result.toolResult, /Also handle an empty name/);
    await statusItem(page, "Plan mode").waitFor({ timeout: 15_000 });
    await lens(page, "Approve plan").waitFor({ state: "detached", timeout: 15_000 });
  });

  await t.test("an edit in the editor shows in the lens and is what gets approved", async () => {
    const exit = agent.request<ExitResult>("planMode/exit", {});
    await lens(page, "Approve plan").waitFor({ timeout: 30_000 });
    // Type a line at the end of the plan without saving: the server reads the open buffer.
    await page.locator(".monaco-editor .view-lines").first().click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("3. Handle an empty name.");
    const edited = lens(page, /^Approve plan \(edited: \+1 −0\)$/);
    await edited.waitFor({ timeout: 30_000 });
    await editor.screenshot("2-plan-edited");
    await edited.click();
    const result = await exit;
    assert.equal(result.outcome, "approved");
    assert.equal(result.planWasEdited, true);
    assert.equal(result.restoredMode, "default");
    assert.match(result.toolResult, /## Approved Plan \(edited by user\):/);
    assert.match(result.toolResult, /3\. Handle an empty name\./);
    await statusItem(page, "Default").waitFor({ timeout: 15_000 });
    await lens(page, /^Approve plan/).waitFor({ state: "detached", timeout: 15_000 });
    await editor.screenshot("3-approved");
  });

  await t.test("the status bar switches mode through the quick pick", async () => {
    await statusItem(page, "Default").click();
    const item = page.locator(".quick-input-widget .monaco-list-row", { hasText: "Accept edits" });
    await item.waitFor({ timeout: 10_000 });
    await editor.screenshot("4-mode-pick");
    await item.click();
    await statusItem(page, "Accept edits").waitFor({ timeout: 15_000 });
    const state = await agent.request<State>("planMode/getState", {});
    assert.equal(state.mode, "acceptEdits");
  });
});
