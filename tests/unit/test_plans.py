"""Plan files: directory rules, slugs, names, reading and atomic writing (docs/protocol.md §3)."""

from __future__ import annotations

import itertools
import logging
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from planmode.core import plans
from planmode.core.plans import (
    SLUG_ATTEMPTS,
    generate_plan_slug,
    list_plan_files,
    plan_file_name,
    read_plan,
    resolve_plans_directory,
    write_atomic,
)

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)+$")


# -- plansDirectory ---------------------------------------------------------------------------
@pytest.mark.parametrize("setting", [None, "", "   "])
def test_unset_plans_directory_is_dot_claude_plans(root: Path, setting: str | None) -> None:
    location = resolve_plans_directory(root, setting)
    assert location.directory == root / ".claude" / "plans"
    assert location.warning is None


@pytest.mark.parametrize(
    ("setting", "expected"),
    [("docs/plans", "docs/plans"), ("./notes/../plans", "plans")],
)
def test_plans_directory_inside_the_root_is_used(root: Path, setting: str, expected: str) -> None:
    location = resolve_plans_directory(root, setting)
    assert location.directory == root / expected
    assert location.warning is None


def test_absolute_plans_directory_inside_the_root_is_used(root: Path) -> None:
    location = resolve_plans_directory(root, str(root / "my-plans"))
    assert location.directory == root / "my-plans"
    assert location.warning is None


@pytest.mark.parametrize("setting", ["../elsewhere", "/tmp/plans", "a/../../escape"])
def test_plans_directory_outside_the_root_falls_back_with_a_warning(
    root: Path, setting: str
) -> None:
    location = resolve_plans_directory(root, setting)
    assert location.directory == root / ".claude" / "plans"
    assert location.warning is not None
    assert "plansDirectory" in location.warning
    assert setting in location.warning


def test_plans_directory_through_a_symlink_leaving_the_root_falls_back(
    root: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "plans-link").symlink_to(outside, target_is_directory=True)
    location = resolve_plans_directory(root, "plans-link")
    assert location.directory == root / ".claude" / "plans"
    assert location.warning is not None
    assert "plansDirectory" in location.warning
    assert str(outside.resolve()) in location.warning


def test_plans_directory_through_a_symlink_staying_inside_is_resolved(root: Path) -> None:
    (root / "real").mkdir()
    (root / "alias").symlink_to(root / "real", target_is_directory=True)
    location = resolve_plans_directory(root, "alias")
    assert location.directory == root / "real"
    assert location.warning is None


def test_root_given_through_a_symlink_is_resolved(root: Path, tmp_path: Path) -> None:
    link = tmp_path / "root-link"
    link.symlink_to(root, target_is_directory=True)
    location = resolve_plans_directory(link, "plans")
    assert location.directory == root / "plans"
    assert location.warning is None


def test_tilde_plans_directory_outside_the_root_falls_back(root: Path, fake_home: Path) -> None:
    location = resolve_plans_directory(root, "~/plans")
    assert location.directory == root / ".claude" / "plans"
    assert location.warning is not None
    assert str(fake_home) in location.warning


def test_plans_directory_that_is_a_file_falls_back(root: Path) -> None:
    (root / "notes.md").write_text("x")
    location = resolve_plans_directory(root, "notes.md")
    assert location.directory == root / ".claude" / "plans"
    assert location.warning is not None
    assert "not a directory" in location.warning


def test_plans_directory_with_a_nul_byte_falls_back(root: Path) -> None:
    location = resolve_plans_directory(root, "pl\x00ans")
    assert location.directory == root / ".claude" / "plans"
    assert location.warning is not None


@pytest.mark.parametrize(
    ("setting", "why"),
    [
        (".", "is the workspace root"),
        ("ROOT", "is the workspace root"),
        ("src/..", "is the workspace root"),
        (".git", ".git"),
        (".git/plans", ".git"),
        ("src", "holds files that are no plans (app.py)"),
    ],
)
def test_a_plans_directory_that_would_mix_plans_with_other_files_falls_back(
    root: Path, setting: str, why: str
) -> None:
    """A repository's .claude/settings.json can name any directory: plans among the sources
    would be listed, reviewed and written back as plans, and a plan could replace one."""
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('hello')\n")
    (root / "src" / "notes.md").write_text("# notes\n")
    (root / ".git").mkdir()
    location = resolve_plans_directory(root, setting.replace("ROOT", str(root)))
    assert location.directory == root / ".claude" / "plans"
    assert location.refused is None
    assert location.warning is not None and why in location.warning, location.warning


def test_hidden_files_and_subdirectories_do_not_refuse_a_plans_directory(root: Path) -> None:
    plans_dir = root / "docs" / "plans"
    (plans_dir / "archive").mkdir(parents=True)
    (plans_dir / ".gitkeep").write_text("")
    (plans_dir / "old-plan.md").write_text("# Old\n")
    location = resolve_plans_directory(root, "docs/plans")
    assert (location.directory, location.warning) == (plans_dir, None)


def test_a_default_plans_directory_leaving_the_workspace_is_refused(
    root: Path, tmp_path: Path
) -> None:
    """A cloned repository ships .claude/plans as a symlink to a folder outside: the default
    gets the same checks as a configured directory, and with nothing to fall back to, no plan
    file there may be written."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / ".claude").mkdir()
    (root / ".claude" / "plans").symlink_to(outside, target_is_directory=True)
    for setting in (None, "../elsewhere"):
        location = resolve_plans_directory(root, setting)
        assert location.directory == root / ".claude" / "plans"
        assert location.refused is not None and str(outside.resolve()) in location.refused
        assert location.warning is not None and "No plan can be written" in location.warning
    plan = root / ".claude" / "plans" / "brave-otter.md"
    with pytest.raises(plans.UnsafePlanFile, match="symlink"):
        plans.write_plan(plan, "# Plan\n")
    assert list(outside.iterdir()) == []


def test_a_default_inside_the_workspace_through_a_symlink_is_resolved(root: Path) -> None:
    (root / "config" / "claude").mkdir(parents=True)
    (root / ".claude").symlink_to(root / "config" / "claude", target_is_directory=True)
    location = resolve_plans_directory(root, None)
    assert location.directory == root / "config" / "claude" / "plans"
    assert (location.warning, location.refused) == (None, None)


def test_a_plan_is_never_written_through_a_symlink(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("theirs\n")
    plans_dir = root / "plans"
    plans_dir.mkdir()
    (plans_dir / "link.md").symlink_to(outside)
    with pytest.raises(plans.UnsafePlanFile, match="is a symlink"):
        plans.write_plan(plans_dir / "link.md", "# Plan\n")
    assert outside.read_text() == "theirs\n"
    plans.write_plan(plans_dir / "fine.md", "# Plan\n")
    assert (plans_dir / "fine.md").read_text() == "# Plan\n"


# -- slugs ------------------------------------------------------------------------------------
def test_slug_is_a_lowercase_hyphenated_word_slug(tmp_path: Path) -> None:
    slug = generate_plan_slug(tmp_path)
    assert SLUG_RE.match(slug), slug


def test_generated_slugs_differ(tmp_path: Path) -> None:
    assert len({generate_plan_slug(tmp_path) for _ in range(20)}) > 1


def scripted_slugs(monkeypatch: pytest.MonkeyPatch, names: list[str]) -> list[str]:
    """Make the slug generator return ``names`` in order; returns the list of those handed out."""
    handed: list[str] = []
    source: Iterator[str] = iter(names)

    def fake(_words: int) -> str:
        slug = next(source)
        handed.append(slug)
        return slug

    monkeypatch.setattr(plans, "generate_slug", fake)
    return handed


def test_slug_collision_with_an_existing_file_is_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "bold-eagle.md").write_text("taken")
    (tmp_path / "calm-otter.md").write_text("taken")
    handed = scripted_slugs(monkeypatch, ["bold-eagle", "calm-otter", "swift-fox", "unused"])
    assert generate_plan_slug(tmp_path) == "swift-fox"
    assert handed == ["bold-eagle", "calm-otter", "swift-fox"]


def test_slug_collision_uses_the_exists_callable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scripted_slugs(monkeypatch, ["a-a", "b-b", "c-c"])
    asked: list[Path] = []

    def exists(path: Path) -> bool:
        asked.append(path)
        return path.name != "c-c.md"

    assert generate_plan_slug(tmp_path, exists) == "c-c"
    assert asked == [tmp_path / "a-a.md", tmp_path / "b-b.md", tmp_path / "c-c.md"]


def test_slug_generation_gives_up_after_ten_attempts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = [f"taken-{i}" for i in range(50)]
    handed = scripted_slugs(monkeypatch, names)
    calls = itertools.count()

    def always_taken(_path: Path) -> bool:
        next(calls)
        return True

    slug = generate_plan_slug(tmp_path, always_taken)
    assert SLUG_ATTEMPTS == 10
    assert len(handed) == 10
    assert slug == handed[-1]
    assert next(calls) <= 10


# -- file names -------------------------------------------------------------------------------
def test_plan_file_name_for_the_main_agent_and_a_subagent() -> None:
    assert plan_file_name("bold-eagle") == "bold-eagle.md"
    assert plan_file_name("bold-eagle", "a1b2") == "bold-eagle-agent-a1b2.md"


@pytest.mark.parametrize("agent_id", ["", "../x", "a/b", "a\\b", ".hidden", "x" * 200])
def test_plan_file_name_refuses_unsafe_agent_ids(agent_id: str) -> None:
    with pytest.raises(ValueError, match="agentId"):
        plan_file_name("bold-eagle", agent_id)


# -- reading ----------------------------------------------------------------------------------
def test_read_plan_returns_the_text(tmp_path: Path) -> None:
    path = tmp_path / "p.md"
    path.write_text("# Plan\n\n1. ünïcode ✓\n", encoding="utf-8")
    assert read_plan(path) == "# Plan\n\n1. ünïcode ✓\n"


def test_missing_plan_is_none_and_not_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="planmode.core.plans"):
        assert read_plan(tmp_path / "missing.md") is None
    assert caplog.records == []


def test_unreadable_plan_is_logged_and_none(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "dir.md"
    path.mkdir()
    with caplog.at_level(logging.ERROR, logger="planmode.core.plans"):
        assert read_plan(path) is None
    assert len(caplog.records) == 1
    assert caplog.records[0].levelno == logging.ERROR
    assert str(path) in caplog.records[0].getMessage()


def test_plan_that_is_not_utf8_is_logged_and_none(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "bad.md"
    path.write_bytes(b"\xff\xfe\x00bad")
    with caplog.at_level(logging.ERROR, logger="planmode.core.plans"):
        assert read_plan(path) is None
    assert any(str(path) in r.getMessage() for r in caplog.records)


# -- atomic writes ----------------------------------------------------------------------------
def test_write_atomic_creates_parents_and_leaves_no_temp_files(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "plan.md"
    write_atomic(path, "one")
    write_atomic(path, "two\r\nlines kept as given\n")
    assert path.read_bytes() == b"two\r\nlines kept as given\n"
    assert os.listdir(path.parent) == ["plan.md"]


@pytest.mark.parametrize("failing", ["replace", "fsync"])
def test_failed_write_keeps_the_old_content_and_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    path = tmp_path / "plans" / "plan.md"
    write_atomic(path, "old plan")

    def boom(*_args: object) -> None:
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(plans.os, failing, boom)
        with pytest.raises(OSError, match="No space left"):
            write_atomic(path, "new plan that never lands")
    assert path.read_text() == "old plan"
    assert os.listdir(path.parent) == ["plan.md"]


def test_write_atomic_keeps_the_permission_bits_of_the_file_it_replaces(tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    write_atomic(script, "#!/bin/sh\necho hi\n")
    assert stat.S_IMODE(script.stat().st_mode) == 0o755


def test_write_atomic_new_file_follows_the_umask(tmp_path: Path) -> None:
    previous = os.umask(0o022)
    os.umask(previous)
    path = tmp_path / "new.md"
    write_atomic(path, "x")
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~previous


# -- listing ----------------------------------------------------------------------------------
def test_list_plan_files_of_a_missing_directory_is_empty(tmp_path: Path) -> None:
    assert list(list_plan_files(tmp_path / "nope")) == []


def test_list_plan_files_finds_plans_and_subagent_plans_only(tmp_path: Path) -> None:
    (tmp_path / "bold-eagle.md").write_text("12345")
    (tmp_path / "bold-eagle-agent-a1.md").write_text("x")
    (tmp_path / ".bold-eagle.md.123.tmp").write_text("temp")
    (tmp_path / ".hidden.md").write_text("hidden")
    (tmp_path / "notes.txt").write_text("not a plan")
    (tmp_path / "dir.md").mkdir()
    found = {info.path.name: info for info in list_plan_files(tmp_path)}
    assert set(found) == {"bold-eagle.md", "bold-eagle-agent-a1.md"}
    assert (found["bold-eagle.md"].slug, found["bold-eagle.md"].agent_id) == ("bold-eagle", None)
    assert found["bold-eagle.md"].size_bytes == 5
    agent = found["bold-eagle-agent-a1.md"]
    assert (agent.slug, agent.agent_id) == ("bold-eagle", "a1")
