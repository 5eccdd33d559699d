import assert from "node:assert/strict";
import { test } from "node:test";

import {
  approvalIdOfPath,
  approveParams,
  rejectCommandArgs,
  rejectParams,
  setModeParams,
  submittedPlanPath,
} from "../../src/args";
import { makeApproval } from "./helpers";

test("approve names the approval and its session, and the mode only when chosen", () => {
  const approval = makeApproval();
  assert.deepEqual(approveParams(approval), {
    approvalId: "a-1",
    sessionId: "s1",
    includeComments: true,
  });
  assert.deepEqual(approveParams(approval, "acceptEdits"), {
    approvalId: "a-1",
    sessionId: "s1",
    mode: "acceptEdits",
    includeComments: true,
  });
});

test("approve grants only the allowed prompts the user was shown", () => {
  const prompts = [{ tool: "Bash", prompt: "run tests" }];
  const approval = makeApproval({ allowedPrompts: prompts });
  assert.deepEqual(approveParams(approval), {
    approvalId: "a-1",
    sessionId: "s1",
    includeComments: true,
  });
  assert.deepEqual(approveParams(approval, undefined, prompts), {
    approvalId: "a-1",
    sessionId: "s1",
    includeComments: true,
    allowedPrompts: prompts,
  });
});

test("reject sends feedback only when there is some", () => {
  const approval = makeApproval();
  assert.deepEqual(rejectParams(approval, "  "), {
    approvalId: "a-1",
    sessionId: "s1",
    includeComments: true,
  });
  assert.deepEqual(rejectParams(approval, " Keep the API \n"), {
    approvalId: "a-1",
    sessionId: "s1",
    feedback: "Keep the API",
    includeComments: true,
  });
});

test("the Reject… lens's argument object gets the feedback added, the rest kept", () => {
  const lensArgs = [{ approvalId: "a-1", sessionId: "s1" }];
  assert.deepEqual(rejectCommandArgs(lensArgs, "smaller steps"), [
    { approvalId: "a-1", sessionId: "s1", feedback: "smaller steps" },
  ]);
  assert.deepEqual(rejectCommandArgs(lensArgs, ""), [{ approvalId: "a-1", sessionId: "s1" }]);
  assert.deepEqual(
    lensArgs,
    [{ approvalId: "a-1", sessionId: "s1" }],
    "the lens's own arguments are not mutated",
  );
  assert.deepEqual(rejectCommandArgs([], "why"), [{ feedback: "why" }]);
});

test("setMode names the session only when one is known", () => {
  assert.deepEqual(setModeParams("plan", undefined), { mode: "plan" });
  assert.deepEqual(setModeParams("auto", "s9"), { mode: "auto", sessionId: "s9" });
});

test("the submitted plan's URI path round-trips the approval id and keeps the file name", () => {
  const approval = makeApproval({ approvalId: "id/with spaces" });
  const path = submittedPlanPath(approval);
  assert.ok(path.endsWith("/bold-eagle.md"), path);
  assert.equal(approvalIdOfPath(path), "id/with spaces");
});
