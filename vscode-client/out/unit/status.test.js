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

// test/unit/status.test.ts
var import_strict = __toESM(require("node:assert/strict"));
var import_node_test = require("node:test");

// src/state.ts
var PERMISSION_MODES = [
  "default",
  "acceptEdits",
  "plan",
  "auto",
  "bypassPermissions"
];

// src/status.ts
var MODES = {
  plan: {
    icon: "$(book)",
    label: "Plan mode",
    detail: "The agent explores and writes a plan; nothing else is changed until you approve it."
  },
  acceptEdits: {
    icon: "$(pencil)",
    label: "Accept edits",
    detail: "File edits inside the workspace are accepted without asking; commands still ask."
  },
  default: {
    icon: "$(shield)",
    label: "Default",
    detail: "Read-only tools run; every edit and command asks first."
  },
  auto: {
    icon: "$(zap)",
    label: "Auto",
    detail: "A classifier decides what is safe to run without asking."
  },
  bypassPermissions: {
    icon: "$(warning)",
    label: "Bypass permissions",
    detail: "Everything runs without asking."
  }
};
function statusView(state) {
  if (state === void 0) {
    return {
      text: "$(sync~spin) Plan mode",
      tooltip: "Plan mode: starting the server\u2026",
      action: "showOutput",
      warning: false
    };
  }
  if (state.pendingApproval !== null) {
    return {
      text: "$(book) Plan ready for review",
      tooltip: `The agent is waiting for your review of ${basename(state.pendingApproval.planFilePath)}. Click to open it.`,
      action: "reviewPlan",
      warning: true
    };
  }
  const mode = MODES[state.mode] ?? { icon: "$(question)", label: state.mode, detail: "" };
  return {
    text: `${mode.icon} ${mode.label}`,
    tooltip: `Permission mode: ${mode.label}. Click to switch.`,
    action: "pickMode",
    warning: state.mode === "bypassPermissions"
  };
}
function stoppedView(reason) {
  return {
    text: "$(error) Plan mode",
    tooltip: `Plan mode server is not running: ${reason}. Click for its log.`,
    action: "showOutput",
    warning: true
  };
}
function modePickItems(current) {
  return PERMISSION_MODES.map((mode) => ({
    label: `${MODES[mode].icon} ${MODES[mode].label}`,
    description: mode === current ? "current" : void 0,
    detail: MODES[mode].detail,
    mode
  }));
}
function basename(path) {
  return path.split(/[\\/]/).pop() ?? path;
}

// test/unit/helpers.ts
function makeState(overrides = {}) {
  return {
    sessionId: "s1",
    mode: "default",
    prePlanMode: null,
    planSlug: "bold-eagle",
    planFilePath: "/ws/.claude/plans/bold-eagle.md",
    planExists: false,
    hasExitedPlanMode: false,
    needsPlanModeExitAttachment: false,
    autoModeActive: false,
    pendingApproval: null,
    ...overrides
  };
}
function makeApproval(overrides = {}) {
  return {
    approvalId: "a-1",
    sessionId: "s1",
    planFilePath: "/ws/.claude/plans/bold-eagle.md",
    submittedPlan: "# Plan\n",
    allowedPrompts: [],
    requestedAt: "2026-01-01T00:00:00Z",
    ...overrides
  };
}

// test/unit/status.test.ts
(0, import_node_test.test)("the status bar names each mode with its icon and switches mode on click", () => {
  const expected = {
    plan: "$(book) Plan mode",
    acceptEdits: "$(pencil) Accept edits",
    default: "$(shield) Default",
    auto: "$(zap) Auto",
    bypassPermissions: "$(warning) Bypass permissions"
  };
  for (const mode of PERMISSION_MODES) {
    const view = statusView(makeState({ mode }));
    import_strict.default.equal(view.text, expected[mode]);
    import_strict.default.equal(view.action, "pickMode");
    import_strict.default.equal(view.warning, mode === "bypassPermissions", mode);
  }
});
(0, import_node_test.test)("a pending approval says the plan is ready and opens it on click", () => {
  const view = statusView(makeState({ mode: "plan", pendingApproval: makeApproval() }));
  import_strict.default.equal(view.text, "$(book) Plan ready for review");
  import_strict.default.equal(view.action, "reviewPlan");
  import_strict.default.equal(view.warning, true);
  import_strict.default.match(view.tooltip, /bold-eagle\.md/);
});
(0, import_node_test.test)("before the first state and after a stop the item leads to the log", () => {
  import_strict.default.equal(statusView(void 0).action, "showOutput");
  const stopped = stoppedView("spawn python3 ENOENT");
  import_strict.default.equal(stopped.action, "showOutput");
  import_strict.default.match(stopped.tooltip, /ENOENT/);
});
(0, import_node_test.test)("an unknown mode from a newer server is shown, not dropped", () => {
  const view = statusView(makeState({ mode: "dontAsk" }));
  import_strict.default.match(view.text, /dontAsk/);
});
(0, import_node_test.test)("the mode pick lists every mode once and marks the current one", () => {
  const items = modePickItems("acceptEdits");
  import_strict.default.deepEqual(
    items.map((i) => i.mode),
    [...PERMISSION_MODES]
  );
  import_strict.default.deepEqual(
    items.filter((i) => i.description === "current").map((i) => i.mode),
    ["acceptEdits"]
  );
  import_strict.default.equal(items.find((i) => i.mode === "plan")?.label, "$(book) Plan mode");
  import_strict.default.ok(items.every((i) => i.detail.length > 0));
  import_strict.default.equal(modePickItems(void 0).filter((i) => i.description).length, 0);
});
