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

// test/unit/manifest.test.ts
var import_strict = __toESM(require("node:assert/strict"));
var import_node_fs2 = require("node:fs");
var import_node_path2 = require("node:path");
var import_node_test = require("node:test");

// src/commands.ts
var COMMANDS = {
  enter: "planMode.client.enter",
  showPlan: "planMode.client.showPlan",
  approve: "planMode.client.approve",
  approveAcceptEdits: "planMode.client.approveAcceptEdits",
  reject: "planMode.client.reject",
  showChanges: "planMode.client.showChanges",
  pickMode: "planMode.client.pickMode",
  reviewPlan: "planMode.client.reviewPlan",
  showOutput: "planMode.client.showOutput",
  restart: "planMode.client.restartServer"
};

// src/protocol.ts
var COMMAND_APPROVE = "planMode.approve";
var COMMAND_REJECT = "planMode.reject";
var COMMAND_KEEP_HUNK = "planMode.keepHunk";
var COMMAND_UNDO_HUNK = "planMode.undoHunk";

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
function clientRoot() {
  return (0, import_node_path.join)(repoRoot(), "vscode-client");
}

// test/unit/manifest.test.ts
var manifest = JSON.parse((0, import_node_fs2.readFileSync)((0, import_node_path2.join)(clientRoot(), "package.json"), "utf8"));
var contributed = manifest.contributes.commands;
(0, import_node_test.test)("every client command is contributed and every contributed command is the client's", () => {
  import_strict.default.deepEqual(contributed.map((c) => c.command).sort(), Object.values(COMMANDS).sort());
});
(0, import_node_test.test)("client commands never take a server command's id (the language client registers those)", () => {
  const serverCommands = [COMMAND_APPROVE, COMMAND_REJECT, COMMAND_KEEP_HUNK, COMMAND_UNDO_HUNK];
  for (const { command, category } of contributed) {
    import_strict.default.ok(command.startsWith("planMode.client."), command);
    import_strict.default.ok(!serverCommands.includes(command), command);
    import_strict.default.equal(category, "Plan Mode", command);
  }
});
(0, import_node_test.test)("the extension runs on VS Code 1.100 with the language client it bundles", () => {
  import_strict.default.equal(manifest.engines.vscode, "^1.100.0");
  const client = JSON.parse(
    (0, import_node_fs2.readFileSync)((0, import_node_path2.join)(clientRoot(), "node_modules/vscode-languageclient/package.json"), "utf8")
  );
  const [major, minor] = String(client.engines.vscode).replace(/^\^/, "").split(".").map(Number);
  import_strict.default.ok(major === 1 && minor <= 100, `vscode-languageclient needs VS Code ${client.engines.vscode}`);
});
