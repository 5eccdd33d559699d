"""OpenCode's tool calls in plan mode's terms (docs/protocol.md §6 names Claude Code's tools).

The plugin hands the server each call as OpenCode makes it — ``tool.execute.before``'s
``tool`` and ``output.args`` (docs/opencode.md, "Payloads") — and this says which of plan
mode's calls it is. One OpenCode call may be several: ``apply_patch`` writes every file its
patch names. OpenCode reads a relative file path against its instance directory (the
plugin's ``directory``; by its code ``path.join(directory, filePath)`` for read, write and
edit, ``path.resolve(directory, …)`` for apply_patch), so paths are made absolute against it
here: plan mode would read them against the workspace root.

* the reading tools — ``read``, ``glob``, ``grep``, ``list``, ``webfetch``, ``websearch``,
  ``codesearch``, ``question``, ``todowrite``, ``todoread``, ``skill``, ``lsp`` and the MCP
  resource tools — are plan mode's of the same kind (:data:`READING`);
* ``write {filePath, content}`` is ``Write {file_path, content}``; ``edit {filePath,
  oldString, newString, replaceAll}`` is ``Edit {file_path, old_string, new_string,
  replace_all}``; ``apply_patch {patchText}`` is a ``Write`` of every path its ``Add File``,
  ``Update File``, ``Delete File`` and ``Move to`` headers name;
* ``bash {command}`` is ``Bash {command}`` (the plugin sends where it runs as ``cwd``);
* ``task {subagent_type}`` is ``Agent``, OpenCode's read-only ``explore`` plan mode's
  ``Explore``; ``plan_exit`` and ``plan_enter`` are ``ExitPlanMode`` and ``EnterPlanMode``;
* ``invalid`` (OpenCode's answer to a call of no tool; it runs nothing) is nothing to check;
* anything else (an MCP server's tools, ``execute``, a plugin's tools) is itself: while
  planning, a tool plan mode does not know is refused.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from planmode.core.agents import ToolCall

# The tool the model calls to leave plan mode (the texts it reads name it).
EXIT_TOOL = "plan_exit"

READING: dict[str, str] = {
    "read": "Read",
    "glob": "Glob",
    "grep": "Grep",
    "list": "LS",
    "webfetch": "WebFetch",
    "websearch": "WebSearch",
    "codesearch": "WebSearch",
    "question": "AskUserQuestion",
    "todowrite": "TodoWrite",
    "todoread": "TodoRead",
    "skill": "Skill",
    "lsp": "LSP",
    "list_mcp_resources": "ListMcpResourcesTool",
    "list_mcp_resource_templates": "ListMcpResourcesTool",
    "read_mcp_resource": "ReadMcpResourceTool",
}
# Planning subagents: OpenCode's name -> plan mode's (docs/protocol.md §6: Explore, Plan).
SUBAGENTS = {"explore": "Explore"}
PATCH_HEADERS = ("*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:")


def plan_mode_calls(
    tool: str, args: Mapping[str, Any], directory: str | None
) -> tuple[ToolCall, ...]:
    """The calls of plan mode that OpenCode's call ``tool`` with ``args`` makes, relative file
    paths read against OpenCode's instance ``directory``."""
    if tool == "invalid":
        return ()
    if tool in READING:
        reading = READING[tool]
        if reading == "Read" and "filePath" in args:
            return (ToolCall(reading, {**args, "file_path": _path(args["filePath"], directory)}),)
        return (ToolCall(reading, dict(args)),)
    if tool == "write":
        content = args.get("content")
        return (
            ToolCall(
                "Write", {"file_path": _path(args.get("filePath"), directory), "content": content}
            ),
        )
    if tool == "edit":
        return (
            ToolCall(
                "Edit",
                {
                    "file_path": _path(args.get("filePath"), directory),
                    "old_string": args.get("oldString"),
                    "new_string": args.get("newString"),
                    "replace_all": args.get("replaceAll") is True,
                },
            ),
        )
    if tool == "apply_patch":
        return _patch(args.get("patchText"), directory)
    if tool == "bash":
        shell: dict[str, Any] = {"command": args.get("command")}
        if isinstance(args.get("description"), str):
            shell["description"] = args["description"]
        return (ToolCall("Bash", shell),)
    if tool == "task":
        kind = args.get("subagent_type")
        kind = SUBAGENTS.get(kind, kind) if isinstance(kind, str) else kind
        return (ToolCall("Agent", {**args, "subagent_type": kind}),)
    if tool == EXIT_TOOL:
        return (ToolCall("ExitPlanMode", {}),)
    if tool == "plan_enter":
        return (ToolCall("EnterPlanMode", {}),)
    return (ToolCall(tool, dict(args)),)


def patch_paths(text: str) -> list[str]:
    """Every path a patch names in a header (``*** Add File: P``, ``Update File``, ``Delete
    File``, ``Move to``), as OpenCode's parser reads them: the line's rest, trimmed. Headers
    outside ``*** Begin Patch`` / ``*** End Patch`` count too: more paths only refuse more."""
    found = []
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        for header in PATCH_HEADERS:
            if line.startswith(header):
                found.append(line[len(header) :].strip())
    return found


def _patch(text: object, directory: str | None) -> tuple[ToolCall, ...]:
    """A ``Write`` of each file the patch names; a patch whose files cannot be told stays
    ``apply_patch``, a tool plan mode does not know (refused while planning)."""
    paths = patch_paths(text) if isinstance(text, str) else []
    if not paths or not all(paths):
        return (ToolCall("apply_patch", {"patchText": text}),)
    return tuple(ToolCall("Write", {"file_path": _path(p, directory)}) for p in paths)


def _path(raw: object, directory: str | None) -> object:
    """A file path as OpenCode opens it: a relative one joined to its instance directory
    (lexically, so that plan mode still reads both ways of the path). Anything else is left
    for plan mode to refuse."""
    if not isinstance(raw, str) or not raw or directory is None or os.path.isabs(raw):
        return raw
    return os.path.join(directory, raw)
