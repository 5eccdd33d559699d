import assert from "node:assert/strict";
import { test } from "node:test";

import { COMMANDS, SERVER_COMMANDS } from "../../src/commands";
import * as protocol from "../../src/protocol";
import { dependencyEngine, readManifest } from "./helpers";

const manifest = readManifest();
const contributed = manifest.contributes.commands;

test("every client command is contributed and every contributed command is the client's", () => {
  assert.deepEqual(contributed.map((c) => c.command).sort(), Object.values(COMMANDS).sort());
});

test("the server's commands, registered once for every folder's server, are its COMMAND_* names", () => {
  const named = Object.entries(protocol)
    .filter(([name]) => name.startsWith("COMMAND_"))
    .map(([, value]) => value as string);
  assert.ok(named.includes(protocol.COMMAND_APPROVE));
  assert.deepEqual([...SERVER_COMMANDS].sort(), named.sort());
});

test("client commands never take a server command's id (registered by servers/serverCommands.ts)", () => {
  for (const { command, category } of contributed) {
    assert.ok(command.startsWith("planMode.client."), command);
    assert.ok(!SERVER_COMMANDS.includes(command), command);
    assert.equal(category, "Plan Mode", command);
  }
});

test("the extension runs on VS Code 1.100 with the language client it bundles", () => {
  assert.equal(manifest.engines.vscode, "^1.100.0");
  const engine = dependencyEngine("vscode-languageclient");
  const [major, minor] = engine.replace(/^\^/, "").split(".").map(Number);
  assert.ok(major === 1 && minor <= 100, `vscode-languageclient needs VS Code ${engine}`);
});
