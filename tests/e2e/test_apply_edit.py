"""planMode/applyEdit: an agent's workspace edit, checked whole in plan mode, applied whole."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e import harness
from tests.e2e.harness import Editor, running_editor

APP_TEXT = "print('hello')\n"


def whole_line(line: int, text: str) -> dict[str, Any]:
    """A text edit replacing line ``line`` (and its newline) with ``text``."""
    return {
        "range": {
            "start": {"line": line, "character": 0},
            "end": {"line": line + 1, "character": 0},
        },
        "newText": text,
    }


def insert_at_start(text: str) -> dict[str, Any]:
    return {
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
        "newText": text,
    }


def doc_edit(path: Path, *edits: dict[str, Any]) -> dict[str, Any]:
    return {"textDocument": {"uri": path.as_uri(), "version": None}, "edits": list(edits)}


async def enter(editor: Editor) -> Path:
    entered = await editor.request("planMode/enter", {})
    return Path(entered["state"]["planFilePath"])


async def write_plan(editor: Editor, plan_path: Path, text: str) -> dict[str, Any]:
    """The agent creates the plan file through planMode/applyEdit (documentChanges)."""
    return await editor.request(
        "planMode/applyEdit",
        {
            "edit": {
                "documentChanges": [
                    {"kind": "create", "uri": plan_path.as_uri()},
                    doc_edit(plan_path, insert_at_start(text)),
                ]
            },
            "label": "Write plan",
        },
    )


async def test_plan_file_edits_go_to_the_editor(editor: Editor, root: Path) -> None:
    plan_path = await enter(editor)
    answer = await write_plan(editor, plan_path, "# Plan\n\n1. one\n")
    assert answer == {"applied": True}
    assert plan_path.read_text() == "# Plan\n\n1. one\n"
    assert len(editor.applied_edits) == 1
    assert editor.applied_edits[0]["label"] == "Write plan"
    sent = editor.applied_edits[0]["edit"]
    assert sent.document_changes is not None and len(sent.document_changes) == 2

    answer = await editor.request(
        "planMode/applyEdit",
        {"edit": {"changes": {plan_path.as_uri(): [whole_line(2, "1. one, carefully\n")]}}},
    )
    assert answer == {"applied": True}
    assert plan_path.read_text() == "# Plan\n\n1. one, carefully\n"
    assert len(editor.applied_edits) == 2
    assert list(editor.applied_edits[1]["edit"].changes) == [plan_path.as_uri()]
    state = await editor.state()
    assert state["mode"] == "plan"
    assert state["planExists"] is True


async def test_edit_touching_the_plan_and_a_source_file_is_rejected_whole(
    editor: Editor, root: Path
) -> None:
    plan_path = await enter(editor)
    await write_plan(editor, plan_path, "# Plan\n")
    forwarded = len(editor.applied_edits)
    app = root / "src" / "app.py"
    for edit in (
        {
            "changes": {
                plan_path.as_uri(): [insert_at_start("# Better plan\n")],
                app.as_uri(): [whole_line(0, "print('bye')\n")],
            }
        },
        {
            "documentChanges": [
                doc_edit(plan_path, insert_at_start("# Better plan\n")),
                doc_edit(app, whole_line(0, "print('bye')\n")),
            ]
        },
    ):
        answer = await editor.request("planMode/applyEdit", {"edit": edit})
        assert answer["applied"] is False
        assert "src/app.py" in answer["failureReason"]
    assert app.read_text() == APP_TEXT
    assert plan_path.read_text() == "# Plan\n"
    assert len(editor.applied_edits) == forwarded
    assert (await editor.state())["mode"] == "plan"


async def test_creating_a_source_file_in_plan_mode_is_rejected(editor: Editor, root: Path) -> None:
    await enter(editor)
    new_file = root / "src" / "new.py"
    answer = await editor.request(
        "planMode/applyEdit",
        {"edit": {"documentChanges": [{"kind": "create", "uri": new_file.as_uri()}]}},
    )
    assert answer["applied"] is False
    assert "src/new.py" in answer["failureReason"]
    assert not new_file.exists()
    assert editor.applied_edits == []


@pytest.mark.parametrize("plan_side", ["old", "new"])
async def test_rename_with_one_side_outside_the_plan_is_rejected(
    editor: Editor, root: Path, plan_side: str
) -> None:
    plan_path = await enter(editor)
    await write_plan(editor, plan_path, "# Plan\n")
    forwarded = len(editor.applied_edits)
    app = root / "src" / "app.py"
    other = root / "src" / "renamed.md"
    if plan_side == "old":
        rename = {"kind": "rename", "oldUri": plan_path.as_uri(), "newUri": other.as_uri()}
        offending = "src/renamed.md"
    else:
        rename = {
            "kind": "rename",
            "oldUri": app.as_uri(),
            "newUri": plan_path.as_uri(),
            "options": {"overwrite": True},
        }
        offending = "src/app.py"
    answer = await editor.request("planMode/applyEdit", {"edit": {"documentChanges": [rename]}})
    assert answer["applied"] is False
    assert offending in answer["failureReason"]
    assert plan_path.read_text() == "# Plan\n"
    assert app.read_text() == APP_TEXT
    assert not other.exists()
    assert len(editor.applied_edits) == forwarded


async def test_outside_plan_mode_a_source_edit_is_forwarded(editor: Editor, root: Path) -> None:
    app = root / "src" / "app.py"
    answer = await editor.request(
        "planMode/applyEdit",
        {"edit": {"changes": {app.as_uri(): [whole_line(0, "print('bye')\n")]}}, "label": "Bye"},
    )
    assert answer == {"applied": True}
    assert app.read_text() == "print('bye')\n"
    assert len(editor.applied_edits) == 1
    assert editor.applied_edits[0]["label"] == "Bye"


async def test_the_editor_refusing_is_reported(editor: Editor, root: Path) -> None:
    app = root / "src" / "app.py"
    editor.refuse_edits = "The file is read-only in the editor"
    answer = await editor.request(
        "planMode/applyEdit", {"edit": {"changes": {app.as_uri(): [whole_line(0, "x = 1\n")]}}}
    )
    assert answer["applied"] is False
    assert "The file is read-only in the editor" in answer["failureReason"]
    assert len(editor.applied_edits) == 1
    assert app.read_text() == APP_TEXT


async def test_without_apply_edit_support_the_server_writes_to_disk(root: Path, home: Path) -> None:
    caps = harness.capabilities(apply_edit=False)
    async with running_editor(root, home, init_options={"sessionId": "main"}, caps=caps) as ed:
        app = root / "src" / "app.py"
        answer = await ed.request(
            "planMode/applyEdit",
            {"edit": {"changes": {app.as_uri(): [whole_line(0, "print('bye')\n")]}}},
        )
        assert answer == {"applied": True}
        assert app.read_text() == "print('bye')\n"
        assert ed.applied_edits == []

        # Plan mode still guards the disk.
        plan_path = await enter(ed)
        answer = await ed.request(
            "planMode/applyEdit",
            {"edit": {"changes": {app.as_uri(): [whole_line(0, "print('plan')\n")]}}},
        )
        assert answer["applied"] is False
        assert app.read_text() == "print('bye')\n"
        answer = await write_plan(ed, plan_path, "# Plan\n")
        assert answer == {"applied": True}
        assert plan_path.read_text() == "# Plan\n"
        assert ed.applied_edits == []


async def test_without_apply_edit_support_a_failing_edit_changes_no_file(
    root: Path, home: Path
) -> None:
    caps = harness.capabilities(apply_edit=False)
    async with running_editor(root, home, init_options={"sessionId": "main"}, caps=caps) as ed:
        app = root / "src" / "app.py"
        util = root / "src" / "util.py"
        util.write_text("X = 1\n")
        missing = root / "src" / "missing.py"
        answer = await ed.request(
            "planMode/applyEdit",
            {
                "edit": {
                    "documentChanges": [
                        doc_edit(app, whole_line(0, "print('bye')\n")),
                        {"kind": "create", "uri": (root / "src" / "fresh.py").as_uri()},
                        doc_edit(util, whole_line(0, "X = 2\n")),
                        doc_edit(missing, insert_at_start("boom\n")),
                    ]
                }
            },
        )
        assert answer["applied"] is False
        assert "missing.py" in answer["failureReason"]
        assert app.read_text() == APP_TEXT
        assert util.read_text() == "X = 1\n"
        assert not (root / "src" / "fresh.py").exists()
        assert not missing.exists()


MALFORMED: list[dict[str, Any]] = [
    {},
    {"edit": "not an edit"},
    {"edit": []},
    {"edit": {}},
    {"edit": {"changes": {"file:///tmp/x.py": [{"range": "everywhere", "newText": "x"}]}}},
    {"edit": {"changes": {"file:///tmp/x.py": [{"newText": "x"}]}}},
    {"edit": {"documentChanges": [{"kind": "explode", "uri": "file:///tmp/x.py"}]}},
    {"edit": {"changes": {"untitled:Untitled-1": [insert_at_start("x")]}}},
    {"edit": {"changes": {}}, "label": 5},
]


async def test_malformed_edit_is_invalid_params(editor: Editor, root: Path) -> None:
    plan_path = await enter(editor)
    for params in MALFORMED:
        error = await editor.error("planMode/applyEdit", params)
        assert error.code == -32602, params
        assert error.message
    assert editor.applied_edits == []
    assert not plan_path.exists()
    assert (root / "src" / "app.py").read_text() == APP_TEXT
    assert (await editor.state())["mode"] == "plan"


def spellings(root: Path, plans: Path) -> dict[str, Path]:
    """Directory symlinks giving one file several URIs: a symlinked folder, and ``link/..``
    that the kernel reads as the plans directory but a text normaliser as the root."""
    (plans / "sub").mkdir(parents=True, exist_ok=True)
    (root / "plans-link").symlink_to(plans, target_is_directory=True)
    (root / "into-plans").symlink_to(plans / "sub", target_is_directory=True)
    return {"link": root / "plans-link", "hop": root / "into-plans"}


def raw_uri(path: str) -> str:
    """A file: URI of ``path`` exactly as spelled, ``..`` kept."""
    return "file://" + path


async def test_the_editor_receives_only_the_canonical_plan_uri(editor: Editor, root: Path) -> None:
    plan_path = await enter(editor)
    links = spellings(root, plan_path.parent)
    await write_plan(editor, plan_path, "# Plan\n\n1. one\n")
    before = sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))
    editor.applied_edits.clear()
    via_link = raw_uri(f"{links['link']}/{plan_path.name}")
    via_hop = raw_uri(f"{links['hop']}/../{plan_path.name}")
    answer = await editor.request(
        "planMode/applyEdit",
        {
            "edit": {
                "documentChanges": [
                    {
                        "textDocument": {"uri": via_link, "version": None},
                        "edits": [whole_line(2, "1. one, carefully\n")],
                    },
                    {
                        "kind": "rename",
                        "oldUri": via_hop,
                        "newUri": via_link,
                        "options": {"overwrite": True},
                    },
                ],
                "changes": {via_hop: [whole_line(0, "# The plan\n")]},
            },
            "label": "Revise",
        },
    )
    assert answer == {"applied": True}
    [sent] = editor.applied_edits
    edit = sent["edit"]
    canonical = plan_path.as_uri()
    assert edit.document_changes[0].text_document.uri == canonical
    assert (edit.document_changes[1].old_uri, edit.document_changes[1].new_uri) == (
        canonical,
        canonical,
    )
    assert list(edit.changes) == [canonical]
    # Nothing else changed: the edit's content is intact, no file appeared or vanished.
    assert edit.document_changes[0].edits[0].new_text == "1. one, carefully\n"
    assert edit.changes[canonical][0].new_text == "# The plan\n"
    assert plan_path.read_text() == "# Plan\n\n1. one, carefully\n"
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) == before
    assert not (root / plan_path.name).exists()


async def test_outside_plan_mode_renames_are_forwarded_with_both_sides_canonical(
    editor: Editor, root: Path
) -> None:
    (root / "src-link").symlink_to(root / "src", target_is_directory=True)
    app = root / "src" / "app.py"
    answer = await editor.request(
        "planMode/applyEdit",
        {
            "edit": {
                "documentChanges": [
                    {
                        "kind": "rename",
                        "oldUri": raw_uri(f"{root}/src-link/app.py"),
                        "newUri": raw_uri(f"{root}/src/../src-link/main.py"),
                    },
                ]
            }
        },
    )
    assert answer == {"applied": True}
    [rename] = editor.applied_edits[0]["edit"].document_changes
    assert (rename.old_uri, rename.new_uri) == (app.as_uri(), (root / "src" / "main.py").as_uri())
    assert (root / "src" / "main.py").read_text() == APP_TEXT
    assert not app.exists()


async def test_one_file_under_two_uris_in_changes_is_refused(editor: Editor, root: Path) -> None:
    (root / "src-link").symlink_to(root / "src", target_is_directory=True)
    app = root / "src" / "app.py"
    error = await editor.error(
        "planMode/applyEdit",
        {
            "edit": {
                "changes": {
                    app.as_uri(): [whole_line(0, "a = 1\n")],
                    raw_uri(f"{root}/src-link/app.py"): [whole_line(0, "b = 2\n")],
                }
            }
        },
    )
    assert error.code == -32602
    assert f"names {app} twice" in error.message
    assert editor.applied_edits == []
    assert app.read_text() == APP_TEXT


async def test_without_apply_edit_support_the_canonical_file_is_written(
    root: Path, home: Path
) -> None:
    caps = harness.capabilities(apply_edit=False)
    async with running_editor(root, home, init_options={"sessionId": "main"}, caps=caps) as ed:
        plan_path = await enter(ed)
        links = spellings(root, plan_path.parent)
        via_hop = raw_uri(f"{links['hop']}/../{plan_path.name}")
        answer = await ed.request(
            "planMode/applyEdit",
            {"edit": {"documentChanges": [{"kind": "create", "uri": via_hop}]}},
        )
        assert answer == {"applied": True}
        assert plan_path.read_text() == ""
        assert not (root / plan_path.name).exists()
