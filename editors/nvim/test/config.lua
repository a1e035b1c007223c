-- The logic of the 0.11 path (lsp/fixloop.lua, vim.lsp.config) on whatever
-- Neovim runs the tests: the config it returns has what vim.lsp.config and
-- vim.lsp.enable need, the same as the 0.7 and 0.8 paths send.
local failures = 0
local function check(ok, what)
  if ok then
    print('ok   - ' .. what)
  else
    failures = failures + 1
    print('FAIL - ' .. what)
  end
end

local files = vim.api.nvim_get_runtime_file('lsp/fixloop.lua', false)
check(#files == 1, 'lsp/fixloop.lua is on the runtimepath')
local cfg = dofile(files[1])
check(type(cfg) == 'table', 'it returns a table')
check(vim.deep_equal(cfg.cmd, { 'fixloop', 'serve' }), 'cmd is fixloop serve')
check(vim.deep_equal(cfg.filetypes, { 'go', 'python', 'cpp', 'java' }), 'the four languages')
check(vim.tbl_contains(cfg.root_markers, 'go.mod') and vim.tbl_contains(cfg.root_markers, '.fixloop.yaml'), 'root markers')
check(cfg.root_dir == nil, 'no root: 0.11 finds it from root_markers')
check(cfg.capabilities.window.workDoneProgress == true, 'progress capability')
check(type(cfg.handlers['workspace/configuration']) == 'function', 'the configuration handler')
check(type(cfg.handlers['$/progress']) == 'function', 'the progress handler')
check(vim.json.encode(cfg.init_options) == '{}', 'empty settings are sent as an object')
check(type(cfg.before_init) == 'function', 'before_init adds initializationOptions.trusted')
check(type(cfg.handlers['window/showMessage']) == 'function', 'the showMessage handler')

require('fixloop').setup({ settings = { model = { name = 'm' } } })
local set = require('fixloop').lsp_config()
check(set.settings.fixloop.model.name == 'm' and set.init_options.model.name == 'm', 'setup settings reach the config')

if failures > 0 then
  print(string.format('FAIL: %d config checks failed', failures))
  vim.cmd('cquit 1')
end
print('PASS: fixloop nvim config')
vim.cmd('qall!')
