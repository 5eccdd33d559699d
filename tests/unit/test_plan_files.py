"""Which files are plan files of a workspace: one rule (``plans.find_plan_file``), read the way
enforcement reads a path (both readings of it must agree), used by the service for
diagnostics, review requests, agent edits and teammates' plans."""

from __future__ import annotations

from pathlib import Path

import pytest

from planmode.agents.claude_code.adapter import ClaudeCode
from planmode.core.paths import UnsafePath, agreed_path
from planmode.core.plans import find_plan_file, is_plan_file, list_plan_files
from planmode.core.service import PlanModeService
from planmode.core.settings import Settings

SLUG = "brave-otter"


@pytest.fixture
def plans_dir(root: Path) -> Path:
    directory = root / ".claude" / "plans"
    directory.mkdir(parents=True)
    (directory / f"{SLUG}.md").write_text("# Plan\n")
    return directory


def found(raw: object, root: Path, directory: Path, adopted: tuple[Path, ...] = ()) -> Path | None:
    return find_plan_file(raw, root, directory, adopted)


@pytest.mark.parametrize(
    "raw",
    [
        f".claude/plans/{SLUG}.md",
        f"./src/../.claude/plans/{SLUG}.md",  # ".." with no symlink before it
        f".claude/plans/../plans/{SLUG}.md",
        ".claude/plans/not-yet-written.md",  # a plan need not exist yet
        f".claude/plans/{SLUG}-agent-a1.md",
    ],
)
def test_a_md_file_directly_in_the_plans_directory_is_a_plan_file(
    root: Path, plans_dir: Path, raw: str
) -> None:
    expected = plans_dir / Path(raw).name
    assert found(raw, root, plans_dir) == expected
    assert found(str(root / raw), root, plans_dir) == expected
    assert found(root / raw, root, plans_dir) == expected  # a Path as well as a str


def test_any_visible_md_in_the_plans_directory_counts_as_listing_counts_it(
    root: Path, plans_dir: Path
) -> None:
    # listPlans shows every visible .md there, so review and diagnostics treat it as a plan.
    (plans_dir / "notes.md").write_text("not written by an agent\n")
    (plans_dir / ".draft.md").write_text("hidden\n")
    (plans_dir / ".brave-otter.md.x1.tmp").write_text("an atomic write in flight\n")
    (plans_dir / "todo.txt").write_text("not markdown\n")
    listed = {info.path for info in list_plan_files(plans_dir)}
    assert listed == {plans_dir / f"{SLUG}.md", plans_dir / "notes.md"}
    for entry in plans_dir.iterdir():
        assert is_plan_file(entry, root, plans_dir) is (entry in listed), entry.name


@pytest.mark.parametrize(
    "raw",
    [
        "src/app.md",  # outside the plans directory
        f".claude/plans/sub/{SLUG}.md",  # below it, not in it
        f".claude/{SLUG}.md",
        f".claude/plans/{SLUG}.txt",
        ".claude/plans/.md",
        ".claude/plans/",  # a directory
        ".claude/plans",
        "",
        "  ",
        "a\x00b.md",
        None,
        7,
    ],
)
def test_anything_else_is_no_plan_file(root: Path, plans_dir: Path, raw: object) -> None:
    (plans_dir / "sub").mkdir()
    assert found(raw, root, plans_dir) is None
    assert is_plan_file(raw, root, plans_dir) is False


def test_a_symlinked_plans_directory_holds_plans_under_both_names(root: Path) -> None:
    real = root / "docs" / "plans"
    real.mkdir(parents=True)
    (root / "plans-link").symlink_to(real, target_is_directory=True)
    service = PlanModeService(root, Settings(plansDirectory="plans-link"))
    assert service.plans_directory == real  # resolved once, with the settings
    for raw in (f"plans-link/{SLUG}.md", f"docs/plans/{SLUG}.md", str(root / "plans-link/x.md")):
        assert service.find_plan_file(raw) == real / Path(raw).name, raw
        assert service.is_plan_file(raw)
    # The kernel reads plans-link/.. as docs/, the text as the root: two files, no plan.
    assert service.find_plan_file(f"plans-link/../docs/plans/{SLUG}.md") is None


def test_a_path_whose_two_readings_differ_is_no_plan_file(root: Path, plans_dir: Path) -> None:
    # into-plans -> .claude/plans/sub: the kernel reads into-plans/.. as the plans directory,
    # a tool that folds ".." first reads it as the root.
    sub = plans_dir / "sub"
    sub.mkdir()
    (root / "into-plans").symlink_to(sub, target_is_directory=True)
    raw = f"into-plans/../{SLUG}.md"
    assert (root / "into-plans" / ".." / f"{SLUG}.md").resolve() == plans_dir / f"{SLUG}.md"
    with pytest.raises(UnsafePath, match=r"when '\.\.' is removed"):
        agreed_path(raw, root)
    assert found(raw, root, plans_dir) is None
    # The other way round: the text names the plan, the kernel a file in src/.
    pkg = root / "src" / "pkg"
    pkg.mkdir(parents=True)
    (plans_dir / "out").symlink_to(pkg, target_is_directory=True)
    assert found(f".claude/plans/out/../{SLUG}.md", root, plans_dir) is None


def test_a_file_counts_where_its_symlinks_lead(root: Path, plans_dir: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("not a plan\n")
    (plans_dir / "escape.md").symlink_to(outside)
    (plans_dir / "alias.md").symlink_to(plans_dir / f"{SLUG}.md")
    (root / "plan.md").symlink_to(plans_dir / f"{SLUG}.md")
    assert found(".claude/plans/escape.md", root, plans_dir) is None
    assert found(".claude/plans/alias.md", root, plans_dir) == plans_dir / f"{SLUG}.md"
    assert found("plan.md", root, plans_dir) == plans_dir / f"{SLUG}.md"


def test_a_plans_directory_replaced_by_a_symlink_later_holds_no_plans(
    root: Path, plans_dir: Path, tmp_path: Path
) -> None:
    service = PlanModeService(root)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    moved = root / ".claude" / "moved"
    plans_dir.rename(moved)
    plans_dir.symlink_to(elsewhere, target_is_directory=True)
    assert service.find_plan_file(f".claude/plans/{SLUG}.md") is None


def test_an_adopted_plan_file_and_its_agents_files_are_plan_files(
    root: Path, plans_dir: Path, tmp_path: Path
) -> None:
    config_plans = tmp_path / "config" / "plans"
    config_plans.mkdir(parents=True)
    own = config_plans / "claude-slug.md"
    adopted = (own,)
    assert found(own, root, plans_dir, adopted) == own
    agent = config_plans / "claude-slug-agent-a1.md"
    assert found(agent, root, plans_dir, adopted) == agent
    for other in ("other.md", "claude-slug.txt", "claude-slugs.md"):
        assert found(config_plans / other, root, plans_dir, adopted) is None, other
    assert found(own, root, plans_dir) is None  # not adopted: not a plan file
    # Reached through a symlinked directory, it is still the adopted file.
    (tmp_path / "link").symlink_to(config_plans, target_is_directory=True)
    assert found(tmp_path / "link" / "claude-slug.md", root, plans_dir, adopted) == own


def test_the_service_knows_claude_codes_adopted_plan_file(root: Path, tmp_path: Path) -> None:
    config = tmp_path / "config"
    (config / "plans").mkdir(parents=True)
    transcript = tmp_path / "t.jsonl"
    transcript.write_text('{"type": "user", "slug": "claude-slug"}\n')
    service = PlanModeService(root, agents=(ClaudeCode(),))
    session = service.require_session("cc-1")
    plan = config / "plans" / "claude-slug.md"
    assert not service.is_plan_file(plan)
    call = service.agent(ClaudeCode).call(service.root, str(transcript), str(root), str(config))
    service.learn_plan_file(session, call)
    assert service.plan_path(session) == plan
    assert service.is_plan_file(plan)
    assert service.is_plan_file(config / "plans" / "claude-slug-agent-x.md")
    assert not service.is_plan_file(config / "plans" / "another.md")
    # The workspace's own plans directory still holds plan files.
    assert service.is_plan_file(root / ".claude" / "plans" / "x.md")
