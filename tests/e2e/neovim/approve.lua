-- Real Neovim (0.7) as the user's editor: start the planmode server, wait for the agent's plan,
-- read its code lenses and run "Approve plan" through workspace/executeCommand.
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
local approve
for _, lens in ipairs(lenses) do
  table.insert(titles, lens.command.title)
  if lens.command.title == "Approve plan" then
    approve = lens
  end
end
if not approve then
  return fail("no Approve plan lens: " .. table.concat(titles, " | "))
end
local answer = client.request_sync("workspace/executeCommand", {
  command = approve.command.command,
  arguments = approve.command.arguments,
}, 10000, bufnr)
if not answer or answer.err then
  return fail("executeCommand failed: " .. vim.inspect(answer and answer.err))
end
finish({ ok = true, titles = titles, result = answer.result })
