"""Read-only Bash: prove, from the text alone, that a command line only reads.

Fail closed, in three layers (docs/read-only-bash.md says why each exists):

1. **The text** (:mod:`.syntax`). Characters on which bash and tree-sitter-bash can read a
   line differently (control characters other than tab and newline, lone surrogates,
   characters outside the Basic Multilingual Plane) and overlong lines are refused before
   parsing; a tree with errors or with text the parser skipped is refused after. Every entry
   point below reads a line through this one guard, and anything that raises refuses.
2. **The tree** (:mod:`.walk`, :mod:`.words`). The walk allows a short list of node types. A
   word counts as *literal* only when bash would pass it on unchanged: anything bash could
   expand (parameters, substitutions, braces, globs, tildes, ``$'…'``) is *computed*.
   Parameter expansions with operators, assignments to anything but plain lower-case shell
   variables, and here-documents bash would expand are refused.
3. **The programs** (:mod:`.table`, one module per program with its own rules, option
   parsing in :mod:`.options`). Every simple command names a program of
   :data:`READ_ONLY_PROGRAMS`; each has an allow-list of options and a limit on operands. A
   computed word passes only where every possible value is harmless (a program none of whose
   options writes).

:func:`check` never raises: anything unexpected is a denial naming the reason. The settings
side — the commands of a line as permission rules see them — is :mod:`.rules`.
"""

from planmode.core.shell.decision import READ_ONLY, Verdict, check
from planmode.core.shell.git import foreign_repository, git_environment, git_environment_for
from planmode.core.shell.options import Args, Checker, Options, Parsed
from planmode.core.shell.rules import (
    command_words,
    is_single_simple_command,
    rule_forms,
    simple_commands,
)
from planmode.core.shell.syntax import MAX_COMMAND_LENGTH, refused_text
from planmode.core.shell.table import PLAIN_READERS, READ_ONLY_PROGRAMS
from planmode.core.shell.words import bash_word, harmless_variable

__all__ = [
    "MAX_COMMAND_LENGTH",
    "PLAIN_READERS",
    "READ_ONLY",
    "READ_ONLY_PROGRAMS",
    "Args",
    "Checker",
    "Options",
    "Parsed",
    "Verdict",
    "bash_word",
    "check",
    "command_words",
    "foreign_repository",
    "git_environment",
    "git_environment_for",
    "harmless_variable",
    "is_single_simple_command",
    "refused_text",
    "rule_forms",
    "simple_commands",
]
