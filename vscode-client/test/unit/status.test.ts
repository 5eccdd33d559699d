import assert from "node:assert/strict";
import { test } from "node:test";

import { grantsText, PERMISSION_MODES } from "../../src/state";
import {
  inFolder,
  modePickItems,
  problemView,
  serverLine,
  serverNaming,
  statusView,
} from "../../src/status";
import { makeApproval, makeState } from "./helpers";

test("the status bar names each mode with its icon and switches mode on click", () => {
  const expected = {
    plan: "$(book) Plan mode",
    acceptEdits: "$(pencil) Accept edits",
    default: "$(shield) Default",
    auto: "$(zap) Auto",
    bypassPermissions: "$(warning) Bypass permissions",
  } as const;
  for (const mode of PERMISSION_MODES) {
    const view = statusView(makeState({ mode }));
    assert.equal(view.text, expected[mode]);
    assert.equal(view.action, "pickMode");
    assert.equal(view.warning, mode === "bypassPermissions", mode);
  }
});

test("a pending approval says the plan is ready and opens it on click", () => {
  const view = statusView(makeState({ mode: "plan", pendingApproval: makeApproval() }));
  assert.equal(view.text, "$(book) Plan ready for review");
  assert.equal(view.action, "reviewPlan");
  assert.equal(view.warning, true);
  assert.match(view.tooltip, /bold-eagle\.md/);
});

test("before the first state the item leads to the log", () => {
  assert.equal(statusView(undefined).action, "showOutput");
});

test("a server that cannot run: the tooltip says why and the click runs the fix", () => {
  const setup = problemView({ reason: "python3 has no planmode", fix: "createEnvironment" });
  assert.equal(setup.action, "fixServer");
  assert.equal(setup.text, "$(cloud-download) Plan mode: set up");
  assert.match(
    setup.tooltip,
    /python3 has no planmode\. Click to create a private Python environment/,
  );
  const setting = problemView({ reason: "/opt/py has no planmode", fix: "openSetting" });
  assert.match(setting.tooltip, /Click to open the setting\./);
  assert.equal(problemView({ reason: "the server exited", fix: "restart" }).action, "fixServer");
});

test("once the server runs, every tooltip says which Python runs it and why that one", () => {
  const line = serverLine({
    python: "/s/env/bin/python",
    version: "0.1.0",
    sourceLabel: "the extension's private environment",
  });
  assert.equal(
    line,
    "Server: planmode 0.1.0 in /s/env/bin/python (the extension's private environment)",
  );
  assert.ok(statusView(makeState(), line).tooltip.endsWith(line));
  assert.ok(
    statusView(makeState({ pendingApproval: makeApproval() }), line).tooltip.endsWith(line),
  );
});

test("planning without an OS sandbox says classifier only, with why, as a warning", () => {
  const none = {
    mechanism: null,
    status: "classifier only",
    detail: "no Landlock; bwrap is not installed",
    required: false,
  };
  const view = statusView(makeState({ mode: "plan", sandbox: none }));
  assert.equal(view.text, "$(book) Plan mode (classifier only)");
  assert.equal(view.warning, true);
  assert.match(
    view.tooltip,
    /No OS sandbox here: no Landlock; bwrap is not installed\. Bash commands the classifier allows run unsandboxed\./,
  );
  const required = statusView(makeState({ mode: "plan", sandbox: { ...none, required: true } }));
  assert.match(required.tooltip, /Bash is denied while planning \(requireSandbox\)/);
  // Outside plan mode the sandbox does not apply: nothing is said about it.
  const outside = statusView(makeState({ mode: "default", sandbox: none }));
  assert.equal(outside.text, "$(shield) Default");
  assert.equal(outside.warning, false);
});

test("planning in a sandbox names it in the tooltip", () => {
  const sandbox = {
    mechanism: "landlock+seccomp",
    status: "landlock+seccomp",
    detail: "Landlock ABI 7 and seccomp",
    required: false,
  };
  const view = statusView(makeState({ mode: "plan", sandbox }));
  assert.equal(view.text, "$(book) Plan mode");
  assert.equal(view.warning, false);
  assert.match(
    view.tooltip,
    /Bash runs sandboxed: landlock\+seccomp \(Landlock ABI 7 and seccomp\)\./,
  );
});

test("an unknown mode from a newer server is shown, not dropped", () => {
  const view = statusView(makeState({ mode: "dontAsk" as never }));
  assert.match(view.text, /dontAsk/);
});

test("the mode pick lists every mode once and marks the current one", () => {
  const items = modePickItems("acceptEdits");
  assert.deepEqual(
    items.map((i) => i.mode),
    [...PERMISSION_MODES],
  );
  assert.deepEqual(
    items.filter((i) => i.description === "current").map((i) => i.mode),
    ["acceptEdits"],
  );
  assert.equal(items.find((i) => i.mode === "plan")?.label, "$(book) Plan mode");
  assert.ok(items.every((i) => i.detail.length > 0));
  assert.equal(modePickItems(undefined).filter((i) => i.description).length, 0);
});

test("a pending approval that carries allowedPrompts lists each with its exact rule", () => {
  const approval = makeApproval({
    allowedPrompts: [
      { tool: "Bash", prompt: "npm run dev" },
      { tool: "Bash", prompt: "run tests" },
    ],
    grants: [
      { tool: "Bash", prompt: "npm run dev", rule: "Bash “npm run dev”: exactly `npm run dev`" },
      { tool: "Bash", prompt: "run tests", rule: "Bash “run tests” (category test): `pytest`, …" },
    ],
  });
  const view = statusView(makeState({ mode: "plan", pendingApproval: approval }));
  assert.equal(view.text, "$(book) Plan ready for review");
  assert.match(view.tooltip, /bold-eagle\.md/);
  assert.match(
    view.tooltip,
    /Approving also allows these commands without asking:\n• Bash “npm run dev”: exactly `npm run dev`\n• Bash “run tests” \(category test\)/,
  );
  assert.equal(grantsText(makeApproval()), undefined);
  assert.equal(grantsText(makeApproval({ grants: [] })), undefined);
});

test("prompts from a server without rules are still shown, marked unexplained", () => {
  const text = grantsText(makeApproval({ allowedPrompts: [{ tool: "Bash", prompt: "deploy" }] }));
  assert.equal(
    text,
    "Approving also allows these commands without asking:\n• Bash “deploy” (the server did not say which commands)",
  );
});

test("a window on one folder keeps the plain name; a workspace names each server's folder", () => {
  assert.deepEqual(serverNaming(undefined, new Set()), { name: "Plan Mode" });
  assert.deepEqual(serverNaming("web", new Set(["Plan Mode (api)"])), {
    name: "Plan Mode (web)",
    folder: "web",
  });
  // Two folders of the same name: two logs the user can tell apart.
  assert.deepEqual(serverNaming("web", new Set(["Plan Mode (web)"])), {
    name: "Plan Mode (web 2)",
    folder: "web 2",
  });
});

test("in a workspace of several folders the status bar says which folder's server it shows", () => {
  const view = inFolder(statusView(makeState({ mode: "plan" })), "web");
  assert.equal(view.text, "$(book) Plan mode · web");
  assert.match(
    view.tooltip,
    /^Permission mode: Plan mode\. Click to switch\.\n\nWorkspace folder: web$/,
  );
  assert.equal(view.action, "pickMode");
  const problem = inFolder(problemView({ reason: "it exited", fix: "restart" }), "api");
  assert.equal(problem.text, "$(error) Plan mode · api");
  assert.equal(problem.action, "fixServer");
});
