/** `Plan Mode: Show Plan Changes`: the submitted plan against the plan as it is now. */

import * as vscode from "vscode";

import { approvalIdOfPath, SUBMITTED_PLAN_SCHEME, submittedPlanPath } from "./args";
import type { Approval } from "./state";

/** Serves the plan text each approval was submitted with, read-only. */
export class SubmittedPlanProvider implements vscode.TextDocumentContentProvider {
  private readonly plans = new Map<string, string>();

  remember(approval: Approval): void {
    this.plans.set(approval.approvalId, approval.submittedPlan);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const id = approvalIdOfPath(uri.path);
    return (id !== undefined ? this.plans.get(id) : undefined) ?? "";
  }
}

export async function showPlanChanges(approval: Approval): Promise<void> {
  const left = vscode.Uri.from({
    scheme: SUBMITTED_PLAN_SCHEME,
    path: submittedPlanPath(approval),
  });
  const right = vscode.Uri.file(approval.planFilePath);
  const name = right.path.split("/").pop();
  await vscode.commands.executeCommand("vscode.diff", left, right, `${name}: submitted ↔ current`);
}
