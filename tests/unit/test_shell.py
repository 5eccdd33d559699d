"""Read-only Bash classification: a corpus of escapes that must be denied, reads that pass.

Plan mode lets Bash through only when :func:`planmode.core.shell.check` proves every part of
the command line reads. Each case below is one way an agent could write while planning.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planmode.core.shell import (
    READ_ONLY_PROGRAMS,
    check,
    is_single_simple_command,
    simple_commands,
)

# (id, command): every one of these writes, runs arbitrary code, or cannot be proven not to.
WRITES: list[tuple[str, str]] = [
    # plain writers
    ("rm", "rm file.txt"),
    ("rm-rf", "rm -rf /"),
    ("mv", "mv a b"),
    ("cp", "cp a b"),
    ("touch", "touch new.txt"),
    ("mkdir", "mkdir -p build/out"),
    ("chmod", "chmod +x script.sh"),
    ("ln", "ln -s a b"),
    ("dd-of", "dd if=/dev/zero of=disk.img"),
    ("curl-o", "curl -o out.html https://example.com"),
    ("wget", "wget https://example.com/x"),
    ("npm-install", "npm install left-pad"),
    ("pip-install", "pip install requests"),
    ("make", "make"),
    ("truncate", "truncate -s 0 f"),
    # git in another directory reads that repository's configuration
    ("cd-then-git", "cd $(git rev-parse --show-toplevel) && git status"),
    # redirections
    ("redirect-gt", "echo hi > out.txt"),
    ("redirect-append", "echo hi >> out.txt"),
    ("redirect-amp", "ls &> out.txt"),
    ("redirect-clobber", "echo hi >| out.txt"),
    ("redirect-fd-file", "ls 2> errors.log"),
    ("redirect-readwrite", "cat <> f"),
    ("redirect-dup-to-file", "ls >& out.txt"),
    ("redirect-in-pipeline", "cat a | sort > b"),
    ("redirect-on-subshell", "(ls) > out.txt"),
    ("redirect-on-group", "{ ls; } > out.txt"),
    ("redirect-on-loop", "for f in a; do cat $f; done > all.txt"),
    ("tee", "echo hi | tee out.txt"),
    ("tee-append", "ls | tee -a log"),
    # sed -i and friends
    ("sed-i", "sed -i s/a/b/ file"),
    ("sed-i-bak", "sed -i.bak s/a/b/ file"),
    ("sed-in-place", "sed --in-place s/a/b/ file"),
    ("sed-in-place-abbrev", "sed --in -e s/a/b/ file"),
    ("sed-ni", "sed -ni p file"),
    ("sed-quoted-i", "sed '-i' s/a/b/ file"),
    ("sed-w-command", "sed 'w out.txt' file"),
    ("sed-s-w-flag", "sed 's/a/b/w out.txt' file"),
    ("sed-e-command", "sed 'e rm -rf x' file"),
    ("sed-attached-e-script", "sed -ne'w /tmp/x' p"),
    ("sed-late-attached-e", "sed p -e'w x'"),
    ("sed-expr-abbrev", "sed --expr='e rm x' p"),
    ("sed-f-script", "sed -f script.sed file"),
    ("sed-attached-f", "sed -fx p"),
    # sort -o
    ("sort-o", "sort -o out.txt in.txt"),
    ("sort-ofile", "sort -oout.txt in.txt"),
    ("sort-uo-cluster", "sort -uo out.txt in.txt"),
    ("sort-output-long", "sort --output=out.txt in.txt"),
    ("sort-output-abbrev", "sort --out=x a"),
    ("sort-compress-program", "sort --compress-program=sh a"),
    # find
    ("find-delete", "find . -name '*.pyc' -delete"),
    ("find-exec", "find . -exec rm {} ;"),
    ("find-execdir", "find . -execdir rm {} +"),
    ("find-ok", "find . -ok rm {} ;"),
    ("find-okdir", "find . -okdir rm {} ;"),
    ("find-fprint", "find . -fprint out.txt"),
    ("find-fprintf", "find . -fprintf out.txt %p"),
    ("find-fls", "find . -fls out.txt"),
    ("find-escaped-delete", r"find . -de\lete"),
    ("find-double-quoted-delete", 'find . "-delete"'),
    ("find-single-quoted-delete", "find . '-delete'"),
    ("find-ansi-c-delete", "find . $'-delete'"),
    ("find-glob-arg", "find . *"),
    ("find-question-glob", "find . -?elete"),
    ("find-variable-arg", "find . $OPT"),
    ("find-after-redirect", "find . > /dev/null -delete"),
    ("find-after-input-redirect", "find . < /dev/null -delete"),
    # git
    ("git-commit", "git commit -m msg"),
    ("git-push", "git push origin main"),
    ("git-checkout", "git checkout other"),
    ("git-reset", "git reset --hard HEAD~1"),
    ("git-branch-D", "git branch -D feature"),
    ("git-branch-new", "git branch newname"),
    ("git-stash", "git stash"),
    ("git-stash-pop", "git stash pop"),
    ("git-tag-name", "git tag v1.0"),
    ("git-config-set", "git config user.name x"),
    ("git-c-pager", "git -c core.pager='rm -rf x' log"),
    ("git-add", "git add ."),
    ("git-clean", "git clean -fdx"),
    ("git-log-output", "git log --output=out.txt"),
    ("git-diff-ext-diff", "git diff --ext-diff"),
    ("git-grep-open-pager", "git grep -Orm foo"),
    ("git-grep-open-abbrev", "git grep --open=rm foo"),
    ("git-computed-subcommand", "git $SUB"),
    # xargs
    ("xargs-rm", "ls | xargs rm"),
    ("xargs-sh", "ls | xargs sh -c 'rm $0'"),
    ("xargs-find-input-option", "printf -- -delete | xargs find ."),
    ("xargs-sed-input-option", "echo -i | xargs sed s/a/b/ f"),
    ("xargs-optional-i", "xargs -i rm cat"),
    ("xargs-arg-file-cluster", "xargs -0a cat rm x"),
    ("xargs-arg-file-long", "xargs --arg-file cat rm x"),
    # running code
    ("eval", "eval 'rm x'"),
    ("exec", "exec rm x"),
    ("bash-c", "bash -c 'rm x'"),
    ("sh-c", "sh -c 'ls'"),
    ("python-c", "python -c 'import os; os.remove(\"x\")'"),
    ("python3-script", "python3 script.py"),
    ("node-e", 'node -e \'require("fs").unlinkSync("x")\''),
    ("perl-e", "perl -e 'unlink \"x\"'"),
    ("awk-system", "awk 'BEGIN { system(\"rm x\") }'"),
    ("awk-redirect", "awk '{ print > \"out\" }' f"),
    ("source", "source ./env.sh"),
    ("dot-source", ". ./env.sh"),
    ("env-runs-program", "env rm x"),
    ("command-builtin", "command rm x"),
    ("builtin", "builtin cd /"),
    ("nohup", "nohup rm x"),
    ("timeout", "timeout 5 rm x"),
    ("sudo", "sudo ls"),
    ("local-script", "./build.sh"),
    ("relative-program", "bin/tool --help"),
    ("parent-relative-program", "../tools/cat x"),
    ("absolute-untrusted", "/tmp/evil/cat x"),
    ("trusted-dir-traversal", "/usr/bin/../../tmp/evil/cat x"),
    ("absolute-rm", "/bin/rm x"),
    # substitutions hiding a write
    ("command-substitution", "echo $(rm x)"),
    ("backticks", "echo `rm x`"),
    ("quoted-substitution", 'echo "$(rm x)"'),
    ("nested-substitution", "echo $(echo $(rm x))"),
    ("process-substitution-in", "cat <(rm x)"),
    ("process-substitution-out", "ls >(tee x)"),
    ("substitution-in-redirect-target", "cat < $(rm x)"),
    ("herestring-substitution", "cat <<< $(rm x)"),
    ("herestring-quoted-substitution", 'cat <<< "$(rm x)"'),
    ("expansion-default-substitution", "echo ${x:-$(rm y)}"),
    ("substitution-as-name", "$(echo rm) x"),
    # assignments and computed names
    ("assignment-git-pager", "GIT_PAGER='rm -rf x' git log"),
    ("assignment-path", "PATH=. ls"),
    ("assignment-alone", "X=1"),
    ("export", "export PATH=."),
    ("declare", "declare -x A=1"),
    ("unset", "unset PATH"),
    ("variable-program", "$CMD x"),
    ("braced-variable-program", "${CMD} x"),
    ("escaped-name", r"r\m x"),
    ("quoted-name", '"rm" x'),
    ("single-quoted-name", "'rm' x"),
    ("brace-expansion-name", "{rm,x}"),
    ("glob-name", "r? x"),
    # shell structures
    ("heredoc-expanding", "cat <<EOF\n$(rm x)\nEOF"),
    ("heredoc-to-file", "cat > f <<EOF\nhi\nEOF"),
    ("function-definition", "f() { rm x; }; f"),
    ("function-keyword", "function f { ls; }"),
    ("c-style-for", "for ((i=0; i<3; i++)); do ls; done"),
    ("background-job", "rm x &"),
    ("coproc", "coproc rm x"),
    # bash arithmetic evaluates variable values as code (subscripts run substitutions)
    ("arith-variable", "for x in 'a[$(rm y)]'; do echo $((x)); done"),
    ("arith-quoted-subscript", 'echo $(( "a[\\$(rm x)]" ))'),
    ("arith-command", "(( x ))"),
    ("arith-old-syntax", "echo $[x]"),
    ("test-eq-subscript", "[[ 'a[$(rm x)]' -eq 0 ]]"),
    ("test-eq-variable", "for x in a; do [[ x -eq 0 ]]; done"),
    ("test-v-subscript", "[[ -v 'a[$(rm x)]' ]]"),
    ("test-builtin-v", "test -v 'a[$(rm x)]'"),
    ("bracket-builtin-v", "[ -v 'a[$(rm x)]' ]"),
    ("printf-v", "printf -v 'a[$(rm x)]' 1"),
    ("substring-offset-variable", "echo ${HOME:x}"),
    ("substring-literal", "echo ${x:1:2}"),
    ("default-expansion", "echo ${x:-none}"),
    ("indirect-expansion", "echo ${!x}"),
    ("prompt-expansion", "echo ${x@P}"),
    ("subscript", "echo ${x[$(rm y)]}"),
    # options of otherwise read-only programs that write or run
    ("xxd-outfile", "xxd a b"),
    ("file-compile", "file -C -m magic"),
    ("tree-output", "tree -o out.txt"),
    ("tree-output-cluster", "tree -ao out.txt"),
    ("tree-recursive-html", "tree -R -H x"),
    ("rg-pre", "rg --pre=./evil foo"),
    ("rg-hostname-bin", "rg --hostname-bin=rm x"),
    ("yq-in-place", "yq -i '.a=1' f.yaml"),
    ("yq-in-place-cluster", "yq -Pi '.a=1' f.yaml"),
    ("yq-split", "yq -s '.a' f.yaml"),
    ("uniq-output", "uniq in.txt out.txt"),
    ("uniq-output-after-dashdash", "uniq in -- -out"),
    ("date-set", "date -s 2020-01-01"),
    ("date-set-abbrev", "date --s 2020"),
    ("hostname-set", "hostname evil"),
    # writes hidden inside read-only lists
    ("after-semicolon", "ls; rm x"),
    ("after-and", "ls && rm x"),
    ("after-or", "ls || rm x"),
    ("in-pipeline", "cat x | rm y"),
    ("in-subshell", "(rm x)"),
    ("in-group", "{ rm x; }"),
    ("in-if", "if true; then rm x; fi"),
    ("in-else", "if false; then ls; else rm x; fi"),
    ("in-while", "while false; do rm x; done"),
    ("in-case", "case a in a) rm x;; esac"),
    ("negated", "! rm x"),
    # unparseable or empty
    ("unclosed-double-quote", 'echo "abc'),
    ("unclosed-single-quote", "echo 'abc"),
    ("unclosed-substitution", "echo $("),
    ("unclosed-subshell", "(ls"),
    ("dangling-pipe", "ls |"),
    ("empty", ""),
    ("blank", "   "),
    ("nul-byte", "ls\x00rm x"),
    ("nul-in-argument", "cat a\x00b"),
    # tree-sitter-bash can crash on "{" + an astral character: never parsed
    ("astral-after-brace", "ls {\U000e396a"),
]

# (id, command): each only reads.
READS: list[tuple[str, str]] = [
    ("ls-la", "ls -la"),
    ("cat", "cat src/app.py"),
    ("head", "head -n 20 README.md"),
    ("tail", "tail -5 log.txt"),
    ("grep-rn", "grep -rn TODO src"),
    ("rg", "rg -n 'def main' server"),
    ("find-name", "find . -name '*.py' -type f"),
    ("find-print", "find src -maxdepth 2 -type d -print"),
    ("git-status", "git status --short"),
    ("git-log", "git log --oneline -n 10"),
    ("git-diff", "git diff HEAD~1 -- src"),
    ("git-show", "git show HEAD:README.md"),
    ("git-blame", "git blame -L 1,10 src/app.py"),
    ("git-branch-a", "git branch -a"),
    ("git-no-pager-log", "git --no-pager log -1"),
    ("git-stash-list", "git stash list"),
    ("git-tag-list", "git tag -l"),
    ("git-config-get", "git config --get user.name"),
    ("sed-n", "sed -n '1,20p' file"),
    ("sed-substitute-to-stdout", "sed 's/foo/bar/g' file"),
    ("sed-n-e-e", "sed -n -e 1p -e '$p' file"),
    ("sort-u", "sort -u names.txt"),
    ("sort-key", "sort -k 2 -t , data.csv"),
    ("wc-l", "wc -l src/app.py"),
    ("uniq-c", "uniq -c sorted.txt"),
    ("pipeline", "cat file | grep foo | sort | uniq -c | head"),
    ("and-list", "ls && cat README.md"),
    ("or-list", "cat missing || echo none"),
    ("semicolon-list", "pwd; ls"),
    ("subshell", "(cd src && ls)"),
    ("group", "{ ls; pwd; }"),
    ("substitution-rev-parse", "ls $(git rev-parse --show-toplevel)"),
    ("cd-substitution", "cd $(pwd)/src && ls"),
    ("backtick-read", "echo `pwd`"),
    ("stderr-devnull", "ls missing 2>/dev/null"),
    ("stderr-to-stdout", "ls 2>&1 | head"),
    ("stdout-devnull", "grep -q foo file > /dev/null"),
    ("input-redirect", "wc -l < src/app.py"),
    ("herestring", "grep foo <<< 'a foo b'"),
    ("for-cat", "for f in a.txt b.txt; do cat $f; done"),
    ("for-over-substitution", "for f in $(ls); do wc -l $f; done"),
    ("test-and-cat", "[ -f x ] && cat x"),
    ("double-bracket-test", "[[ -d src ]] && ls src"),
    ("if-then", "if [ -f x ]; then cat x; else echo none; fi"),
    ("while-false", "while false; do ls; done"),
    ("xargs-grep", "find . -name '*.py' -print0 | xargs -0 grep -n foo"),
    ("xargs-default-echo", "ls | xargs"),
    ("trusted-absolute", "/usr/bin/cat file"),
    ("echo-variable", 'echo "$HOME"'),
    ("arith-literal", "echo $((1 + 2))"),
    ("heredoc-plain", "cat <<EOF\nhi\nEOF"),
    ("heredoc-quoted", "cat <<'EOF'\n$(rm x) `rm y`\nEOF"),
    ("quoted-args", "grep -n \"hello world\" 'src/app.py'"),
    ("comment", "ls # list"),
    ("negated-grep", "! grep -q foo file"),
    ("jq", "jq '.name' package.json"),
    ("tree-depth", "tree -L 2"),
    ("date-iso", "date -Iseconds"),
    ("xxd-read", "xxd -l 16 file"),
    ("printf-format", "printf '%s\\n' a b"),
    ("which", "which python"),
    ("stat", "stat -c %s file"),
    ("diff", "diff -u a b"),
    ("env-no-args", "env"),
    ("case", "case x in x) ls;; esac"),
]


def _ids(table: list[tuple[str, str]]) -> list[str]:
    return [name for name, _ in table]


def test_corpus_sizes_and_unique_ids() -> None:
    assert len(WRITES) >= 60
    assert len(READS) >= 20
    assert len(set(_ids(WRITES))) == len(WRITES)
    assert len(set(_ids(READS))) == len(READS)


@pytest.mark.parametrize(("name", "command"), WRITES, ids=_ids(WRITES))
def test_write_is_denied(name: str, command: str) -> None:
    verdict = check(command)
    assert verdict.read_only is False, f"{name}: {command!r} passed as read-only"
    assert verdict.reason, "a denial must say why"


@pytest.mark.parametrize(("name", "command"), READS, ids=_ids(READS))
def test_read_is_allowed(name: str, command: str) -> None:
    verdict = check(command)
    assert verdict.read_only is True, f"{name}: {command!r} denied: {verdict.reason}"
    assert verdict.reason == ""


@pytest.mark.parametrize(
    ("command", "named"),
    [
        ("ls; rm x", "rm"),
        ("sed -i s/a/b/ f", "-i"),
        ("find . -delete", "-delete"),
        ("echo hi > out.txt", "out.txt"),
        ("git push", "push"),
        ("FOO=1 ls", "assignment"),
    ],
)
def test_the_reason_names_the_failing_part(command: str, named: str) -> None:
    assert named in check(command).reason


# -- properties -------------------------------------------------------------------------------
WRITE_PARTS = [
    "rm -rf x",
    "touch f",
    "echo hi > f",
    "sed -i s/a/b/ f",
    "find . -delete",
    "git commit -m x",
    "mv a b",
    "tee f",
    "sort -o f g",
    "bash -c ls",
    "xargs rm",
    "$CMD",
    "X=1 ls",
    "python -c 1",
]
READ_PARTS = [
    "ls -la",
    "cat f",
    "grep -rn foo .",
    "git status",
    "git log -1",
    "head -3 f",
    "wc -l f",
    "sed -n 1p f",
    "sort -u f",
    "find . -name x",
    "echo hi",
    "pwd",
    "[ -f x ]",
    "rg foo",
]
JOINERS = ["; ", " && ", " || ", " | "]


def _wrap(kind: str, inner: str) -> str:
    return {
        "plain": inner,
        "substitution": f"echo $({inner})",
        "backticks": f"echo `{inner}`",
        "subshell": f"({inner})",
        "group": f"{{ {inner}; }}",
        "for-body": f"for f in a b; do {inner}; done",
        "if-body": f"if true; then {inner}; fi",
        "process-substitution": f"cat <({inner})",
        "quoted-substitution": f'echo "$({inner})"',
    }[kind]


WRAPS = [
    "plain",
    "substitution",
    "backticks",
    "subshell",
    "group",
    "for-body",
    "if-body",
    "process-substitution",
    "quoted-substitution",
]


@settings(max_examples=200, deadline=None)
@given(
    before=st.lists(st.sampled_from(READ_PARTS), max_size=3),
    after=st.lists(st.sampled_from(READ_PARTS), max_size=3),
    write=st.sampled_from(WRITE_PARTS),
    wrap=st.sampled_from(WRAPS),
    joiners=st.lists(st.sampled_from(JOINERS), min_size=6, max_size=6),
)
def test_a_write_anywhere_in_a_line_is_never_read_only(
    before: list[str], after: list[str], write: str, wrap: str, joiners: list[str]
) -> None:
    parts = [*before, _wrap(wrap, write), *after]
    line = parts[0]
    for joiner, part in zip(joiners, parts[1:], strict=False):
        line += joiner + part
    assert check(line).read_only is False, line


@settings(max_examples=150, deadline=None)
@given(
    parts=st.lists(st.sampled_from(READ_PARTS), min_size=1, max_size=5),
    wraps=st.lists(st.sampled_from(WRAPS), min_size=5, max_size=5),
    joiners=st.lists(st.sampled_from(JOINERS), min_size=4, max_size=4),
)
def test_reads_composed_with_reads_stay_read_only(
    parts: list[str], wraps: list[str], joiners: list[str]
) -> None:
    wrapped = [_wrap(w, p) for w, p in zip(wraps, parts, strict=False)]
    line = wrapped[0]
    for joiner, part in zip(joiners, wrapped[1:], strict=False):
        line += joiner + part
    verdict = check(line)
    assert verdict.read_only is True, f"{line!r}: {verdict.reason}"


@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=40))
def test_check_never_crashes_and_fails_closed_on_garbage(text: str) -> None:
    verdict = check(text)
    assert isinstance(verdict.read_only, bool)
    if not verdict.read_only:
        assert verdict.reason


@pytest.mark.parametrize("program", sorted(READ_ONLY_PROGRAMS))
def test_every_table_program_reads_without_arguments_or_is_refused_cleanly(program: str) -> None:
    # Each entry is usable on its own (or refuses with a reason); none crashes the checker.
    verdict = check(f"{program} x" if program != "[" else "[ x ]")
    assert verdict.read_only or verdict.reason


# -- simple commands (used for permission rules) ----------------------------------------------
def test_simple_commands_lists_every_command_including_nested() -> None:
    assert list(simple_commands("npm test && echo $(rm -rf x) | cat")) == [
        "npm test",
        "echo $(rm -rf x)",
        "rm -rf x",
        "cat",
    ]


def test_simple_commands_of_an_unparseable_line_is_empty() -> None:
    assert list(simple_commands('echo "abc')) == []


@pytest.mark.parametrize(
    ("command", "single"),
    [
        ("npm test -- -k x", True),
        ("pytest -q", True),
        ("npm test; rm -rf /", False),
        ("npm test && curl x", False),
        ("npm test | tee log", False),
        ("npm test $(rm x)", False),
        ("npm test > out", False),
        ("FOO=1 npm test", False),
        ("npm test <<< x", False),
        ("(npm test)", False),
        ('npm test "abc', False),
    ],
)
def test_is_single_simple_command(command: str, single: bool) -> None:
    assert is_single_simple_command(command) is single


def test_git_help_is_not_read_only() -> None:
    """`git help -w` starts a browser: another program, so not proven read-only."""
    assert not check("git help -w log").read_only
