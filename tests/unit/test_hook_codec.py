"""The hook's JSON codec (json's own C scanner and encoder, without importing json) agrees
with the json module."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planmode.agents import hookclient

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(JSON)
def test_round_trips_like_json(value: Any) -> None:
    text = hookclient.dumps(value)
    assert json.loads(text) == value
    assert hookclient.loads(text) == value
    assert hookclient.loads(json.dumps(value, indent=2).encode()) == value


@pytest.mark.parametrize("bad", ["", "   ", "{", '{"a": }', "[1] x", "{'a': 1}", b"\xff"])
def test_what_is_not_json_is_a_value_error(bad: str | bytes) -> None:
    with pytest.raises(ValueError):
        hookclient.loads(bad)


def test_unencodable_values_are_a_type_error() -> None:
    with pytest.raises(TypeError):
        hookclient.dumps({"x": object()})


def test_the_hook_path_imports_neither_json_nor_socket_nor_typing() -> None:
    """What `planmode hook` loads before it reads its input: measured in make bench."""
    code = (
        "import sys; sys.argv = ['planmode', 'hook']; "
        "import planmode.cli, planmode.agents.claude_code.hook; "
        "print(' '.join(sorted(m for m in ('json', 'socket', 'typing', 're', 'pathlib', "
        "'pydantic', 'pygls', 'argparse') if m in sys.modules)))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert loaded == []


@pytest.mark.parametrize("cut", ['{"a":"x', "[1,2", '{"a" 1}', '{"a":[{"b":1}]', "[" * 100])
def test_json_cut_short_is_a_value_error(cut: str) -> None:
    """Inside an array or object the C scanner reports through json.decoder, which the hook
    does not load: still a ValueError (it was a SystemError)."""
    code = (
        "import sys; from planmode.agents import hookclient\n"
        f"try: hookclient.loads({cut!r})\n"
        "except ValueError: print('json' in sys.modules)\n"
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert ran.stdout == "False\n", ran.stderr
