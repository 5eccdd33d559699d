/** The ids of the client-only commands (contributed in package.json). */

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
} as const;
