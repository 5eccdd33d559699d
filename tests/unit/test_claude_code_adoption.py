"""Claude Code's own plan file (agents/claude_code/): its directory rule, the transcript, what
may be adopted, and the service adopting it through the adapter."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planmode.agents.claude_code import adoption
from planmode.agents.claude_code.adapter import ClaudeCode
from planmode.agents.claude_code.transcript import TranscriptFacts, read_transcript
from planmode.core import plans
from planmode.core.agents import Adoption, NotAdoptable
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
    found = adoption.plans_directory(project, given, config)
    assert str(found) == expected.replace("PROJECT", str(project)).replace("CONFIG", str(config))


def test_plans_directory_setting_takes_the_first_file_that_sets_it(tmp_path: Path) -> None:
    files = [tmp_path / name for name in ("managed.json", "local.json", "shared.json", "user.json")]
    files[1].write_text("{not json")
    files[2].write_text(json.dumps({"plansDirectory": "shared-plans"}))
    files[3].write_text(json.dumps({"plansDirectory": "user-plans"}))
    assert adoption.plans_directory_setting(files) == "shared-plans"
    files[2].write_text(json.dumps({"plansDirectory": 3}))
    assert adoption.plans_directory_setting(files) == "user-plans"


def test_config_dir_from_the_value_the_environment_or_home() -> None:
    assert adoption.config_dir("/x/cfg") == Path("/x/cfg")
    assert adoption.config_dir(None, {"CLAUDE_CONFIG_DIR": "/y"}) == Path("/y")
    assert adoption.config_dir(None, {}).name == ".claude"


def where(project: Path, config: Path, *settings: str) -> adoption.Where:
    return adoption.Where(project, config, project, settings)


@pytest.mark.parametrize(
    "raw",
    [
        None,
        "",
        "relative/plan.md",
        "CONFIG/plans/../plans/x.md",
        "CONFIG/plans/./x.md",
        "CONFIG/plans/x.txt",
        "CONFIG/plans/.hidden.md",
        "CONFIG/plans/with space.md",
        "CONFIG/plans/CLAUDE.md",  # not slug-shaped
        "CONFIG/plans/README.md",
        "CONFIG/plans/sub/x.md",  # only directly in the config plans directory
        "CONFIG/x.md",
        "/tmp/x.md",
        "CONFIG/plans/x.md\x00",
        # Inside the project: only in a plansDirectory of Claude Code's settings.
        "PROJECT/x.md",
        "PROJECT/src/x.md",
        "PROJECT/guide/x.md",
        "PROJECT/.claude/plans/x.md",
    ],
)
def test_what_claude_code_would_not_write_is_not_adopted(
    project: Path, config: Path, raw: str | None
) -> None:
    given = raw.replace("PROJECT", str(project)).replace("CONFIG", str(config)) if raw else raw
    with pytest.raises(NotAdoptable):
        adoption.check_adoptable(given, where(project, config))


def test_adoptable_paths(project: Path, config: Path) -> None:
    default = config / "plans" / f"{SLUG}.md"
    assert adoption.check_adoptable(str(default), where(project, config)) == default
    configured = where(project, config, "docs/plans", ".claude/plans")
    for directory in ("docs/plans", ".claude/plans"):
        path = project / directory / f"{SLUG}.md"
        assert adoption.check_adoptable(str(path), configured) == path
    # Configured or not, the default stays one Claude Code could use.
    assert adoption.check_adoptable(str(default), configured) == default


@pytest.mark.parametrize(
    ("setting", "why"),
    [
        (".", "project root"),
        ("PROJECT", "project root"),
        (".git/plans", ".git"),
        ("src", "no plans"),  # src/app.py is there
    ],
)
def test_a_plans_directory_a_repository_could_abuse_is_refused(
    project: Path, config: Path, setting: str, why: str
) -> None:
    """A cloned repository's own .claude/settings.json can name any plansDirectory: one that
    is the root, in .git, or among files that are no plans is never where a plan is adopted."""
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("print('hello')\n")
    given = setting.replace("PROJECT", str(project))
    directory = adoption.plans_directory(project, given, config)
    with pytest.raises(NotAdoptable, match=why):
        adoption.check_adoptable(str(directory / f"{SLUG}.md"), where(project, config, given))


def test_a_path_through_a_symlink_is_not_adopted(
    project: Path, config: Path, tmp_path: Path
) -> None:
    (tmp_path / "elsewhere").mkdir()
    (project / "plans").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(NotAdoptable, match="symlink"):
        adoption.check_adoptable(
            str(project / "plans" / f"{SLUG}.md"), where(project, config, "plans")
        )


def test_a_symlinked_dot_claude_plans_is_not_adopted(
    project: Path, config: Path, tmp_path: Path
) -> None:
    """A cloned repository ships .claude/plans as a symlink out of the workspace; the user's
    own settings say plansDirectory .claude/plans."""
    (tmp_path / "outside").mkdir()
    (project / ".claude").mkdir()
    (project / ".claude" / "plans").symlink_to(tmp_path / "outside")
    with pytest.raises(NotAdoptable, match="symlink"):
        adoption.check_adoptable(
            str(project / ".claude" / "plans" / f"{SLUG}.md"),
            where(project, config, ".claude/plans"),
        )


@pytest.mark.parametrize(
    ("raw", "refused"),
    [
        ("PLAN", False),
        ("DIR/SLUG-agent-a1.md", False),  # a subagent's, next to the session's
        ("DIR/SLUG-agent-a1.txt", True),
        ("DIR/other.md", True),
        ("PROJECT/src/SLUG.md", True),  # the same slug elsewhere
        ("PROJECT/CLAUDE.md", True),
        ("DIR/../plans/SLUG.md", False),  # normalised, the same file
        ("relative/SLUG.md", True),
    ],
)
def test_exit_plan_modes_plan_file_path_must_be_the_sessions(
    project: Path, config: Path, raw: str, refused: bool
) -> None:
    plan = config / "plans" / f"{SLUG}.md"
    given = (
        raw.replace("PLAN", str(plan))
        .replace("DIR", str(plan.parent))
        .replace("PROJECT", str(project))
        .replace("SLUG", SLUG)
    )
    reason = plans.exit_path_refusal(given, plan, ClaudeCode.named_by)
    assert (reason is not None) is refused, reason
    if reason is not None:
        assert str(plan) in reason and "transcript" in reason
    # The session's own file (nothing adopted): no subagent's file stands in for it.
    own = plans.exit_path_refusal(str(plan.parent / f"{SLUG}-agent-a1.md"), plan, None)
    assert own is not None


def lines(*entries: dict[str, object]) -> bytes:
    return b"".join(json.dumps(e, separators=(",", ":")).encode() + b"\n" for e in entries)


def test_the_transcript_is_read_on_from_where_it_was_left(tmp_path: Path) -> None:
    transcript = tmp_path / "s.jsonl"
    transcript.write_bytes(lines({"type": "user", "version": "2.1.197", "message": {}}))
    facts = read_transcript(transcript, TranscriptFacts())
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
    facts = read_transcript(transcript, facts)
    assert (facts.slug, facts.plan_file) == (SLUG, plan)
    assert facts.offset == transcript.stat().st_size - len(b'{"type":"assistant","slug":"half-writ')
    # Nothing new: nothing changes.
    assert read_transcript(transcript, facts) == facts
    assert read_transcript(tmp_path / "missing.jsonl", facts) == facts


def test_the_adopted_file_comes_from_the_attachment_else_the_slug(
    project: Path, config: Path
) -> None:
    plan = config / "plans" / f"{SLUG}.md"
    facts = TranscriptFacts(slug=SLUG, plan_file=str(plan))
    found = adoption.adopted_plan_file(facts, where(project, config))
    assert found == Adoption(plan, adoption.FROM_ATTACHMENT)
    slug_only = TranscriptFacts(slug=SLUG)
    assert adoption.adopted_plan_file(slug_only, where(project, config, "plans")) == Adoption(
        project / "plans" / f"{SLUG}.md",
        adoption.FROM_SLUG,
    )
    assert adoption.adopted_plan_file(TranscriptFacts(), where(project, config)) is None
    # The path alone is not enough: the slug that must be its name comes with it.
    path_only = TranscriptFacts(plan_file=str(plan))
    assert adoption.adopted_plan_file(path_only, where(project, config)) is None
    other = TranscriptFacts(slug="another-slug", plan_file=str(plan))
    with pytest.raises(NotAdoptable, match="slug"):
        adoption.adopted_plan_file(other, where(project, config))
    for bad in ("../../etc/x", "CLAUDE", "README"):
        with pytest.raises(NotAdoptable):
            adoption.adopted_plan_file(TranscriptFacts(slug=bad), where(project, config))


# -- the service ----------------------------------------------------------------------------
def learn(
    service: PlanModeService, session: Session, transcript: str, project: str, config: str
) -> str | None:
    """What the LSP layer does for a call of Claude Code's hook while the session plans."""
    call = service.agent(ClaudeCode).call(service.root, transcript, project, config)
    return service.learn_plan_file(session, call)


def planning(project: Path) -> tuple[PlanModeService, Session]:
    service = PlanModeService(project, agents=(ClaudeCode(),))
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
    learn(service, session, str(transcript), str(project), str(config))
    assert service.plan_path(session) == plan
    assert service.plan_path(session, "a1") == plan.parent / f"{SLUG}-agent-a1.md"
    assert service.state(session).plan_slug == SLUG
    assert service.is_plan_file(plan) and not service.is_plan_file(plan.with_name("x.md"))
    write = service.check_tool(session, "Write", {"file_path": str(plan)})
    assert (write.behavior, write.rule) == ("allow", "plan.planFile")
    assert service.check_tool(session, "Write", {"file_path": str(own)}).behavior == "deny"
    # Saved with the session: a new server knows it.
    again = PlanModeService(project, agents=(ClaudeCode(),)).require_session("cc-1")
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
    learn(service, session, str(transcript), str(outside), str(config))
    assert service.plan_path(session) == project / "docs" / f"{SLUG}.md"


def test_exit_plan_modes_path_never_chooses_the_plan_file(
    project: Path, config: Path, tmp_path: Path
) -> None:
    service, session = planning(project)
    own = service.plan_path(session)
    # Nothing adopted: only the session's own file agrees.
    for chosen in ("/etc/passwd.md", str(project / "CLAUDE.md"), str(project / "src" / "x.md")):
        assert service.exit_refusal(session, chosen) is not None
        assert service.plan_path(session) == own
    assert service.exit_refusal(session, str(own)) is None
    # Adopted from the transcript: that file, and never the same slug elsewhere.
    transcript = tmp_path / "t.jsonl"
    transcript.write_bytes(lines({"type": "user", "slug": SLUG}))
    learn(service, session, str(transcript), str(project), str(config))
    plan = config / "plans" / f"{SLUG}.md"
    assert service.exit_refusal(session, str(plan)) is None
    elsewhere = str(project / "src" / f"{SLUG}.md")
    assert str(plan) in (service.exit_refusal(session, elsewhere) or "")
    assert service.plan_path(session) == plan
    with pytest.raises(InvalidParams, match="transcriptPath"):
        ClaudeCode().call(project, "relative.jsonl")


def test_a_refused_plan_file_denies_every_write_and_tells_once(
    project: Path, config: Path, tmp_path: Path
) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"plansDirectory": "."}))
    service, session = planning(project)
    transcript = tmp_path / "t.jsonl"
    transcript.write_bytes(lines({"type": "user", "slug": SLUG}))
    warning = learn(service, session, str(transcript), str(project), str(config))
    assert warning is not None and "project root" in warning
    assert learn(service, session, str(transcript), str(project), str(config)) is None
    assert session.plan_file is None
    for target in (project / f"{SLUG}.md", service.plan_path(session)):
        denied = service.check_tool(session, "Write", {"file_path": str(target)})
        assert denied.behavior == "deny"
        assert "project root" in (denied.message or "")
    assert "project root" in (service.exit_refusal(session, None) or "")


def test_a_saved_adoption_is_checked_again_on_load(
    project: Path, config: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session file is in the workspace: a repository can ship one naming CLAUDE.md."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    service, session = planning(project)
    transcript = tmp_path / "t.jsonl"
    transcript.write_bytes(lines({"type": "user", "slug": SLUG}))
    learn(service, session, str(transcript), str(project), str(config))
    saved = service.store.path(session.id)
    data = json.loads(saved.read_text())
    assert (data["planFile"], data["planFileSource"]) == (
        str(config / "plans" / f"{SLUG}.md"),
        adoption.FROM_SLUG,
    )
    again = PlanModeService(project, agents=(ClaudeCode(),)).require_session(session.id)
    assert (again.plan_file, again.plan_file_source) == (session.plan_file, adoption.FROM_SLUG)
    (project / "src").mkdir()
    for forged, slug in (
        (str(project / "CLAUDE.md"), "CLAUDE"),
        (str(project / "src" / f"{SLUG}.md"), SLUG),
        (str(project / "notes.md"), SLUG),
    ):
        Path(forged).write_text("# not a plan\n")
        saved.write_text(json.dumps({**data, "planFile": forged, "planSlug": slug}))
        fresh = PlanModeService(project, agents=(ClaudeCode(),))
        assert fresh.list_plans() == [], forged  # not listed as a plan either
        loaded = fresh.require_session(session.id)
        assert loaded.plan_file is None, forged
        assert fresh.plan_path(loaded).parent == fresh.plans_directory
        assert fresh.check_tool(loaded, "Write", {"file_path": forged}).behavior == "deny"
