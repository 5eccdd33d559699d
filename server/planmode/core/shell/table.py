"""The read-only program table: which programs a planning command may run, and with what.

Each program has a checker (:data:`planmode.core.shell.options.Checker`) that names what in
its arguments may write or run something, or returns None. A program missing from the table
is denied (docs/read-only-bash.md, "4. Programs, options and operands").
"""

from __future__ import annotations

from planmode.core.shell import awk, find, git, sed, simple, versions, xargs
from planmode.core.shell.options import Args, Checker, Options, names, with_options

# Programs none of whose options writes a file or runs a program: any word is harmless.
PLAIN_READERS = """
    ls cat head tail wc grep egrep fgrep pwd echo true false which type stat du df
    diff cmp comm cut tr nl basename dirname realpath readlink whoami id uname printenv
    seq column fold rev tac od hexdump md5sum sha1sum sha224sum sha256sum sha384sum sha512sum
    b2sum cksum strings paste expand unexpand fmt pr join look cd groups locale nproc arch
    sleep jq tty base64 base32 ps lsof free uptime who w whereis lscpu getconf
""".split()


def _xargs(args: Args) -> str | None:
    """xargs only into a program that takes any word: its input could hold any option."""
    command = xargs.xargs_command(args)
    if isinstance(command, str):
        return command
    if not command:
        return None  # xargs runs echo by default
    return _into_reader("xargs", command, "input words")


def _find(args: Args) -> str | None:
    """find -exec/-execdir only into a program that takes any word: a file name found could
    be any word."""
    return find.find(args, run=lambda command: _into_reader("find", command, "file names"))


def _into_reader(runner: str, command: list[str | None], added: str) -> str | None:
    """``runner`` (xargs, find) runs ``command`` with ``added`` words of its own: only a
    program that takes any word, checked with the program table's rules."""
    program = command[0]
    if program is None:
        return f"{runner} with a computed program"
    # The runner adds words: they could be any option of the program.
    checker = READ_ONLY_PROGRAMS.get(program.rsplit("/", 1)[-1])
    if checker is not None and checker is not simple.reader:
        return f"{runner} {program}: {added} could be options that write"
    return check_program(program, command[1:])


READ_ONLY_PROGRAMS: dict[str, Checker] = {
    **dict.fromkeys(PLAIN_READERS, simple.reader),
    **versions.VERSION_ONLY,
    "rg": with_options(
        Options(
            flags="nNiSswvlcoHIFLUPxzqaub0pVh.",
            valued="eAfBCgtTmMjrEd",
            longs=names(
                """--line-number --no-line-number --ignore-case --smart-case
                --case-sensitive --word-regexp --line-regexp --invert-match
                --files-with-matches --files-without-match --count --count-matches
                --only-matching --with-filename --no-filename --no-heading --heading
                --fixed-strings --follow --multiline --pcre2 --search-zip --text --binary
                --hidden --no-ignore --no-ignore-vcs --no-ignore-parent --no-ignore-dot
                --no-ignore-global --unrestricted --files --type-list --json --null --vimgrep
                --column --byte-offset --trim --pretty --stats --quiet --no-messages
                --passthru --one-file-system --no-config --debug --version --help
                --no-require-git --sort-files --line-buffered --block-buffered
                --crlf --null-data --multiline-dotall --no-unicode --glob-case-insensitive
                --include-zero --no-follow --no-column --no-pcre2"""
            ),
            long_valued=names(
                """--regexp --after-context --before-context --context --glob --iglob
                --type --type-not --type-add --type-clear --max-count --max-depth
                --max-filesize --max-columns --threads --replace --encoding --engine --sort
                --sortr --color --colors --context-separator --field-match-separator
                --field-context-separator --path-separator --ignore-file --dfa-size-limit
                --regex-size-limit --file --generate"""
            ),
        )
    ),
    "tree": with_options(
        Options(
            flags="adlfxsphugDFqNQrtcvUCnAJXi",
            valued="LPI",
            longs=names(
                """--noreport --dirsfirst --du --si --prune --matchdirs --ignore-case
                --gitignore --inodes --device --fromfile --help --version"""
            ),
            long_valued=names("--charset --filelimit --timefmt --sort --info"),
            values_follow=True,
        )
    ),
    "file": with_options(
        Options(
            flags="bcEhiklLnNrsSvzZ0",
            valued="efFmP",
            longs=names(
                """--brief --mime --mime-type --mime-encoding --dereference
                --no-dereference --keep-going --list --raw --special-files --uncompress
                --uncompress-noreport --no-buffer --no-pad --print0 --extension --apple
                --help --version --checking-printout"""
            ),
            long_valued=names("--exclude --exclude-quiet --separator --files-from --magic-file"),
        )
    ),
    "xxd": xargs.xxd,
    "test": simple.test,
    "[": simple.test,
    "printf": simple.printf,
    "find": _find,
    "sort": with_options(
        Options(
            flags="bdfgiMhnRrVcCmsuz0123456789",
            valued="ktSy",
            longs=names(
                """--ignore-leading-blanks --dictionary-order --ignore-case
                --general-numeric-sort --ignore-nonprinting --month-sort
                --human-numeric-sort --numeric-sort --random-sort --reverse --version-sort
                --check --merge --stable --unique --zero-terminated --debug --help
                --version"""
            ),
            long_valued=names(
                """--sort --key --field-separator --buffer-size --parallel
                --random-source --batch-size --files0-from"""
            ),
            long_optional=names("--check"),
        )
    ),
    "sed": sed.sed,
    "git": git.git,
    "xargs": _xargs,
    "awk": awk.awk,
    "gawk": awk.awk,
    "mawk": awk.awk,
    "date": simple.date,
    "uniq": with_options(
        Options(
            flags="cdDiuz",
            valued="fsw",
            longs=names(
                """--count --repeated --ignore-case --unique --zero-terminated --help
                --version"""
            ),
            long_valued=names("--skip-fields --skip-chars --check-chars"),
            long_optional=names("--all-repeated --group"),
            numbers=True,
            operands=1,  # uniq INPUT OUTPUT writes OUTPUT
        )
    ),
    "hostname": with_options(
        Options(
            flags="adfiIsAV",
            longs=names(
                """--alias --domain --fqdn --long --ip-address --all-ip-addresses
                --all-fqdns --short --version --help"""
            ),
            operands=0,  # hostname NAME sets the host name
        )
    ),
    "env": simple.no_args,
    "yq": with_options(
        Options(
            flags="rPCMeNn",
            valued="opI",
            longs=names(
                """--prettyPrint --colors --no-colors --exit-status --null-input --no-doc
                --unwrapScalar --help --version"""
            ),
            long_valued=names("--output-format --input-format --indent"),
        )
    ),
    "command": simple.command,
    "read": simple.read,
    "netstat": with_options(
        Options(
            flags="atuwxlnpeorigsMvWNcCF46ZTVh",
            valued="A",
            longs=names(
                """--all --tcp --udp --raw --unix --listening --numeric --numeric-hosts
                --numeric-ports --numeric-users --program --extend --timers --route
                --interfaces --groups --statistics --masquerade --verbose --wide --symbolic
                --continuous --cache --fib --context --notrim --version --help"""
            ),
            long_valued=names("--protocol"),
            operands=0,
        )
    ),
    "ss": with_options(
        Options(
            flags="tulnpaxwmoiesrHO46",
            longs=names(
                """--tcp --udp --listening --numeric --processes --all --unix --raw --memory
                --options --info --extended --summary --resolve --no-header --oneline --ipv4
                --ipv6 --help --version"""
            ),
        )
    ),
}
_TRUSTED_DIRS = ("/bin/", "/usr/bin/", "/usr/local/bin/")


def check_program(name: str, args: Args) -> str | None:
    """Why ``name`` run with ``args`` may not only read, or None. ``name`` is the program as
    written: a bare name, or a path in a system directory (never relative, never ``..``)."""
    program = name
    if "/" in name:
        if not name.startswith(_TRUSTED_DIRS) or ".." in name.split("/"):
            return f"{name} is not a known read-only program"
        program = name.rsplit("/", 1)[1]
    checker = READ_ONLY_PROGRAMS.get(program)
    if checker is None:
        return f"{name} is not a known read-only program"
    problem = checker(args)
    return f"{program}: {problem}" if problem and not problem.startswith(program) else problem
