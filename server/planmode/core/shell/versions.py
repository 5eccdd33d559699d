"""Interpreters, toolchains and package managers: only their version queries and listings."""

from __future__ import annotations

from planmode.core.shell.options import Args, Checker, Options, names, with_options

_VERSION_ONLY: dict[str, tuple[tuple[str, ...], ...]] = {
    # Interpreters and toolchains whose version query runs nothing the workspace chooses.
    # Not cargo/rustc (rustup proxies run the toolchain a rust-toolchain.toml `path` names),
    # not yarn/pnpm (.yarnrc.yml's yarnPath, corepack), not ruby -v (then reads a script).
    **dict.fromkeys(["python", "python3"], (("--version",), ("-V",), ("-VV",))),
    **dict.fromkeys(["node", "nodejs"], (("--version",), ("-v",))),
    **dict.fromkeys(["java", "javac"], (("-version",), ("--version",))),
    **dict.fromkeys(["gcc", "g++", "cc", "c++", "clang", "clang++", "cmake"], (("--version",),)),
    "make": (("--version",), ("-v",)),
    "go": (("version",),),
    "ruby": (("--version",),),
    "perl": (("--version",), ("-v",)),
}


def _version(*accepted: tuple[str, ...]) -> Checker:
    """A program allowed only to print its version: the arguments are exactly one of these."""

    def check(args: Args) -> str | None:
        if tuple(args) in accepted:
            return None
        shown = " or ".join(" ".join(a) for a in accepted)
        return f"only `{shown}` is known to be read-only"

    return check


def npm(args: Args) -> str | None:
    if tuple(args) in {("--version",), ("-v",)}:
        return None
    if not args or args[0] not in {"ls", "list", "ll", "la"}:
        return "only npm ls/list and npm --version are known to be read-only"
    spec = Options(
        flags="aglp",
        valued="w",
        longs=names(
            """--all --json --long --parseable --global --link --package-lock-only --unicode
            --workspaces --production --prod --dev --no-unicode --no-color --no-description"""
        ),
        long_valued=names("--depth --omit --include --workspace"),
    )
    return with_options(spec)(args[1:])


def pip(args: Args) -> str | None:
    if tuple(args) in {("--version",), ("-V",)}:
        return None
    sub = args[0] if args else None
    specs = {
        "list": Options(
            flags="ouelv",
            longs=names(
                """--outdated --uptodate --editable --local --user --not-required
                --exclude-editable --include-editable --pre --verbose --quiet"""
            ),
            long_valued=names("--format --path --exclude"),
            operands=0,
        ),
        "show": Options(flags="fv", longs=names("--files --verbose --quiet")),
        "freeze": Options(
            flags="l",
            valued="r",
            longs=names("--local --user --all --exclude-editable --quiet"),
            long_valued=names("--requirement --path --exclude"),
            operands=0,
        ),
    }
    spec = specs.get(sub or "")
    if spec is None:
        return "only pip list, show, freeze and --version are known to be read-only"
    return with_options(spec)(args[1:])


# Each interpreter and toolchain above, allowed only to print its version.
VERSION_ONLY: dict[str, Checker] = {name: _version(*forms) for name, forms in _VERSION_ONLY.items()}
