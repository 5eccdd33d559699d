"""Permission modes and the transitions into and out of plan mode.

Everything here is a pure function over an immutable :class:`ModeState`; the caller owns
persistence and notifications. The transitions are those of docs/protocol.md §2
("Transitions"): entering records ``prePlanMode`` and starts or stops the auto-mode classifier;
leaving restores the chosen or previous mode (``default`` when that is auto and the gate is
off); settings changed while planning start or stop the classifier to match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Literal, get_args

PermissionMode = Literal["default", "acceptEdits", "plan", "auto", "bypassPermissions"]
PERMISSION_MODES: tuple[PermissionMode, ...] = get_args(PermissionMode)


@dataclass(frozen=True)
class ModeState:
    """One session's permission context plus the plan-mode bookkeeping flags."""

    mode: PermissionMode = "default"
    pre_plan_mode: PermissionMode | None = None
    # Whether the auto-mode classifier is active (it runs during plan only when autoModeGate
    # and useAutoModeDuringPlan are both on).
    auto_mode_active: bool = False
    allow_rules: tuple[str, ...] = ()
    # Dangerous allow rules taken out while auto mode is active; None when nothing is held.
    stripped_dangerous_rules: tuple[str, ...] | None = None
    has_exited_plan_mode: bool = False
    needs_plan_mode_exit_attachment: bool = False
    needs_auto_mode_exit_attachment: bool = False


@dataclass(frozen=True)
class AutoModeSettings:
    """The settings that decide whether auto mode may run, and whether it runs in plan."""

    gate_enabled: bool = True
    use_during_plan: bool = False

    @property
    def plan_uses_auto(self) -> bool:
        # hasAutoModeOptIn() && isAutoModeGateEnabled() && getUseAutoModeDuringPlan(): the
        # editor has no separate opt-in, an available gate is the opt-in.
        return self.gate_enabled and self.use_during_plan


@dataclass(frozen=True)
class Transition:
    """The result of a mode change: the new state and what the user should be told."""

    state: ModeState
    warnings: tuple[str, ...] = field(default=())


# Interpreters and launchers: an allow rule that lets one of these run arbitrary code would
# let auto mode's classifier be bypassed, so such rules are held back while it is active.
_CODE_RUNNERS = frozenset(
    {
        "python",
        "python3",
        "python2",
        "node",
        "deno",
        "bun",
        "ruby",
        "perl",
        "php",
        "lua",
        "bash",
        "sh",
        "zsh",
        "fish",
        "dash",
        "ksh",
        "pwsh",
        "powershell",
        "npx",
        "bunx",
        "uvx",
        "pipx",
        "eval",
        "exec",
        "env",
        "xargs",
        "sudo",
        "su",
        "ssh",
        "osascript",
    }
)
_RULE_RE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?\s*$", re.S)


def parse_rule(rule: str) -> tuple[str, str | None] | None:
    """Split a permission rule, ``Tool(content)`` (docs/protocol.md §7); None when it is not
    one."""
    match = _RULE_RE.match(rule)
    if match is None:
        return None
    content = match.group(2)
    return match.group(1), (content.strip() if content is not None else None)


def is_dangerous_rule(rule: str) -> bool:
    """True for allow rules that would let auto mode run arbitrary code unchecked."""
    parsed = parse_rule(rule)
    if parsed is None:
        return False
    tool, content = parsed
    if tool in {"Agent", "Task"}:
        return True
    if tool not in {"Bash", "PowerShell"}:
        return False
    if content is None or content in {"", "*", ":*"}:
        return True
    program = content.split(":", 1)[0].split()[0] if content.split() else ""
    return program.rsplit("/", 1)[-1] in _CODE_RUNNERS


def strip_dangerous_rules(state: ModeState) -> ModeState:
    """stripDangerousPermissionsForAutoMode: hold dangerous allow rules aside."""
    dangerous = tuple(r for r in state.allow_rules if is_dangerous_rule(r))
    kept = tuple(r for r in state.allow_rules if not is_dangerous_rule(r))
    held = (state.stripped_dangerous_rules or ()) + dangerous
    return replace(state, allow_rules=kept, stripped_dangerous_rules=held or None)


def restore_dangerous_rules(state: ModeState) -> ModeState:
    """restoreDangerousPermissions: put held rules back (no duplicates)."""
    if not state.stripped_dangerous_rules:
        return replace(state, stripped_dangerous_rules=None)
    restored = state.allow_rules + tuple(
        r for r in state.stripped_dangerous_rules if r not in state.allow_rules
    )
    return replace(state, allow_rules=restored, stripped_dangerous_rules=None)


def handle_plan_mode_transition(
    state: ModeState, from_mode: PermissionMode, to_mode: PermissionMode
) -> ModeState:
    """handlePlanModeTransition: the exit-attachment flag follows the edge (cleared entering
    plan mode, set leaving it)."""
    if to_mode == "plan" and from_mode != "plan":
        return replace(state, needs_plan_mode_exit_attachment=False)
    if from_mode == "plan" and to_mode != "plan":
        return replace(state, needs_plan_mode_exit_attachment=True)
    return state


def prepare_context_for_plan_mode(state: ModeState, auto: AutoModeSettings) -> ModeState:
    """prepareContextForPlanMode: record prePlanMode and the auto-mode side effects (the
    table of docs/protocol.md §2, "Entering plan mode")."""
    current = state.mode
    if current == "plan":
        return state
    if current == "auto":
        if auto.plan_uses_auto:
            return replace(state, pre_plan_mode="auto")
        restored = restore_dangerous_rules(state)
        return replace(
            restored,
            auto_mode_active=False,
            needs_auto_mode_exit_attachment=True,
            pre_plan_mode="auto",
        )
    if auto.plan_uses_auto and current != "bypassPermissions":
        stripped = strip_dangerous_rules(state)
        return replace(stripped, auto_mode_active=True, pre_plan_mode=current)
    return replace(state, pre_plan_mode=current)


def enter_plan_mode(state: ModeState, auto: AutoModeSettings) -> ModeState:
    """The shared entry of ``/plan``, EnterPlanMode and the user's mode switch."""
    flagged = handle_plan_mode_transition(state, state.mode, "plan")
    if state.mode == "plan":
        return flagged
    prepared = prepare_context_for_plan_mode(flagged, auto)
    return replace(prepared, mode="plan")


def gate_fallback_warning() -> str:
    return (
        "plan exit -> default · auto mode is not available (autoModeGate is off), "
        "so the session returns to default mode instead of auto"
    )


def exit_plan_mode(
    state: ModeState, auto: AutoModeSettings, chosen: PermissionMode | None = None
) -> Transition:
    """Leave plan mode: restore prePlanMode, or the mode the approver chose.

    Falls back to ``default`` (with a warning) when the target is auto and the gate is off.
    A state that is not in plan mode is returned unchanged.
    """
    if state.mode != "plan":
        return Transition(state)
    target: PermissionMode = chosen or state.pre_plan_mode or "default"
    if target == "plan":
        target = "default"
    warnings: tuple[str, ...] = ()
    if target == "auto" and not auto.gate_enabled:
        target = "default"
        warnings = (gate_fallback_warning(),)
    restoring_to_auto = target == "auto"
    needs_auto_exit = state.needs_auto_mode_exit_attachment or (
        state.auto_mode_active and not restoring_to_auto
    )
    base = replace(
        state,
        has_exited_plan_mode=True,
        needs_plan_mode_exit_attachment=True,
        auto_mode_active=restoring_to_auto,
        needs_auto_mode_exit_attachment=needs_auto_exit,
    )
    if restoring_to_auto:
        base = strip_dangerous_rules(base)
    elif state.stripped_dangerous_rules:
        base = restore_dangerous_rules(base)
    return Transition(replace(base, mode=target, pre_plan_mode=None), warnings)


def set_mode(state: ModeState, target: PermissionMode, auto: AutoModeSettings) -> Transition:
    """The user's own mode switch (Shift+Tab): any mode to any mode, no approval.

    Entering plan goes through :func:`enter_plan_mode`; leaving it restores like an exit but
    to the chosen mode. Switching into auto with the gate off is refused by the caller.
    """
    if target == state.mode:
        return Transition(state)
    if target == "plan":
        return Transition(enter_plan_mode(state, auto))
    if state.mode == "plan":
        return exit_plan_mode(state, auto, chosen=target)
    if target == "auto":
        stripped = strip_dangerous_rules(state)
        return Transition(replace(stripped, mode="auto", auto_mode_active=True))
    if state.mode == "auto":
        restored = restore_dangerous_rules(state)
        return Transition(
            replace(
                restored,
                mode=target,
                auto_mode_active=False,
                needs_auto_mode_exit_attachment=True,
            )
        )
    return Transition(replace(state, mode=target))


def transition_plan_auto_mode(state: ModeState, auto: AutoModeSettings) -> ModeState:
    """transitionPlanAutoMode: settings changed while planning start or stop the classifier
    to match them (held dangerous allow rules go aside or come back with it)."""
    if state.mode != "plan" or state.pre_plan_mode == "bypassPermissions":
        return state
    want = auto.plan_uses_auto
    have = state.auto_mode_active
    if want:
        return replace(strip_dangerous_rules(state), auto_mode_active=True)
    if have:
        restored = restore_dangerous_rules(state)
        return replace(restored, auto_mode_active=False, needs_auto_mode_exit_attachment=True)
    return state
