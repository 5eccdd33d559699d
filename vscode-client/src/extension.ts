/**
 * The Plan Mode extension: starts the server, shows the session's mode in the status bar,
 * and offers the palette commands. Everything about plan mode itself is the server's.
 */

import * as vscode from "vscode";

import { approveParams, rejectParams, setModeParams, SUBMITTED_PLAN_SCHEME } from "./args";
import { askRejectFeedback, ServerController } from "./client";
import { COMMANDS } from "./commands";
import { ReviewComments } from "./comments";
import { SubmittedPlanProvider, showPlanChanges } from "./planDiff";
import { APPROVE, ENTER, REJECT, SET_MODE } from "./protocol";
import {
  grantsText,
  SessionTracker,
  type AllowedPrompt,
  type Approval,
  type EnterResult,
  type OkResult,
  type SessionState,
} from "./state";
import { SOURCE_LABELS } from "./python/resolve";
import {
  MODES,
  modePickItems,
  problemView,
  serverLine,
  statusView,
  type StatusView,
} from "./status";

const STATUS_COMMAND: Record<StatusView["action"], string> = {
  pickMode: COMMANDS.pickMode,
  reviewPlan: COMMANDS.reviewPlan,
  showOutput: COMMANDS.showOutput,
  fixServer: COMMANDS.fixServer,
};

let controller: ServerController | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  // A log channel: levels, timestamps and "Set Log Level…" in the Output view.
  const output = vscode.window.createOutputChannel("Plan Mode", { log: true });
  const sessions = new SessionTracker();
  const status = vscode.window.createStatusBarItem(
    "planMode.status",
    vscode.StatusBarAlignment.Left,
    100,
  );
  status.name = "Plan Mode";
  const submitted = new SubmittedPlanProvider();
  const samePath = (a: string, b: string) =>
    vscode.Uri.file(a).fsPath === vscode.Uri.file(b).fsPath;
  const reviewComments = new ReviewComments({
    underReview: (path) =>
      sessions
        .all()
        .some((s) => s.pendingApproval !== null && samePath(s.pendingApproval.planFilePath, path)),
    isPlan: (path) =>
      sessions
        .all()
        .some(
          (s) =>
            samePath(s.planFilePath, path) ||
            (s.pendingApproval !== null && samePath(s.pendingApproval.planFilePath, path)),
        ),
  });

  const render = (view: StatusView): void => {
    status.text = view.text;
    status.tooltip = view.tooltip;
    status.command = STATUS_COMMAND[view.action];
    status.backgroundColor = view.warning
      ? new vscode.ThemeColor("statusBarItem.warningBackground")
      : undefined;
    status.show();
  };
  render(statusView(undefined));
  // Which Python runs the server: every tooltip says it once the server runs.
  let serverInfo: string | undefined;
  const view = (state: SessionState | undefined) => statusView(state, serverInfo);

  controller = new ServerController(context, output, {
    onStarting() {
      // A new server: what the old one said (a plan under review included) is gone with it.
      sessions.clear();
      serverInfo = undefined;
      render(view(undefined));
    },
    onState(state) {
      const review = state.pendingApproval === null ? "" : ", a plan waiting for review";
      output.debug(`Session ${state.sessionId}: ${state.mode}${review}`);
      sessions.update(state);
      if (state.pendingApproval !== null) {
        submitted.remember(state.pendingApproval);
        announceGrants(state.pendingApproval);
      }
      render(view(sessions.current()));
      reviewComments.refresh();
    },
    onStarted(info) {
      serverInfo = serverLine({ ...info, sourceLabel: SOURCE_LABELS[info.source] });
      output.info(serverInfo);
      render(view(sessions.current()));
    },
    onProblem(problem) {
      sessions.clear();
      serverInfo = undefined;
      render(problemView(problem));
    },
  });
  const server = controller;

  /** The running client, or an error message and undefined. */
  const client = () => {
    const running = server.running;
    if (running === undefined) {
      void vscode.window
        .showErrorMessage("The plan mode server is not running.", "Show Log")
        .then((c) => {
          if (c) output.show();
        });
    }
    return running;
  };

  const request = async <T>(method: string, params: object): Promise<T | undefined> => {
    const running = client();
    if (running === undefined) return undefined;
    try {
      return await running.sendRequest<T>(method, params);
    } catch (error) {
      void vscode.window.showErrorMessage(
        `Plan mode: ${error instanceof Error ? error.message : String(error)}`,
      );
      return undefined;
    }
  };

  /** The plan under review, or a message saying there is none. */
  const pendingApproval = () => {
    const approval = sessions.pending()?.pendingApproval ?? undefined;
    if (approval === undefined) {
      void vscode.window.showInformationMessage("No plan is waiting for review.");
    }
    return approval;
  };

  /** A plan that asks for commands says so once, when it arrives for review. */
  const announced = new Set<string>();
  const announceGrants = (approval: Approval): void => {
    const grants = grantsText(approval);
    if (grants === undefined || announced.has(approval.approvalId)) return;
    announced.add(approval.approvalId);
    void vscode.window
      .showWarningMessage(`A plan is ready for review. ${grants}`, "Review Plan")
      .then((choice) => {
        if (choice) void openFile(approval.planFilePath);
      });
  };

  /**
   * Approving a plan that carries allowedPrompts: confirmed with the exact rules first. The
   * prompts to grant (those just shown), or undefined when the user cancelled.
   */
  const confirmGrants = async (approval: Approval): Promise<AllowedPrompt[] | undefined> => {
    const grants = grantsText(approval);
    if (grants === undefined) return [];
    const choice = await vscode.window.showWarningMessage(
      "Approve the plan and allow these commands?",
      { modal: true, detail: grants },
      "Approve",
    );
    return choice === "Approve" ? approval.allowedPrompts : undefined;
  };

  const openFile = async (path: string): Promise<void> => {
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(path));
    await vscode.window.showTextDocument(document, { preview: false });
  };

  context.subscriptions.push(
    output,
    status,
    controller,
    vscode.workspace.registerTextDocumentContentProvider(SUBMITTED_PLAN_SCHEME, submitted),
    vscode.commands.registerCommand(COMMANDS.enter, async () => {
      const result = await request<EnterResult>(ENTER, {});
      if (result !== undefined) {
        sessions.update(result.state);
        render(view(sessions.current()));
      }
    }),
    vscode.commands.registerCommand(COMMANDS.showPlan, async () => {
      const state = sessions.current();
      if (state === undefined || !state.planExists) {
        void vscode.window.showInformationMessage(
          state === undefined
            ? "The plan mode server has not started yet."
            : "No plan written yet in this session.",
        );
        return;
      }
      await openFile(state.planFilePath);
    }),
    vscode.commands.registerCommand(COMMANDS.approve, async () => {
      const approval = pendingApproval();
      const granting = approval && (await confirmGrants(approval));
      if (approval && granting)
        await request<OkResult>(APPROVE, approveParams(approval, undefined, granting));
    }),
    vscode.commands.registerCommand(COMMANDS.approveAcceptEdits, async () => {
      const approval = pendingApproval();
      const granting = approval && (await confirmGrants(approval));
      if (approval && granting)
        await request<OkResult>(APPROVE, approveParams(approval, "acceptEdits", granting));
    }),
    vscode.commands.registerCommand(COMMANDS.reject, async () => {
      const approval = pendingApproval();
      if (approval === undefined) return;
      const feedback = await askRejectFeedback();
      if (feedback !== undefined) await request<OkResult>(REJECT, rejectParams(approval, feedback));
    }),
    vscode.commands.registerCommand(COMMANDS.showChanges, async () => {
      const approval = pendingApproval();
      if (approval === undefined) return;
      submitted.remember(approval);
      await showPlanChanges(approval);
    }),
    vscode.commands.registerCommand(COMMANDS.reviewPlan, async () => {
      const approval = pendingApproval();
      if (approval) await openFile(approval.planFilePath);
    }),
    vscode.commands.registerCommand(COMMANDS.pickMode, async () => {
      const current = sessions.current();
      const picked = await vscode.window.showQuickPick(modePickItems(current?.mode), {
        title: "Plan Mode: switch permission mode",
        placeHolder: current ? `Current: ${MODES[current.mode]?.label ?? current.mode}` : undefined,
        matchOnDetail: true,
      });
      if (picked === undefined) return;
      const state = await request<SessionState>(
        SET_MODE,
        setModeParams(picked.mode, current?.sessionId),
      );
      if (state !== undefined) {
        sessions.update(state);
        render(view(sessions.current()));
      }
    }),
    vscode.commands.registerCommand(COMMANDS.showOutput, () => output.show()),
    vscode.commands.registerCommand(COMMANDS.restart, () => server.restart()),
    vscode.commands.registerCommand(COMMANDS.fixServer, () => server.fix()),
    reviewComments,
    vscode.commands.registerCommand(COMMANDS.addComment, (reply: vscode.CommentReply) =>
      reviewComments.add(reply),
    ),
  );

  await controller.start();
}

export async function deactivate(): Promise<void> {
  await controller?.stop();
  controller = undefined;
}
