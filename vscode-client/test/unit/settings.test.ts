import assert from "node:assert/strict";
import { test } from "node:test";

import { SETTINGS_SECTION } from "../../src/protocol";
import {
  contributedKeys,
  explicitSettings,
  initializationOptions,
  serverCommand,
  type Inspected,
} from "../../src/settings";
import { readManifest } from "./helpers";

const manifest = readManifest();
const properties = manifest.contributes.configuration.properties;

test("the server starts with python3 -m planmode lsp unless configured", () => {
  assert.deepEqual(serverCommand(undefined, undefined), {
    command: "python3",
    args: ["-m", "planmode", "lsp"],
  });
  assert.deepEqual(serverCommand(" /venv/bin/python ", ["-m", "planmode", "lsp", "--log"]), {
    command: "/venv/bin/python",
    args: ["-m", "planmode", "lsp", "--log"],
  });
  assert.deepEqual(serverCommand("", [1, 2]), {
    command: "python3",
    args: ["-m", "planmode", "lsp"],
  });
});

test("the manifest's defaults for the server command match the code's", () => {
  // Empty: the extension finds (or creates) the Python itself (src/python/resolve.ts).
  assert.equal(properties["planMode.server.pythonPath"].default, "");
  assert.deepEqual(properties["planMode.server.args"].default, ["-m", "planmode", "lsp"]);
});

test("the server settings show on the Settings editor's User tab, and untrusted workspaces cannot set them", () => {
  // machine-overridable settings are hidden from the User tab of a remote window (code-server).
  const server = ["planMode.server.pythonPath", "planMode.server.args"];
  for (const key of server) {
    assert.equal(properties[key].scope, "window", key);
  }
  assert.deepEqual(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations, server);
});

test("only values the user set are sent, most specific scope first, never server.*", () => {
  const inspected: Record<string, Inspected> = {
    plansDirectory: {}, // only a default: must not be sent (it would hide .claude/settings.json)
    interviewPhase: { globalValue: true },
    planAgentCount: { globalValue: 2, workspaceValue: 4 },
    exploreAgentCount: { globalValue: 5, workspaceValue: 6, workspaceFolderValue: 7 },
    channelsActive: { workspaceValue: false }, // set to the default on purpose: still sent
    "server.pythonPath": { globalValue: "/venv/bin/python" },
  };
  const values = explicitSettings(Object.keys(inspected), (key) => inspected[key]);
  assert.deepEqual(values, {
    interviewPhase: true,
    planAgentCount: 4,
    exploreAgentCount: 7,
    channelsActive: false,
  });
  assert.deepEqual(initializationOptions(values), { planMode: values });
});

test("every server setting of the contract is contributed, under planMode.", () => {
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
    "drift",
    "server.pythonPath",
    "server.args",
  ]) {
    assert.ok(keys.includes(key), key);
  }
  assert.equal(keys.length, Object.keys(properties).length);
});

test("the JSON-RPC trace is the language client's planMode.trace.server, never sent to the server", () => {
  // vscode-languageclient reads `<client id>.trace.server`; the client's id is the section.
  const trace = properties[`${SETTINGS_SECTION}.trace.server`];
  assert.ok(trace, "planMode.trace.server is not contributed");
  assert.deepEqual(trace.enum, ["off", "messages", "verbose"]);
  assert.equal(trace.default, "off");
  const inspected: Record<string, Inspected> = {
    "trace.server": { globalValue: "verbose" },
    interviewPhase: { globalValue: true },
  };
  assert.deepEqual(
    explicitSettings(Object.keys(inspected), (key) => inspected[key]),
    { interviewPhase: true },
  );
});
