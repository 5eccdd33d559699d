"""planMode/resume and planMode/fork through the real server (docs/protocol.md §5.4)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.e2e.harness import Editor

PLAN = "# Plan\n\n1. Change the greeting\n"
SLUG = "amber-falcon"


def hand_written(root: Path, name: str, lines: list[dict[str, Any]]) -> str:
    path = root / "logs" / f"{name}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


def layer_line(layer: str, content: str) -> dict[str, Any]:
    if layer == "file_snapshot":
        return {
            "type": "system",
            "subtype": "file_snapshot",
            "slug": SLUG,
            "snapshotFiles": [{"key": "plan", "content": content}],
        }
    if layer == "ExitPlanMode":
        block = {"type": "tool_use", "name": "ExitPlanMode", "input": {"plan": content}}
        return {"type": "assistant", "slug": SLUG, "message": {"content": [block]}}
    if layer == "planContent":
        return {"type": "user", "slug": SLUG, "message": {"content": "go"}, "planContent": content}
    attachment = {"type": "plan_file_reference", "planContent": content}
    return {"type": "attachment", "slug": SLUG, "attachment": attachment}


LAYERS = ("file_snapshot", "ExitPlanMode", "planContent", "plan_file_reference")


async def test_transcript_resume_fork_and_reentry(editor: Editor, root: Path) -> None:
    # The server keeps its own transcript of the main session, every line with the slug.
    entered = await editor.request("planMode/enter")
    slug = entered["state"]["planSlug"]
    plan_path = Path(entered["state"]["planFilePath"])
    task = editor.start("planMode/exit", {"plan": PLAN})
    approval = await editor.wait_for("planMode/approvalRequested")
    await editor.request("planMode/approve", {"approvalId": approval["approvalId"]})
    assert (await task)["outcome"] == "approved"
    log = root / ".claude" / "plan-mode" / "transcripts" / "main.jsonl"
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert lines and all(line["slug"] == slug for line in lines)
    kinds = [(line["type"], line.get("subtype")) for line in lines]
    assert ("assistant", None) in kinds
    assert kinds.count(("system", "mode_change")) == 2
    assert ("system", "file_snapshot") in kinds
    assert ("system", "plan_decision") in kinds

    # Resume locally with the file present: restored, slug adopted.
    resumed = await editor.request("planMode/resume", {"sessionId": "r1", "transcript": str(log)})
    assert resumed == {"restored": True, "planFilePath": str(plan_path)}
    assert (await editor.state("r1"))["planSlug"] == slug

    # Re-entry after resume: the transcript left plan mode, so the plan is re-entered.
    await editor.request("planMode/enter", {"sessionId": "r1"})
    turn = await editor.request("planMode/nextTurn", {"sessionId": "r1"})
    assert [a["type"] for a in turn["attachments"]] == ["plan_mode_reentry", "plan_mode"]

    # Fork: a new slug, the plan copied, the original untouched; both independent.
    forked = await editor.request("planMode/fork", {"sessionId": "f1", "transcript": str(log)})
    fork_path = Path(forked["planFilePath"])
    assert forked["copied"] is True
    assert fork_path != plan_path
    assert fork_path.read_text() == PLAN
    fork_state = await editor.state("f1")
    assert fork_state["planSlug"] not in (slug, None)
    assert fork_state["planFilePath"] == str(fork_path)
    await editor.request("planMode/enter", {"sessionId": "f1"})
    task = editor.start("planMode/exit", {"sessionId": "f1", "plan": "# forked\n"})
    pending = await editor.wait_for("planMode/approvalRequested", 2)
    assert fork_path.read_text() == "# forked\n"
    assert plan_path.read_text() == PLAN
    await editor.request("planMode/reject", {"approvalId": pending["approvalId"]})
    assert (await task)["outcome"] == "rejected"

    # The plan file is gone: locally nothing is recovered, remotely the transcript restores it.
    plan_path.unlink()
    local = await editor.request("planMode/resume", {"sessionId": "r2", "transcript": str(log)})
    assert local == {"restored": False, "planFilePath": str(plan_path)}
    assert not plan_path.exists()
    remote = await editor.request(
        "planMode/resume", {"sessionId": "r3", "transcript": str(log), "remote": True}
    )
    assert remote == {"restored": True, "planFilePath": str(plan_path)}
    assert plan_path.read_text() == PLAN

    # Errors: a missing transcript, a missing field, an unsafe slug.
    missing = await editor.error("planMode/resume", {"transcript": str(root / "nope.jsonl")})
    assert missing.code == -32602
    assert "transcript" in missing.message
    assert (await editor.error("planMode/resume", {})).code == -32602
    assert (await editor.error("planMode/fork", {"transcript": "nope.jsonl"})).code == -32602
    evil = hand_written(root, "evil", [{**layer_line("file_snapshot", "x"), "slug": "../../x"}])
    bad = await editor.error("planMode/resume", {"transcript": evil, "remote": True})
    assert bad.code == -32602
    assert (await editor.state())["planSlug"] == slug


async def test_remote_recovery_layers_and_their_order(editor: Editor, root: Path) -> None:
    plans = root / ".claude" / "plans"
    target = plans / f"{SLUG}.md"
    # Each layer on its own.
    for n, layer in enumerate(LAYERS):
        target.unlink(missing_ok=True)
        log = hand_written(root, f"only-{n}", [layer_line(layer, f"# {layer}\n")])
        result = await editor.request(
            "planMode/resume", {"sessionId": f"l{n}", "transcript": log, "remote": True}
        )
        assert result == {"restored": True, "planFilePath": str(target)}, layer
        assert target.read_text() == f"# {layer}\n"
        assert (await editor.state(f"l{n}"))["planSlug"] == SLUG
    # Several present (written lowest priority first): the highest present layer wins,
    # and within a layer its latest line.
    for n in range(len(LAYERS)):
        present = LAYERS[n:]
        lines = [layer_line(layer, f"# old {layer}\n") for layer in reversed(present)]
        lines += [layer_line(layer, f"# {layer}\n") for layer in reversed(present)]
        target.unlink(missing_ok=True)
        log = hand_written(root, f"many-{n}", lines)
        result = await editor.request(
            "planMode/resume", {"sessionId": f"m{n}", "transcript": log, "remote": True}
        )
        assert result["restored"] is True
        assert target.read_text() == f"# {present[0]}\n", present

    # No slug: nothing restored, the session keeps its own slug.
    own = (await editor.state("x1"))["planSlug"]
    log = hand_written(root, "noslug", [{"type": "user", "planContent": "# orphan\n"}])
    result = await editor.request(
        "planMode/resume", {"sessionId": "x1", "transcript": log, "remote": True}
    )
    assert result == {"restored": False, "planFilePath": str(plans / f"{own}.md")}

    # New sessions never share a slug (Claude Code #12838).
    slugs = {(await editor.state(f"new{n}"))["planSlug"] for n in range(5)}
    assert len(slugs) == 5
    assert SLUG not in slugs
