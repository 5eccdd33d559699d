import assert from "node:assert/strict";
import { test } from "node:test";

import { SessionTracker } from "../../src/state";
import { makeApproval, makeState } from "./helpers";

test("the tracker shows the session that changed last", () => {
  const tracker = new SessionTracker();
  assert.equal(tracker.current(), undefined);
  tracker.update(makeState({ sessionId: "a", mode: "default" }));
  tracker.update(makeState({ sessionId: "b", mode: "plan" }));
  assert.equal(tracker.current()?.sessionId, "b");
  tracker.update(makeState({ sessionId: "a", mode: "acceptEdits" }));
  assert.equal(tracker.current()?.mode, "acceptEdits");
});

test("a plan waiting for review wins over a later change elsewhere, until it is decided", () => {
  const tracker = new SessionTracker();
  tracker.update(
    makeState({
      sessionId: "agent",
      mode: "plan",
      pendingApproval: makeApproval({ sessionId: "agent" }),
    }),
  );
  tracker.update(makeState({ sessionId: "other", mode: "auto" }));
  assert.equal(tracker.current()?.sessionId, "agent");
  assert.equal(tracker.pending()?.pendingApproval?.approvalId, "a-1");
  tracker.update(makeState({ sessionId: "agent", mode: "default" }));
  assert.equal(tracker.pending(), undefined);
  assert.equal(tracker.current()?.sessionId, "agent");
  tracker.clear();
  assert.equal(tracker.current(), undefined);
});
