// The client's half of the review-comment syntax: finding comments to show as threads, and
// writing new ones where the server (server/planmode/core/comments.py) reads them.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { commentInsertion, findComments, splitLines } from "../../src/reviewComments";
import { repoRoot } from "./helpers";

const PLAN = `# Greet by name

## Steps
1. Read the name from argv.
> [!review] What if there is no argument?
> Fall back to "world".
2. Print the greeting.

\`\`\`sh
> [!review] inside a fence: code
\`\`\`

> [!REVIEW]   Add a test.
`;

function inserted(text: string, line: number, comment: string): string {
  const lines = splitLines(text);
  const { at, lines: written } = commentInsertion(lines, line, comment);
  return [...lines.slice(0, at), ...written, ...lines.slice(at)].join("\n") + "\n";
}

test("findComments: the marker line and its continuation, never inside a fence", () => {
  assert.deepEqual(findComments(splitLines(PLAN)), [
    { start: 4, end: 6, text: 'What if there is no argument?\nFall back to "world".' },
    { start: 12, end: 13, text: "Add a test." },
  ]);
  assert.deepEqual(
    findComments(["> [!reviewer] no", ">[!review]x", "    > [!review] code", "> [!note] alert"]),
    [],
  );
  assert.deepEqual(findComments(["Step", "> [!review]"]), [{ start: 1, end: 2, text: "" }]);
});

test("commentInsertion: after the block holding the line, after comments already there", () => {
  const plan = "# Plan\n\nFirst line\nsecond line\n\n- item\n  more\n- other\n";
  assert.equal(
    inserted(plan, 2, "one"),
    "# Plan\n\nFirst line\nsecond line\n> [!review] one\n\n- item\n  more\n- other\n",
  );
  assert.equal(
    inserted(plan, 0, "on the section"),
    "# Plan\n> [!review] on the section\n\nFirst line\nsecond line\n\n- item\n  more\n- other\n",
  );
  assert.equal(
    inserted(plan, 5, "item"),
    "# Plan\n\nFirst line\nsecond line\n\n- item\n  more\n> [!review] item\n- other\n",
  );
  // A blank line belongs to the block above it.
  assert.equal(
    inserted(plan, 4, "two\nlines"),
    "# Plan\n\nFirst line\nsecond line\n> [!review] two\n> lines\n\n- item\n  more\n- other\n",
  );
  const twice = inserted(inserted(plan, 2, "one"), 3, "two");
  assert.deepEqual(
    findComments(splitLines(twice)).map((c) => c.text),
    ["one", "two"],
  );
  assert.throws(() => commentInsertion(["x"], 0, "  \n "), /needs text/);
});

test("commentInsertion: after a closed fence, above one left open", () => {
  assert.equal(
    inserted("```\ncode\n```\nafter\n", 1, "c"),
    "```\ncode\n```\n> [!review] c\nafter\n",
  );
  assert.equal(
    inserted("Intro\n\n```\nnever closed\n", 3, "c"),
    "Intro\n\n> [!review] c\n```\nnever closed\n",
  );
  assert.equal(
    inserted("Step\n", 0, "first\n[!review] second"),
    "Step\n> [!review] first\n> \\[!review] second\n",
  );
});

// The server must read every comment the client writes, on the block the client meant.
const python = join(repoRoot(), ".venv/bin/python");

test(
  "the server parses what the client writes, anchored where it would insert it",
  { skip: !existsSync(python) && "no .venv" },
  () => {
    const plans = [
      PLAN,
      "# Plan\n\n## Steps\n1. one\n   more\n2. two\n\n## Verification\nRun it.\n",
      "Intro\nstill intro\n\n```py\nx = 1\n```\n> a quote\n\nEnd.",
      "",
      "~~~\nopen fence\n",
    ];
    const cases: { text: string; line: number; clientText: string }[] = [];
    for (const plan of plans) {
      const lines = splitLines(plan);
      for (let line = 0; line < Math.max(1, lines.length); line += 1) {
        cases.push({ text: plan, line, clientText: inserted(plan, line, `note ${line}`) });
      }
    }
    const script = `
import json, sys
from planmode.core import comments
out = []
for case in json.load(sys.stdin):
    server = comments.insert(case["text"], case["line"], f"note {case['line']}")
    found = comments.parse(case["clientText"])
    out.append({"serverAnchor": [c.anchor.quote for c in comments.parse(server) if c.text == f"note {case['line']}"],
                "clientAnchor": [c.anchor.quote for c in found if c.text == f"note {case['line']}"]})
print(json.dumps(out))
`;
    const run = spawnSync(python, ["-c", script], {
      input: JSON.stringify(cases),
      encoding: "utf8",
    });
    assert.equal(run.status, 0, run.stderr);
    const results = JSON.parse(run.stdout) as { serverAnchor: string[]; clientAnchor: string[] }[];
    results.forEach((result, i) => {
      const { line, text } = cases[i];
      assert.equal(
        result.clientAnchor.length,
        1,
        `line ${line} of ${JSON.stringify(text)}: the server sees no comment`,
      );
      assert.deepEqual(
        result.clientAnchor,
        result.serverAnchor,
        `line ${line} of ${JSON.stringify(text)}`,
      );
    });
  },
);
