"""git's format languages, read placeholder by placeholder as git reads them.

A format can make git verify signatures, which runs ``gpg.program``: the pretty formats'
``%G…`` placeholders (with or without a ``+``, ``-`` or `` `` modifier) and ref-filter's
``%(signature…)``. Each format is parsed with its own grammar and every placeholder must be one
known to run nothing; anything else — a signature placeholder, one git reads differently or
one unknown — refuses the format (docs/read-only-bash.md, "5. git").
"""

from __future__ import annotations

import re

# Pretty formats (git log --format/--pretty, format: and tformat:): after "%" and an optional
# modifier ("+", "-" or " "), one of these. A placeholder git does not know is printed
# literally, but is refused here: a later git may give it a meaning.
_PRETTY_PLACEHOLDER = re.compile(
    r"""[+\- ]?(?:
        [HhTtPpmdDSNeBsfbn]
        | [ac][nNeElLdDrtiIsh]
        | g[dDsnNeE]
        | x[0-9a-fA-F]{2}
        | C\((?:auto|always,|auto,)?[A-Za-z0-9 #,]*\) | C(?:red|green|blue|reset)
        | w\([0-9]*(?:,[0-9]*){0,2}\)
        | (?:<|<\||>|>\||>>|>>\||><|><\|)\([0-9-]+(?:,(?:trunc|ltrunc|mtrunc))?\)
        | \((?:trailers|describe|decorate)(?::[^)%]*)?\)
    )""",
    re.X,
)
_SIGNATURE_PLACEHOLDER = re.compile(r"[+\- ]?G")
# The built-in names of --pretty/--format. Any other name is an alias from configuration
# (pretty.<name>), whose format the command line does not show.
_PRETTY_NAMES = frozenset(
    ["", *"oneline short medium full fuller reference email raw mboxrd".split()]
)
# ref-filter's atoms (for-each-ref, branch and tag --format), "*" dereferencing a tag.
_REF_ATOMS = frozenset(
    """refname objecttype objectsize objectname deltabase tree parent numparent object type
    tag author authorname authoremail authordate committer committername committeremail
    committerdate tagger taggername taggeremail taggerdate creator creatordate describe
    subject body trailers contents raw upstream push symref flag HEAD color worktreepath
    align end if then else ahead-behind is-base""".split()
)
# The atoms of formats that list objects or files (cat-file --batch, ls-files, ls-tree).
_OBJECT_ATOMS = frozenset(
    """objectname objecttype objectsize deltabase rest objectmode path stage eolinfo eolattr
    ahead-behind""".split()
)


def pretty_format_problem(value: str) -> str | None:
    """Why the value of ``--format``/``--pretty`` may run a program, or None."""
    if value.startswith(("format:", "tformat:")):
        return _pretty_placeholders(value.partition(":")[2])
    if "%" in value:
        return _pretty_placeholders(value)  # read as tformat:
    if value in _PRETTY_NAMES:
        return None
    return (
        f"the format {value!r} (an alias from configuration, pretty.{value}, which may verify "
        "signatures: only built-in names and format strings)"
    )


def _pretty_placeholders(fmt: str) -> str | None:
    index = fmt.find("%")
    while index >= 0:
        rest = fmt[index + 1 :]
        if rest.startswith("%"):
            index = fmt.find("%", index + 2)
            continue
        if _SIGNATURE_PLACEHOLDER.match(rest):
            return f"the placeholder %{rest[:3]} verifies signatures (it runs gpg.program)"
        placeholder = _PRETTY_PLACEHOLDER.match(rest)
        if placeholder is None:
            return f"the placeholder %{rest[:12]} is not known to run nothing"
        index = fmt.find("%", index + 1 + placeholder.end())
    return None


def ref_format_problem(fmt: str) -> str | None:
    """Why a ref-filter format (``for-each-ref``, ``branch``, ``tag``) may run a program."""
    return _atoms(fmt, _REF_ATOMS, "ref-filter")


def object_format_problem(fmt: str) -> str | None:
    """Why the format of ``cat-file --batch``, ``ls-files`` or ``ls-tree`` may run one."""
    return _atoms(fmt, _OBJECT_ATOMS, "object listing")


def _atoms(fmt: str, known: frozenset[str], kind: str) -> str | None:
    """``%%`` is a percent sign, ``%xx`` a character in hex, ``%(atom[:arguments])`` an atom:
    every atom must be known (``signature`` is not: it verifies with gpg.program)."""
    index = fmt.find("%")
    while index >= 0:
        rest = fmt[index + 1 :]
        if rest.startswith("%"):
            index = fmt.find("%", index + 2)
            continue
        if rest.startswith("("):
            close = rest.find(")")
            if close < 0:
                return f"an unterminated atom %{rest[:12]}"
            atom = rest[1:close].partition(":")[0].lstrip("*")
            if atom == "signature":
                return "the atom %(signature) verifies signatures (it runs gpg.program)"
            if atom not in known:
                return f"the {kind} atom %({atom}) is not known to run nothing"
            index = fmt.find("%", index + 1 + close + 1)
            continue
        index = fmt.find("%", index + 1)  # %xx, or a literal "%"
    return None
