-- Neovim's built-in LSP client against `mcpdecl lsp`, headless:
--
--   PATH=dir/of/mcpdecl:$PATH LSP_DOC=docs/editors.md LSP_FILE=dir/weather.hcl \
--     LSP_REPORT=report.json nvim --headless -u NONE -i NONE -c 'luafile lsp/testdata/nvim.lua'
--
-- The client is started by the configuration docs/editors.md gives for
-- Neovim (its first lua block), run as a user's init.lua would.
-- LSP_FILE is an example with a typo (verison) and a line out of format.
-- The script waits for the typo's diagnostic, applies its code action,
-- completes after var. and inside expr("args., and at the start of a
-- program, hovers a program and an attribute, jumps
-- to a definition and formats, then writes what it saw to LSP_REPORT (JSON)
-- for TestNeovimReport to check. It runs on Neovim 0.7 (Debian 12) and
-- later. Every wait is bounded: a server that does not answer shows as a
-- missing field of the report, never as a hang.

local doc, file, out = os.getenv("LSP_DOC"), os.getenv("LSP_FILE"), os.getenv("LSP_REPORT")
local report = { steps = {} }
local wait = 20000

local function write_report()
  local f = assert(io.open(out, "w"))
  f:write(vim.fn.json_encode(report))
  f:close()
end

local function step(name, fn)
  local ok, err = pcall(fn)
  if not ok then
    report.steps[name] = "error: " .. tostring(err)
  elseif report.steps[name] == nil then
    report.steps[name] = "ok"
  end
end

-- docs/editors.md's configuration, as init.lua.
local text = table.concat(vim.fn.readfile(doc), "\n")
local config = assert(string.match(text, "```lua\n(.-)```"), "docs/editors.md has no lua block")
assert(loadstring(config, "docs/editors.md"))()

vim.cmd("edit " .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()
local uri = vim.uri_from_bufnr(buf)

-- A client is listed once the server has answered initialize.
local client
vim.wait(wait, function()
  for _, c in pairs(vim.lsp.get_active_clients()) do
    if c.name == "mcpdecl" then
      client = c
    end
  end
  return client ~= nil
end, 20)
if not client then
  report.steps.start = "error: the README's configuration started no client named mcpdecl"
  write_report()
  vim.cmd("cquit 1")
end
report.steps.start = "ok"

-- find returns the LSP position of the first occurrence of text in the
-- buffer, plus n characters (ASCII lines).
local function find(text, n)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local col = string.find(line, text, 1, true)
    if col then
      return { line = i - 1, character = col - 1 + (n or 0) }
    end
  end
  error("no " .. text .. " in the buffer")
end

local function request(method, params)
  local resp, err = client.request_sync(method, params, wait, buf)
  if not resp then
    error(method .. ": " .. tostring(err))
  end
  if resp.err then
    error(method .. ": " .. vim.inspect(resp.err))
  end
  return resp.result
end

local function typo()
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if string.find(d.message, "Did you mean", 1, true) then
      return d
    end
  end
end

step("diagnostic", function()
  vim.wait(wait, function() return typo() ~= nil end, 20)
  local d = assert(typo(), "no diagnostic with a suggestion arrived")
  report.diagnostic = { message = d.message, line = d.lnum, col = d.col, end_col = d.end_col }
end)

step("code_action", function()
  local d = assert(typo(), "no diagnostic to fix")
  local range = { start = { line = d.lnum, character = d.col }, ["end"] = { line = d.end_lnum, character = d.end_col } }
  local actions = request("textDocument/codeAction", {
    textDocument = { uri = uri },
    range = range,
    context = { diagnostics = { { range = range, message = d.message, severity = d.severity, source = d.source } } },
  })
  assert(actions and actions[1], "no code action")
  report.code_action = actions[1].title
  vim.lsp.util.apply_workspace_edit(actions[1].edit, client.offset_encoding or "utf-16")
  report.fixed_line = vim.api.nvim_buf_get_lines(buf, d.lnum, d.lnum + 1, false)[1]
  -- The edit reaches the server as a didChange: the diagnostic goes away.
  vim.wait(wait, function() return typo() == nil end, 20)
  report.diagnostics_after_fix = #vim.diagnostic.get(buf, { severity = vim.diagnostic.severity.ERROR })
end)

local function labels(result)
  local items = result and (result.items or result) or {}
  local out = {}
  for _, item in ipairs(items) do
    table.insert(out, item.label)
  end
  table.sort(out)
  return out
end

step("completion_var", function()
  report.completion_var = labels(request("textDocument/completion", {
    textDocument = { uri = uri }, position = find("var.base_url", 4),
  }))
end)

step("completion_args", function()
  report.completion_args = labels(request("textDocument/completion", {
    textDocument = { uri = uri }, position = find('expr("args.city', 11),
  }))
end)

-- Inside a program: what it may read there, as the load type-checked it.
step("completion_expr", function()
  report.completion_expr = labels(request("textDocument/completion", {
    textDocument = { uri = uri }, position = find('expr("body.main.temp', 6),
  }))
end)

step("hover_expr", function()
  local h = request("textDocument/hover", { textDocument = { uri = uri }, position = find('city = expr("args.city")', 16) })
  report.hover_expr = h and h.contents and (h.contents.value or h.contents) or ""
end)

step("hover", function()
  local h = request("textDocument/hover", { textDocument = { uri = uri }, position = find("instructions", 2) })
  report.hover = h and h.contents and (h.contents.value or h.contents) or ""
end)

step("definition", function()
  local result = request("textDocument/definition", { textDocument = { uri = uri }, position = find("var.base_url", 6) })
  local loc = result and (result[1] or result)
  assert(loc and loc.uri, "no definition")
  vim.lsp.util.jump_to_location(loc, client.offset_encoding or "utf-16")
  local row = vim.api.nvim_win_get_cursor(0)[1]
  report.definition = vim.api.nvim_buf_get_lines(buf, row - 1, row, false)[1]
end)

step("formatting", function()
  local edits = request("textDocument/formatting", {
    textDocument = { uri = uri }, options = { tabSize = 2, insertSpaces = true },
  })
  report.formatting_edits = edits and #edits or 0
  if edits then
    vim.lsp.util.apply_text_edits(edits, buf, client.offset_encoding or "utf-16")
  end
  report.text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n") .. "\n"
end)

client.stop()
vim.wait(wait, function() return client.is_stopped() end, 20)
report.stopped = client.is_stopped()
write_report()
vim.cmd("qa!")
