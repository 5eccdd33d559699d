"""What a granted ``allowedPrompts`` entry lets through, and how that is said to the user.

An approved plan may carry prompts such as Bash "run tests". Each prompt becomes one exact
rule (:func:`rule_for`), shown in the approval before it is granted (the lens title and
tooltip, ``grants`` in the approval) and applied by :func:`prompt_allows`:

* the command must be **plain words**: runs of letters, digits and ``_ . / : = , @ % + -``, or
  text in single quotes, separated by spaces or tabs. Bash reads such a line as exactly those
  words — nothing is expanded, substituted, globbed, redirected, chained or assigned — so the
  words compared here are the words bash runs. The first word is a program name: unquoted and
  without ``=``;
* a prompt that names a category (*test(s)*, *build*, *lint*/*type check*, *install
  dependencies*) allows the category's commands (:data:`PROMPT_CATEGORIES`), each followed by
  any plain words (``pytest -q tests/unit``);
* any other prompt must itself be plain words, and allows exactly that command; a prompt whose
  last word is a lone ``*`` allows the words before it followed by any plain words
  (``npm run dev *`` allows ``npm run dev -- --port 3``). A prompt that is not plain words,
  or for another tool than Bash, allows nothing — and says so.

Documented in README (*allowedPrompts*) and docs/protocol.md section 6.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from planmode.core import shell

PROMPT_CATEGORIES: dict[str, tuple[str, ...]] = {
    "test": (
        "pytest",
        "python -m pytest",
        "python3 -m pytest",
        "npm test",
        "npm run test",
        "yarn test",
        "pnpm test",
        "go test",
        "cargo test",
        "make test",
        "tox",
        "mvn test",
        "gradle test",
    ),
    "build": (
        "npm run build",
        "yarn build",
        "pnpm build",
        "go build",
        "cargo build",
        "make",
        "python -m build",
        "mvn package",
        "gradle build",
    ),
    "lint": (
        "ruff check",
        "ruff format",
        "eslint",
        "npm run lint",
        "flake8",
        "mypy",
        "cargo clippy",
    ),
    "install": ("npm install", "npm ci", "yarn install", "pnpm install", "pip install -r"),
}
_CATEGORY_WORDS = {
    "test": ("test", "tests", "testing", "test suite"),
    "build": ("build", "compile"),
    "lint": ("lint", "linter", "type check", "typecheck", "format check"),
    "install": ("install dependencies", "install deps", "install packages"),
}

_PLAIN = r"[A-Za-z0-9_./:=,@%+-]"
_WORD_RE = re.compile(rf"(?:{_PLAIN}+|'[^'\x00-\x1f\x7f]*')+")
_PROGRAM_RE = re.compile(r"[A-Za-z0-9_./:,@%+-]+")
_QUOTED_RE = re.compile(r"'([^']*)'")
_BLANKS_RE = re.compile(r"[ \t]*")


def plain_words(command: str) -> tuple[str, ...] | None:
    """The words bash runs for ``command`` when it is plain words (see the module), else None."""
    tokens: list[str] = []
    at = _BLANKS_RE.match(command).end()  # type: ignore[union-attr]
    while at < len(command):
        word = _WORD_RE.match(command, at)
        if word is None:
            return None
        blanks = _BLANKS_RE.match(command, word.end())
        assert blanks is not None
        if not blanks.group() and blanks.end() < len(command):
            return None  # a word glued to something that is not plain
        tokens.append(word.group())
        at = blanks.end()
    if not tokens or not _PROGRAM_RE.fullmatch(tokens[0]):
        return None
    return tuple(_QUOTED_RE.sub(r"\1", t) for t in tokens)


def prompt_category(prompt: str) -> str | None:
    words = prompt.lower()
    for category, triggers in _CATEGORY_WORDS.items():
        if any(re.search(rf"\b{re.escape(t)}\b", words) for t in triggers):
            return category
    return None


def _code(words: tuple[str, ...]) -> str:
    return "`" + " ".join(words) + "`"


@dataclass(frozen=True)
class PromptRule:
    """The commands one granted prompt allows: each of ``starts`` exactly (``exact``), or
    followed by any plain words."""

    tool: str
    prompt: str
    starts: tuple[tuple[str, ...], ...]
    exact: bool
    category: str | None = None
    refusal: str | None = None

    def matches(self, command: str) -> bool:
        if not self.starts or not shell.is_single_simple_command(command):
            return False
        words = plain_words(command)
        if words is None:
            return False
        if self.exact:
            return words in self.starts
        return any(words[: len(start)] == start for start in self.starts)

    @property
    def rule(self) -> str:
        """The rule in one sentence, as the approval shows it (its ``grants``)."""
        quoted = f"{self.tool} “{self.prompt}”"
        if self.refusal is not None:
            return f"{quoted}: allows nothing ({self.refusal})"
        if self.category is not None:
            listed = ", ".join(_code(s) for s in self.starts)
            return (
                f"{quoted} (category {self.category}): {listed}, each followed by any plain words"
            )
        if self.exact:
            return f"{quoted}: exactly {_code(self.starts[0])}"
        return f"{quoted}: {_code(self.starts[0])} followed by any plain words"

    def label(self) -> str:
        """A short form for a lens title."""
        if self.refusal is not None:
            return f"“{self.prompt}” (nothing)"
        if self.category is not None:
            return f"“{self.prompt}” ({self.category} commands)"
        return _code(self.starts[0]) + ("" if self.exact else " …")


def rule_for(tool: str, prompt: str) -> PromptRule:
    """The one rule a granted prompt stands for (see the module)."""
    if tool != "Bash":
        return PromptRule(tool, prompt, (), True, refusal="only Bash prompts are granted")
    category = prompt_category(prompt)
    if category is not None:
        starts = tuple(tuple(c.split()) for c in PROMPT_CATEGORIES[category])
        return PromptRule(tool, prompt, starts, exact=False, category=category)
    text = prompt.strip()
    exact = not re.search(r"[ \t]\*$", text)
    words = plain_words(text if exact else text[:-1])
    if words is None:
        why = "the prompt is not plain words; '*' may only be its last word"
        return PromptRule(tool, prompt, (), True, refusal=why)
    return PromptRule(tool, prompt, (words,), exact=exact)


def prompt_allows(tool: str, prompt: str, command: str) -> bool:
    """Whether a granted prompt covers ``command`` (the rule :func:`rule_for` describes)."""
    return rule_for(tool, prompt).matches(command)
