/** The ids of the client-only commands (contributed in package.json), and the server's. */

import * as protocol from "./protocol";

/**
 * Client-only command ids carry the prefix `planMode.client.`: the server's own commands
 * (`planMode.approve`, …, its executeCommandProvider) are registered by the language client,
 * and registering one of those twice fails at start-up.
 */
export const COMMANDS = {
  enter: "planMode.client.enter",
  showPlan: "planMode.client.showPlan",
  approve: "planMode.client.approve",
  approveAcceptEdits: "planMode.client.approveAcceptEdits",
  reject: "planMode.client.reject",
  showChanges: "planMode.client.showChanges",
  pickMode: "planMode.client.pickMode",
  reviewPlan: "planMode.client.reviewPlan",
  showOutput: "planMode.client.showOutput",
  restart: "planMode.client.restartServer",
  fixServer: "planMode.client.setUpServer",
  addComment: "planMode.client.addComment",
  saveForLater: "planMode.client.saveForLater",
  markStep: "planMode.client.markStep",
  refreshPlans: "planMode.client.refreshPlans",
  openRevision: "planMode.client.openRevision",
  compareWithPrevious: "planMode.client.compareWithPrevious",
  compareRevisions: "planMode.client.compareRevisions",
  takeUpPlan: "planMode.client.takeUpPlan",
} as const;

/**
 * The server's own commands (its executeCommandProvider, the lenses' and code actions'): the
 * `COMMAND_*` names of protocol.ts, as the server registers every `COMMAND_*` name of its
 * protocol.py. The extension registers them once for every folder's server
 * (servers/serverCommands.ts).
 */
export const SERVER_COMMANDS: readonly string[] = Object.entries(protocol)
  .filter(([name]) => name.startsWith("COMMAND_"))
  .map(([, value]) => String(value));
