"""The read-only walk: every node of a parsed line, allowed by type, each simple command
checked against the program table.

Structure (lists, pipelines, loops, conditionals) and plain values pass; a node of any other
type is denied. Assignments, parameter expansions, arithmetic, comments, redirections and
here-documents have their own rules (docs/read-only-bash.md,
"2. Words: what bash would compute" and "3. Variables").
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tree_sitter import Node

from planmode.core.shell.table import check_program
from planmode.core.shell.words import (
    bash_word,
    harmless_variable,
    literal,
    node_text,
    simple_command_words,
    splits,
)

_STRUCTURE = frozenset(
    {
        "program",
        "list",
        "pipeline",
        "subshell",
        "compound_statement",
        "redirected_statement",
        "negated_command",
        "while_statement",
        "if_statement",
        "elif_clause",
        "else_clause",
        "do_group",
        "case_statement",
        "case_item",
        "variable_assignments",
    }
)
_VALUES = frozenset(
    {
        "word",
        "number",
        "string",
        "raw_string",
        "concatenation",
        "simple_expansion",
        "string_content",
        "variable_name",
        "special_variable_name",
        "brace_expression",
        "command_substitution",
        "process_substitution",
        "regex",
        "test_operator",
        "binary_expression",
        "unary_expression",
        "parenthesized_expression",
        "file_descriptor",
        "command_name",
    }
)
# Where bash starts a comment: "#" at the beginning of a word.
_COMMENT_AFTER = frozenset(b" \t\n;&|()")


class Walk:
    """One walk over one parsed line; ``problem()`` is the first part that may not only read."""

    def __init__(self, source: bytes, text: str) -> None:
        self.source = source
        self.text = text
        self.heredocs = 0
        self.programs: set[str] = set()

    def problem(self, root: Node) -> str | None:
        # An explicit stack: a long `a && b && …` nests as deep as it is long.
        stack: list[tuple[Node, bool]] = [(root, False)]
        while stack:
            node, in_substitution = stack.pop()
            if not node.is_named:
                continue  # punctuation and keywords: ;, &&, |, do, done …
            problem, children = self.visit(node, in_substitution)
            if problem:
                return problem
            inner = in_substitution or node.type in {"command_substitution", "process_substitution"}
            stack.extend((child, inner) for child in reversed(children))
        return self.git_elsewhere()

    def git_elsewhere(self) -> str | None:
        """git may run in another directory than the line started in — in another repository,
        whose configuration can run programs (docs/read-only-bash.md, "5. git"). Order does
        not matter: a loop runs a git written before a cd after it."""
        if "git" in self.programs and self.programs & _CHANGES_DIRECTORY:
            changes = sorted(self.programs & _CHANGES_DIRECTORY)[0]
            return (
                f"git and {changes} in one line (git would read the configuration of whatever "
                "repository the new directory is in)"
            )
        return None

    def visit(self, node: Node, in_substitution: bool) -> tuple[str | None, list[Node]]:
        kind = node.type
        visitor = _VISITORS.get(kind)
        if visitor is not None:
            return visitor(self, node, in_substitution)
        if kind in _STRUCTURE or kind in _VALUES:
            return None, node.children
        if kind in {"ansi_c_string", "translated_string"}:
            return (
                f"{node_text(node)[:2]}…' quoting (bash decodes or translates it; only plain "
                "quotes are read as written)",
                [],
            )
        return f"shell construct '{kind}' is not allowed while planning", []

    # -- visitors ----------------------------------------------------------------------------
    def command(self, node: Node, _in: bool) -> tuple[str | None, list[Node]]:
        translated = self.translated(node)
        if translated[0]:
            return translated
        glued = self.glued_words(node)
        if glued:
            return glued, []
        named, words = simple_command_words(node)
        if not named:
            return "a command without a name", []
        if words[0] is None:
            return "a program name computed by the shell", []
        self.programs.add(words[0].rsplit("/", 1)[-1])
        problem = check_program(words[0], words[1:])
        return problem, node.children

    def glued_words(self, node: Node) -> str | None:
        """Two words the parser separates with no blank between them are one word for bash
        (tree-sitter splits ``'a b'\\$x`` in two)."""
        previous: Node | None = None
        for index, child in enumerate(node.children):
            if child.type == "comment" and index + 1 < len(node.children):
                # tree-sitter continues the command after a comment's line ends; bash does not.
                return "words after a comment (bash ends the command at the end of the line)"
            parts = child.children if child.type == "concatenation" else [child]
            split = next((p for p in parts if p.type == "word" and splits(node_text(p))), None)
            if split is not None:
                return f"the word {node_text(split)!r} holds a blank or operator bash splits at"
            if child.type in _NOT_WORDS:
                previous = None
                continue
            if previous is not None:
                gap = self.source[previous.end_byte : child.start_byte].replace(b"\\\n", b"")
                if not gap or gap.strip(b" \t\n"):
                    first, second = node_text(previous), node_text(child)
                    return f"words {first!r} and {second!r} that bash reads as one"
            previous = child
        return None

    def translated(self, node: Node, _in: bool = False) -> tuple[str | None, list[Node]]:
        # tree-sitter reads $"…" as a lone "$" token before a string, bash as one word.
        if any(child.type == "$" for child in node.children):
            return '$"…" quoting (bash translates it; only plain quotes are read as written)', []
        return None, node.children

    def assignment(self, node: Node, _in: bool) -> tuple[str | None, list[Node]]:
        target = node.children[0] if node.children else None
        if target is None or target.type != "variable_name":
            return "an assignment to an array element (its subscript is evaluated as code)", []
        name = node_text(target)
        if not harmless_variable(name):
            return (
                f"an assignment to {name} (only plain lower-case shell variables; this one "
                "changes how bash or programs behave)",
                [],
            )
        if any(child.type == "array" for child in node.children):
            return "an array assignment", []
        return None, node.children[1:]

    def for_loop(self, node: Node, _in: bool) -> tuple[str | None, list[Node]]:
        variable = node.child_by_field_name("variable")
        if variable is None or not harmless_variable(node_text(variable)):
            shown = node_text(variable) if variable is not None else "?"
            return (
                f"a for loop assigning {shown} (only plain lower-case shell variables; this "
                "one changes how bash or programs behave)",
                [],
            )
        return None, [c for c in node.children if c != variable]

    def expansion(self, node: Node, _in: bool) -> tuple[str | None, list[Node]]:
        kinds = [child.type for child in node.children]
        if len(kinds) == 3 and kinds[1] in {"variable_name", "special_variable_name"}:
            return None, []
        return (
            f"the parameter expansion {node_text(node)!r} (only plain ${{name}}: bash evaluates "
            "operators, subscripts and patterns, and their words are not checked)",
            [],
        )

    def arithmetic(self, node: Node, _in: bool) -> tuple[str | None, list[Node]]:
        # Bash evaluates a variable's value in arithmetic as an expression, and a subscript in
        # it runs command substitutions: x='a[$(rm -rf ~)]'; echo $((x)). Only literal numbers.
        stack = list(node.named_children)
        while stack:
            child = stack.pop()
            if child.type not in _ARITHMETIC_SAFE:
                return (
                    "arithmetic on anything but literal numbers (values are evaluated as code)",
                    [],
                )
            stack.extend(child.named_children)
        return None, []

    def compound(self, node: Node, in_sub: bool) -> tuple[str | None, list[Node]]:
        if node.children and node.children[0].type == "((":
            return self.arithmetic(node, in_sub)
        return None, node.children

    def test(self, node: Node, _in: bool) -> tuple[str | None, list[Node]]:
        stack = list(node.named_children)
        while stack:
            child = stack.pop()
            operators = {node_text(c) for c in child.children if c.type == "test_operator"}
            if operators & _ARITHMETIC_TESTS:
                operands = [c for c in child.named_children if c.type != "test_operator"]
                if (
                    "-v" in operators
                    or "-R" in operators
                    or any(o.type != "number" for o in operands)
                ):
                    return "an arithmetic or -v test on a non-number (it is evaluated as code)", []
            stack.extend(child.named_children)
        return None, node.children

    def comment(self, node: Node, in_substitution: bool) -> tuple[str | None, list[Node]]:
        start = node.start_byte
        if in_substitution:
            return "a comment inside a substitution (bash versions disagree where it ends)", []
        if start > 0 and self.source[start - 1] not in _COMMENT_AFTER:
            return "a '#' glued to the word before it (bash does not start a comment there)", []
        return None, []

    def redirect_shape(self, node: Node) -> str | None:
        """Where bash splits a redirection otherwise than the tree: a descriptor glued to the
        word before it, or more than one word after the operator. The settings-rule side
        asks this too: the commands of such a line are not known."""
        start = node.start_byte
        if node.children and node.children[0].type == "file_descriptor":
            glued = start > 0 and self.source[start - 1] not in b" \t\n;&|()"
            if glued or not node_text(node.children[0]).isdigit():
                # bash reads "a2>f" (and tree-sitter's "-n2>f") as a word and a redirection
                # of standard output
                return f"the redirection '{node_text(node)}' glued to the word before it"
        if len(node.children_by_field_name("destination")) != 1:
            return "words after a redirection's target (arguments that escape the check)"
        return None

    def file_redirect(self, node: Node, _in: bool) -> tuple[str | None, list[Node]]:
        operator = next((c.type for c in node.children if not c.is_named), "")
        shape = self.redirect_shape(node)
        if shape is not None:
            return shape, []
        destinations = node.children_by_field_name("destination")
        value = literal(destinations[0])
        shown = node_text(node)
        if operator == "<":
            if value is None:
                return f"redirection '{shown}' from a computed file", []
            if value.startswith(("/dev/tcp/", "/dev/udp/")):
                return f"redirection '{shown}' opens a network connection", []
            return None, []
        if operator in {">&", "<&"} and value is not None and (value.isdigit() or value == "-"):
            return None, []
        if operator in {">&-", "<&-"}:
            return None, []
        if operator in {">", ">>", "&>", "&>>", ">|", ">&"} and value == "/dev/null":
            return None, []
        return f"redirection '{shown}' writes to a file", []

    def heredoc(self, node: Node, _in: bool) -> tuple[str | None, list[Node]]:
        self.heredocs += 1
        problem = _heredoc_problem(node, self.text, self.heredocs)
        skipped = {"heredoc_start", "heredoc_body", "heredoc_end"}
        return problem, [c for c in node.children if c.type not in skipped]


# Programs that change the working directory of the shell.
_CHANGES_DIRECTORY = frozenset({"cd", "pushd", "popd"})
# Children of a command that end the word before them (glued_words).
_NOT_WORDS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect", "comment"})
_ARITHMETIC_SAFE = frozenset(
    {"number", "binary_expression", "unary_expression", "parenthesized_expression"}
)
_ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-v", "-R"})
_Visitor = Callable[[Walk, Node, bool], tuple[str | None, list[Node]]]
_VISITORS: dict[str, _Visitor] = {
    "command": Walk.command,
    "variable_assignment": Walk.assignment,
    "for_statement": Walk.for_loop,
    "expansion": Walk.expansion,
    "arithmetic_expansion": Walk.arithmetic,
    "compound_statement": Walk.compound,
    "test_command": Walk.test,
    "comment": Walk.comment,
    "file_redirect": Walk.file_redirect,
    "heredoc_redirect": Walk.heredoc,
    "herestring_redirect": lambda walk, node, _in: (None, node.children),
    "concatenation": Walk.translated,
}


def _heredoc_problem(node: Node, text: str, count: int) -> str | None:
    """A here-document passes when bash reads it exactly as tree-sitter does.

    Allowed: one per line, ``<<`` (not ``<<-``), a plain delimiter, a body bash does not
    expand (a quoted delimiter, or no ``$``, backquote or backslash in it), the body starting
    on the second line and the delimiter line ending the command.
    """
    if count > 1:
        return "more than one here-document"
    kinds = [c.type for c in node.children]
    start = next((c for c in node.children if c.type == "heredoc_start"), None)
    body = next((c for c in node.children if c.type == "heredoc_body"), None)
    end = next((c for c in node.children if c.type == "heredoc_end"), None)
    if "<<" not in kinds or start is None or end is None:
        return "a here-document other than <<DELIMITER (<<- strips tabs: refused)"
    written = node_text(start)
    delimiter = bash_word(written)
    if delimiter is None or not re.fullmatch(r"[A-Za-z0-9_]+", delimiter):
        return f"the here-document delimiter {written!r} (only letters, digits and _)"
    quoted = written != delimiter
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) < 2 or lines[-1] != delimiter or delimiter in lines[1:-1]:
        return "a here-document that does not end the command (its delimiter line must be last)"
    first_line_bytes = len(lines[0].encode("utf-8"))
    if start.end_byte > first_line_bytes:
        return "a here-document started after the first line"
    expected = "".join(line + "\n" for line in lines[1:-1])
    if (node_text(body) if body is not None else "") != expected or node_text(end) != delimiter:
        return "a here-document that bash and the parser split differently"
    if not quoted and re.search(r"[$`\\]", expected):
        return "an unquoted here-document whose body bash expands ($, ` or \\)"
    return None
