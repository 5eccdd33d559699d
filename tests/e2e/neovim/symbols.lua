-- Real Neovim (0.7): the plan library through the editor's own workspace-symbol request, as
-- `:lua vim.lsp.buf.workspace_symbol()` (or Telescope's lsp_workspace_symbols) asks it.
-- Paths come from the environment; the symbols found are written as JSON to PLANMODE_NVIM_OUT.
local root = os.getenv("PLANMODE_NVIM_ROOT")
local python = os.getenv("PLANMODE_NVIM_PYTHON")
local out = os.getenv("PLANMODE_NVIM_OUT")

local function finish(result)
  vim.fn.writefile({ vim.fn.json_encode(result) }, out)
  vim.cmd("qa!")
end

local client_id = vim.lsp.start_client({
  cmd = { python, "-m", "planmode", "lsp" },
  root_dir = root,
  init_options = { planMode = { sessionId = "nvim" } },
})
if not client_id then
  return finish({ ok = false, error = "start_client failed" })
end
local client = vim.lsp.get_client_by_id(client_id)
if not vim.wait(20000, function() return client.initialized end, 50) then
  return finish({ ok = false, error = "the server did not initialize" })
end
vim.cmd("edit " .. vim.fn.fnameescape(root .. "/notes.md"))
local bufnr = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(bufnr, client_id)

local function symbols(query)
  local found = {}
  local answers = vim.lsp.buf_request_sync(bufnr, "workspace/symbol", { query = query }, 10000)
  for _, answer in pairs(answers or {}) do
    for _, symbol in ipairs(answer.result or {}) do
      table.insert(found, {
        name = symbol.name,
        container = symbol.containerName,
        uri = symbol.location.uri,
      })
    end
  end
  -- What the user's picker shows: the symbols as quickfix items.
  local items = vim.lsp.util.symbols_to_items(answers and answers[client_id].result or {}, bufnr)
  return found, #items
end

local all, all_items = symbols("")
local cache = symbols("cache")
finish({
  ok = true,
  provider = client.server_capabilities.workspaceSymbolProvider ~= nil,
  all = all,
  all_items = all_items,
  cache = cache,
})
