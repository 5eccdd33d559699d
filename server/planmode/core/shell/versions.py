"""Interpreters, toolchains and package managers: only their version queries."""

from __future__ import annotations

from planmode.core.shell.options import Args, Checker

_VERSION_ONLY: dict[str, tuple[tuple[str, ...], ...]] = {
    # Interpreters and toolchains whose version query runs nothing the workspace chooses.
    # Not cargo/rustc (rustup proxies run the toolchain a rust-toolchain.toml `path` names),
    # not go (a go.mod's go or toolchain line newer than the local go makes `go version`
    # download that toolchain and run it), not yarn/pnpm (.yarnrc.yml's yarnPath, corepack),
    # not ruby -v (then reads a script).
    **dict.fromkeys(["python", "python3"], (("--version",), ("-V",), ("-VV",))),
    **dict.fromkeys(["node", "nodejs"], (("--version",), ("-v",))),
    **dict.fromkeys(["java", "javac"], (("-version",), ("--version",))),
    **dict.fromkeys(["gcc", "g++", "cc", "c++", "clang", "clang++", "cmake"], (("--version",),)),
    "make": (("--version",), ("-v",)),
    "ruby": (("--version",),),
    "perl": (("--version",), ("-v",)),
    # Package managers read the workspace's configuration, which can make any other command
    # write and connect: a project .npmrc (registry, logs-dir, ${ENV} in an _authToken) makes
    # even `npm ls` write its logs where it says and send the secret to its registry; a pip.conf
    # in the running environment's prefix sets a log file every command appends to, `pip list`
    # checks its own version on the index, and `pip freeze` runs git in editable projects'
    # directories. Measured (docs/read-only-bash.md): only the version queries do none of it.
    "npm": (("--version",), ("-v",)),
    **dict.fromkeys(["pip", "pip3"], (("--version",), ("-V",))),
}


def _version(*accepted: tuple[str, ...]) -> Checker:
    """A program allowed only to print its version: the arguments are exactly one of these."""

    def check(args: Args) -> str | None:
        if tuple(args) in accepted:
            return None
        shown = " or ".join(f"`{' '.join(a)}`" for a in accepted)
        return f"only {shown} is known to be read-only"

    return check


# Each interpreter, toolchain and package manager above, allowed only to print its version.
VERSION_ONLY: dict[str, Checker] = {name: _version(*forms) for name, forms in _VERSION_ONLY.items()}
