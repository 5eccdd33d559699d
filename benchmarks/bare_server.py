"""The baseline: a bare pygls server answering the benchmarked methods trivially."""

from lsprotocol import types
from pygls.lsp.server import LanguageServer

server = LanguageServer("bare", "0")


@server.feature("planMode/checkTool")
def check_tool(params):
    return {"behavior": "allow"}


@server.feature("planMode/enter")
def enter(params):
    return {"message": "", "state": {}}


@server.feature("planMode/exit")
def exit_(params):
    return {"outcome": "approved", "plan": getattr(params, "plan", None)}


@server.feature("planMode/approve")
def approve(params):
    return {"ok": True}


@server.feature("planMode/applyEdit")
def apply_edit(params):
    return {"applied": True}


@server.feature(types.TEXT_DOCUMENT_CODE_LENS)
def code_lens(params: types.CodeLensParams):
    return []


if __name__ == "__main__":
    server.start_io()
