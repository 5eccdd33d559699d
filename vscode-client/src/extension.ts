/**
 * The Plan Mode extension: starts a server for each workspace folder, shows the session's
 * mode in the status bar, and offers the palette commands. Everything about plan mode itself
 * is the server's.
 *
 * `activate` only wires the parts together; each owns its state and its disposables:
 * WorkspaceServers (servers/) the servers and what they said, ServerCommands the servers'
 * commands, StatusBar the status bar item, ClientCommands the palette, PlanReviews and
 * ReviewComments the review around a plan.
 */

import * as vscode from "vscode";

import { SUBMITTED_PLAN_SCHEME } from "./args";
import { ClientCommands } from "./clientCommands";
import { ReviewComments } from "./comments";
import { SubmittedPlanProvider } from "./planDiff";
import { PlanReviews } from "./planReview";
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
  context.subscriptions.push(
    running,
    new ServerCommands(running),
    new StatusBar(running),
    comments,
    new PlanReviews(running.onDidChangeState, submitted, comments),
    vscode.workspace.registerTextDocumentContentProvider(SUBMITTED_PLAN_SCHEME, submitted),
    ...new ClientCommands(running, submitted, comments).register(),
  );
  await running.start();
}

export async function deactivate(): Promise<void> {
  await servers?.stop();
  servers = undefined;
}
