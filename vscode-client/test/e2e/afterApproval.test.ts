// End to end in real VS Code, after approval (docs/protocol.md §12): the agent revises a plan
// under review and the plan shows what changed (added lines highlighted, removed text as ghost
// text); the plan is approved and its steps fill in as the agent's TodoWrite calls pass through
// checkTool (marks in the plan, `Plan 2/5` in the status bar); a write outside the plan is
// flagged and allowed from the notification; the user marks a step from the status bar; the
// Plans view lists the plan with its status, opens a version and a diff of two; a second plan
// is saved for later through its lens and taken up again from the Plans view.
//
// The server is the checkout's (planMode.server.pythonPath: the .venv), so the story starts
// at once; approval.test.ts covers a new user's set-up.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before } from "node:test";

import type { Page } from "playwright-core";

import { AgentConnection } from "./agent";
import { openEditor, repoRoot, type Editor } from "./codeServer";
import {
  lens,
  parseEndpoint,
  runCommand,
  statusItem,
  storySteps,
  toast,
  waitForFile,
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
interface Progress {
  steps: { index: number; text: string; status: string; source: string | null }[];
  done: number;
  total: number;
  drift: { path: string; tool: string }[];
  allowedPaths: string[];
}

const PLAN = `# Greet by name

## Steps
1. Read the name from the first argument in \`src/app.py\`.
2. Fall back to \`world\`.
3. Print the greeting.
4. Add a test in \`tests/test_app.py\`.
5. Update \`README.md\`.

## Verification
Run \`pytest\`.
`;

// The agent's revision while the plan is under review: step 2 reworded, a line removed from
// the verification, a line added to it.
const REVISED = PLAN.replace(
  "2. Fall back to `world`.",
  "2. Fall back to `world` when no name is given.",
).replace("Run `pytest`.\n", "Run `pytest -q`.\nCheck the output by hand.\n");

const LATER = `# Colour the greeting

## Steps
1. Print the greeting in green from \`src/app.py\`.
`;

let editor: Editor;
let agent: AgentConnection;
let planPath: string;
const step = storySteps(() => editor);

before(async () => {
  editor = await openEditor(
    { "planMode.server.pythonPath": join(repoRoot(), ".venv/bin/python") },
    {
      "src/app.py": 'import sys\nprint(f"Hello, {sys.argv[1]}!")\n',
      "README.md": "# Demo workspace\n",
    },
  );
});

after(async () => {
  agent?.close();
  await editor?.close();
});

/** The text of every `before`/`after` decoration in the editors (drawn by CSS, not in the DOM). */
async function decorationTexts(page: Page, pseudo: "::before" | "::after"): Promise<string[]> {
  // Run in the page (its DOM, not this process's types): the `content` of each span's pseudo.
  return page.evaluate(`(() => {
    const found = [];
    for (const el of document.querySelectorAll(".monaco-editor .view-lines span")) {
      const content = getComputedStyle(el, "${pseudo}").content;
      if (content && content !== "none" && content !== "normal") found.push(content);
    }
    return found;
  })()`);
}

async function waitForDecoration(
  page: Page,
  pseudo: "::before" | "::after",
  check: (texts: string[]) => boolean,
  what: string,
): Promise<string[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const texts = await decorationTexts(page, pseudo);
    if (check(texts)) return texts;
    if (Date.now() > deadline)
      throw new Error(`waited for ${what}; the ${pseudo} decorations: ${JSON.stringify(texts)}`);
    await page.waitForTimeout(250);
  }
}

function whole(old: string, text: string) {
  const lines = old.split("\n");
  return {
    range: {
      start: { line: 0, character: 0 },
      end: { line: lines.length - 1, character: lines[lines.length - 1].length },
    },
    newText: text,
  };
}

let exit: Promise<ExitResult>;

step("the agent plans, submits, and revises the plan under review", async (page) => {
  const endpoint = parseEndpoint(
    await waitForFile(join(editor.workspace, ".claude/plan-mode/endpoint.json"), 60_000),
  );
  agent = await AgentConnection.connect(endpoint.socket);
  const entered = await agent.request<{ state: State }>("planMode/enter", {});
  planPath = entered.state.planFilePath;
  mkdirSync(dirname(planPath), { recursive: true });
  writeFileSync(planPath, PLAN);
  exit = agent.request<ExitResult>("planMode/exit", {});
  exit.catch(() => undefined); // awaited below; a failure before that must not go unhandled
  await lens(page, "Approve plan").waitFor({ timeout: 30_000 });
  const uri = `file://${planPath}`;
  const applied = await agent.request<{ applied: boolean }>("planMode/applyEdit", {
    edit: { changes: { [uri]: [whole(PLAN, REVISED)] } },
    label: "Say when to fall back",
  });
  assert.equal(applied.applied, true);
});

step("what the revision changed shows in the plan: added lines and removed text", async (page) => {
  await lens(page, /^Keep \(\+1 −1\)/)
    .first()
    .waitFor({ timeout: 30_000 });
  const ghosts = await waitForDecoration(
    page,
    "::after",
    (texts) => texts.some((t) => t.includes("Fall back to `world`.")),
    "the removed step 2 as ghost text",
  );
  assert.ok(
    ghosts.some((t) => t.includes("Run `pytest`.")),
    JSON.stringify(ghosts),
  );
  // The added lines' background: a whole-line decoration in the view's overlays.
  const highlighted = await page.locator(".view-overlays .cdr").count();
  assert.ok(highlighted >= 3, `${highlighted} highlighted lines`);
  await page.waitForTimeout(300);
  await editor.screenshot("after-1-revision-highlights");
  // Keep the first change: its marks go, the other hunk's stay.
  await lens(page, /^Keep \(\+1 −1\)/)
    .first()
    .click();
  await waitForDecoration(
    page,
    "::after",
    (texts) =>
      !texts.some((t) => t.includes("Fall back to `world`.")) &&
      texts.some((t) => t.includes("Run `pytest`.")),
    "the kept hunk's ghost text to go",
  );
});

step("approved: each step gets a mark and the status bar counts them", async (page) => {
  await lens(page, /^Approve plan/)
    .first()
    .click();
  const result = await exit;
  assert.equal(result.outcome, "approved");
  await statusItem(page, "Plan 0/5").waitFor({ timeout: 20_000 });
  // The decision took the revision marks with it.
  await waitForDecoration(
    page,
    "::after",
    (texts) => !texts.some((t) => t.includes("Run `pytest`.")),
    "the revision marks to go",
  );
  const marks = await waitForDecoration(
    page,
    "::before",
    (texts) => texts.filter((t) => t.includes("•")).length === 5,
    "five pending marks",
  );
  assert.equal(marks.filter((t) => t.includes("✓")).length, 0);
});

step("the agent's TodoWrite moves steps: marks and Plan 2/5 follow", async (page) => {
  const todos = [
    { content: "Read the name from the first argument in src/app.py", status: "completed" },
    { content: "Fall back to world when no name is given", status: "completed" },
    { content: "Print the greeting", status: "in_progress" },
    { content: "Add a test in tests/test_app.py", status: "pending" },
  ];
  const answer = await agent.request<{ behavior: string }>("planMode/checkTool", {
    tool: "TodoWrite",
    input: { todos },
  });
  assert.equal(answer.behavior, "allow");
  await statusItem(page, "Plan 2/5").waitFor({ timeout: 20_000 });
  await waitForDecoration(
    page,
    "::before",
    (texts) =>
      texts.filter((t) => t.includes("✓")).length === 2 &&
      texts.filter((t) => t.includes("◐")).length === 1 &&
      texts.filter((t) => t.includes("•")).length === 2,
    "✓ ✓ ◐ • •",
  );
  await page.waitForTimeout(300);
  await editor.screenshot("after-2-progress-marks");
  await statusItem(page, "Plan 2/5").hover();
  await page
    .locator(".workbench-hover", { hasText: "2 of 5 steps done" })
    .waitFor({ timeout: 10_000 });
  await editor.screenshot("after-2b-progress-tooltip");
  await page.mouse.move(900, 500);
  await page.keyboard.press("Escape");
});

step("a write outside the plan is flagged; the notification allows the file", async (page) => {
  const answer = await agent.request<{ behavior: string }>("planMode/checkTool", {
    tool: "Write",
    input: { file_path: join(editor.workspace, "notes.txt"), content: "scratch\n" },
  });
  // Drift "warn" leaves the decision as it was: in the default mode a write asks the user.
  assert.equal(answer.behavior, "ask");
  const flagged = toast(page, "notes.txt");
  await flagged.waitFor({ timeout: 20_000 });
  await page.waitForTimeout(600); // the toast's slide-in, for the screenshot
  await editor.screenshot("after-3-drift");
  await flagged.getByRole("button", { name: /Allow this file/ }).click();
  const deadline = Date.now() + 15_000;
  let progress = await agent.request<Progress>("planMode/getProgress", {});
  while (!progress.allowedPaths.includes("notes.txt") && Date.now() < deadline) {
    await page.waitForTimeout(250);
    progress = await agent.request<Progress>("planMode/getProgress", {});
  }
  assert.deepEqual(progress.allowedPaths, ["notes.txt"]);
  assert.deepEqual(
    progress.drift.map((d) => [d.path, d.tool]),
    [["notes.txt", "Write"]],
  );
});

step("with planMode.drift set to deny in VS Code, such a write is refused", async (page) => {
  const settings = join(editor.workspace, ".vscode/settings.json");
  mkdirSync(dirname(settings), { recursive: true });
  writeFileSync(settings, JSON.stringify({ "planMode.drift": "deny" }));
  // The server reads the change through workspace/configuration: ask until it applies.
  const write = {
    tool: "Write",
    input: { file_path: join(editor.workspace, "scratch.txt"), content: "x\n" },
  };
  const deadline = Date.now() + 20_000;
  let answer = await agent.request<{ behavior: string; message?: string }>(
    "planMode/checkTool",
    write,
  );
  while (answer.behavior !== "deny" && Date.now() < deadline) {
    await page.waitForTimeout(250);
    answer = await agent.request("planMode/checkTool", write);
  }
  assert.equal(answer.behavior, "deny");
  assert.match(answer.message ?? "", /^Not in the approved plan: scratch\.txt/);
  // The file allowed from the notification stays allowed.
  const allowed = await agent.request<{ behavior: string }>("planMode/checkTool", {
    tool: "Write",
    input: { file_path: join(editor.workspace, "notes.txt"), content: "more\n" },
  });
  assert.notEqual(allowed.behavior, "deny");
  await runCommand(page, "Notifications: Clear All Notifications");
});

step("the user marks a step from the status bar: their mark wins", async (page) => {
  await statusItem(page, "Plan 2/5").click();
  const row = (text: string | RegExp) =>
    page.locator(".quick-input-widget .monaco-list-row", { hasText: text });
  await row("3. Print the greeting").waitFor({ timeout: 10_000 });
  await editor.screenshot("after-4-mark-step");
  await row("3. Print the greeting").click();
  await page
    .locator(".quick-input-widget .quick-input-title", { hasText: "step 3" })
    .waitFor({ timeout: 10_000 });
  await row("✓ Done").click();
  await statusItem(page, "Plan 3/5").waitFor({ timeout: 15_000 });
  const progress = await agent.request<Progress>("planMode/getProgress", {});
  assert.deepEqual(
    progress.steps.map((s) => [s.status, s.source]),
    [
      ["done", "todo"],
      ["done", "todo"],
      ["done", "user"],
      ["pending", null],
      ["pending", null],
    ],
  );
});

let widened = false;

async function plansView(page: Page) {
  await runCommand(page, "Plan Mode: Focus on Plans View");
  const view = page.locator("#workbench\\.parts\\.sidebar");
  await view.locator(".monaco-list-row").first().waitFor({ timeout: 15_000 });
  if (!widened) {
    // A wider side bar, for screenshots that show each plan's status, agent and age in full.
    const sash = await view.boundingBox();
    assert.ok(sash);
    const x = sash.x + sash.width;
    await page.mouse.move(x, 400);
    await page.mouse.down();
    await page.mouse.move(x + 220, 400, { steps: 5 });
    await page.mouse.up();
    widened = true;
  }
  return view;
}

step("the Plans view lists the plan executing 3/5, opens a version and a diff", async (page) => {
  const view = await plansView(page);
  const slug = planPath.split("/").pop()!.replace(/\.md$/, "");
  const planRow = view.locator(".monaco-list-row", { hasText: slug });
  await planRow.filter({ hasText: "executing 3/5" }).waitFor({ timeout: 15_000 });
  await planRow.locator(".monaco-tl-twistie").click(); // its versions, newest first
  const first = view.locator(".monaco-list-row", { hasText: "#1 agent" });
  await first.waitFor({ timeout: 15_000 });
  await editor.screenshot("after-5-plans-view");
  await first.click();
  await page
    .locator(".tabs-container .tab.active", { hasText: `${slug} (version 1).md` })
    .waitFor({ timeout: 15_000 });
  await page
    .locator(".monaco-editor .view-lines", { hasText: "2. Fall back to `world`." })
    .first()
    .waitFor({ timeout: 15_000 });
  await editor.screenshot("after-6-version");
  const second = view.locator(".monaco-list-row", { hasText: "#2 agent" });
  await second.hover();
  await second.getByRole("button", { name: "Compare with Previous Version" }).click();
  await page.locator(".monaco-diff-editor .line-insert").first().waitFor({ timeout: 15_000 });
  await editor.screenshot("after-7-version-diff");
  await runCommand(page, "View: Close All Editors");
  // Any two: select both, then Compare Selected Versions from the context menu.
  await second.click();
  await first.click({ modifiers: ["Control"] });
  await first.click({ button: "right" });
  // A click on the label left this menu open (code-server 4.100.3): hovering focuses the item,
  // Enter runs it.
  await page
    .locator(".context-view .action-label", { hasText: "Compare Selected Versions" })
    .hover();
  await page.keyboard.press("Enter");
  await page
    .locator(".tabs-container .tab.active", { hasText: `${slug}: version 1 ↔ 2` })
    .waitFor({ timeout: 15_000 });
  await runCommand(page, "View: Close All Editors");
});

step(
  "every step done: Plan 5/5, the Plans view says done, the verification is pointed out",
  async (page) => {
    const todos = [
      "Read the name from the first argument in src/app.py",
      "Fall back to world when no name is given",
      "Print the greeting",
      "Add a test in tests/test_app.py",
      "Update README.md",
    ].map((content) => ({ content, status: "completed" }));
    await agent.request("planMode/checkTool", { tool: "TodoWrite", input: { todos } });
    await statusItem(page, "Plan 5/5").waitFor({ timeout: 20_000 });
    const told = toast(page, "All 5 steps of the plan are done");
    await told.waitFor({ timeout: 15_000 });
    assert.match(await told.innerText(), /Now verify the change: “Verification”/);
    const view = await plansView(page);
    const slug = planPath.split("/").pop()!.replace(/\.md$/, "");
    const row = view.locator(".monaco-list-row", { hasText: slug }).filter({ hasText: "done 5/5" });
    await row.waitFor({ timeout: 15_000 });
    await row.click(); // opens the plan
    await waitForDecoration(
      page,
      "::before",
      (texts) => texts.filter((t) => t.includes("✓")).length === 5,
      "five done marks",
    );
    await page.waitForTimeout(600); // the toast's slide-in, for the screenshot
    await editor.screenshot("after-8-all-done");
    await runCommand(page, "Notifications: Clear All Notifications");
    await runCommand(page, "View: Close All Editors");
  },
);

step("a plan under review is saved for later through its lens", async (page) => {
  // Another conversation of the agent: its own session and plan file.
  const session = { sessionId: "later-session" };
  const entered = await agent.request<{ state: State }>("planMode/enter", session);
  const laterPath = entered.state.planFilePath;
  mkdirSync(dirname(laterPath), { recursive: true });
  writeFileSync(laterPath, LATER);
  const saving = agent.request<ExitResult>("planMode/exit", session);
  saving.catch(() => undefined);
  await lens(page, "Save for later").waitFor({ timeout: 30_000 });
  await editor.screenshot("after-9-save-for-later-lens");
  await lens(page, "Save for later").click();
  const result = await saving;
  assert.equal(result.outcome, "saved");
  assert.match(result.toolResult, /^The user saved the plan for later/);
  // The decision takes the review's lenses away.
  await lens(page, "Save for later").waitFor({ state: "detached", timeout: 15_000 });
  const view = await plansView(page);
  const slug = laterPath.split("/").pop()!.replace(/\.md$/, "");
  const row = view.locator(".monaco-list-row", { hasText: slug }).filter({ hasText: "saved" });
  await row.waitFor({ timeout: 15_000 });
  await editor.screenshot("after-10-saved-in-plans-view");
  // Taken up again from the view: the session plans on it, the plan drafting again.
  await row.hover();
  await row.getByRole("button", { name: "Take Up Plan Again" }).click();
  await toast(page, /taken up again/).waitFor({ timeout: 15_000 });
  await view
    .locator(".monaco-list-row", { hasText: slug })
    .filter({ hasText: "drafting" })
    .waitFor({ timeout: 15_000 });
  const state = await agent.request<State>("planMode/getState", session);
  assert.equal(state.mode, "plan");
  assert.equal(state.planFilePath, laterPath);
  await editor.screenshot("after-11-taken-up");
});
