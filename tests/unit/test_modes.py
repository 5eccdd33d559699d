"""Mode transitions: entering and leaving plan mode, and auto mode during plan
(docs/protocol.md §2, "Transitions")."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planmode.core.modes import (
    AutoModeSettings,
    ModeState,
    PermissionMode,
    enter_plan_mode,
    exit_plan_mode,
    gate_fallback_warning,
    is_dangerous_rule,
    parse_rule,
    prepare_context_for_plan_mode,
    restore_dangerous_rules,
    set_mode,
    strip_dangerous_rules,
    transition_plan_auto_mode,
)

PLAN_AUTO = AutoModeSettings(gate_enabled=True, use_during_plan=True)
NO_PLAN_AUTO = AutoModeSettings(gate_enabled=True, use_during_plan=False)
GATE_OFF = AutoModeSettings(gate_enabled=False, use_during_plan=True)

SAFE = ("Read", "Bash(ls:*)", "Bash(git status)", "Edit(src/**)")
DANGEROUS = ("Bash(python:*)", "Agent", "Bash")
RULES = SAFE + DANGEROUS


def state_in(mode: PermissionMode) -> ModeState:
    """A realistic state for ``mode``: in auto, dangerous rules are already held aside."""
    if mode == "auto":
        return ModeState(
            mode="auto", auto_mode_active=True, allow_rules=SAFE, stripped_dangerous_rules=DANGEROUS
        )
    return ModeState(mode=mode, allow_rules=RULES)


# -- rules ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("rule", "dangerous"),
    [
        ("Bash", True),
        ("Bash()", True),
        ("Bash(*)", True),
        ("Bash(python:*)", True),
        ("Bash(python3 -c 'x')", True),
        ("Bash(/usr/bin/node:*)", True),
        ("Bash(sudo rm -rf /)", True),
        ("PowerShell(pwsh:*)", True),
        ("Agent", True),
        ("Task(Explore)", True),
        ("Bash(ls:*)", False),
        ("Bash(git status)", False),
        ("Bash(npm test)", False),
        ("Read", False),
        ("Edit(src/**)", False),
        ("not a rule!", False),
    ],
)
def test_is_dangerous_rule(rule: str, dangerous: bool) -> None:
    assert is_dangerous_rule(rule) is dangerous


def test_parse_rule_splits_tool_and_content() -> None:
    assert parse_rule("Bash(npm run test:*)") == ("Bash", "npm run test:*")
    assert parse_rule("Read") == ("Read", None)
    assert parse_rule("(nope)") is None


def test_strip_then_restore_puts_every_rule_back_once() -> None:
    stripped = strip_dangerous_rules(ModeState(allow_rules=RULES))
    assert stripped.allow_rules == SAFE
    assert stripped.stripped_dangerous_rules == DANGEROUS
    # Stripping twice must not lose or duplicate what is held.
    again = strip_dangerous_rules(stripped)
    assert again.stripped_dangerous_rules == DANGEROUS
    restored = restore_dangerous_rules(again)
    assert sorted(restored.allow_rules) == sorted(RULES)
    assert restored.stripped_dangerous_rules is None


def test_strip_with_nothing_dangerous_holds_nothing() -> None:
    assert strip_dangerous_rules(ModeState(allow_rules=SAFE)).stripped_dangerous_rules is None


# -- prepareContextForPlanMode ----------------------------------------------------------------
# (mode before, auto settings, auto active after, allow rules after, held after, auto-exit flag)
PREPARE_TABLE = [
    pytest.param("auto", PLAN_AUTO, True, SAFE, DANGEROUS, False, id="auto+planAuto-keeps-auto"),
    pytest.param("auto", NO_PLAN_AUTO, False, RULES, None, True, id="auto-noPlanAuto-restores"),
    pytest.param("auto", GATE_OFF, False, RULES, None, True, id="auto-gateOff-restores"),
    pytest.param("default", PLAN_AUTO, True, SAFE, DANGEROUS, False, id="default+planAuto"),
    pytest.param("acceptEdits", PLAN_AUTO, True, SAFE, DANGEROUS, False, id="acceptEdits+planAuto"),
    pytest.param("bypassPermissions", PLAN_AUTO, False, RULES, None, False, id="bypass+planAuto"),
    pytest.param("default", NO_PLAN_AUTO, False, RULES, None, False, id="default-noPlanAuto"),
    pytest.param("acceptEdits", NO_PLAN_AUTO, False, RULES, None, False, id="acceptEdits-no"),
    pytest.param("bypassPermissions", NO_PLAN_AUTO, False, RULES, None, False, id="bypass-no"),
    pytest.param("default", GATE_OFF, False, RULES, None, False, id="default-gateOff"),
]


@pytest.mark.parametrize(("before", "auto", "active", "rules", "held", "auto_exit"), PREPARE_TABLE)
def test_prepare_context_for_plan_mode_table(
    before: PermissionMode,
    auto: AutoModeSettings,
    active: bool,
    rules: tuple[str, ...],
    held: tuple[str, ...] | None,
    auto_exit: bool,
) -> None:
    prepared = prepare_context_for_plan_mode(state_in(before), auto)
    assert prepared.pre_plan_mode == before
    # prepare only records; applying mode=plan is the caller's step (enter_plan_mode).
    assert prepared.mode == before
    assert prepared.auto_mode_active is active
    assert sorted(prepared.allow_rules) == sorted(rules)
    assert prepared.stripped_dangerous_rules == held
    assert prepared.needs_auto_mode_exit_attachment is auto_exit


@pytest.mark.parametrize("auto", [PLAN_AUTO, NO_PLAN_AUTO])
def test_prepare_context_in_plan_returns_it_unchanged(auto: AutoModeSettings) -> None:
    state = ModeState(mode="plan", pre_plan_mode="acceptEdits", allow_rules=RULES)
    assert prepare_context_for_plan_mode(state, auto) is state


@pytest.mark.parametrize("before", ["default", "acceptEdits", "auto", "bypassPermissions"])
def test_enter_plan_mode_sets_plan_and_records_pre_plan_mode(before: PermissionMode) -> None:
    entered = enter_plan_mode(state_in(before), NO_PLAN_AUTO)
    assert entered.mode == "plan"
    assert entered.pre_plan_mode == before


def test_enter_plan_mode_clears_a_pending_exit_attachment() -> None:
    state = ModeState(mode="default", needs_plan_mode_exit_attachment=True)
    assert enter_plan_mode(state, NO_PLAN_AUTO).needs_plan_mode_exit_attachment is False


def test_enter_plan_mode_twice_keeps_the_first_pre_plan_mode() -> None:
    entered = enter_plan_mode(ModeState(mode="acceptEdits"), NO_PLAN_AUTO)
    assert enter_plan_mode(entered, NO_PLAN_AUTO) == entered


# -- exit -------------------------------------------------------------------------------------
@pytest.mark.parametrize("before", ["default", "acceptEdits", "bypassPermissions", "auto"])
def test_exit_restores_pre_plan_mode_and_sets_the_flags(before: PermissionMode) -> None:
    planning = enter_plan_mode(state_in(before), NO_PLAN_AUTO)
    transition = exit_plan_mode(planning, NO_PLAN_AUTO)
    after = transition.state
    assert after.mode == before
    assert after.pre_plan_mode is None
    assert after.has_exited_plan_mode is True
    assert after.needs_plan_mode_exit_attachment is True
    assert transition.warnings == ()


def test_exit_without_pre_plan_mode_goes_to_default() -> None:
    after = exit_plan_mode(ModeState(mode="plan"), NO_PLAN_AUTO).state
    assert after.mode == "default"


def test_exit_outside_plan_changes_nothing() -> None:
    state = ModeState(mode="acceptEdits", pre_plan_mode="default")
    transition = exit_plan_mode(state, NO_PLAN_AUTO)
    assert transition.state is state
    assert transition.warnings == ()


def test_exit_to_auto_with_the_gate_off_falls_back_to_default_with_a_warning() -> None:
    planning = enter_plan_mode(state_in("auto"), NO_PLAN_AUTO)
    transition = exit_plan_mode(planning, GATE_OFF)
    assert transition.state.mode == "default"
    assert transition.state.auto_mode_active is False
    assert transition.warnings == (gate_fallback_warning(),)
    assert "plan exit -> default" in transition.warnings[0]
    # Nothing dangerous stays held aside once auto is off.
    assert sorted(transition.state.allow_rules) == sorted(RULES)


def test_exit_to_auto_reactivates_auto_and_strips_again() -> None:
    planning = enter_plan_mode(state_in("auto"), NO_PLAN_AUTO)
    assert sorted(planning.allow_rules) == sorted(RULES)
    after = exit_plan_mode(planning, NO_PLAN_AUTO).state
    assert after.mode == "auto"
    assert after.auto_mode_active is True
    assert after.allow_rules == SAFE
    assert after.stripped_dangerous_rules == DANGEROUS


@pytest.mark.parametrize("before", ["default", "acceptEdits"])
def test_stripped_rules_come_back_on_exit_to_a_non_auto_mode(before: PermissionMode) -> None:
    planning = enter_plan_mode(state_in(before), PLAN_AUTO)
    assert planning.auto_mode_active is True
    assert planning.allow_rules == SAFE
    after = exit_plan_mode(planning, PLAN_AUTO).state
    assert after.mode == before
    assert after.auto_mode_active is False
    assert after.stripped_dangerous_rules is None
    assert sorted(after.allow_rules) == sorted(RULES)
    # Auto ran during plan and is now off: the agent must be told (auto-mode exit).
    assert after.needs_auto_mode_exit_attachment is True


def test_exit_to_the_mode_the_approver_chose() -> None:
    planning = enter_plan_mode(ModeState(mode="default"), NO_PLAN_AUTO)
    after = exit_plan_mode(planning, NO_PLAN_AUTO, chosen="acceptEdits").state
    assert after.mode == "acceptEdits"
    assert after.pre_plan_mode is None


def test_exit_never_lands_in_plan() -> None:
    state = ModeState(mode="plan", pre_plan_mode="plan")
    assert exit_plan_mode(state, NO_PLAN_AUTO).state.mode == "default"


@given(
    before=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]),
    rules=st.lists(st.sampled_from(RULES), unique=True),
    use_during_plan=st.booleans(),
    gate=st.booleans(),
)
def test_enter_then_exit_gives_back_the_mode_and_every_rule(
    before: PermissionMode, rules: list[str], use_during_plan: bool, gate: bool
) -> None:
    auto = AutoModeSettings(gate_enabled=gate, use_during_plan=use_during_plan)
    start = ModeState(mode=before, allow_rules=tuple(rules))
    after = exit_plan_mode(enter_plan_mode(start, auto), auto).state
    assert after.mode == before
    assert sorted(after.allow_rules) == sorted(rules)
    assert after.stripped_dangerous_rules is None
    assert after.auto_mode_active is False


# -- the user's own switch --------------------------------------------------------------------
def test_set_mode_same_mode_is_a_no_op() -> None:
    state = ModeState(mode="acceptEdits")
    assert set_mode(state, "acceptEdits", NO_PLAN_AUTO).state is state


def test_set_mode_into_plan_is_the_enter_transition() -> None:
    after = set_mode(ModeState(mode="acceptEdits"), "plan", NO_PLAN_AUTO).state
    assert after.mode == "plan"
    assert after.pre_plan_mode == "acceptEdits"


def test_set_mode_out_of_plan_is_an_exit_to_the_chosen_mode() -> None:
    planning = enter_plan_mode(ModeState(mode="default"), NO_PLAN_AUTO)
    after = set_mode(planning, "bypassPermissions", NO_PLAN_AUTO).state
    assert after.mode == "bypassPermissions"
    assert after.pre_plan_mode is None
    assert after.needs_plan_mode_exit_attachment is True


def test_set_mode_into_and_out_of_auto_strips_and_restores() -> None:
    into = set_mode(ModeState(mode="default", allow_rules=RULES), "auto", NO_PLAN_AUTO).state
    assert into.mode == "auto"
    assert into.auto_mode_active is True
    assert into.allow_rules == SAFE
    out = set_mode(into, "acceptEdits", NO_PLAN_AUTO).state
    assert out.mode == "acceptEdits"
    assert out.auto_mode_active is False
    assert out.needs_auto_mode_exit_attachment is True
    assert sorted(out.allow_rules) == sorted(RULES)


# -- transitionPlanAutoMode -------------------------------------------------------------------
def test_transition_outside_plan_changes_nothing() -> None:
    state = ModeState(mode="default", allow_rules=RULES)
    assert transition_plan_auto_mode(state, PLAN_AUTO) is state


def test_transition_never_activates_auto_after_bypass() -> None:
    planning = enter_plan_mode(state_in("bypassPermissions"), NO_PLAN_AUTO)
    assert transition_plan_auto_mode(planning, PLAN_AUTO) is planning


def test_transition_want_and_not_have_turns_auto_on_and_strips() -> None:
    planning = enter_plan_mode(state_in("default"), NO_PLAN_AUTO)
    after = transition_plan_auto_mode(planning, PLAN_AUTO)
    assert after.mode == "plan"
    assert after.auto_mode_active is True
    assert after.allow_rules == SAFE
    assert after.stripped_dangerous_rules == DANGEROUS


def test_transition_want_and_have_strips_rules_added_since() -> None:
    planning = enter_plan_mode(state_in("default"), PLAN_AUTO)
    added = replace(planning, allow_rules=(*planning.allow_rules, "Bash(node:*)"))
    after = transition_plan_auto_mode(added, PLAN_AUTO)
    assert after.auto_mode_active is True
    assert "Bash(node:*)" not in after.allow_rules
    assert after.stripped_dangerous_rules is not None
    assert set(after.stripped_dangerous_rules) == {*DANGEROUS, "Bash(node:*)"}


def test_transition_not_want_and_have_turns_auto_off_and_restores() -> None:
    planning = enter_plan_mode(state_in("default"), PLAN_AUTO)
    after = transition_plan_auto_mode(planning, NO_PLAN_AUTO)
    assert after.mode == "plan"
    assert after.pre_plan_mode == "default"
    assert after.auto_mode_active is False
    assert after.needs_auto_mode_exit_attachment is True
    assert sorted(after.allow_rules) == sorted(RULES)
    assert after.stripped_dangerous_rules is None


def test_transition_neither_want_nor_have_changes_nothing() -> None:
    planning = enter_plan_mode(state_in("default"), NO_PLAN_AUTO)
    assert transition_plan_auto_mode(planning, NO_PLAN_AUTO) is planning
