from tests.e2e.harness import Editor


async def test_get_state(editor: Editor) -> None:
    state = await editor.state()
    assert state["sessionId"] == "main"
    assert state["mode"] == "default"
