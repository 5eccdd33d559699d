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

// test/unit/args.test.ts
var import_strict = __toESM(require("node:assert/strict"));
var import_node_test = require("node:test");

// src/args.ts
function approveParams(approval, mode) {
  return {
    approvalId: approval.approvalId,
    sessionId: approval.sessionId,
    ...mode !== void 0 ? { mode } : {}
  };
}
function rejectParams(approval, feedback) {
  return {
    approvalId: approval.approvalId,
    sessionId: approval.sessionId,
    ...withFeedback(feedback)
  };
}
function rejectCommandArgs(args, feedback) {
  const [first, ...rest] = args;
  const base = typeof first === "object" && first !== null && !Array.isArray(first) ? first : {};
  return [{ ...base, ...withFeedback(feedback) }, ...rest];
}
function withFeedback(feedback) {
  const trimmed = feedback.trim();
  return trimmed ? { feedback: trimmed } : {};
}
function setModeParams(mode, sessionId) {
  return sessionId !== void 0 ? { mode, sessionId } : { mode };
}
function submittedPlanPath(approval) {
  const name = approval.planFilePath.split(/[\\/]/).pop() ?? "plan.md";
  return `/${encodeURIComponent(approval.approvalId)}/${name}`;
}
function approvalIdOfPath(path) {
  const first = path.split("/").filter(Boolean)[0];
  return first === void 0 ? void 0 : decodeURIComponent(first);
}

// test/unit/helpers.ts
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

// test/unit/args.test.ts
(0, import_node_test.test)("approve names the approval and its session, and the mode only when chosen", () => {
  const approval = makeApproval();
  import_strict.default.deepEqual(approveParams(approval), { approvalId: "a-1", sessionId: "s1" });
  import_strict.default.deepEqual(approveParams(approval, "acceptEdits"), { approvalId: "a-1", sessionId: "s1", mode: "acceptEdits" });
});
(0, import_node_test.test)("reject sends feedback only when there is some", () => {
  const approval = makeApproval();
  import_strict.default.deepEqual(rejectParams(approval, "  "), { approvalId: "a-1", sessionId: "s1" });
  import_strict.default.deepEqual(rejectParams(approval, " Keep the API \n"), { approvalId: "a-1", sessionId: "s1", feedback: "Keep the API" });
});
(0, import_node_test.test)("the Reject\u2026 lens's argument object gets the feedback added, the rest kept", () => {
  const lensArgs = [{ approvalId: "a-1", sessionId: "s1" }];
  import_strict.default.deepEqual(rejectCommandArgs(lensArgs, "smaller steps"), [
    { approvalId: "a-1", sessionId: "s1", feedback: "smaller steps" }
  ]);
  import_strict.default.deepEqual(rejectCommandArgs(lensArgs, ""), [{ approvalId: "a-1", sessionId: "s1" }]);
  import_strict.default.deepEqual(lensArgs, [{ approvalId: "a-1", sessionId: "s1" }], "the lens's own arguments are not mutated");
  import_strict.default.deepEqual(rejectCommandArgs([], "why"), [{ feedback: "why" }]);
});
(0, import_node_test.test)("setMode names the session only when one is known", () => {
  import_strict.default.deepEqual(setModeParams("plan", void 0), { mode: "plan" });
  import_strict.default.deepEqual(setModeParams("auto", "s9"), { mode: "auto", sessionId: "s9" });
});
(0, import_node_test.test)("the submitted plan's URI path round-trips the approval id and keeps the file name", () => {
  const approval = makeApproval({ approvalId: "id/with spaces" });
  const path = submittedPlanPath(approval);
  import_strict.default.ok(path.endsWith("/bold-eagle.md"), path);
  import_strict.default.equal(approvalIdOfPath(path), "id/with spaces");
});
