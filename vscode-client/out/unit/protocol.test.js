"use strict";
var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};
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

// test/unit/protocol.test.ts
var import_strict = __toESM(require("node:assert/strict"));
var import_node_fs2 = require("node:fs");
var import_node_path2 = require("node:path");
var import_node_test = require("node:test");

// src/protocol.ts
var protocol_exports = {};
__export(protocol_exports, {
  AGENT_CONTEXT: () => AGENT_CONTEXT,
  APPLY_EDIT: () => APPLY_EDIT,
  APPROVAL_REQUESTED: () => APPROVAL_REQUESTED,
  APPROVAL_RESOLVED: () => APPROVAL_RESOLVED,
  APPROVE: () => APPROVE,
  CHECK_TOOL: () => CHECK_TOOL,
  COMMAND_APPROVE: () => COMMAND_APPROVE,
  COMMAND_KEEP_HUNK: () => COMMAND_KEEP_HUNK,
  COMMAND_REJECT: () => COMMAND_REJECT,
  COMMAND_UNDO_HUNK: () => COMMAND_UNDO_HUNK,
  DID_CHANGE_STATE: () => DID_CHANGE_STATE,
  ENTER: () => ENTER,
  EXIT: () => EXIT,
  FORK: () => FORK,
  GET_STATE: () => GET_STATE,
  INVALID_PARAMS: () => INVALID_PARAMS,
  LENS_APPROVE: () => LENS_APPROVE,
  LENS_APPROVE_ACCEPT_EDITS: () => LENS_APPROVE_ACCEPT_EDITS,
  LENS_REJECT: () => LENS_REJECT,
  LIST_PLANS: () => LIST_PLANS,
  NEXT_TURN: () => NEXT_TURN,
  NOT_IN_PLAN_MODE: () => NOT_IN_PLAN_MODE,
  NO_PENDING_APPROVAL: () => NO_PENDING_APPROVAL,
  NO_PLAN_FILE: () => NO_PLAN_FILE,
  PLAN_CHANGED: () => PLAN_CHANGED,
  PLAN_MODE_DISABLED: () => PLAN_MODE_DISABLED,
  REJECT: () => REJECT,
  RESUME: () => RESUME,
  SETTINGS_SECTION: () => SETTINGS_SECTION,
  SET_MODE: () => SET_MODE,
  SLASH_COMMAND: () => SLASH_COMMAND
});
var GET_STATE = "planMode/getState";
var SET_MODE = "planMode/setMode";
var ENTER = "planMode/enter";
var SLASH_COMMAND = "planMode/slashCommand";
var CHECK_TOOL = "planMode/checkTool";
var APPLY_EDIT = "planMode/applyEdit";
var EXIT = "planMode/exit";
var APPROVE = "planMode/approve";
var REJECT = "planMode/reject";
var NEXT_TURN = "planMode/nextTurn";
var RESUME = "planMode/resume";
var FORK = "planMode/fork";
var LIST_PLANS = "planMode/listPlans";
var DID_CHANGE_STATE = "planMode/didChangeState";
var APPROVAL_REQUESTED = "planMode/approvalRequested";
var APPROVAL_RESOLVED = "planMode/approvalResolved";
var COMMAND_APPROVE = "planMode.approve";
var COMMAND_REJECT = "planMode.reject";
var COMMAND_KEEP_HUNK = "planMode.keepHunk";
var COMMAND_UNDO_HUNK = "planMode.undoHunk";
var LENS_APPROVE = "Approve plan";
var LENS_APPROVE_ACCEPT_EDITS = "Approve & auto-accept edits";
var LENS_REJECT = "Reject\u2026";
var INVALID_PARAMS = -32602;
var NOT_IN_PLAN_MODE = -32001;
var AGENT_CONTEXT = -32002;
var PLAN_MODE_DISABLED = -32003;
var NO_PLAN_FILE = -32004;
var NO_PENDING_APPROVAL = -32005;
var PLAN_CHANGED = -32006;
var SETTINGS_SECTION = "planMode";

// test/unit/helpers.ts
var import_node_fs = require("node:fs");
var import_node_path = require("node:path");
function repoRoot() {
  let dir = __dirname;
  while (!(0, import_node_fs.existsSync)((0, import_node_path.join)(dir, "pyproject.toml"))) {
    const parent = (0, import_node_path.dirname)(dir);
    if (parent === dir) throw new Error(`no pyproject.toml above ${__dirname}`);
    dir = parent;
  }
  return dir;
}

// test/unit/protocol.test.ts
function pythonConstants(source) {
  const constants = /* @__PURE__ */ new Map();
  for (const line of source.split("\n")) {
    const match = /^([A-Z][A-Z0-9_]*)\s*(?::[^=]+)?=\s*(.+?)\s*$/.exec(line);
    if (match === null) continue;
    const [, name, literal] = match;
    const json = literal.startsWith("'") ? `"${literal.slice(1, -1).replace(/"/g, '\\"')}"` : literal;
    constants.set(name, JSON.parse(json));
  }
  return constants;
}
(0, import_node_test.test)("protocol.ts has every constant of protocol.py with the same value, and no other", () => {
  const python = pythonConstants((0, import_node_fs2.readFileSync)((0, import_node_path2.join)(repoRoot(), "server/planmode/lsp/protocol.py"), "utf8"));
  import_strict.default.ok(python.size >= 20, `parsed only ${python.size} constants from protocol.py`);
  const typescript = new Map(Object.entries(protocol_exports));
  import_strict.default.deepEqual(Object.fromEntries(typescript), Object.fromEntries(python));
});
(0, import_node_test.test)("the parser reads both kinds of literal", () => {
  const parsed = pythonConstants(`"""doc"""
A = "planMode/x"
B = -32001
C: str = 'y'
lower = 1
`);
  import_strict.default.deepEqual(Object.fromEntries(parsed), { A: "planMode/x", B: -32001, C: "y" });
});
