"""The ``planmode`` command: ``lsp`` (the server), ``demo``, ``hook`` and ``init claude-code``
(Claude Code), and the agent/user verbs ``state|enter|exit|approve|reject|keep|undo|check|plans``.

Kept light: each verb imports what it needs when it runs, so a quick verb does not pay for
pygls or pydantic — and ``planmode hook``, run before every tool call of Claude Code, not even
for argparse.
"""

from __future__ import annotations

import sys

# Not typing.TYPE_CHECKING: importing typing alone costs the hook a tenth of its start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def _parser() -> argparse.ArgumentParser:
    import argparse

    from planmode.agent_cli import add_verbs

    parser = argparse.ArgumentParser(
        prog="planmode", description="An AI coding agent's plan mode as a language server."
    )
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")
    lsp = verbs.add_parser("lsp", help="run the language server (stdio by default)")
    lsp.add_argument("--tcp", action="store_true", help="listen on TCP instead of stdio")
    # vscode-languageclient and others add --stdio; stdio is the default anyway.
    lsp.add_argument("--stdio", action="store_true", help="use stdio (the default)")
    lsp.add_argument(
        "--host", default="127.0.0.1", help="TCP host, loopback only (default 127.0.0.1)"
    )
    lsp.add_argument("--port", type=tcp_port, default=2087, help="TCP port (default 2087; 0: any)")
    lsp.add_argument(
        "--endpoint-file",
        default=None,
        help="where --tcp writes its port and token (0600; default: tcp-PORT.json in the "
        "user's runtime directory)",
    )
    lsp.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    verbs.add_parser("demo", help="play agent and editor against the server, end to end")
    verbs.add_parser("hook", help="answer a Claude Code hook (JSON on stdin)")
    init = verbs.add_parser(
        "init", help="set an agent up to use the editor's plan mode (claude-code: its hooks)"
    )
    init.add_argument("agent", choices=["claude-code"], help="the agent to set up")
    init.add_argument(
        "--local",
        action="store_true",
        help="write .claude/settings.local.json (yours only) instead of .claude/settings.json",
    )
    init.add_argument(
        "--print", action="store_true", dest="show", help="print the merged settings, write nothing"
    )
    init.add_argument("--root", default=".", help="the project directory (default: the current)")
    init.add_argument(
        "--no-shell-prefix",
        action="store_false",
        dest="shell_prefix",
        help="do not install the shell prefix that runs planning Bash in the OS sandbox",
    )
    add_verbs(verbs)
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
    from planmode.lsp.transport.framing import resyncing_stdin

    # Answers initialize first, then registers the features (see lsp/app.py).
    server = create_lazy_server()
    # Garbage on stdin must not leave the server deaf to every message after it.
    server.start_io(stdin=resyncing_stdin(sys.stdin.buffer))
    return 0


def run_tcp(args: argparse.Namespace) -> int:
    """Serve editors on a loopback port behind a token until stopped (see lsp/transport/tcp.py)."""
    import asyncio
    from pathlib import Path

    from planmode.lsp.transport import tcp

    try:
        tcp.check_loopback(args.host)
        token = tcp.choose_token()
    except ValueError as exc:
        print(f"planmode lsp --tcp: {exc}", file=sys.stderr)
        return 2
    endpoint_file = Path(args.endpoint_file).resolve() if args.endpoint_file else None
    try:
        asyncio.run(tcp.serve(args.host, args.port, token, endpoint_file))
    except (KeyboardInterrupt, asyncio.CancelledError):
        pass
    except OSError as exc:
        print(
            f"planmode lsp --tcp: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr
        )
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    if (sys.argv[1:] if argv is None else argv) == ["hook"]:
        from planmode.agents.claude_code.hook import run as run_hook

        return run_hook()
    from planmode.agent_cli import run as run_agent_verb

    args = _parser().parse_args(argv)
    if args.verb == "lsp":
        return run_lsp(args)
    if args.verb == "demo":
        from planmode.demo import run_demo

        return run_demo()
    if args.verb == "init":
        from planmode.agents.claude_code.init import run as run_init

        return run_init(args.root, local=args.local, show=args.show, with_prefix=args.shell_prefix)
    if args.verb == "hook":
        from planmode.agents.claude_code.hook import run as run_hook

        return run_hook()
    return run_agent_verb(args)
