"""git: reading subcommands with options from a list, and the environment git runs in.

git runs programs that configuration names (core.fsmonitor, textconv and diff drivers,
filters, gpg.program, the pager). The command line may not choose another repository or
configuration: -C, -c, --git-dir, --work-tree and friends are refused. The directory the line
starts in must not hold another repository on the way up to the workspace root
(:func:`foreign_repository`, for the caller's ``cwd``). Which repository and which
configuration git reads at run time is the sandbox's side too: :func:`git_environment`
(docs/read-only-bash.md, "5. git").
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from planmode.core.shell.git_formats import (
    object_format_problem,
    pretty_format_problem,
    ref_format_problem,
)
from planmode.core.shell.options import Args, Options, names

# Options before the subcommand that change nothing git reads or runs.
_GIT_GLOBAL = frozenset(
    {"--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--no-replace-objects"}
)
# Options of the commands that show history and diffs (log, show, diff, …); exact spelling.
_GIT_HISTORY_LONGS = names(
    """--oneline --stat --shortstat --numstat --name-only --name-status --patch --no-patch
    --graph --all --decorate --no-decorate --abbrev-commit --no-abbrev-commit --reverse
    --first-parent --no-merges --merges --follow --cached --staged --summary --raw --cc
    --combined-all-paths --no-color --color-words --word-diff --minimal --patience --histogram
    --ignore-space-change --ignore-all-space --ignore-blank-lines --ignore-cr-at-eol
    --ignore-space-at-eol --no-prefix --full-index --binary --left-right --cherry-pick
    --cherry-mark --cherry --boundary --ancestry-path --simplify-by-decoration --topo-order
    --date-order --author-date-order --no-walk --branches --tags --remotes --not --all-match
    --invert-grep --regexp-ignore-case --extended-regexp --fixed-strings --basic-regexp
    --perl-regexp --log-size --source --use-mailmap --mailmap --full-history --dense --sparse
    --simplify-merges --parents --children --no-renames --no-ext-diff --no-textconv
    --compact-summary --patch-with-stat --patch-with-raw --indent-heuristic
    --no-indent-heuristic --function-context --text --ignore-submodules --pickaxe-all
    --pickaxe-regex --remerge-diff --relative-date --reflog --walk-reflogs --merge --stdin
    --left-only --right-only --count --objects --no-object-names --exit-code --quiet --check
    --no-index --irreversible-delete --expand-tabs --no-expand-tabs --notes --no-notes
    --show-notes --standard-notes --single-worktree --no-min-parents --no-max-parents
    --name-rev --show-pulls --shortstat --dirstat --cumulative --no-relative --relative
    --find-copies-harder --full-diff --root --no-standard-notes --show-linear-break
    --verbose --short --long --branch --porcelain --null --show-stash --ahead-behind
    --no-ahead-behind --renames --ignored --untracked-files --no-column --column
    --line-porcelain --incremental --show-email --show-stats --show-name --show-number
    --progress --no-progress --color-lines --color-by-age --numbered --summary --email
    --committer --tags --dirty --always --long --exact-match --contains --first-match
    --debug --show-toplevel --show-prefix --show-cdup --git-dir --absolute-git-dir
    --is-inside-work-tree --is-inside-git-dir --is-bare-repository --is-shallow-repository
    --show-superproject-working-tree --abbrev-ref --symbolic --symbolic-full-name --verify
    --sq --sq-quote --local-env-vars --git-common-dir --show-object-format --shared-index-path
    --others --modified --deleted --killed --unmerged --stage --directory --no-empty-directory
    --eol --exclude-standard --full-name --recurse-submodules --error-unmatch --deduplicate
    --resolve-undo --sparse --name-only --full-tree --object-only --max-count
    --line-number --files-with-matches --files-without-match --only-matching --ignore-case
    --word-regexp --invert-match --heading --break --show-function --untracked --no-untracked
    --exclude-standard --no-exclude-standard --recursive --no-recursive --all-match
    --function-context --batch --batch-check --batch-all-objects --buffer --follow-symlinks
    --unordered --allow-unknown-type --non-matching --no-index --head --heads --hash
    --dereference --exclude-existing --independent --octopus --is-ancestor --fork-point
    --name-only --undefined --always --refs --annotate --abbrev --no-abbrev --all
    --undefined --stdin --only-matching --shortstat"""
)
_GIT_HISTORY_LONG_VALUED = names(
    """--format --pretty --max-count --skip --since --after --until --before --author
    --committer --grep --date --abbrev --decorate --diff-filter --unified --stat --stat-width
    --stat-name-width --stat-count --dirstat --word-diff --word-diff-regex --color
    --color-moved --submodule --anchored --diff-algorithm --inter-hunk-context --src-prefix
    --dst-prefix --line-prefix --find-renames --find-copies --break-rewrites --glob --exclude
    --relative --encoding --notes --diff-merges --max-parents --min-parents --since-as-filter
    --ignore-submodules --untracked-files --ignored --column --sort --contains --no-contains
    --merged --no-merged --points-at --candidates --match --exclude --dirty --broken
    --short --prefix --abbrev-ref --default --resolve-git-dir --git-path --show-object-format
    --with-tree --exclude-from --exclude-per-directory --format --ignore-rev --ignore-revs-file
    --contents --max-depth --threads --and --or --open --ext-grep --count --since-as-filter
    --object-only --batch --batch-check --filter --pattern-type"""
)
_GIT_HISTORY_LETTERS = frozenset("pswzcmtabilvrRWqnfeEFGPLBCDMNOSUHT0123456789hdkoAu")
# Each letter: what it means in the commands below (all read): p patch, s no patch, w ignore
# whitespace, z NUL, c combined, m merges, t tree, a text, b ignore space change, i ignore
# case, l rename limit/files, v verbose, r recursive, R reverse, W function context, q quiet,
# n count, f first parent/show-name, e email, E extended, F fixed, G/S pickaxe, P perl, L
# line range, B/C/D/M break/copies/delete/move, N numbered, O order file (read), U context,
# H cached, T tags, 0-9 counts, h help text, d directories,
# k killed, o others, A after context, u untracked.
_GIT_READERS = frozenset(
    """status log diff show blame annotate shortlog describe rev-parse rev-list ls-files
    ls-tree cat-file grep whatchanged merge-base show-ref name-rev count-objects check-ignore
    version diff-tree diff-index diff-files show-branch range-diff""".split()
)
# Options that write a file, run a program or ask gpg (which runs gpg.program).
_GIT_REFUSED = (
    "--output",
    "--ext-diff",
    "--textconv",
    "--filters",
    "--open-files-in-pager",
    "--show-signature",
    "--exec",
    "--upload-pack",
    "--batch-command",
)


def git(args: Args) -> str | None:
    rest = list(args)
    while rest and rest[0] is not None and rest[0].startswith("-"):
        option = rest.pop(0) or ""
        if option in {"--version", "-v"} and not rest:
            return None
        if option not in _GIT_GLOBAL:
            return (
                f"git option {option} is refused (it could choose another repository, "
                "configuration or program)"
            )
    if not rest or rest[0] is None:
        return "git without a literal subcommand"
    sub, options = rest[0], rest[1:]
    if any(option is None for option in options):
        return "an argument computed by the shell (it could be any option)"
    literal = [option for option in options if option is not None]
    for option in literal:
        name = option.split("=", 1)[0]
        if option.startswith("-") and any(r.startswith(name) for r in _GIT_REFUSED if name[2:]):
            return f"git {sub} {option} writes a file or runs a program"
    checker = _GIT_SUBCOMMANDS.get(sub)
    if checker is not None:
        return checker(literal)
    if sub not in _GIT_READERS:
        return f"git {sub} is not a read-only git command"
    if sub == "grep" and any(
        o.startswith("-") and not o.startswith("--") and "O" in o for o in literal
    ):
        return f"git grep -O runs a program on the matching files ({literal})"
    if sub == "cat-file" and any(o in {"--textconv", "--filters"} for o in literal):
        return "git cat-file --textconv/--filters runs configured programs"
    return _git_history_options(sub, literal)


def _git_history_options(sub: str, options: list[str]) -> str | None:
    """Options of the reading subcommands: long ones from the list, short letters allowed;
    everything after ``--`` and every word not starting with ``-`` is a revision or a path."""
    for option in options:
        if option == "--":
            return None
        if not option.startswith("-") or option == "-":
            continue
        if option.startswith("--"):
            name, equals, value = option.partition("=")
            if equals and name in _FORMAT_OPTIONS:
                problem = _format_problem(sub, name, value)
                if problem:
                    return f"git {sub} {name}: {problem}"
            if name in _GIT_HISTORY_LONG_VALUED or (name in _GIT_HISTORY_LONGS and not equals):
                continue
            if name.startswith("--no-") and name[5:] and ("--" + name[5:]) in _GIT_HISTORY_LONGS:
                continue
            return f"git {sub} option {name} is not known to be read-only"
        letters = option[1:]
        if not letters:
            continue
        if letters[0] in "nUlLSGOABCMg" and len(letters) > 1:
            continue  # -n5, -U3, -L1,2:f, -Sfoo: a letter with its value attached
        if not set(letters) <= _GIT_HISTORY_LETTERS:
            return f"git {sub} option {option} is not known to be read-only"
    return None


# Options whose value is a format (git log --format=…, cat-file --batch=…).
_FORMAT_OPTIONS = frozenset({"--format", "--pretty", "--batch", "--batch-check"})
# Subcommands whose formats list objects or files, not commits.
_OBJECT_LISTINGS = frozenset({"cat-file", "ls-files", "ls-tree"})


def _format_problem(sub: str, option: str, value: str) -> str | None:
    """Why a format given to ``git sub`` may run a program (each grammar in git_formats)."""
    if sub in _OBJECT_LISTINGS:
        return object_format_problem(value)
    if option in {"--batch", "--batch-check"}:
        return f"{option} belongs to cat-file"
    return pretty_format_problem(value)


# A configuration key: section[.subsection].name. A word without a dot is no key — newer gits
# read it as a subcommand (`git config edit` opens an editor).
_CONFIG_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]*(?:\.[^\n]*)?\.[A-Za-z][A-Za-z0-9-]*\Z")


def _git_config(options: list[str]) -> str | None:
    """Only reading forms, and the whole argument list must be one of them."""
    actions = {
        "--get": (1, 2),
        "--get-all": (1, 2),
        "--get-regexp": (1, 2),
        "--get-urlmatch": (2, 2),
        "--get-color": (1, 2),
        "--get-colorbool": (1, 2),
        "--list": (0, 0),
        "-l": (0, 0),
    }
    modifiers = names(
        """--show-origin --show-scope --null -z --includes --no-includes --global --system
        --local --worktree --bool --int --bool-or-int --path --expiry-date --name-only"""
    )
    valued = names("--file -f --blob --type --default")
    if options[:1] in (["get"], ["list"]):
        return _git_config_subcommand(options)
    chosen: list[str] = []
    operands: list[str] = []
    rest = list(options)
    while rest:
        option = rest.pop(0)
        name, equals, _ = option.partition("=")
        if operands:
            # git config stops reading options at the first operand: `git config a b --get`
            # sets a to b.
            operands.append(option)
        elif option in actions:
            chosen.append(option)
        elif option in modifiers:
            continue
        elif name in valued:
            if not equals:
                if not rest:
                    return f"git config {name} without its value"
                rest.pop(0)
        elif option.startswith("-"):
            return f"git config {option} is not a reading option"
        else:
            operands.append(option)
    if not chosen and len(operands) == 1 and _CONFIG_KEY.match(operands[0]):
        return None  # git config NAME prints NAME's value (a second operand would set it)
    if len(chosen) != 1:
        return "git config without exactly one reading action (--get, --get-all, --list …)"
    low, high = actions[chosen[0]]
    if not low <= len(operands) <= high:
        return f"git config {chosen[0]} with {len(operands)} operand(s) would write settings"
    return None


def _git_config_subcommand(options: list[str]) -> str | None:
    sub, rest = options[0], options[1:]
    allowed = names(
        """--show-origin --show-scope --null -z --includes --no-includes --global --system
        --local --worktree --all --regexp --name-only --type --default --file --blob --url
        --value --fixed-value"""
    )
    operands: list[str] = []
    for option in rest:
        name = option.partition("=")[0]
        if option.startswith("-") and not operands:
            if name not in allowed:
                return f"git config {sub} {option} is not a reading option"
        else:
            operands.append(option)
    limit = 0 if sub == "list" else 1
    if len(operands) > limit:
        return f"git config {sub} with {len(operands)} operand(s)"
    return None


# git branch and git tag list with these, and create with a bare NAME operand.
_LISTING_FILTERS = names("--contains --no-contains --merged --no-merged --points-at")
_BRANCH_LISTING = names(
    """-a --all -r --remotes -v -vv --verbose -l --list --show-current --no-color -i
    --ignore-case --no-column --omit-empty --no-abbrev"""
)
_TAG_LISTING = names("-l --list -i --ignore-case --no-column --omit-empty")


def _branch_listing(option: str) -> bool | None:
    """None when ``option`` is no listing option of git branch, else whether it asks for the
    list by itself (``--list``, or ``-l`` in a cluster of short ones)."""
    if option in _BRANCH_LISTING or re.fullmatch(r"-[arvli]+", option):
        return option == "--list" or (option[1:2] != "-" and "l" in option)
    return None


def _tag_listing(option: str) -> bool | None:
    """The same for git tag, whose ``-n<count>`` lists with annotations."""
    if option in _TAG_LISTING:
        return option in {"-l", "--list"}
    if re.fullmatch(r"-n\d*", option):
        return True
    return None


def _listing_only(
    sub: str,
    things: str,
    options: list[str],
    listing: Callable[[str], bool | None],
    valued: frozenset[str],
) -> str | None:
    """git branch/tag only when they list: every option lists, shapes the list or filters it
    (the filters list by themselves), and a NAME operand only beside an option that lists (it
    is then a pattern, else git creates it)."""
    listed = False
    operands = 0
    rest = list(options)
    while rest:
        option = rest.pop(0)
        name = option.partition("=")[0]
        lists = listing(option)
        if lists is not None:
            listed = listed or lists
            continue
        if name in _REQUIRED_VALUE:
            if "=" not in option:
                if not rest:
                    return f"git {sub} {name} without its value"
                option = f"{name}={rest.pop(0)}"
            if name == "--format":
                problem = ref_format_problem(option.partition("=")[2])
                if problem:
                    return f"git {sub} --format: {problem}"
            continue
        if name in valued:
            continue  # an optional value, attached only: the next word is an operand
        if name in _LISTING_FILTERS:
            listed = True
            if "=" not in option and rest and not rest[0].startswith("-"):
                rest.pop(0)  # the commit the filter takes
            continue
        if option.startswith("-"):
            return f"git {sub} {option} changes {things}"
        operands += 1
    if operands and not listed:
        return f"git {sub} NAME creates a {sub}"
    return None


# Options of git branch/tag that take a value, attached or the next word; the other valued
# ones (--color, --column, --abbrev) take it attached only.
_REQUIRED_VALUE = names("--sort --format")


def _git_branch(options: list[str]) -> str | None:
    valued = names("--color --column --abbrev")
    return _listing_only("branch", "branches", options, _branch_listing, valued)


def _git_tag(options: list[str]) -> str | None:
    valued = names("--color --column")
    return _listing_only("tag", "tags", options, _tag_listing, valued)


_FOR_EACH_REF = Options(
    longs=names("--shell --perl --python --tcl --ignore-case --omit-empty --stdin"),
    long_valued=names("--count --sort --format --exclude --points-at"),
    long_optional=names("--color --merged --no-merged --contains --no-contains"),
)


def _git_for_each_ref(options: list[str]) -> str | None:
    """Refs listed with a ref-filter format; the operands are patterns."""
    parsed = _FOR_EACH_REF.parse(options)
    if isinstance(parsed, str):
        return f"git for-each-ref: {parsed}"
    for name, value in parsed.options:
        problem = ref_format_problem(value or "") if name == "--format" else None
        if problem:
            return f"git for-each-ref --format: {problem}"
    return None


_WORKTREE_LIST = Options(
    flags="vz", longs=names("--porcelain --verbose"), long_valued=names("--expire"), operands=0
)


def _git_worktree(options: list[str]) -> str | None:
    if options[:1] != ["list"]:
        return "git worktree with these arguments changes worktrees (only git worktree list)"
    parsed = _WORKTREE_LIST.parse(options[1:])
    return f"git worktree list: {parsed}" if isinstance(parsed, str) else None


# git cherry [-v] [--abbrev[=N]] [UPSTREAM [HEAD [LIMIT]]]
_CHERRY = Options(flags="v", long_optional=names("--abbrev"), operands=3)


def _git_cherry(options: list[str]) -> str | None:
    parsed = _CHERRY.parse(options)
    return f"git cherry: {parsed}" if isinstance(parsed, str) else None


def _git_submodule(options: list[str]) -> str | None:
    """Only the status of the submodules, not recursing: git runs ``git describe`` in each
    populated one and nothing that its configuration names (measured with git 2.39:
    core.fsmonitor, diff.external and core.pager of a submodule do not run); --recursive
    would run the submodule command inside each of them."""
    rest = list(options)
    while rest and rest[0] in _SUBMODULE_STATUS:
        rest.pop(0)
    if rest and rest[0] == "status":
        rest.pop(0)
    elif rest:
        return f"git submodule {rest[0]} changes or runs something (only git submodule status)"
    for word in rest:
        if word == "--" or not word.startswith("-"):
            return None  # paths follow (git passes them on after --)
        if word not in _SUBMODULE_STATUS:
            return f"git submodule status {word} is not known to be read-only"
    return None


_SUBMODULE_STATUS = names("--cached -q --quiet")


def _git_stash(options: list[str]) -> str | None:
    if options[:1] not in (["list"], ["show"]):
        return "git stash with these arguments changes the repository"
    return _git_history_options("stash", options[1:])


def _git_remote(options: list[str]) -> str | None:
    if all(option in {"-v", "--verbose"} for option in options):
        return None
    if options[:1] == ["get-url"] and all(
        not o.startswith("-") or o in {"--push", "--all"} for o in options[1:]
    ):
        return None
    return "git remote with these arguments changes remotes or contacts them"


def _git_reflog(options: list[str]) -> str | None:
    if not options:
        return None
    if options[0] == "show":
        return _git_history_options("reflog", options[1:])
    if options[0].startswith("-"):
        return _git_history_options("reflog", options)
    return "git reflog with these arguments changes the reflog (only git reflog show reads)"


_GIT_SUBCOMMANDS: dict[str, Callable[[list[str]], str | None]] = {
    "config": _git_config,
    "branch": _git_branch,
    "tag": _git_tag,
    "stash": _git_stash,
    "remote": _git_remote,
    "reflog": _git_reflog,
    "for-each-ref": _git_for_each_ref,
    "worktree": _git_worktree,
    "cherry": _git_cherry,
    "submodule": _git_submodule,
}


def git_environment(git_dir: str | None, work_tree: str | None) -> dict[str, str]:
    """The environment a planning command runs in so that git reads only trusted config.

    ``git_dir``/``work_tree``: the workspace's own repository (None when it has none). git is
    pinned to it — a repository committed inside the workspace (a bare one, or a vendored
    checkout with its own ``.git/config``) is never discovered — and the settings that make
    git run programs are neutralised as command-line configuration (``GIT_CONFIG_COUNT``,
    which outranks every configuration file).
    """
    neutral = {
        "core.fsmonitor": "false",
        "core.hooksPath": "/dev/null",
        "core.pager": "cat",
        "core.sshCommand": "false",
        "core.askPass": "false",
        "safe.bareRepository": "explicit",
        "log.showSignature": "false",
        "gpg.program": "false",
        "gpg.ssh.program": "false",
        "gpg.x509.program": "false",
        "protocol.allow": "never",
        "credential.helper": "",
    }
    env = {"GIT_CONFIG_COUNT": str(len(neutral)), "GIT_OPTIONAL_LOCKS": "0"}
    for index, (key, value) in enumerate(neutral.items()):
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value
    env["GIT_DIR"] = git_dir or "/nonexistent/planmode-no-repository"
    if work_tree:
        env["GIT_WORK_TREE"] = work_tree
    env["GIT_CEILING_DIRECTORIES"] = "/"
    return env


def git_environment_for(root: Path) -> dict[str, str]:
    """:func:`git_environment` for the repository holding ``root`` (walking up to the first
    ``.git``: a directory, or a file naming one with ``gitdir:`` as worktrees have)."""
    for directory in (root, *root.parents):
        dot_git = directory / ".git"
        try:
            if dot_git.is_dir():
                return git_environment(str(dot_git), str(directory))
            if dot_git.is_file():
                first = dot_git.read_text(encoding="utf-8", errors="replace").split("\n", 1)[0]
                if first.startswith("gitdir:"):
                    target = (directory / first.removeprefix("gitdir:").strip()).resolve()
                    return git_environment(str(target), str(directory))
                return git_environment(None, None)
        except OSError:
            return git_environment(None, None)
    return git_environment(None, None)


# What makes a directory a git directory for git's discovery (setup.c, is_git_directory):
# HEAD beside objects and refs, or beside commondir naming them elsewhere. Any one of the
# three with HEAD counts here: more than git needs, never less.
_GIT_DIRECTORY_PARTS = ("objects", "refs", "commondir")


def repository_at(directory: Path) -> str | None:
    """What makes ``directory`` a repository git's discovery stops at, or None: a ``.git``
    (a directory, a ``gitdir:`` file, a symlink — whatever it is), or ``directory`` itself
    being a git directory (a bare repository)."""
    dot_git = directory / ".git"
    if os.path.lexists(dot_git):
        kind = (
            "a symlink"
            if os.path.islink(dot_git)
            else "a directory"
            if os.path.isdir(dot_git)
            else "a file"
        )
        return f"its .git is {kind}"
    if os.path.lexists(directory / "HEAD") and any(
        os.path.lexists(directory / part) for part in _GIT_DIRECTORY_PARTS
    ):
        return "it is a bare git directory: HEAD with objects, refs or commondir"
    return None


def foreign_repository(root: Path, cwd: Path) -> str | None:
    """Why git started in ``cwd`` would not open the workspace's own repository, said of the
    line (``runs in …, where git would open …``); None when it would.

    git finds its repository by walking up from the physical working directory (symlinks
    resolved, as ``getcwd`` returns it) to the first directory that holds ``.git`` or is a
    git directory. It opens the workspace's own only when ``cwd`` resolves to the root or
    inside it and no directory from there up to, but not including, the root is a
    repository (:func:`repository_at`). A symlinked directory counts where it leads.
    """
    real_root = Path(os.path.realpath(root))
    if not os.path.isabs(cwd):
        return f"runs in {str(cwd)!r}, which is no absolute path, so git could open any repository"
    real = Path(os.path.realpath(cwd))
    shown = str(cwd) if os.path.normpath(cwd) == str(real) else f"{cwd} (really {real})"
    if real != real_root and not real.is_relative_to(real_root):
        for directory in (real, *real.parents):
            why = repository_at(directory)
            if why is not None:
                return (
                    f"runs in {shown}, outside the workspace {real_root}, where git would open "
                    f"the repository at {directory} ({why})"
                )
        return f"runs in {shown}, outside the workspace {real_root}"
    for directory in (real, *real.parents):
        if directory == real_root:
            return None
        why = repository_at(directory)
        if why is not None:
            return (
                f"runs in {shown}, where git would open the repository at {directory} ({why}), "
                "not the workspace's"
            )
    return None
