"""Codex's tool calls in plan mode's terms (docs/protocol.md §6 names Claude Code's tools).

The hook hands the server each ``PreToolUse`` as Codex sends it — ``tool_name`` and
``tool_input`` (docs/codex.md, "Payloads") — and this says which of plan mode's calls it is.
Codex reports its shell tool as ``Bash`` and its patch tool as ``apply_patch`` (the whole
patch as ``command``); other tools under their own names. One ``apply_patch`` may write
several files: each is a ``Write`` of its path, read against the call's ``cwd`` (Codex's
paths are relative to its working directory).

* ``Bash {command}`` (``exec_command``) is ``Bash {command}`` (the hook sends where it runs
  as ``cwd``);
* ``apply_patch {command: patch}`` is a ``Write`` of every path its ``Add File``, ``Update
  File``, ``Delete File`` and ``Move to`` headers name;
* ``view_image {path}`` is ``Read {file_path}``; the MCP resource tools are plan mode's
  (``ListMcpResourcesTool``, ``ReadMcpResourceTool``); ``request_user_input`` is
  ``AskUserQuestion``; ``web_search`` is ``WebSearch``; the thread's own goal
  (``get_goal``; ``create_goal``, ``update_goal``) is ``TodoRead``; ``TodoWrite``
  (:data:`RENAMED`); ``update_plan {plan: [{step, status}]}`` is ``TodoWrite {todos:
  [{content, status}]}`` (an approved plan's progress reads it, docs/protocol.md §12.1);
* anything else (an MCP server's tools, ``mcp__…``) is itself: while planning, a tool plan
  mode does not know is refused.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from planmode.core.agents import ToolCall
from planmode.core.todos import todo_write_input

RENAMED: dict[str, str] = {
    "list_mcp_resources": "ListMcpResourcesTool",
    "list_mcp_resource_templates": "ListMcpResourcesTool",
    "read_mcp_resource": "ReadMcpResourceTool",
    "request_user_input": "AskUserQuestion",
    "get_goal": "TodoRead",
    "create_goal": "TodoWrite",
    "update_goal": "TodoWrite",
    "web_search": "WebSearch",
}
PATCH_HEADERS = ("*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:")


def plan_mode_calls(
    tool: str, tool_input: Mapping[str, Any], cwd: str | None
) -> tuple[ToolCall, ...]:
    """The calls of plan mode that Codex's call ``tool`` with ``tool_input`` makes, relative
    paths read against ``cwd`` (the call's directory)."""
    if tool == "Bash":
        return (ToolCall("Bash", {"command": tool_input.get("command")}),)
    if tool == "apply_patch":
        return _patch(tool_input.get("command"), cwd)
    if tool == "view_image":
        return (ToolCall("Read", {"file_path": _path(tool_input.get("path"), cwd)}),)
    if tool in RENAMED:
        return (ToolCall(RENAMED[tool], dict(tool_input)),)
    if tool == "update_plan":
        return (ToolCall("TodoWrite", todo_write_input(tool_input.get("plan"), "step")),)
    return (ToolCall(tool, dict(tool_input)),)


def patch_paths(text: str) -> list[str]:
    """Every path a patch names in a header (``*** Add File: P``, ``Update File``, ``Delete
    File``, ``Move to``): the line's rest, trimmed. Headers anywhere count: more paths only
    refuse more."""
    found = []
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        stripped = line.strip()
        for header in PATCH_HEADERS:
            if stripped.startswith(header):
                found.append(stripped[len(header) :].strip())
    return found


def _patch(text: object, cwd: str | None) -> tuple[ToolCall, ...]:
    """A ``Write`` of each file the patch names; a patch whose files cannot be told stays
    ``apply_patch``, a tool plan mode does not know (refused while planning)."""
    paths = patch_paths(text) if isinstance(text, str) else []
    if not paths or not all(paths):
        return (ToolCall("apply_patch", {"command": text}),)
    return tuple(ToolCall("Write", {"file_path": _path(path, cwd)}) for path in paths)


def _path(raw: object, cwd: str | None) -> object:
    if isinstance(raw, str) and raw and cwd and os.path.isabs(cwd):
        return os.path.join(cwd, raw)  # an absolute raw stays itself
    return raw
