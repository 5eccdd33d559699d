// What the client shows after approval (progress.ts, plansView.ts) and of the agent's
// revisions (revisionHighlights.ts), from their pure parts.
import assert from "node:assert/strict";
import { test } from "node:test";

import { hunkMarks, type HunkInfo } from "../../src/hunkMarks";
import {
  ago,
  canTakeUp,
  diffPair,
  type LibraryPlan,
  planDescription,
  planTooltip,
  type Revision,
  sortPlans,
  statusLabel,
} from "../../src/libraryModel";
import {
  type Progress,
  progressText,
  progressToShow,
  progressTooltip,
  type Step,
  stepHover,
  stepLine,
  stepPickItems,
  statusPickItems,
} from "../../src/progressModel";

function step(index: number, text: string, status: Step["status"], line = index + 3): Step {
  return { index, line, text, status, source: status === "pending" ? null : "todo" };
}

function progress(steps: Step[]): Progress {
  return {
    sessionId: "s1",
    planFilePath: "/w/.claude/plans/greet.md",
    approvalId: "a1",
    steps,
    done: steps.filter((s) => s.status === "done").length,
    total: steps.length,
    drift: [],
    verification: null,
    allowedPaths: [],
  };
}

test("the status bar says how many steps are done, with a check once all are", () => {
  const half = progress([step(0, "Read", "done"), step(1, "Write", "inProgress")]);
  assert.equal(progressText(half), "$(checklist) Plan 1/2");
  const all = progress([step(0, "Read", "done"), step(1, "Write", "done")]);
  assert.equal(progressText(all), "$(pass) Plan 2/2");
  const drifted = { ...half, drift: [{ path: "notes.txt", tool: "Write", at: "t" }] };
  assert.match(progressTooltip(drifted), /✓ Read\n◐ Write\nWritten outside the plan: notes\.txt/);
});

test("each step's mark, hover and pick item say its status and who marked it", () => {
  const steps = [
    step(0, "Read", "done"),
    step(1, "Write", "inProgress"),
    step(2, "Test", "pending"),
  ];
  assert.deepEqual(
    stepPickItems(progress(steps)).map((i) => [i.label, i.description, i.index]),
    [
      ["✓ 1. Read", "Done (marked by the agent's todo list)", 0],
      ["◐ 2. Write", "In progress (marked by the agent's todo list)", 1],
      ["• 3. Test", "Pending", 2],
    ],
  );
  assert.equal(stepHover({ ...steps[0], source: "user" }), "Step 1: Done (marked by you)");
  // The step's own status first; all three offered.
  assert.deepEqual(
    statusPickItems("inProgress").map((i) => i.status),
    ["inProgress", "done", "pending"],
  );
});

test("a step's mark follows its text when the plan was edited since approval", () => {
  const lines = ["# Plan", "", "## Steps", "1. Read the name", "2. Greet `world`", "   by name"];
  const greet = step(1, "Greet `world` by name", "done", 4);
  assert.equal(stepLine(lines, greet), 4); // a step over two lines: its first line starts it
  const moved = ["# Plan", "Intro.", "", "## Steps", "1. Read the name", "2. Greet `world`"];
  assert.equal(stepLine(moved, greet), 5);
  assert.equal(stepLine(["# Plan", "Greet `world` by name"], greet), undefined); // no item
  assert.equal(stepLine(["- [x] Read the name"], step(0, "Read the name", "done", 0)), 0);
});

test("the progress shown: the open plan's, else the shown session's, never a planning one's", () => {
  const one = { ...progress([step(0, "Read", "done")]), sessionId: "one", planFilePath: "/a.md" };
  const two = {
    ...progress([step(0, "Read", "pending")]),
    sessionId: "two",
    planFilePath: "/b.md",
  };
  const sessions = (modes: Record<string, string>, current?: string) => ({
    all: () => Object.entries(modes).map(([sessionId, mode]) => ({ sessionId, mode })),
    current: () => (current === undefined ? undefined : { sessionId: current }),
  });
  const both = sessions({ one: "default", two: "acceptEdits" }, "one");
  assert.equal(progressToShow([one, two], both, "/b.md")?.sessionId, "two");
  assert.equal(progressToShow([one, two], both, "/elsewhere.md")?.sessionId, "one");
  assert.equal(progressToShow([one, two], both)?.sessionId, "one");
  // The shown session has none: the latest reported.
  assert.equal(progressToShow([one, two], sessions({}, "three"))?.sessionId, "two");
  // A session planning again carries out nothing, even with its plan open.
  const planning = sessions({ one: "default", two: "plan" }, "two");
  assert.equal(progressToShow([one, two], planning, "/b.md")?.sessionId, "one");
  assert.equal(progressToShow([two], planning), undefined);
  // Two spellings of one path.
  const upper = (p: string) => p.toUpperCase();
  assert.equal(progressToShow([one, two], both, "/B.MD", upper)?.sessionId, "two");
});

function plan(fields: Partial<LibraryPlan>): LibraryPlan {
  return {
    path: "/w/.claude/plans/greet.md",
    slug: "greet",
    modified: "2026-12-01T10:00:00Z",
    sizeBytes: 10,
    pending: false,
    ...fields,
  };
}

test("a plan in the library reads with its status, progress, agent and age", () => {
  const now = new Date("2026-12-01T13:00:00Z");
  const executing = plan({
    status: "executing",
    progress: { done: 3, total: 7 },
    agent: "claude-code",
    sessionId: "s1",
    firstSeen: "2026-12-01T09:00:00Z",
  });
  assert.equal(statusLabel(executing), "executing 3/7");
  assert.equal(planDescription(executing, now), "executing 3/7 · Claude Code · 3 h ago");
  assert.equal(planDescription(plan({ status: "underReview" }), now), "under review · 3 h ago");
  assert.equal(statusLabel(plan({})), "drafting"); // an older server says no status
  assert.match(
    planTooltip(executing),
    /Agent: Claude Code\nSession: s1\nFirst seen: 2026-12-01T09:00:00Z/,
  );
  assert.deepEqual(
    (["saved", "rejected", "done", "executing", "drafting", "underReview"] as const).map((status) =>
      canTakeUp(plan({ status })),
    ),
    [true, true, false, false, false, false],
  );
  assert.equal(ago("2026-12-01T12:59:30Z", now), "just now");
  assert.equal(ago("2026-11-01T12:59:30Z", now), "2026-11-01");
  assert.equal(ago("not a date", now), "not a date");
});

test("plans list newest first, the one under review on top", () => {
  const sorted = sortPlans([
    plan({ slug: "old", modified: "2026-01-01T00:00:00Z" }),
    plan({ slug: "new", modified: "2026-12-01T00:00:00Z" }),
    plan({ slug: "review", modified: "2025-01-01T00:00:00Z", status: "underReview" }),
  ]);
  assert.deepEqual(
    sorted.map((p) => p.slug),
    ["review", "new", "old"],
  );
});

test("a diff compares two chosen versions, or one with the version before it", () => {
  const revisions: Revision[] = [1, 2, 5].map((id) => ({
    id,
    author: "agent",
    time: "t",
    reason: "r",
    sizeBytes: 1,
    lines: 1,
  }));
  assert.deepEqual(diffPair(revisions, [5, 1]), [1, 5]);
  assert.deepEqual(diffPair(revisions, [5]), [2, 5]);
  assert.equal(diffPair(revisions, [1]), undefined); // the first has none before it
  assert.equal(diffPair(revisions, [2, 2]), undefined);
  assert.equal(diffPair(revisions, []), undefined);
});

function hunk(line: number, added: number, removedLines: string[]): HunkInfo {
  return {
    path: "/p.md",
    hunkId: `h${line}`,
    line,
    added,
    removed: removedLines.length,
    keepTitle: "Keep",
    undoTitle: "Undo",
    removedLines,
  };
}

test("added lines are highlighted and removed ones ghosted beside what took their place", () => {
  const marks = hunkMarks(
    [
      hunk(2, 2, ["Run pytest"]), // a change: old text beside the first new line
      hunk(6, 1, ["a", "b", "c"]), // more removed than added: the rest beside the last
      hunk(8, 0, ["2. Change the greeting"]), // a deletion: at the end of the line above
      hunk(0, 0, ["# Old title"]), // a deletion at the top: before the first line
      hunk(20, 1, []), // past the end of the document: left out
    ],
    12,
  );
  assert.deepEqual(marks.added, [
    [2, 3],
    [6, 6],
  ]);
  assert.deepEqual(marks.ghosts, [
    { line: 2, text: "Run pytest", before: false },
    { line: 6, text: "a ⏎ b ⏎ c", before: false },
    { line: 7, text: "2. Change the greeting", before: false },
    { line: 0, text: "# Old title", before: true },
  ]);
  const long = hunkMarks([hunk(0, 1, ["x".repeat(300)])], 3).ghosts[0].text;
  assert.equal(long.length, 120);
  assert.ok(long.endsWith("…"));
});
