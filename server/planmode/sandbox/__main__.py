"""``python -I -S …/planmode/sandbox/__main__.py run -- ARGV…``: the Landlock launcher (see
:mod:`planmode.sandbox.launcher`); ``… probe`` prints what :func:`detect` finds, as JSON.
Also runs as ``python -m planmode.sandbox``."""

import os
import sys

if not __package__:
    # Run by path with -I -S: the package is found from this file's own location.
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def main(args: list[str]) -> int:
    if args[:2] == ["run", "--"]:
        from planmode.sandbox.launcher import run

        return run(args[2:])
    if args == ["probe"]:
        import json

        from planmode.sandbox.probe import detect

        sys.stdout.write(json.dumps(detect().to_wire()) + "\n")
        return 0
    sys.stderr.write("usage: python -m planmode.sandbox run -- PROGRAM ARGS… | probe\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
