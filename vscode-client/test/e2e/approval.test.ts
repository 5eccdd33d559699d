// End to end in real VS Code, as a new user gets it: a clean profile with no settings and no
// planmode on PATH; the extension asks once to create its private environment and starts the
// server there. Then the agent plans over the server's agent endpoint, the user reviews in the
// editor — rejects with feedback through the Reject… lens, edits the plan in place, approves
// through the lens — and switches mode from the status bar; a broken pythonPath setting gets
// one notification whose button opens that setting.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before } from "node:test";

import { AgentConnection } from "./agent";
import { openEditor, type Editor } from "./codeServer";
import {
  endpointPid,
  lens,
  parseEndpoint,
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
  planWasEdited: boolean;
  restoredMode: string;
  feedback: string | null;
  remark: string | null;
  comments: {
    text: string;
    quote: string;
    headingPath: string[];
    line: number;
    outdated: boolean;
  }[];
  grantedPrompts: { tool: string; prompt: string }[];
  toolResult: string;
}

const PLAN = `# Greet by name

## Steps
1. Read the name from the first argument in \`src/app.py\`.
2. Fall back to \`world\`.
`;

let editor: Editor;
let agent: AgentConnection;
let planPath: string;
const step = storySteps(() => editor);

before(async () => {
  editor = await openEditor(
    {},
    { "src/app.py": 'print("Hello, world!")\n', "README.md": "# Demo workspace\n" },
  );
});

after(async () => {
  agent?.close();
  await editor?.close();
});

step(
  "with no Python that has planmode, one notification offers the private environment",
  async (page) => {
    const offer = toast(page, "Plan mode needs a Python environment with planmode");
    await offer.waitFor({ timeout: 60_000 });
    await statusItem(page, "Plan mode: set up").waitFor({ timeout: 15_000 });
    assert.match(await offer.innerText(), /python3 has no planmode/);
    // One notification, not a pile of them.
    assert.equal(await page.locator(".notifications-toasts .notification-toast").count(), 1);
    const create = offer.getByRole("button", { name: "Create Environment" });
    await create.waitFor({ timeout: 10_000 });
    await page.waitForTimeout(600); // the toast's slide-in, for the screenshot
    await editor.screenshot("0-consent");
    await create.click();
  },
);

step("after that one click the server runs from the private environment", async (page) => {
  await statusItem(page, "Default").waitFor({ timeout: 240_000 });
  assert.match(
    editor.clientLog(),
    /Server: planmode \S+ in \S+server-env\/bin\/python \(the extension's private environment\)/,
  );
  assert.equal(await toast(page, /Plan mode server|did not start/).count(), 0);
  // The status bar's tooltip says which Python runs the server, and why that one.
  await statusItem(page, "Default").hover();
  await page
    .getByText(/Server: planmode \S+ in .*\(the extension's private environment\)/)
    .first()
    .waitFor({ timeout: 10_000 });
  await editor.screenshot("0b-server-tooltip");
  await page.mouse.move(640, 300);
});

step(
  "the agent connects to the endpoint and enters plan mode: the status bar follows",
  async (page) => {
    const endpoint = parseEndpoint(
      await waitForFile(join(editor.workspace, ".claude/plan-mode/endpoint.json"), 30_000),
    );
    agent = await AgentConnection.connect(endpoint.socket);
    const entered = await agent.request<{ message: string; state: State }>("planMode/enter", {});
    assert.equal(entered.state.mode, "plan");
    planPath = entered.state.planFilePath;
    await statusItem(page, "Plan mode").waitFor({ timeout: 15_000 });
    mkdirSync(dirname(planPath), { recursive: true });
    writeFileSync(planPath, PLAN);
  },
);

step("Reject… asks for feedback and the agent gets it, still in plan mode", async (page) => {
  const exit = agent.request<ExitResult>("planMode/exit", {});
  exit.catch(() => undefined); // awaited below; a failure before that must not go unhandled
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

step(
  "a comment added through the gutter's + reaches the agent with its anchor on Reject…",
  async (page) => {
    const exit = agent.request<ExitResult>("planMode/exit", {});
    exit.catch(() => undefined); // awaited below; a failure before that must not go unhandled
    await lens(page, "Approve plan").waitFor({ timeout: 30_000 });
    // Hover the gutter of line 4 ("1. Read the name…"): VS Code shows the + of the commenting range.
    const lineNumber = page.locator(".margin-view-overlays .line-numbers", { hasText: /^4$/ });
    await lineNumber.hover();
    const glyph = page.locator(".margin-view-overlays .comment-range-glyph");
    await glyph.first().waitFor({ timeout: 15_000 });
    const row = await lineNumber.boundingBox();
    const column = await glyph.first().boundingBox();
    assert.ok(row && column);
    await page.mouse.move(column.x + column.width / 2, row.y + row.height / 2);
    await page.mouse.click(column.x + column.width / 2, row.y + row.height / 2);
    const widget = page.locator(".review-widget");
    await widget.locator(".comment-form").waitFor({ timeout: 15_000 });
    await widget.locator(".comment-form .monaco-editor, .comment-form textarea").first().click();
    await page.keyboard.type("Which argument: the first, or --name?");
    await editor.screenshot("2a-comment-thread");
    await widget.getByText("Add Comment", { exact: true }).click();
    // The thread wrote the comment syntax into the plan; the server counts it on the lens.
    const rejectWithComment = lens(page, "Reject… (1 comment)");
    await rejectWithComment.waitFor({ timeout: 30_000 });
    await page
      .locator(".view-lines", { hasText: "> [!review] Which argument: the first, or --name?" })
      .first()
      .waitFor();
    await editor.screenshot("2b-comment-written");
    await rejectWithComment.click();
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ timeout: 10_000 });
    await input.fill("Say which argument");
    await input.press("Enter");
    const result = await exit;
    assert.equal(result.outcome, "rejected");
    assert.equal(result.remark, "Say which argument");
    assert.deepEqual(result.comments, [
      {
        text: "Which argument: the first, or --name?",
        quote: "1. Read the name from the first argument in `src/app.py`.",
        headingPath: ["Greet by name", "Steps"],
        line: 4,
        outdated: false,
      },
    ]);
    assert.match(
      result.toolResult,
      /1\. under “Greet by name › Steps” on line 4: “1\. Read the name from the first argument in `src\/app\.py`\.”\n {3}Which argument: the first, or --name\?/,
    );
    await lens(page, "Approve plan").waitFor({ state: "detached", timeout: 15_000 });
  },
);

step("an edit in the editor shows in the lens, and the edited plan is approved", async (page) => {
  // The plan asks to run the tests afterwards: shown, with the exact rule, before it is granted.
  const allowedPrompts = [{ tool: "Bash", prompt: "run tests" }];
  const exit = agent.request<ExitResult>("planMode/exit", { allowedPrompts });
  exit.catch(() => undefined); // awaited below; a failure before that must not go unhandled
  await lens(page, /^Approve plan and allow “run tests” \(test commands\)/).waitFor({
    timeout: 30_000,
  });
  const announced = toast(
    page,
    "A plan is ready for review. Approving also allows these commands without asking:",
  );
  await announced.waitFor({ timeout: 15_000 });
  assert.match(
    await announced.innerText(),
    /Bash “run tests” \(category test\): `pytest`, `python -m pytest`/,
  );
  await editor.screenshot("2-grants-notification");
  // With the notification gone, the status bar's tooltip lists the same rules.
  await page.keyboard.press("F1");
  const command = page.locator(".quick-input-widget input");
  await command.fill(">Notifications: Clear All Notifications");
  await page
    .locator(".quick-input-widget .monaco-list-row", { hasText: "Clear All Notifications" })
    .first()
    .waitFor();
  await command.press("Enter");
  await announced.waitFor({ state: "detached", timeout: 10_000 });
  // The hover itself (the notification's text also lives in an off-screen screen-reader alert).
  const tooltip = page.locator(".workbench-hover", {
    hasText: "The agent is waiting for your review",
  });
  await statusItem(page, "Plan ready for review").hover();
  await tooltip.waitFor({ timeout: 10_000 });
  await editor.screenshot("2-grants-tooltip");
  assert.match(
    await tooltip.innerText(),
    /Approving also allows these commands without asking:\s*• Bash “run tests” \(category test\): `pytest`/,
  );
  await page.mouse.move(640, 300);
  // Type a line at the end of the plan without saving: the server reads the open buffer.
  await page.locator(".monaco-editor .view-lines").first().click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("3. Handle an empty name.");
  const edited = lens(page, /^Approve plan \(edited: \+1 −0\b.* and allow “run tests”/);
  await edited.waitFor({ timeout: 30_000 });
  await editor.screenshot("2-plan-edited");
  await editor.screenshot("lenses", { x: 348, y: 70, width: 660, height: 170 });

  // Plan Mode: Show Plan Changes: the submitted plan against the buffer, the typed line added.
  await page.keyboard.press("F1");
  const palette = page.locator(".quick-input-widget input");
  await palette.fill(">Plan Mode: Show Plan Changes");
  await page
    .locator(".quick-input-widget .monaco-list-row", { hasText: "Show Plan Changes" })
    .first()
    .waitFor();
  await palette.press("Enter");
  await page.locator(".monaco-diff-editor .line-insert").first().waitFor({ timeout: 15_000 });
  await editor.screenshot("2b-plan-changes");

  // The status bar item leads back to the plan under review.
  await statusItem(page, "Plan ready for review").click();
  await page.locator(".monaco-diff-editor").waitFor({ state: "hidden", timeout: 15_000 });
  await edited.click();
  const result = await exit;
  assert.equal(result.outcome, "approved");
  assert.equal(result.planWasEdited, true);
  assert.equal(result.restoredMode, "default");
  assert.match(result.toolResult, /## Approved Plan \(edited by user\):/);
  assert.match(result.toolResult, /3\. Handle an empty name\./);
  assert.deepEqual(result.grantedPrompts, allowedPrompts);
  await statusItem(page, "Default").waitFor({ timeout: 15_000 });
  await lens(page, /^Approve plan/).waitFor({ state: "detached", timeout: 15_000 });
  await editor.screenshot("3-approved");
});

step("the status bar switches mode through the quick pick", async (page) => {
  await statusItem(page, "Default").click();
  const item = page.locator(".quick-input-widget .monaco-list-row", { hasText: "Accept edits" });
  await item.waitFor({ timeout: 10_000 });
  await editor.screenshot("4-mode-pick");
  await item.click();
  await statusItem(page, "Accept edits").waitFor({ timeout: 15_000 });
  const state = await agent.request<State>("planMode/getState", {});
  assert.equal(state.mode, "acceptEdits");
});

async function waitForLog(pattern: RegExp, timeoutMs: number): Promise<void> {
  await waitUntil(
    () => pattern.test(editor.clientLog()),
    timeoutMs,
    `the Plan Mode log to show ${pattern}`,
  );
}

step("planMode.trace.server writes the JSON-RPC traffic into the Plan Mode log", async (page) => {
  // A log channel: every line has its time and level, and the default level (info) keeps the
  // client's debug lines (each state change, the settings sent) out.
  assert.match(
    editor.clientLog(),
    /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \[info\] Starting the plan mode server/m,
  );
  assert.doesNotMatch(editor.clientLog(), /\[debug\]/);
  const traced = /Received request 'workspace\/configuration - \([^)]+\)'/;
  assert.doesNotMatch(editor.clientLog(), traced, "traced while planMode.trace.server is off");
  const settingsFile = join(editor.workspace, ".vscode/settings.json");
  mkdirSync(dirname(settingsFile), { recursive: true });
  writeFileSync(settingsFile, JSON.stringify({ "planMode.trace.server": "verbose" }));
  // The change is traffic itself: the client announces it, the server asks for its settings.
  await waitForLog(traced, 30_000);
  await waitForLog(/Params: \{\s*"items": \[\s*\{[^}]*"section": "planMode"/, 10_000);
  await runCommand(page, "Plan Mode: Show Server Log");
  // The Output view's editor renders spaces as no-break spaces: match no space.
  const output = page.locator("#workbench\\.parts\\.panel .view-lines", { hasText: "[Trace" });
  await output.waitFor({ timeout: 15_000 });
  await editor.screenshot("6-log-trace");
  await runCommand(page, "View: Hide Panel");
  // The next step replaces these workspace settings, which turns the trace off again.
});

step("changing planMode.server.* restarts the server (stop, dispose, start)", async (page) => {
  const endpointFile = join(editor.workspace, ".claude/plan-mode/endpoint.json");
  const before = endpointPid(endpointFile);
  // Workspace settings: VS Code notices a change of that file (its watcher covers the folder).
  mkdirSync(join(editor.workspace, ".vscode"), { recursive: true });
  writeFileSync(
    join(editor.workspace, ".vscode/settings.json"),
    JSON.stringify({ "planMode.server.args": ["-m", "planmode", "lsp", "--log-level", "INFO"] }),
  );
  const deadline = Date.now() + 30_000;
  let after = before;
  while (after === before && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    after = existsSync(endpointFile) ? endpointPid(endpointFile) : before;
  }
  assert.notEqual(after, before, "the server was not restarted");
  // The new server answers: the status bar shows its default session again, and no error
  // (such as a command registered twice) stopped the client.
  await statusItem(page, "Default").waitFor({ timeout: 20_000 });
  assert.doesNotMatch(editor.clientLog(), /already exists|crashed/);
});

step(
  "a server that dies is not restarted in a loop: one notification restarts it",
  async (page) => {
    const endpointFile = join(editor.workspace, ".claude/plan-mode/endpoint.json");
    const pid = endpointPid(endpointFile);
    process.kill(pid, "SIGKILL");
    const stopped = toast(page, "Plan mode server stopped");
    await stopped.waitFor({ timeout: 30_000 });
    await statusItem(page, "Plan mode").waitFor({ timeout: 15_000 });
    // Nothing restarted it behind the user's back, and it said so once.
    await page.waitForTimeout(3_000);
    assert.equal(await stopped.count(), 1);
    assert.equal(endpointPid(endpointFile), pid);
    await editor.screenshot("5-server-stopped");
    await stopped.getByRole("button", { name: "Restart Server" }).click();
    await statusItem(page, "Default").waitFor({ timeout: 30_000 });
    assert.notEqual(endpointPid(endpointFile), pid);
  },
);

step(
  "a pythonPath without planmode: one notification, and its button opens that setting",
  async (page) => {
    writeFileSync(
      join(editor.workspace, ".vscode/settings.json"),
      JSON.stringify({ "planMode.server.pythonPath": "/nonexistent/bin/python" }),
    );
    const problem = toast(
      page,
      "Plan mode server cannot start: /nonexistent/bin/python was not found",
    );
    await problem.waitFor({ timeout: 30_000 });
    await statusItem(page, "Plan mode").waitFor({ timeout: 15_000 });
    await problem.getByRole("button", { name: "Open Setting" }).click();
    const setting = page.locator(".settings-editor .setting-item-contents", {
      hasText: "Python Path",
    });
    await setting.first().waitFor({ timeout: 15_000 });
    assert.equal(await page.locator(".settings-editor .setting-item-contents").count(), 1);
    await editor.screenshot("6-open-setting");
  },
);
