// The end-to-end test's own OpenCode plugin (not planmode's): it logs what OpenCode hands a
// plugin and refuses the calls its rules name, so the test sees what a plan-mode plugin would.
//   PLANMODE_E2E_LOG    a JSONL file: one {hook, input, output} line per hook call
//   PLANMODE_E2E_RULES  a JSON list of {tool, contains, reason}: a call of `tool` whose
//                       arguments (as JSON) contain `contains` is refused with `reason`
// A refusal throws from tool.execute.before: OpenCode does not run the tool, and the model
// reads the thrown message as the tool's result (docs/opencode.md).
import { appendFileSync, readFileSync } from "fs"

type Rule = { tool: string; contains: string; reason: string }

const LOG = process.env.PLANMODE_E2E_LOG ?? ""
const RULES = process.env.PLANMODE_E2E_RULES ?? ""
// Bus events worth a line (every other one is chat streaming or UI state).
const EVENTS = new Set([
  "session.created",
  "session.error",
  "question.asked",
  "question.replied",
  "question.rejected",
  "permission.asked",
  "permission.replied",
])

function log(hook: string, input: unknown, output: unknown): void {
  if (LOG) appendFileSync(LOG, JSON.stringify({ hook, time: Date.now(), input, output }) + "\n")
}

function rules(): Rule[] {
  try {
    return JSON.parse(readFileSync(RULES, "utf8")) as Rule[]
  } catch {
    return []
  }
}

export const PlanmodeE2eLog = async () => ({
  event: async ({ event }: { event: { type: string } }) => {
    if (EVENTS.has(event.type)) log("event", event, null)
  },
  // The only hook that names the agent a request is made for (OpenCode's plan agent: "plan").
  "chat.params": async (input: { sessionID: string; agent: string }) => {
    log("chat.params", { sessionID: input.sessionID, agent: input.agent }, null)
  },
  "tool.execute.before": async (
    input: { tool: string; sessionID: string; callID: string },
    output: { args: Record<string, unknown> },
  ) => {
    log("tool.execute.before", input, output)
    const args = JSON.stringify(output.args)
    const rule = rules().find((r) => r.tool === input.tool && args.includes(r.contains))
    if (rule) throw new Error(rule.reason)
  },
  "tool.execute.after": async (input: unknown, output: { title: string; output: string }) => {
    log("tool.execute.after", input, { title: output.title, output: output.output })
  },
  "shell.env": async (input: unknown, output: { env: Record<string, string> }) => {
    log("shell.env", input, output)
  },
  // OpenCode's only sign that the session ends: /exit disposes of every plugin.
  dispose: async () => log("dispose", {}, null),
})
