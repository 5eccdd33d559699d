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

// test/unit/state.test.ts
var import_strict = __toESM(require("node:assert/strict"));
var import_node_test = require("node:test");

// src/state.ts
var SessionTracker = class {
  states = /* @__PURE__ */ new Map();
  update(state) {
    this.states.delete(state.sessionId);
    this.states.set(state.sessionId, state);
  }
  clear() {
    this.states.clear();
  }
  /** The session to show and act on, or undefined before the server has said anything. */
  current() {
    return this.pending() ?? this.latest();
  }
  /** The most recently changed session with a plan waiting for review. */
  pending() {
    return [...this.states.values()].reverse().find((s) => s.pendingApproval !== null);
  }
  latest() {
    return [...this.states.values()].pop();
  }
};

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

// test/unit/state.test.ts
(0, import_node_test.test)("the tracker shows the session that changed last", () => {
  const tracker = new SessionTracker();
  import_strict.default.equal(tracker.current(), void 0);
  tracker.update(makeState({ sessionId: "a", mode: "default" }));
  tracker.update(makeState({ sessionId: "b", mode: "plan" }));
  import_strict.default.equal(tracker.current()?.sessionId, "b");
  tracker.update(makeState({ sessionId: "a", mode: "acceptEdits" }));
  import_strict.default.equal(tracker.current()?.mode, "acceptEdits");
});
(0, import_node_test.test)("a plan waiting for review wins over a later change elsewhere, until it is decided", () => {
  const tracker = new SessionTracker();
  tracker.update(makeState({ sessionId: "agent", mode: "plan", pendingApproval: makeApproval({ sessionId: "agent" }) }));
  tracker.update(makeState({ sessionId: "other", mode: "auto" }));
  import_strict.default.equal(tracker.current()?.sessionId, "agent");
  import_strict.default.equal(tracker.pending()?.pendingApproval?.approvalId, "a-1");
  tracker.update(makeState({ sessionId: "agent", mode: "default" }));
  import_strict.default.equal(tracker.pending(), void 0);
  import_strict.default.equal(tracker.current()?.sessionId, "agent");
  tracker.clear();
  import_strict.default.equal(tracker.current(), void 0);
});
