// planmode's OpenCode plugin: OpenCode's plan agent answered by the editor's plan-mode server.
// Written by `planmode init opencode` into the user's data directory and named in the
// project's opencode.json (`plugin`); docs/opencode.md, "planmode's adapter".
//
// It runs inside OpenCode's process, in every session:
//   tool.execute.before  each tool call -> planMode/checkTool (OpenCode's tool and arguments,
//                        and what names the session's plan file). While the session plans, a
//                        call plan mode refuses is refused with plan mode's reason (thrown: the
//                        model reads it verbatim); an allowed planning bash call is marked for
//                        planmode's shell (shell.env), or rewritten into the sandbox where
//                        OpenCode's shell is not planmode's. A drift ask after approval is
//                        refused too, with how the user allows the file (no plugin hook
//                        brings OpenCode's question). Anything else: OpenCode decides.
//                        plan_exit -> planMode/exit, held until the user decides in the editor:
//                        rejected, the model reads the rejection (thrown); approved, plan_exit
//                        runs, its question is answered Yes, the model reads the approved plan.
//   tool.execute.after   plan_exit approved: its result is plan mode's (the approved text), and
//                        the terminal's auto-approve follows the mode chosen in the editor.
//   chat.params          which agent a session runs (plan: plan mode); a switch of agents is
//                        planMode/setMode at once.
//   event                sessions (plan file name, subagents), plan_exit's question, an
//                        interrupted plan_exit (its approval is withdrawn).
//   dispose              planMode/endSession for each session.
// It finds the editor's server through the workspace's record in the user's runtime directory
// (server/planmode/runtime.py), never through a file in the workspace. No record: no editor
// server there, and OpenCode's own plan agent rules alone apply. Any failure while the session
// plans refuses the call (fail closed).
// Node's built-in modules only: no npm package, nothing to install.
import { createConnection } from "node:net"
import { createHash } from "node:crypto"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"

// The shell planmode installs beside this file (`planmode init opencode`; OpenCode's `shell`
// setting names it): it runs a marked command in the sandbox (PLANMODE_SANDBOX: its words,
// quoted). Named bash, as OpenCode then tells the model and reads the command.
const OWN_SHELL = path.join(path.dirname(fileURLToPath(import.meta.url)), "shell", "bash")
const MARK = "PLANMODE_SANDBOX"
// OpenCode's own requests that are no session's turn (docs/opencode.md: chat.params).
const HIDDEN_AGENTS = new Set(["title", "summary", "compaction"])
const STARTING_WAIT = 3000
const PING = "planMode/ping"

function seconds(name, fallback) {
  const value = Number(process.env[name])
  return (Number.isFinite(value) && value > 0 ? value : fallback) * 1000
}

class NoServer extends Error {}
class ServerGone extends Error {
  constructor(pid) {
    super(`the plan-mode server (pid ${pid}) is gone`)
    this.pid = pid
  }
}

// -- the workspace's record (server/planmode/runtime.py) --------------------------------------
function privateDirectory(folder) {
  try {
    const info = fs.lstatSync(folder)
    return info.isDirectory() && info.uid === process.getuid() && (info.mode & 0o077) === 0
  } catch {
    return false
  }
}

function runtimeDirectory() {
  let base = process.env.XDG_RUNTIME_DIR ?? ""
  if (!path.isAbsolute(base)) {
    const uid = process.getuid()
    base = `/run/user/${uid}`
    if (!privateDirectory(base)) base = `/tmp/runtime-${uid}`
  }
  return path.join(base, "planmode")
}

function recordName(root) {
  return `workspace-${createHash("sha256").update(Buffer.from(root, "utf8")).digest("hex")}.json`
}

// The nearest workspace at or above `start` with a record: [root, record path], or null.
function locate(start) {
  const folder = runtimeDirectory()
  if (!privateDirectory(folder)) return null
  let current
  try {
    current = fs.realpathSync(start)
  } catch {
    return null
  }
  for (;;) {
    const record = path.join(folder, recordName(current))
    try {
      fs.lstatSync(record)
      return [current, record]
    } catch {}
    const parent = path.dirname(current)
    if (parent === current) return null
    current = parent
  }
}

function readRecord(record) {
  let fd
  try {
    fd = fs.openSync(record, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW)
  } catch {
    return null
  }
  try {
    const info = fs.fstatSync(fd)
    if (!info.isFile() || info.uid !== process.getuid()) return null
    return fs.readFileSync(fd, "utf8")
  } catch {
    return null
  } finally {
    fs.closeSync(fd)
  }
}

function alive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return error.code === "EPERM"
  }
}

// The record of a server that listens; one that is starting is waited for (briefly).
async function endpoint(record) {
  const deadline = Date.now() + STARTING_WAIT
  for (;;) {
    const text = readRecord(record)
    if (text === null) throw new NoServer()
    let info
    try {
      info = JSON.parse(text)
    } catch {
      throw new Error(`${record} is not a server's record`)
    }
    if (!info || typeof info !== "object") throw new Error(`${record} is not a server's record`)
    if (!alive(info.pid)) throw new ServerGone(info.pid)
    if (info.state === "running" && typeof info.socket === "string") return info
    if (info.state !== "starting") throw new Error(`${record} is not a server's record`)
    if (Date.now() > deadline) {
      throw new Error(`the plan-mode server is still starting after ${STARTING_WAIT / 1000} s`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

// -- JSON-RPC over the agent endpoint (Content-Length framing: lsp/transport/framing.py) -----
class Connection {
  constructor(info) {
    this.info = info
    this.nextId = 1
    this.waiting = new Map()
    this.buffer = Buffer.alloc(0)
    this.closed = false
    this.socket = createConnection({ path: info.socket })
    this.socket.on("data", (chunk) => this.receive(chunk))
    this.socket.on("error", (error) => this.close(error))
    this.socket.on("close", () => this.close(new Error("the plan-mode server closed the connection")))
    this.opened = new Promise((resolve, reject) => {
      this.socket.once("connect", resolve)
      this.socket.once("error", (error) =>
        reject(error.code === "ENOENT" || error.code === "ECONNREFUSED" ? new ServerGone(info.pid) : error),
      )
    })
    this.opened.catch(() => {})
  }

  send(id, method, params) {
    const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", id, method, params }), "utf8")
    this.socket.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]))
  }

  // One request; its result. With `keepalive`, the answer may take any time as long as the
  // server answers a ping after each silence of that long.
  async request(method, params, timeout, keepalive) {
    await this.opened
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      const entry = { resolve, reject, timer: null, pinged: false }
      const silence = () => {
        if (!keepalive) this.waiting.delete(id)
        if (!keepalive) return reject(new Error(`the plan-mode server did not answer ${method} within ${timeout / 1000} s`))
        if (entry.pinged) {
          this.close()
          return reject(new Error(`the plan-mode server stopped answering (no answer to ${PING} within ${keepalive / 1000} s)`))
        }
        entry.pinged = true
        const ping = this.nextId++
        this.waiting.set(ping, { resolve: () => { entry.pinged = false; arm() }, reject: () => {}, timer: null })
        this.send(ping, PING, {})
        arm()
      }
      const arm = () => {
        clearTimeout(entry.timer)
        entry.timer = setTimeout(silence, keepalive || timeout)
      }
      this.waiting.set(id, entry)
      arm()
      this.send(id, method, params)
    })
  }

  receive(chunk) {
    this.buffer = Buffer.concat([this.buffer, chunk])
    for (;;) {
      const end = this.buffer.indexOf("\r\n\r\n")
      if (end < 0) return
      const header = this.buffer.subarray(0, end).toString("latin1")
      const found = [...header.matchAll(/content-length:\s*(\d+)/gi)].pop()
      const start = end + 4
      if (!found) {
        this.buffer = this.buffer.subarray(start)
        continue
      }
      const length = Number(found[1])
      if (this.buffer.length < start + length) return
      const body = this.buffer.subarray(start, start + length).toString("utf8")
      this.buffer = this.buffer.subarray(start + length)
      let message
      try {
        message = JSON.parse(body)
      } catch {
        continue
      }
      if (!message || typeof message !== "object" || "method" in message) continue
      const entry = this.waiting.get(message.id)
      if (!entry) continue
      this.waiting.delete(message.id)
      clearTimeout(entry.timer)
      if (message.error) entry.reject(new Error(`the plan-mode server refused: ${message.error.message}`))
      else if (!message.result || typeof message.result !== "object")
        entry.reject(new Error("the plan-mode server answered without a result"))
      else entry.resolve(message.result)
    }
  }

  close(error) {
    if (this.closed) return
    this.closed = true
    this.socket.destroy()
    for (const entry of this.waiting.values()) {
      clearTimeout(entry.timer)
      entry.reject(error ?? new Error("the connection to the plan-mode server was closed"))
    }
    this.waiting.clear()
  }
}

function quote(word) {
  return `'${word.replaceAll("'", "'\\''")}'`
}

// The refusal of a call plan mode asks the user about, as agents/hookclient.py's unasked().
function unasked(message) {
  let head = message.trim()
  if (head.endsWith("?") && head.includes(". ")) head = head.slice(0, head.lastIndexOf(". ") + 1)
  return (
    `${head} The drift setting asks the user before such a write, and OpenCode cannot ask ` +
    "from its plugin, so it is refused: ask the user to allow this file for this plan in the " +
    "editor (“Allow this file for this plan”), then try again; or enter plan mode and submit " +
    "a plan that names it."
  )
}

function why(error) {
  return error instanceof Error ? error.message : String(error)
}

export const PlanMode = async (input) => {
  const { client, directory } = input
  const worktree = input.worktree ?? input.project?.worktree ?? directory
  const git = input.project?.vcs === "git"
  const dataHome = process.env.XDG_DATA_HOME || path.join(os.homedir(), ".local", "share")
  const timeout = seconds("PLANMODE_HOOK_TIMEOUT", 20)
  const keepalive = seconds("PLANMODE_HOOK_KEEPALIVE", 10)
  const sessions = new Map() // session id -> OpenCode's info (slug, time.created, parentID)
  const agents = new Map() // session id -> the agent of its last model request
  const planning = new Map() // root session id -> the server's mode at its last answer
  const reported = new Map() // root session id -> the mode last sent with setMode
  const marks = new Map() // bash call id -> the sandbox's words, quoted, for planmode's shell
  const approved = new Map() // plan_exit call id -> {text, mode}
  const holding = new Map() // plan_exit call id -> its connection, while the user decides
  let shared = null // the connection for quick requests
  let ownShell = false // OpenCode's shell is planmode's (config hook)
  let autoApprove = process.argv.includes("--auto") // the terminal's auto-approve, as last set

  async function info(sessionID) {
    if (sessions.has(sessionID)) return sessions.get(sessionID)
    try {
      const answer = await client.session.get({ path: { id: sessionID } })
      const found = answer?.data ?? answer
      if (found && found.id === sessionID) sessions.set(sessionID, found)
    } catch {}
    return sessions.get(sessionID)
  }

  async function rootOf(sessionID) {
    let current = sessionID
    for (let depth = 0; depth < 16; depth++) {
      const parent = (await info(current))?.parentID
      if (!parent) return current
      current = parent
    }
    return current
  }

  // The session's permission mode as planmode names it: OpenCode's plan agent is plan mode;
  // any other primary agent runs in the mode the editor last chose (auto-approve or not).
  function modeOf(sessionID) {
    const agent = agents.get(sessionID) ?? sessions.get(sessionID)?.agent
    if (agent === undefined) return undefined
    if (agent === "plan") return "plan"
    return autoApprove ? "acceptEdits" : "default"
  }

  function isPlanning(root) {
    return modeOf(root) === "plan" || (modeOf(root) === undefined && planning.get(root) === "plan")
  }

  async function params(sessionID, root) {
    const facts = await info(root)
    const opencode = { directory, worktree, git, dataDir: path.join(dataHome, "opencode") }
    if (facts && Number.isInteger(facts.time?.created) && typeof facts.slug === "string") {
      opencode.sessionCreated = facts.time.created
      opencode.sessionSlug = facts.slug
    }
    const sent = { sessionId: root, opencode }
    if (sessionID !== root) sent.agentId = sessionID
    else if (modeOf(root) !== undefined) sent.permissionMode = modeOf(root)
    return sent
  }

  function server() {
    const found = locate(directory)
    if (found === null) throw new NoServer()
    return found
  }

  async function ask(method, sent) {
    const [, record] = server()
    const info = await endpoint(record)
    if (shared === null || shared.closed || shared.info.socket !== info.socket) {
      shared?.close()
      shared = new Connection(info)
    }
    return shared.request(method, sent, timeout)
  }

  function refusal(error) {
    if (error instanceof ServerGone) {
      let root = directory
      try {
        root = server()[0]
      } catch {}
      return (
        `Denied by plan mode (the plan-mode server is gone): the editor's plan-mode server for ${root} ` +
        `(pid ${error.pid}) stopped, so plan mode cannot check this call. Ask the user to restart it: ` +
        "reopen the workspace in the editor, or restart the editor's planmode language server (`planmode lsp`)."
      )
    }
    return `Denied by plan mode (the plan-mode server failed): ${why(error)}`
  }

  async function checkTool(tool, sessionID, callID, args) {
    const root = await rootOf(sessionID)
    let decision
    try {
      const sent = { ...(await params(sessionID, root)), tool, input: args }
      if (tool === "bash") {
        const workdir = typeof args.workdir === "string" && args.workdir ? args.workdir : "."
        sent.cwd = path.resolve(directory, workdir)
      }
      decision = await ask("planMode/checkTool", sent)
    } catch (error) {
      if (error instanceof NoServer) return // no editor server here: OpenCode's rules alone
      if (isPlanning(root)) throw new Error(refusal(error))
      return
    }
    if (typeof decision.mode === "string") planning.set(root, decision.mode)
    // Plan mode's own refusal (vouched: docs/protocol.md §6); any other deny is a rule of the
    // editor's settings, which OpenCode's own rules stand in for.
    const rule = typeof decision.rule === "string" ? decision.rule : ""
    const vouched = decision.vouched ?? rule.startsWith("plan.")
    if (decision.behavior === "deny" && vouched === true) {
      throw new Error(decision.message || "Denied by plan mode.")
    }
    if (decision.behavior === "ask" && vouched === true) {
      // A drift ask: no plugin hook brings OpenCode's own question (permission.ask is never
      // called), so the call is refused with how the user allows it (docs/opencode.md).
      throw new Error(unasked(decision.message || ""))
    }
    const sandbox = decision.sandbox
    if (tool === "bash" && decision.behavior !== "deny" && sandbox && typeof sandbox === "object") {
      if (ownShell && Array.isArray(sandbox.prefix) && sandbox.prefix.length) {
        if (sandbox.prefix.some((word) => typeof word !== "string" || /[\0\n]/.test(word))) {
          throw new Error("Denied by plan mode: the sandbox's command line cannot be passed to planmode's shell")
        }
        marks.set(callID, sandbox.prefix.map(quote).join(" "))
      } else if (typeof sandbox.command === "string") {
        args.command = sandbox.command // OpenCode's shell is not planmode's: run the sandboxed line
      }
    }
  }

  async function exitPlan(sessionID, callID) {
    let found
    try {
      found = server()
    } catch {
      return // no editor server: OpenCode asks its own question
    }
    let result
    let connection = null
    try {
      const sent = { ...(await params(sessionID, sessionID)), permissionMode: "plan" }
      const info = await endpoint(found[1])
      connection = new Connection(info)
      connection.session = sessionID
      holding.set(callID, connection)
      result = await connection.request("planMode/exit", sent, timeout, keepalive)
    } catch (error) {
      if (error instanceof NoServer) return
      if (connection?.aborted) throw new Error("The user interrupted plan_exit.")
      throw new Error(refusal(error))
    } finally {
      holding.delete(callID)
      connection?.close()
    }
    if (result.outcome === "approved") {
      approved.set(callID, { text: result.toolResult, mode: result.chosenMode ?? result.restoredMode })
      planning.set(sessionID, result.restoredMode)
      reported.set(sessionID, result.restoredMode)
      return // plan_exit runs: its question is answered Yes (event), its result replaced (after)
    }
    throw new Error(result.toolResult || result.feedback || "The user rejected the plan.")
  }

  async function answerQuestion(question) {
    try {
      await client._client.post({
        url: "/question/{requestID}/reply",
        path: { requestID: question.id },
        body: { answers: [["Yes"]] },
      })
    } catch {}
  }

  // The terminal's auto-approve is the nearest thing to the mode chosen in the editor: on for
  // acceptEdits (and bypassPermissions, auto), off otherwise. It is a toggle the plugin cannot
  // read: the state it last set (or --auto) is what it goes by.
  async function follow(mode) {
    const want = mode === "acceptEdits" || mode === "bypassPermissions" || mode === "auto"
    if (want === autoApprove) return
    try {
      await client.tui.publish({
        body: { type: "tui.command.execute", properties: { command: "permission.mode" } },
      })
      autoApprove = want
    } catch {}
  }

  // The user switched agents (Tab: into plan, or out of it without an approval): the editor
  // hears it before the next tool call, as planMode/setMode.
  async function followAgent(sessionID) {
    const mode = modeOf(sessionID)
    if (mode === undefined || reported.get(sessionID) === mode) return
    if ((await info(sessionID))?.parentID) return // a subagent's mode is its session's
    try {
      await ask("planMode/setMode", { sessionId: sessionID, mode })
      reported.set(sessionID, mode)
    } catch {}
  }

  function interrupted(callID) {
    const connection = holding.get(callID)
    if (connection) {
      connection.aborted = true
      connection.close(new Error("The user interrupted plan_exit."))
    }
  }

  return {
    config: async (config) => {
      const shell = typeof config?.shell === "string" ? path.resolve(config.shell) : ""
      ownShell = shell === OWN_SHELL
    },
    "chat.params": async (request) => {
      const agent = typeof request.agent === "string" ? request.agent : request.agent?.name
      if (typeof agent !== "string" || HIDDEN_AGENTS.has(agent)) return
      agents.set(request.sessionID, agent)
      await followAgent(request.sessionID)
    },
    event: async ({ event }) => {
      const props = event?.properties ?? {}
      if (event?.type === "session.created" || event?.type === "session.updated") {
        if (props.info?.id) sessions.set(props.info.id, props.info)
      } else if (event?.type === "question.asked") {
        if (props.tool?.callID && approved.has(props.tool.callID)) await answerQuestion(props)
      } else if (event?.type === "message.part.updated") {
        const part = props.part
        if (part?.type === "tool" && part.state?.status === "error") interrupted(part.callID)
      } else if (event?.type === "session.error") {
        for (const [callID, connection] of holding) {
          if (connection.session === props.sessionID) interrupted(callID)
        }
      }
    },
    "tool.execute.before": async (call, output) => {
      const args = output?.args && typeof output.args === "object" ? output.args : {}
      if (call.tool === "plan_exit") return exitPlan(call.sessionID, call.callID)
      return checkTool(call.tool, call.sessionID, call.callID, args)
    },
    "shell.env": async (call, output) => {
      output.env = output.env ?? {}
      output.env[MARK] = marks.get(call.callID) ?? ""
      marks.delete(call.callID)
    },
    "tool.execute.after": async (call, output) => {
      const decided = approved.get(call.callID)
      if (!decided) return
      approved.delete(call.callID)
      if (typeof decided.text === "string" && decided.text) output.output = decided.text
      await follow(decided.mode)
    },
    dispose: async () => {
      const roots = new Set()
      for (const id of agents.keys()) roots.add(await rootOf(id))
      for (const root of roots) {
        try {
          await ask("planMode/endSession", { sessionId: root })
        } catch {}
      }
      shared?.close()
    },
  }
}
