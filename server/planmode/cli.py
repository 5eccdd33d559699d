"""The ``planmode`` command: ``lsp`` (the server), ``demo``, ``hook`` and ``init`` (an agent's
set-up), and the agent/user verbs
``state|enter|exit|approve|reject|save|keep|undo|check|plans|progress``.

Every verb is a function, registered with its help and arguments in one table (:func:`verbs`);
the parser is built from it. Those that ask the workspace's running server are
:mod:`planmode.agent_cli`'s, each naming its request from :mod:`planmode.lsp.protocol`.

Kept light: each verb imports what it needs when it runs, so a quick verb does not pay for
pygls or pydantic — and ``planmode hook``, run before every tool call of Claude Code, not even
for argparse: :func:`main` answers it before the table is built (nothing at this module's top
level imports anything).
"""

from __future__ import annotations

import sys

# Not typing.TYPE_CHECKING: importing typing alone costs the hook a tenth of its start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from typing import Any

    from planmode.agent_cli import ServerVerb

    Run = Callable[[argparse.Namespace], int]


class Arg:
    """One argument of a verb: what ``add_argument`` is given when the parser is built."""

    def __init__(self, *flags: str, **options: Any) -> None:
        self.flags = flags
        self.options = options

    def add_to(self, parser: argparse.ArgumentParser | argparse._MutuallyExclusiveGroup) -> None:
        parser.add_argument(*self.flags, **self.options)


class OneOf:
    """Arguments of a verb that exclude each other."""

    def __init__(self, *arguments: Arg) -> None:
        self.arguments = arguments

    def add_to(self, parser: argparse.ArgumentParser) -> None:
        group = parser.add_mutually_exclusive_group()
        for argument in self.arguments:
            argument.add_to(group)


class Verb:
    """A verb: the function that runs it (the parsed arguments in, the exit code out), its line
    in ``planmode --help``, its arguments and what its own ``--help`` adds below them."""

    def __init__(self, run: Run, help: str, *arguments: Arg | OneOf, epilog: str = "") -> None:
        self.run = run
        self.help = help
        self.arguments = arguments
        self.epilog = epilog


def verbs() -> dict[str, Verb]:
    """Every verb of ``planmode``, in the order ``planmode --help`` lists them."""
    from planmode import agent_cli as server

    approval_id = Arg(
        "approval_id",
        nargs="?",
        metavar="ID",
        help="default: the only one pending in the workspace",
    )
    comments = Arg(
        "--comments",
        action="store_true",
        help="send the plan's review comments (> [!review] …) with their anchors",
    )
    which_approval = (
        "Without ID: the only approval pending in the workspace (every session's, the agent's "
        "included, and teammates' requests; with --session only that session's). When several "
        "are pending they are listed, one a line starting with its id, and nothing is decided "
        "(exit 2)."
    )
    hunk_id = Arg(
        "hunk_id", nargs="?", metavar="HUNK_ID", help="default: the only unreviewed change"
    )
    plan_file = Arg("--plan", help="the plan file (default: every revised plan)")
    which_hunk = (
        "Without HUNK_ID: the only unreviewed change; when several are, they are listed, one a "
        "line starting with its id, and nothing is done (exit 2)."
    )
    return {
        "lsp": Verb(
            run_lsp,
            "run the language server (stdio by default)",
            Arg("--tcp", action="store_true", help="listen on TCP instead of stdio"),
            # vscode-languageclient and others add --stdio; stdio is the default anyway.
            Arg("--stdio", action="store_true", help="use stdio (the default)"),
            Arg("--host", default="127.0.0.1", help="TCP host, loopback only (default 127.0.0.1)"),
            Arg("--port", type=tcp_port, default=2087, help="TCP port (default 2087; 0: any)"),
            Arg(
                "--endpoint-file",
                default=None,
                help="where --tcp writes its port and token (0600; default: tcp-PORT.json in the "
                "user's runtime directory)",
            ),
            Arg("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"]),
        ),
        "demo": Verb(run_demo, "play agent and editor against the server, end to end"),
        "hook": Verb(
            run_hook,
            "answer an agent's hook before its tool call (JSON on stdin)",
            Arg(
                "agent",
                nargs="?",
                choices=("gemini", "codex"),
                help="the agent whose hook this is (default: Claude Code)",
            ),
            epilog="What `planmode init AGENT` writes into the agent's settings: `planmode hook` "
            "for Claude Code, `planmode hook gemini [--launcher PATH]` for Gemini CLI, `planmode "
            "hook codex` for Codex (OpenCode runs planmode's plugin instead). Each reads the "
            "agent's hook event on stdin, asks the editor's plan-mode server of its workspace "
            "and prints the answer in the agent's terms (server/planmode/agents/<agent>/hook.py).",
        ),
        "init": Verb(
            run_init,
            "set an agent up to use the editor's plan mode (claude-code: its hooks; "
            "opencode: its plugin)",
            Arg("agent", choices=sorted(INIT), help="the agent to set up"),
            Arg(
                "--local",
                action="store_true",
                help="write .claude/settings.local.json (yours only) instead of "
                ".claude/settings.json (claude-code)",
            ),
            Arg(
                "--print",
                action="store_true",
                dest="show",
                help="print the merged settings, write nothing",
            ),
            Arg("--root", default=".", help="the project directory (default: the current)"),
            Arg(
                "--no-shell-prefix",
                action="store_false",
                dest="shell_prefix",
                help="do not install the shell prefix (claude-code) or shell (opencode) that "
                "runs planning Bash in the OS sandbox",
            ),
            Arg(
                "--no-trust",
                action="store_false",
                dest="trust",
                help="codex: do not trust the hooks in your config.toml (Codex then asks you to "
                "review them at its next start)",
            ),
        ),
        "state": served(server.state, "show the session's mode and plan"),
        "enter": served(
            server.enter,
            "enter plan mode (EnterPlanMode)",
            Arg("--agent", help="agent id (subagents may not enter plan mode)"),
        ),
        "exit": served(
            server.exit_,
            "submit the plan for approval (ExitPlanMode)",
            Arg("--wait", action="store_true", help="wait for the user's decision"),
            Arg("--plan", help="plan text, or @FILE, or - for stdin"),
            Arg("--agent", help="agent id"),
            epilog="Without --wait the plan is submitted and decided in the editor (or with "
            "planmode approve|reject); with it, exit 1 when the user rejects it.",
        ),
        "approve": served(
            server.approve,
            "approve the pending plan",
            approval_id,
            Arg("--mode", help="mode to return to (e.g. acceptEdits)"),
            OneOf(
                Arg(
                    "--grant",
                    action="store_true",
                    help="also allow the commands the plan asks to run without asking (its "
                    "allowedPrompts)",
                ),
                Arg(
                    "--no-grant",
                    action="store_true",
                    help="approve the plan alone, without the commands it asks for",
                ),
            ),
            comments,
            epilog=f"{which_approval} A plan that asks to run commands without asking is "
            "approved only with --grant or --no-grant; without either its rules are listed "
            "(exit 2).",
        ),
        "reject": served(
            server.reject,
            "reject the pending plan",
            approval_id,
            Arg("--feedback", help="what the agent should change"),
            comments,
            epilog=which_approval,
        ),
        "save": served(
            server.save,
            "save the pending plan for later: the agent does not implement it now",
            approval_id,
            epilog=f"{which_approval} The plan stays in the library (planmode plans) and is "
            "taken up again with planmode plans take-up.",
        ),
        "keep": served(
            server.keep,
            "keep one unreviewed change of a revised plan",
            hunk_id,
            plan_file,
            epilog=which_hunk,
        ),
        "undo": served(
            server.undo,
            "undo one unreviewed change of a revised plan",
            hunk_id,
            plan_file,
            epilog=which_hunk,
        ),
        "check": served(
            server.check,
            "may this tool call run now? (exit 0 allow, 2 deny, 3 ask)",
            Arg("tool", metavar="TOOL", help="tool name, e.g. Bash, Write"),
            Arg(
                "input", metavar="INPUT_JSON", help='tool input as JSON, e.g. \'{"command": "ls"}\''
            ),
            Arg("--agent", help="agent id"),
        ),
        "plans": served(
            server.plans,
            "list the workspace's plans with their status, or take a saved plan up again",
            Arg(
                "action",
                nargs="?",
                choices=["take-up"],
                help="take-up: make a saved plan the session's plan again",
            ),
            Arg("plan", nargs="?", metavar="SLUG|PATH", help="the plan to take up"),
            epilog="Without an action: one line a plan, newest first — its status (drafting, "
            "underReview, executing 3/7, done, rejected, saved), agent, session, last change "
            "and path. take-up SLUG|PATH: the session (--session, else the one that saved it, else "
            "the editor's) takes the saved plan up in plan mode; its next exit puts it under "
            "review again.",
        ),
        "progress": served(
            server.progress,
            "show how far the approved plan has got: each step's mark, files written outside it",
            epilog="Without --session: the plan approved last, naming the other sessions that "
            "carry out one (--json: all of them). Exit 1 when there is none.",
        ),
    }


def served(verb: ServerVerb, help: str, *arguments: Arg | OneOf, epilog: str = "") -> Verb:
    """A verb that asks the workspace's running server (:func:`planmode.agent_cli.run`), with
    the options every such verb takes before its own."""
    import os

    from planmode import agent_cli

    def run(args: argparse.Namespace) -> int:
        return agent_cli.run(verb, args)

    common = (
        Arg("--root", help="workspace root (default: found from the cwd)"),
        Arg(
            "--session",
            default=os.environ.get("PLANMODE_SESSION"),
            help="session id (default: $PLANMODE_SESSION, else the editor's default session)",
        ),
        Arg("--json", action="store_true", help="print the JSON result"),
    )
    return Verb(run, help, *common, *arguments, epilog=epilog)


def _parser(table: dict[str, Verb] | None = None) -> argparse.ArgumentParser:
    import argparse

    parser = argparse.ArgumentParser(
        prog="planmode",
        description="An AI coding agent's plan mode as a language server.",
        epilog="The verbs from state on ask the plan-mode server of the workspace (the one "
        "your editor runs). Exit codes: 0 success (check: allow), 1 error or no server, 2 check "
        "denied or a choice to make, 3 check asks the user. A verb's arguments: planmode VERB "
        "--help.",
    )
    subparsers = parser.add_subparsers(dest="verb", required=True, metavar="VERB")
    for name, verb in (table or verbs()).items():
        sub = subparsers.add_parser(
            name,
            help=verb.help,
            description=verb.help[:1].upper() + verb.help[1:],
            epilog=verb.epilog or None,
        )
        for argument in verb.arguments:
            argument.add_to(sub)
    return parser


def tcp_port(text: str) -> int:
    """``--port``: a TCP port number, 0 to 65535 (0: the system picks one)."""
    import argparse

    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a TCP port (0 to 65535)")
    return port


# -- the verbs that run here ----------------------------------------------------------------


def run_lsp(args: argparse.Namespace) -> int:
    import logging

    # stdout is the transport: logs go to stderr only.
    logging.basicConfig(
        stream=sys.stderr,
        level=getattr(logging, args.log_level),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("pygls").setLevel(logging.WARNING)
    if args.tcp:
        return run_tcp(args)
    from planmode.lsp.app import create_lazy_server
    from planmode.lsp.transport import stdio

    # Answers initialize first, then registers the features (see lsp/app.py).
    stdio.serve(create_lazy_server())
    return 0


def run_tcp(args: argparse.Namespace) -> int:
    """Serve editors on a loopback port behind a token until stopped (see lsp/transport/tcp.py)."""
    import asyncio
    from pathlib import Path

    from planmode.lsp.app import create_server
    from planmode.lsp.transport import tcp

    try:
        tcp.check_loopback(args.host)
        token = tcp.choose_token()
    except ValueError as exc:
        print(f"planmode lsp --tcp: {exc}", file=sys.stderr)
        return 2
    endpoint_file = Path(args.endpoint_file).resolve() if args.endpoint_file else None
    try:
        asyncio.run(tcp.serve(args.host, args.port, token, endpoint_file, create_server))
    except (KeyboardInterrupt, asyncio.CancelledError):
        pass
    except OSError as exc:
        print(
            f"planmode lsp --tcp: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr
        )
        return 1
    return 0


def run_demo(args: argparse.Namespace | None = None) -> int:
    from planmode import demo

    return demo.run_demo()


def run_hook(args: argparse.Namespace | None = None) -> int:
    if args is not None and args.agent == "codex":
        from planmode.agents.codex.hook import run as run_codex_hook

        return run_codex_hook()
    if args is not None and args.agent == "gemini":
        from planmode.agents.gemini.hook import run as run_gemini_hook

        return run_gemini_hook([])
    from planmode.agents.claude_code.hook import run

    return run()


def run_init(args: argparse.Namespace) -> int:
    return INIT[args.agent](args)


def init_claude_code(args: argparse.Namespace) -> int:
    from planmode.agents.claude_code.init import run

    return run(args.root, local=args.local, show=args.show, with_prefix=args.shell_prefix)


def init_opencode(args: argparse.Namespace) -> int:
    from planmode.agents.opencode.init import run

    if args.local:
        sys.stderr.write("planmode init: --local is Claude Code's; OpenCode has no local file\n")
        return 1
    return run(args.root, show=args.show, with_shell=args.shell_prefix)


def init_gemini(args: argparse.Namespace) -> int:
    from planmode.agents.gemini.init import run

    if args.local:
        sys.stderr.write("planmode init: --local is Claude Code's; Gemini CLI has no local file\n")
        return 1
    return run(args.root, show=args.show, with_shell=args.shell_prefix)


def init_codex(args: argparse.Namespace) -> int:
    from planmode.agents.codex.init import run

    if args.local:
        sys.stderr.write("planmode init: --local is Claude Code's; Codex has no local file\n")
        return 1
    return run(args.root, show=args.show, with_trust=args.trust)


# `planmode init AGENT`: each agent's set-up, by the name the user types.
INIT: dict[str, Run] = {
    "claude-code": init_claude_code,
    "opencode": init_opencode,
    "gemini": init_gemini,
    "codex": init_codex,
}


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    if words == ["hook"]:
        return run_hook()  # before anything else: Claude Code waits for it on every tool call
    if words[:2] == ["hook", "gemini"]:  # Gemini CLI's hook, as quick (agents/gemini/hook.py)
        from planmode.agents.gemini.hook import run as run_gemini_hook

        return run_gemini_hook(words[2:])
    if words == ["hook", "codex"]:  # Codex's hook, as quick (agents/codex/hook.py)
        from planmode.agents.codex.hook import run as run_codex_hook

        return run_codex_hook()
    table = verbs()
    args = _parser(table).parse_args(argv)
    return table[args.verb].run(args)
