/**
 * The Plan Mode extension: starts a server for each workspace folder, shows the session's
 * mode in the status bar, and offers the palette commands. Everything about plan mode itself
 * is the server's.
 *
 * `activate` only wires the parts together; each owns its state and its disposables:
 * WorkspaceServers (servers/) the servers and what they said, ServerCommands the servers'
 * commands, StatusBar the status bar item, ClientCommands the palette, PlanReviews and
 * ReviewComments the review around a plan, ProgressMarks and PlansView what comes after
 * approval, RevisionHighlights the agent's revisions in the plan.
 */

import * as vscode from "vscode";

import { SUBMITTED_PLAN_SCHEME } from "./args";
import { ClientCommands } from "./clientCommands";
import { ReviewComments } from "./comments";
import { SubmittedPlanProvider } from "./planDiff";
import { PlanReviews } from "./planReview";
import { PlansView } from "./plansView";
import { ProgressMarks } from "./progress";
import { RevisionHighlights } from "./revisionHighlights";
import { ServerCommands } from "./servers/serverCommands";
import { WorkspaceServers } from "./servers/workspaceServers";
import { StatusBar } from "./statusBar";

// Kept for deactivate: stopping a server is asynchronous, a disposable's dispose is not.
let servers: WorkspaceServers | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const running = new WorkspaceServers(context);
  servers = running;
  const submitted = new SubmittedPlanProvider();
  const comments = new ReviewComments(running);
  const serverCommands = new ServerCommands(running);
  context.subscriptions.push(
    running,
    serverCommands,
    new StatusBar(running),
    comments,
    new PlanReviews(running.onDidChangeState, submitted, comments),
    vscode.workspace.registerTextDocumentContentProvider(SUBMITTED_PLAN_SCHEME, submitted),
    ...new ClientCommands(running, submitted, comments).register(),
    new ProgressMarks(running),
    new PlansView(running),
    new RevisionHighlights(running, serverCommands.onDidRun),
  );
  await running.start();
}

export async function deactivate(): Promise<void> {
  await servers?.stop();
  servers = undefined;
}
