"""The plan library (docs/protocol.md §12.3): save a plan under review for later, take a saved
plan up again, list every plan with its status (``planMode/listPlans``), and find plans with
the editor's own symbol search (``workspace/symbol``)."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from planmode.core import steps
from planmode.core.library import LibraryEntry
from planmode.core.plan_library import TAKEN_UP_FROM
from planmode.lsp import protocol
from planmode.lsp.features import diagnostics
from planmode.lsp.features.approval import finish, shown_path
from planmode.lsp.features.revisions import plan_file
from planmode.lsp.features.state import publish_state, session_for
from planmode.lsp.params import ListPlansParams, SaveForLaterParams, TakeUpPlanParams
from planmode.lsp.results import LibraryPlan, ListPlansResult, OkResult, TakeUpPlanResult
from planmode.lsp.server import Feature, PlanModeServer

# The first heading of a plan is its title; a plan longer than this is read no further for it.
TITLE_BYTES = 4_096


def save_for_later(server: PlanModeServer, params: SaveForLaterParams) -> OkResult:
    """A session's plan under review, saved: the waiting exit answers ``saved``."""
    decision = server.service.save_for_later(
        params.approval_id, params.session_id, params.plan_sha256
    )
    finish(server, decision)
    diagnostics.publish(server, decision.approval.plan_file_path)
    if decision.written is not None:
        # The buffer's unsaved text is the file's now; only the editor can unmark the buffer.
        where = shown_path(server, decision.approval.plan_file_path)
        server.show_message(
            f"Plan saved for later: {where} now holds what its buffer shows, which your editor "
            "still marks modified (a language server cannot save a buffer): save it or revert "
            "it, either leaves it clean.",
            types.MessageType.Info,
        )
    return OkResult()


def take_up_plan(server: PlanModeServer, params: TakeUpPlanParams) -> TakeUpPlanResult:
    session = session_for(server, params)
    path = plan_file(server, params, params.path)
    taken = server.service.take_up(session, path)
    server.refresh_code_lenses()
    return TakeUpPlanResult(
        plan_file_path=str(taken.plan_file),
        taken_up_from=str(taken.taken_from),
        state=publish_state(server, session),
    )


def list_plans(server: PlanModeServer, params: ListPlansParams) -> ListPlansResult:
    return ListPlansResult(
        plans=[LibraryPlan.model_validate(e) for e in server.service.library.entries()]
    )


class Titles(Feature):
    """Each plan's title, read again only when its file changed (a symbol search lists every
    plan of the workspace, each time the user types)."""

    def __init__(self) -> None:
        self.known: dict[str, tuple[float, int, str]] = {}

    def title(self, entry: LibraryEntry) -> str:
        known = self.known.get(entry.path)
        if known is not None and known[:2] == (entry.modified, entry.size_bytes):
            return known[2]
        title = plan_title(Path(entry.path), entry.slug)
        self.known[entry.path] = (entry.modified, entry.size_bytes, title)
        return title


def plan_title(path: Path, slug: str) -> str:
    """The plan's first heading, else its slug."""
    try:
        with path.open("rb") as file:
            head = file.read(TITLE_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return slug
    return next((heading.title for heading in steps.outline(head).headings if heading.title), slug)


def status_label(entry: LibraryEntry) -> str:
    """``saved``, ``executing 3/7``: a plan's status as a symbol's container shows it."""
    if entry.progress is None:
        return entry.status
    return f"{entry.status} {entry.progress.done}/{entry.progress.total}"


def workspace_symbols(
    server: PlanModeServer, params: types.WorkspaceSymbolParams
) -> list[types.SymbolInformation]:
    """The plans whose title or slug holds the query: an editor's own symbol search finds
    them (docs/protocol.md §12.3, "Workspace symbols")."""
    query = params.query.strip().casefold()
    titles = server.get_feature(Titles)
    found = []
    at = types.Range(start=types.Position(0, 0), end=types.Position(0, 0))
    for entry in server.service.library.entries():
        path = Path(entry.path)
        title = titles.title(entry)
        if query and query not in title.casefold() and query not in entry.slug.casefold():
            continue
        found.append(
            types.SymbolInformation(
                name=title,
                kind=types.SymbolKind.File,
                location=types.Location(uri=path.as_uri(), range=at),
                container_name=status_label(entry),
            )
        )
    return found


def actions(server: PlanModeServer, path: Path) -> list[types.Command]:
    """``Take up this plan`` on a saved (or rejected) plan: for an editor without our client
    (its Plans view), the session that saved it takes it up again."""
    entry = server.service.library.entry(path)
    if entry is None or entry.agent_id is not None or entry.status not in TAKEN_UP_FROM:
        return []
    argument = TakeUpPlanParams.build(path=str(path), session_id=entry.session_id)
    return [
        types.Command(
            title=protocol.ACTION_TAKE_UP_PLAN,
            command=protocol.COMMAND_TAKE_UP_PLAN,
            arguments=[argument.wire()],
        )
    ]


def register(server: PlanModeServer) -> None:
    server.add_feature(Titles())
    server.request(protocol.SAVE_FOR_LATER, SaveForLaterParams)(save_for_later)
    server.command_request(protocol.COMMAND_SAVE_FOR_LATER, SaveForLaterParams, save_for_later)
    server.request(protocol.TAKE_UP_PLAN, TakeUpPlanParams)(take_up_plan)
    server.command_request(protocol.COMMAND_TAKE_UP_PLAN, TakeUpPlanParams, take_up_plan)
    server.request(protocol.LIST_PLANS, ListPlansParams)(list_plans)
    server.feature(types.WORKSPACE_SYMBOL)(workspace_symbols)
