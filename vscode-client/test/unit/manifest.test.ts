import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { COMMANDS } from "../../src/commands";
import * as protocol from "../../src/protocol";
import { clientRoot } from "./helpers";

const manifest = JSON.parse(readFileSync(join(clientRoot(), "package.json"), "utf8"));
const contributed: { command: string; category?: string }[] = manifest.contributes.commands;

test("every client command is contributed and every contributed command is the client's", () => {
  assert.deepEqual(contributed.map((c) => c.command).sort(), Object.values(COMMANDS).sort());
});

test("client commands never take a server command's id (the language client registers those)", () => {
  const serverCommands = [
    protocol.COMMAND_APPROVE,
    protocol.COMMAND_REJECT,
    protocol.COMMAND_KEEP_HUNK,
    protocol.COMMAND_UNDO_HUNK,
  ];
  for (const { command, category } of contributed) {
    assert.ok(command.startsWith("planMode.client."), command);
    assert.ok(!serverCommands.includes(command), command);
    assert.equal(category, "Plan Mode", command);
  }
});

test("the extension runs on VS Code 1.100 with the language client it bundles", () => {
  assert.equal(manifest.engines.vscode, "^1.100.0");
  const client = JSON.parse(
    readFileSync(join(clientRoot(), "node_modules/vscode-languageclient/package.json"), "utf8"),
  );
  const [major, minor] = String(client.engines.vscode).replace(/^\^/, "").split(".").map(Number);
  assert.ok(
    major === 1 && minor <= 100,
    `vscode-languageclient needs VS Code ${client.engines.vscode}`,
  );
});
