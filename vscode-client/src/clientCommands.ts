/**
 * The palette's commands (`planMode.client.*`, contributed in package.json): each acts on one
 * folder's server — the one the status bar passes, else the active editor's, else the only
 * one or the one the user picks (WorkspaceServers.forCommand).
 */

import * as vscode from "vscode";

import { approveParams, rejectParams, setModeParams } from "./args";
import { COMMANDS } from "./commands";
import type { ReviewComments } from "./comments";
import { showPlanChanges, type SubmittedPlanProvider } from "./planDiff";
import { askRejectFeedback, confirmGrants, openFile } from "./planReview";
import type { SaveForLaterParams } from "./libraryModel";
import { APPROVE, ENTER, REJECT, SAVE_FOR_LATER, SET_MODE } from "./protocol";
import type { FolderServer } from "./servers/folderServer";
import type { WorkspaceServers } from "./servers/workspaceServers";
import type { Approval, EnterResult, OkResult, PermissionMode, SessionState } from "./state";
import { MODES, modePickItems } from "./status";

export class ClientCommands {
  constructor(
    private readonly servers: WorkspaceServers,
    private readonly submitted: SubmittedPlanProvider,
    private readonly comments: ReviewComments,
  ) {}

  /** Every command registered; dispose them to unregister. */
  register(): vscode.Disposable[] {
    // `reviewing`: without an editor to tell, a folder with a plan waiting is the one meant.
    const on = (
      id: string,
      run: (server: FolderServer) => Promise<unknown> | void,
      reviewing = false,
    ) =>
      vscode.commands.registerCommand(id, async (target?: unknown) => {
        const suits = reviewing
          ? (s: FolderServer) => s.pendingApproval() !== undefined
          : undefined;
        const server = await this.servers.forCommand(target, suits);
        if (server !== undefined) await run(server);
      });
    return [
      on(COMMANDS.enter, (server) => this.enter(server)),
      on(COMMANDS.showPlan, (server) => this.showPlan(server)),
      on(COMMANDS.approve, (server) => this.approve(server), true),
      on(COMMANDS.approveAcceptEdits, (server) => this.approve(server, "acceptEdits"), true),
      on(COMMANDS.reject, (server) => this.reject(server), true),
      on(COMMANDS.saveForLater, (server) => this.saveForLater(server), true),
      on(COMMANDS.showChanges, (server) => this.showChanges(server), true),
      on(COMMANDS.reviewPlan, (server) => this.reviewPlan(server), true),
      on(COMMANDS.pickMode, (server) => this.pickMode(server)),
      on(COMMANDS.showOutput, (server) => server.log.show()),
      on(COMMANDS.restart, (server) => server.restart()),
      on(COMMANDS.fixServer, (server) => server.fix()),
      vscode.commands.registerCommand(COMMANDS.addComment, (reply: vscode.CommentReply) =>
        this.comments.add(reply),
      ),
    ];
  }

  private async enter(server: FolderServer): Promise<void> {
    const result = await server.request<EnterResult>(ENTER, {});
    if (result !== undefined) server.update(result.state);
  }

  private async showPlan(server: FolderServer): Promise<void> {
    const state = server.sessions.current();
    if (state === undefined || !state.planExists) {
      void vscode.window.showInformationMessage(
        state === undefined
          ? "The plan mode server has not started yet."
          : "No plan written yet in this session.",
      );
      return;
    }
    await openFile(state.planFilePath);
  }

  private async approve(server: FolderServer, mode?: PermissionMode): Promise<void> {
    const approval = pendingApproval(server);
    const granting = approval && (await confirmGrants(approval));
    if (approval && granting)
      await server.request<OkResult>(APPROVE, approveParams(approval, mode, granting));
  }

  private async reject(server: FolderServer): Promise<void> {
    const approval = pendingApproval(server);
    if (approval === undefined) return;
    const feedback = await askRejectFeedback();
    if (feedback !== undefined)
      await server.request<OkResult>(REJECT, rejectParams(approval, feedback));
  }

  /** The fourth decision: the plan is kept, and the agent told not to implement it now. */
  private async saveForLater(server: FolderServer): Promise<void> {
    const approval = pendingApproval(server);
    if (approval === undefined) return;
    const params: SaveForLaterParams = {
      approvalId: approval.approvalId,
      ...(approval.sessionId !== null ? { sessionId: approval.sessionId } : {}),
    };
    const result = await server.request<OkResult>(SAVE_FOR_LATER, params);
    if (result?.ok === false)
      void vscode.window.showErrorMessage(`Plan mode: ${result.failureReason ?? "not saved"}`);
  }

  private async showChanges(server: FolderServer): Promise<void> {
    const approval = pendingApproval(server);
    if (approval === undefined) return;
    this.submitted.remember(approval);
    await showPlanChanges(approval);
  }

  private async reviewPlan(server: FolderServer): Promise<void> {
    const approval = pendingApproval(server);
    if (approval) await openFile(approval.planFilePath);
  }

  private async pickMode(server: FolderServer): Promise<void> {
    const current = server.sessions.current();
    const picked = await vscode.window.showQuickPick(modePickItems(current?.mode), {
      title: "Plan Mode: switch permission mode",
      placeHolder: current ? `Current: ${MODES[current.mode]?.label ?? current.mode}` : undefined,
      matchOnDetail: true,
    });
    if (picked === undefined) return;
    const state = await server.request<SessionState>(
      SET_MODE,
      setModeParams(picked.mode, current?.sessionId),
    );
    if (state !== undefined) server.update(state);
  }
}

/** The plan under review, or a message saying there is none. */
function pendingApproval(server: FolderServer): Approval | undefined {
  const approval = server.pendingApproval();
  if (approval === undefined) {
    void vscode.window.showInformationMessage("No plan is waiting for review.");
  }
  return approval;
}
