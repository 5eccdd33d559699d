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

// test/unit/settings.test.ts
var import_strict = __toESM(require("node:assert/strict"));
var import_node_fs2 = require("node:fs");
var import_node_path2 = require("node:path");
var import_node_test = require("node:test");

// src/protocol.ts
var SETTINGS_SECTION = "planMode";

// src/settings.ts
var SERVER_PREFIX = "server.";
var DEFAULT_PYTHON = "python3";
var DEFAULT_ARGS = ["-m", "planmode", "lsp"];
function serverCommand(pythonPath, args) {
  const command = typeof pythonPath === "string" && pythonPath.trim() ? pythonPath.trim() : DEFAULT_PYTHON;
  const argv = Array.isArray(args) && args.every((a) => typeof a === "string") ? [...args] : [...DEFAULT_ARGS];
  return { command, args: argv };
}
function explicitSettings(keys, inspect) {
  const values = {};
  for (const key of keys) {
    if (key.startsWith(SERVER_PREFIX)) {
      continue;
    }
    const found = inspect(key);
    if (found === void 0) {
      continue;
    }
    for (const value of [found.workspaceFolderValue, found.workspaceValue, found.globalValue]) {
      if (value !== void 0) {
        values[key] = value;
        break;
      }
    }
  }
  return values;
}
function initializationOptions(settings) {
  return { [SETTINGS_SECTION]: settings };
}
function contributedKeys(properties2) {
  const prefix = `${SETTINGS_SECTION}.`;
  return Object.keys(properties2).filter((name) => name.startsWith(prefix)).map((name) => name.slice(prefix.length));
}

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

// test/unit/settings.test.ts
var manifest = JSON.parse((0, import_node_fs2.readFileSync)((0, import_node_path2.join)(clientRoot(), "package.json"), "utf8"));
var properties = manifest.contributes.configuration.properties;
(0, import_node_test.test)("the server starts with python3 -m planmode lsp unless configured", () => {
  import_strict.default.deepEqual(serverCommand(void 0, void 0), { command: "python3", args: ["-m", "planmode", "lsp"] });
  import_strict.default.deepEqual(serverCommand(" /venv/bin/python ", ["-m", "planmode", "lsp", "--log"]), {
    command: "/venv/bin/python",
    args: ["-m", "planmode", "lsp", "--log"]
  });
  import_strict.default.deepEqual(serverCommand("", [1, 2]), { command: "python3", args: ["-m", "planmode", "lsp"] });
});
(0, import_node_test.test)("the manifest's defaults for the server command match the code's", () => {
  import_strict.default.equal(properties["planMode.server.pythonPath"].default, "python3");
  import_strict.default.deepEqual(properties["planMode.server.args"].default, ["-m", "planmode", "lsp"]);
});
(0, import_node_test.test)("only values the user set are sent, most specific scope first, never server.*", () => {
  const inspected = {
    plansDirectory: {},
    // only a default: must not be sent (it would hide .claude/settings.json)
    interviewPhase: { globalValue: true },
    planAgentCount: { globalValue: 2, workspaceValue: 4 },
    exploreAgentCount: { globalValue: 5, workspaceValue: 6, workspaceFolderValue: 7 },
    channelsActive: { workspaceValue: false },
    // set to the default on purpose: still sent
    "server.pythonPath": { globalValue: "/venv/bin/python" }
  };
  const values = explicitSettings(Object.keys(inspected), (key) => inspected[key]);
  import_strict.default.deepEqual(values, { interviewPhase: true, planAgentCount: 4, exploreAgentCount: 7, channelsActive: false });
  import_strict.default.deepEqual(initializationOptions(values), { planMode: values });
});
(0, import_node_test.test)("every server setting of the contract is contributed, under planMode.", () => {
  const keys = contributedKeys(properties);
  for (const key of [
    "plansDirectory",
    "autoModeGate",
    "useAutoModeDuringPlan",
    "interviewPhase",
    "planFormat",
    "planAgentCount",
    "exploreAgentCount",
    "channelsActive",
    "teammate",
    "server.pythonPath",
    "server.args"
  ]) {
    import_strict.default.ok(keys.includes(key), key);
  }
  import_strict.default.equal(keys.length, Object.keys(properties).length);
});
