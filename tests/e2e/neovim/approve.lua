-- Real Neovim (0.7) as the user's editor: start the planmode server, wait for the agent's plan,
-- read its code lenses, see the agent's revision reach the open buffer, approve through
-- vim.lsp.buf.code_action() (its code actions), then see the approved plan's progress and mark
-- a step done with a code action.
-- Paths come from the environment; the outcome is written as JSON to PLANMODE_NVIM_OUT.
local root = os.getenv("PLANMODE_NVIM_ROOT")
local python = os.getenv("PLANMODE_NVIM_PYTHON")
local handoff = os.getenv("PLANMODE_NVIM_HANDOFF")
local out = os.getenv("PLANMODE_NVIM_OUT")
local opened = os.getenv("PLANMODE_NVIM_OPENED")
local expect = os.getenv("PLANMODE_NVIM_EXPECT")

local function finish(result)
  vim.fn.writefile({ vim.fn.json_encode(result) }, out)
  vim.cmd("qa!")
end

local function fail(message)
  finish({ ok = false, error = message })
  vim.cmd("cquit 1")
end

local client_id = vim.lsp.start_client({
  cmd = { python, "-m", "planmode", "lsp" },
  root_dir = root,
  init_options = { planMode = { sessionId = "nvim" } },
})
if not client_id then
  return fail("start_client failed")
end
local client = vim.lsp.get_client_by_id(client_id)
if not vim.wait(20000, function() return client.initialized end, 50) then
  return fail("the server did not initialize")
end

-- The agent (the test) writes the plan's path here once it has asked to exit plan mode.
if not vim.wait(30000, function() return vim.fn.filereadable(handoff) == 1 end, 50) then
  return fail("no plan was handed over")
end
local plan_path = vim.fn.readfile(handoff)[1]
vim.cmd("edit " .. vim.fn.fnameescape(plan_path))
local bufnr = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(bufnr, client_id)

local lenses = {}
local found = vim.wait(20000, function()
  local params = { textDocument = vim.lsp.util.make_text_document_params(bufnr) }
  local answers = vim.lsp.buf_request_sync(bufnr, "textDocument/codeLens", params, 5000) or {}
  for _, answer in pairs(answers) do
    for _, lens in ipairs(answer.result or {}) do
      table.insert(lenses, lens)
    end
  end
  return #lenses > 0
end, 200)
if not found then
  return fail("no code lenses on the plan")
end

local titles = {}
for _, lens in ipairs(lenses) do
  table.insert(titles, lens.command.title)
end

-- The agent revises its plan while it is open here: Neovim reloads nothing, and the user
-- runs no :e. The revision must reach the buffer as the server's edit.
vim.fn.writefile({ "opened" }, opened)
local function buffer_text()
  local text = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
  if vim.bo[bufnr].eol then
    text = text .. "\n"
  end
  return text
end
if not vim.wait(20000, function() return buffer_text():find(expect, 1, true) ~= nil end, 50) then
  return fail("the revision never reached the buffer: " .. buffer_text())
end
local revised_text = buffer_text()
local revised_modified = vim.bo[bufnr].modified
-- The revision's marks: Neovim 0.7 has no inlay hints, so the added line is a Hint diagnostic.
local function revision_marks()
  local found = {}
  for _, diagnostic in ipairs(vim.diagnostic.get(bufnr)) do
    if diagnostic.message:find("agent's revision", 1, true) then
      table.insert(found, diagnostic.lnum .. " " .. diagnostic.message)
    end
  end
  table.sort(found)
  return found
end
vim.wait(10000, function() return #revision_marks() > 0 end, 50)
local revised_marks = revision_marks()

-- Neovim 0.7 encodes an empty Lua table as [] (by-position params): it means no params.
local state = client.request_sync("planMode/getState", {}, 10000, bufnr)
if not state or state.err then
  return fail("planMode/getState with {} failed: " .. vim.inspect(state and state.err))
end

-- Decide the way a Neovim user without lenses does: vim.lsp.buf.code_action() lists the
-- actions (vim.ui.select, answered here as the user would pick) and runs the chosen one.
local action_titles = {}
local chosen = false
vim.ui.select = function(items, opts, on_choice)
  for index, item in ipairs(items) do
    local title = opts.format_item(item)
    table.insert(action_titles, title)
    if title:sub(1, #"Approve plan") == "Approve plan" and not chosen then
      chosen = true
      on_choice(item, index)
    end
  end
  if not chosen then
    on_choice(nil, nil)
  end
end
vim.api.nvim_win_set_cursor(0, { 3, 0 })
vim.lsp.buf.code_action()
if not vim.wait(20000, function() return chosen end, 50) then
  return fail("no Approve plan code action: " .. table.concat(action_titles, " | "))
end
-- The approval reaches the agent (the test) through the server; wait for the decisions'
-- lenses to go (the approved plan's progress lens comes instead).
local after_titles = {}
local decided = vim.wait(20000, function()
  local params = { textDocument = vim.lsp.util.make_text_document_params(bufnr) }
  local answers = vim.lsp.buf_request_sync(bufnr, "textDocument/codeLens", params, 5000) or {}
  after_titles = {}
  for _, answer in pairs(answers) do
    for _, lens in ipairs(answer.result or {}) do
      table.insert(after_titles, lens.command.title)
      if lens.command.title:find("Approve", 1, true) then
        return false
      end
    end
  end
  return #after_titles > 0
end, 200)
if not decided then
  return fail("the plan was not decided by the code action")
end

-- After approval: Neovim 0.7 has no inlay hints, so each step's mark is a Hint diagnostic on
-- its line; the user marks the first step done with a code action on its line.
local function marks()
  local found = {}
  for _, diagnostic in ipairs(vim.diagnostic.get(bufnr)) do
    if diagnostic.severity == vim.diagnostic.severity.HINT then
      table.insert(found, diagnostic.lnum .. " " .. diagnostic.message)
    end
  end
  table.sort(found)
  return found
end
if not vim.wait(20000, function() return #marks() == 2 end, 50) then
  return fail("no progress marks on the plan: " .. vim.inspect(marks()))
end
local marks_before = marks()
local step_titles = {}
local marked = false
vim.ui.select = function(items, opts, on_choice)
  for index, item in ipairs(items) do
    local title = opts.format_item(item)
    table.insert(step_titles, title)
    if title == "Mark step done" and not marked then
      marked = true
      on_choice(item, index)
    end
  end
  if not marked then
    on_choice(nil, nil)
  end
end
vim.api.nvim_win_set_cursor(0, { 3, 0 })
vim.lsp.buf.code_action()
if not vim.wait(20000, function() return marked end, 50) then
  return fail("no Mark step done code action: " .. table.concat(step_titles, " | "))
end
local done = function()
  for _, mark in ipairs(marks()) do
    if mark:find("step 1: done", 1, true) then
      return true
    end
  end
  return false
end
if not vim.wait(20000, done, 50) then
  return fail("the step was not marked: " .. vim.inspect(marks()))
end
local progress = client.request_sync("planMode/getProgress", { sessionId = "agent" }, 10000, bufnr)
finish({
  ok = true,
  titles = titles,
  action_titles = action_titles,
  mode = state.result.mode,
  revised_text = revised_text,
  revised_modified = revised_modified,
  revised_marks = revised_marks,
  after_titles = after_titles,
  marks_before = marks_before,
  step_titles = step_titles,
  marks_after = marks(),
  progress_done = progress and progress.result and progress.result.done,
})
