-- Real Neovim (0.7) as the user's editor: start the planmode server, wait for the agent's plan,
-- read its code lenses, and approve through vim.lsp.buf.code_action() (its code actions).
-- Paths come from the environment; the outcome is written as JSON to PLANMODE_NVIM_OUT.
local root = os.getenv("PLANMODE_NVIM_ROOT")
local python = os.getenv("PLANMODE_NVIM_PYTHON")
local handoff = os.getenv("PLANMODE_NVIM_HANDOFF")
local out = os.getenv("PLANMODE_NVIM_OUT")

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
    if title == "Approve plan" and not chosen then
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
-- The approval reaches the agent (the test) through the server; wait for the lenses to go.
local decided = vim.wait(20000, function()
  local params = { textDocument = vim.lsp.util.make_text_document_params(bufnr) }
  local answers = vim.lsp.buf_request_sync(bufnr, "textDocument/codeLens", params, 5000) or {}
  for _, answer in pairs(answers) do
    if #(answer.result or {}) > 0 then
      return false
    end
  end
  return true
end, 200)
if not decided then
  return fail("the plan was not decided by the code action")
end
finish({ ok = true, titles = titles, action_titles = action_titles, mode = state.result.mode })
