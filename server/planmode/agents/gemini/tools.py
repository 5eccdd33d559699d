"""Gemini CLI's tool calls in plan mode's terms (docs/protocol.md §6 names Claude Code's tools).

The hook hands the server each call as Gemini makes it — ``BeforeTool``'s ``tool_name`` and
``tool_input`` (docs/gemini.md, "Hook events and payloads") — with a relative ``file_path``
already made absolute the way Gemini itself reads it (the hook knows the plans directory and
whether the session plans: :func:`planmode.agents.gemini.hook.gemini_path`). This says which of
plan mode's calls it is:

* the reading tools — ``read_file``, ``list_directory``, ``glob``, ``grep_search``,
  ``web_fetch``, ``google_web_search``, ``ask_user``, ``activate_skill`` — are plan mode's of
  the same kind (:data:`READING`); Gemini's own note-keeping and reading tools that plan mode
  has no name for (``update_topic``, its task tracker, the background processes' output, the
  MCP resource tools) are nothing to check (:data:`NOTHING`);
* ``write_file {file_path, content}`` is ``Write``; ``replace {file_path, old_string,
  new_string, allow_multiple}`` is ``Edit {…, replace_all}``;
* ``run_shell_command {command}`` is ``Bash {command}`` (the hook sends where it runs, its
  ``dir_path``, as ``cwd``);
* ``invoke_agent {agent_name}`` is ``Agent``: Gemini's read-only investigators, which its own
  plan mode allows (``codebase_investigator``, ``cli_help``), are plan mode's ``Explore``
  (their own tool calls pass the hook one by one); any other agent is itself;
* ``exit_plan_mode`` and ``enter_plan_mode`` are ``ExitPlanMode`` and ``EnterPlanMode``;
* ``write_todos {todos: [{description, status}]}`` is ``TodoWrite {todos: [{content,
  status}]}`` (an approved plan's progress reads it, docs/protocol.md §12.1);
* anything else (an MCP server's tools, an extension's) is itself: while planning, a tool plan
  mode does not know is refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planmode.agents.gemini.versions import EDIT_TOOLS, ENTER_TOOL, EXIT_TOOL, SHELL_TOOL
from planmode.core.agents import ToolCall
from planmode.core.todos import todo_write_input

__all__ = ["EDIT_TOOLS", "EXIT_TOOL", "plan_mode_calls"]

READING: dict[str, str] = {
    "read_file": "Read",
    "read_many_files": "Read",
    "list_directory": "LS",
    "glob": "Glob",
    "grep_search": "Grep",
    "web_fetch": "WebFetch",
    "google_web_search": "WebSearch",
    "ask_user": "AskUserQuestion",
    "activate_skill": "Skill",
}
NOTHING = frozenset(
    {
        "update_topic",
        "list_background_processes",
        "read_background_output",
        "tracker_create_task",
        "tracker_update_task",
        "tracker_get_task",
        "tracker_list_tasks",
        "tracker_add_dependency",
        "tracker_visualize",
        "complete_task",
        "get_internal_docs",
        "read_mcp_resource",
        "list_mcp_resources",
    }
)
# Gemini's own read-only subagents (its plan mode's policy allows them there).
INVESTIGATORS = frozenset({"codebase_investigator", "cli_help"})


def plan_mode_calls(tool: str, args: Mapping[str, Any]) -> tuple[ToolCall, ...]:
    """The calls of plan mode that Gemini's call ``tool`` with ``args`` makes."""
    if tool in NOTHING:
        return ()
    if tool in READING:
        return (ToolCall(READING[tool], dict(args)),)
    if tool == "write_file":
        write = {"file_path": args.get("file_path"), "content": args.get("content")}
        return (ToolCall("Write", write),)
    if tool == "replace":
        edit = {
            "file_path": args.get("file_path"),
            "old_string": args.get("old_string"),
            "new_string": args.get("new_string"),
            "replace_all": bool(args.get("allow_multiple")),
        }
        return (ToolCall("Edit", edit),)
    if tool == SHELL_TOOL:
        return (ToolCall("Bash", {"command": args.get("command")}),)
    if tool == "invoke_agent":
        name = args.get("agent_name")
        kind = "Explore" if name in INVESTIGATORS else name
        return (ToolCall("Agent", {"subagent_type": kind, "prompt": args.get("prompt")}),)
    if tool == EXIT_TOOL:
        return (ToolCall("ExitPlanMode", {}),)
    if tool == ENTER_TOOL:
        return (ToolCall("EnterPlanMode", {}),)
    if tool == "write_todos":
        return (ToolCall("TodoWrite", todo_write_input(args.get("todos"), "description")),)
    return (ToolCall(tool, dict(args)),)
