"""Claude Code's own plan file: its directory rule, the transcript, and what may be adopted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planmode.core import claude_code
from planmode.core.claude_code import NotAdoptable, TranscriptFacts
from planmode.core.errors import InvalidParams
from planmode.core.service import PlanModeService
from planmode.core.session import Session

SLUG = "plan-a-greeting-optimized-sunset"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = (tmp_path / "project").resolve()
    root.mkdir()
    return root


@pytest.fixture
def config(tmp_path: Path) -> Path:
    return (tmp_path / "home" / ".claude").resolve()


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        (None, "CONFIG/plans"),
        ("", "CONFIG/plans"),
        ("plans", "PROJECT/plans"),
        ("./docs/plans", "PROJECT/docs/plans"),
        (".", "PROJECT"),
        ("docs/../plans", "PROJECT/plans"),
        ("../elsewhere", "CONFIG/plans"),
        ("/tmp/plans", "CONFIG/plans"),
        ("PROJECT/sub", "PROJECT/sub"),
        ("PROJECTX", "CONFIG/plans"),  # a sibling sharing the prefix is outside
    ],
)
def test_plans_directory_follows_claude_codes_rule(
    project: Path, config: Path, setting: str | None, expected: str
) -> None:
    given = setting.replace("PROJECT", str(project)) if setting else setting
    found = claude_code.plans_directory(project, given, config)
    assert str(found) == expected.replace("PROJECT", str(project)).replace("CONFIG", str(config))


def test_plans_directory_setting_takes_the_first_file_that_sets_it(tmp_path: Path) -> None:
    files = [tmp_path / name for name in ("managed.json", "local.json", "shared.json", "user.json")]
    files[1].write_text("{not json")
    files[2].write_text(json.dumps({"plansDirectory": "shared-plans"}))
    files[3].write_text(json.dumps({"plansDirectory": "user-plans"}))
    assert claude_code.plans_directory_setting(files) == "shared-plans"
    files[2].write_text(json.dumps({"plansDirectory": 3}))
    assert claude_code.plans_directory_setting(files) == "user-plans"


def test_config_dir_from_the_value_the_environment_or_home() -> None:
    assert claude_code.config_dir("/x/cfg") == Path("/x/cfg")
    assert claude_code.config_dir(None, {"CLAUDE_CONFIG_DIR": "/y"}) == Path("/y")
    assert claude_code.config_dir(None, {}).name == ".claude"


@pytest.mark.parametrize(
    "raw",
    [
        None,
        "",
        "relative/plan.md",
        "PROJECT/../x.md",
        "PROJECT/./x.md",
        "PROJECT/x.txt",
        "PROJECT/.hidden.md",
        "PROJECT/with space.md",
        "CONFIG/plans/sub/x.md",  # only directly in the config plans directory
        "CONFIG/x.md",
        "/tmp/x.md",
        "PROJECT/x.md\x00",
    ],
)
def test_what_claude_code_would_not_write_is_not_adopted(
    project: Path, config: Path, raw: str | None
) -> None:
    given = raw.replace("PROJECT", str(project)).replace("CONFIG", str(config)) if raw else raw
    with pytest.raises(NotAdoptable):
        claude_code.check_adoptable(given, project, config)


def test_adoptable_paths(project: Path, config: Path) -> None:
    for path in (config / "plans" / f"{SLUG}.md", project / "docs" / f"{SLUG}.md"):
        assert claude_code.check_adoptable(str(path), project, config) == path


def test_a_path_through_a_symlink_is_not_adopted(
    project: Path, config: Path, tmp_path: Path
) -> None:
    (tmp_path / "elsewhere").mkdir()
    (project / "plans").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(NotAdoptable, match="symlink"):
        claude_code.check_adoptable(str(project / "plans" / f"{SLUG}.md"), project, config)


def lines(*entries: dict[str, object]) -> bytes:
    return b"".join(json.dumps(e, separators=(",", ":")).encode() + b"\n" for e in entries)


def test_the_transcript_is_read_on_from_where_it_was_left(tmp_path: Path) -> None:
    transcript = tmp_path / "s.jsonl"
    transcript.write_bytes(lines({"type": "user", "version": "2.1.197", "message": {}}))
    facts = claude_code.read_transcript(transcript, TranscriptFacts())
    assert (facts.slug, facts.plan_file) == (None, None)
    assert facts.offset == transcript.stat().st_size
    plan = "/h/.claude/plans/" + SLUG + ".md"
    with transcript.open("ab") as stream:
        stream.write(
            lines(
                {
                    "type": "attachment",
                    "slug": SLUG,
                    "attachment": {"type": "plan_mode", "isSubAgent": False, "planFilePath": plan},
                },
                {
                    "type": "attachment",
                    "slug": SLUG,
                    "attachment": {
                        "type": "plan_mode",
                        "isSubAgent": True,
                        "planFilePath": "/h/.claude/plans/sub-agent-a.md",
                    },
                },
            )
            + b'{"type":"assistant","slug":"half-writ'  # a line still being written
        )
    facts = claude_code.read_transcript(transcript, facts)
    assert (facts.slug, facts.plan_file) == (SLUG, plan)
    assert facts.offset == transcript.stat().st_size - len(b'{"type":"assistant","slug":"half-writ')
    # Nothing new: nothing changes.
    assert claude_code.read_transcript(transcript, facts) == facts
    assert claude_code.read_transcript(tmp_path / "missing.jsonl", facts) == facts


def test_the_adopted_file_comes_from_the_attachment_else_the_slug(
    project: Path, config: Path
) -> None:
    plan = config / "plans" / f"{SLUG}.md"
    facts = TranscriptFacts(slug=SLUG, plan_file=str(plan))
    assert claude_code.adopted_plan_file(facts, project, config, None) == plan
    slug_only = TranscriptFacts(slug=SLUG)
    assert claude_code.adopted_plan_file(slug_only, project, config, "plans") == (
        project / "plans" / f"{SLUG}.md"
    )
    assert claude_code.adopted_plan_file(TranscriptFacts(), project, config, None) is None
    other = TranscriptFacts(slug="another-slug", plan_file=str(plan))
    with pytest.raises(NotAdoptable, match="slug"):
        claude_code.adopted_plan_file(other, project, config, None)
    with pytest.raises(NotAdoptable):
        claude_code.adopted_plan_file(TranscriptFacts(slug="../../etc/x"), project, config, None)


# -- the service ----------------------------------------------------------------------------
def planning(project: Path) -> tuple[PlanModeService, Session]:
    service = PlanModeService(project)
    session = service.require_session("cc-1")
    service.set_mode(session, "plan")
    return service, session


def test_a_session_adopts_claude_codes_file_for_everything(
    project: Path, config: Path, tmp_path: Path
) -> None:
    service, session = planning(project)
    own = service.plan_path(session)
    transcript = tmp_path / "t.jsonl"
    plan = config / "plans" / f"{SLUG}.md"
    transcript.write_bytes(lines({"type": "user", "slug": SLUG}))
    service.learn_claude_code(session, str(transcript), str(project), str(config))
    assert service.plan_path(session) == plan
    assert service.plan_path(session, "a1") == plan.parent / f"{SLUG}-agent-a1.md"
    assert service.state(session)["planSlug"] == SLUG
    assert service.is_plan_file(plan) and not service.is_plan_file(plan.with_name("x.md"))
    write = service.check_tool(session, "Write", {"file_path": str(plan)})
    assert (write.behavior, write.rule) == ("allow", "plan.planFile")
    assert service.check_tool(session, "Write", {"file_path": str(own)}).behavior == "deny"
    # Saved with the session: a new server knows it.
    again = PlanModeService(project).require_session("cc-1")
    assert again.plan_file == plan


def test_the_project_dir_must_be_the_workspace(project: Path, config: Path, tmp_path: Path) -> None:
    service, session = planning(project)
    transcript = tmp_path / "t.jsonl"
    transcript.write_bytes(lines({"type": "user", "slug": SLUG}))
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"plansDirectory": "docs"}))
    outside = tmp_path / "other"
    outside.mkdir()
    # A project dir outside the workspace is not believed: the workspace root is used.
    service.learn_claude_code(session, str(transcript), str(outside), str(config))
    assert service.plan_path(session) == project / "docs" / f"{SLUG}.md"


def test_a_bad_exit_path_keeps_the_session_file(project: Path, config: Path) -> None:
    service, session = planning(project)
    own = service.plan_path(session)
    service.learn_claude_code(session, None, None, str(config), "/etc/passwd.md")
    assert service.plan_path(session) == own
    with pytest.raises(InvalidParams, match="transcriptPath"):
        service.learn_claude_code(session, "relative.jsonl")
