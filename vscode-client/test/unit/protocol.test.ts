// src/protocol.ts must mirror server/planmode/lsp/protocol.py name for name, value for value.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import * as protocol from "../../src/protocol";
import { repoRoot } from "./helpers";

/** The module-level `NAME = "string"` / `NAME = -123` assignments of a Python module. */
function pythonConstants(source: string): Map<string, string | number> {
  const constants = new Map<string, string | number>();
  for (const line of source.split("\n")) {
    const match = /^([A-Z][A-Z0-9_]*)\s*(?::[^=]+)?=\s*(.+?)\s*$/.exec(line);
    if (match === null) continue;
    const [, name, literal] = match;
    // Python string and int literals of this module are valid JSON once single quotes are doubled.
    const json = literal.startsWith("'")
      ? `"${literal.slice(1, -1).replace(/"/g, '\\"')}"`
      : literal;
    constants.set(name, JSON.parse(json) as string | number);
  }
  return constants;
}

test("protocol.ts has every constant of protocol.py with the same value, and no other", () => {
  const python = pythonConstants(
    readFileSync(join(repoRoot(), "server/planmode/lsp/protocol.py"), "utf8"),
  );
  assert.ok(python.size >= 20, `parsed only ${python.size} constants from protocol.py`);
  const typescript = new Map<string, unknown>(Object.entries(protocol));
  const problems: string[] = [];
  for (const [name, value] of python) {
    if (!typescript.has(name))
      problems.push(`missing in protocol.ts: ${name} = ${JSON.stringify(value)}`);
    else if (typescript.get(name) !== value)
      problems.push(
        `${name}: protocol.py ${JSON.stringify(value)}, protocol.ts ${JSON.stringify(typescript.get(name))}`,
      );
  }
  for (const name of typescript.keys()) {
    if (!python.has(name)) problems.push(`not in protocol.py: ${name}`);
  }
  assert.deepEqual(problems, []);
});

test("the parser reads both kinds of literal", () => {
  const parsed = pythonConstants(
    '"""doc"""\nA = "planMode/x"\nB = -32001\nC: str = \'y\'\nlower = 1\n',
  );
  assert.deepEqual(Object.fromEntries(parsed), { A: "planMode/x", B: -32001, C: "y" });
});
