/**
 * What the user sees and answers while a plan waits for review: the plan opened, the commands
 * it asks for announced and confirmed, the feedback a rejection sends.
 */

import * as vscode from "vscode";

import type { ReviewComments } from "./comments";
import type { SubmittedPlanProvider } from "./planDiff";
import { grantsText, type AllowedPrompt, type Approval, type SessionState } from "./state";

/** The feedback box of `Plan Mode: Reject Plan…` and of the `Reject…` lens. */
export async function askRejectFeedback(): Promise<string | undefined> {
  return vscode.window.showInputBox({
    title: "Reject the plan",
    prompt: "What should the agent change? (optional — the agent keeps planning)",
    placeHolder: "e.g. Keep the public API unchanged",
    ignoreFocusOut: true,
  });
}

/**
 * Approving a plan that carries allowedPrompts: confirmed with the exact rules first. The
 * prompts to grant (those just shown), or undefined when the user cancelled.
 */
export async function confirmGrants(approval: Approval): Promise<AllowedPrompt[] | undefined> {
  const grants = grantsText(approval);
  if (grants === undefined) return [];
  const choice = await vscode.window.showWarningMessage(
    "Approve the plan and allow these commands?",
    { modal: true, detail: grants },
    "Approve",
  );
  return choice === "Approve" ? approval.allowedPrompts : undefined;
}

export async function openFile(path: string): Promise<void> {
  const document = await vscode.workspace.openTextDocument(vscode.Uri.file(path));
  await vscode.window.showTextDocument(document, { preview: false });
}

/**
 * The review side of every session's news: a plan that arrives for review keeps its submitted
 * text for the diff view (Show Plan Changes) and announces the commands it asks for, once; the
 * comment threads follow which files are plans.
 */
export class PlanReviews implements vscode.Disposable {
  private readonly announced = new Set<string>();
  private readonly subscription: vscode.Disposable;

  constructor(
    states: vscode.Event<SessionState>,
    private readonly submitted: SubmittedPlanProvider,
    private readonly comments: ReviewComments,
  ) {
    this.subscription = states((state) => this.follow(state));
  }

  dispose(): void {
    this.subscription.dispose();
  }

  private follow(state: SessionState): void {
    if (state.pendingApproval !== null) {
      this.submitted.remember(state.pendingApproval);
      this.announce(state.pendingApproval);
    }
    this.comments.refresh();
  }

  private announce(approval: Approval): void {
    const grants = grantsText(approval);
    if (grants === undefined || this.announced.has(approval.approvalId)) return;
    this.announced.add(approval.approvalId);
    void vscode.window
      .showWarningMessage(`A plan is ready for review. ${grants}`, "Review Plan")
      .then((choice) => {
        if (choice) void openFile(approval.planFilePath);
      });
  }
}
