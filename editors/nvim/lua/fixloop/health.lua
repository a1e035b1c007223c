-- :checkhealth fixloop (Neovim 0.7 health#report_* and 0.10+ vim.health.*)
local M = {}

local h
if vim.health and vim.health.start then
  h = { start = vim.health.start, ok = vim.health.ok, info = vim.health.info, warn = vim.health.warn, error = vim.health.error }
elseif vim.health and vim.health.report_start then
  h = {
    start = vim.health.report_start,
    ok = vim.health.report_ok,
    info = vim.health.report_info,
    warn = vim.health.report_warn,
    error = vim.health.report_error,
  }
else
  h = {
    start = function(s) vim.fn['health#report_start'](s) end,
    ok = function(s) vim.fn['health#report_ok'](s) end,
    info = function(s) vim.fn['health#report_info'](s) end,
    warn = function(s, advice) vim.fn['health#report_warn'](s, advice or {}) end,
    error = function(s, advice) vim.fn['health#report_error'](s, advice or {}) end,
  }
end

function M.check()
  local fixloop = require('fixloop')
  local cfg = fixloop.config
  local settings = cfg.settings or {}

  h.start('fixloop: server binary')
  local exe = cfg.cmd and cfg.cmd[1] or 'fixloop'
  local path = vim.fn.exepath(exe)
  if path == '' then
    h.error('`' .. exe .. '` not found (cmd = ' .. vim.inspect(cfg.cmd) .. ')', {
      'Build it in a clone of fixloop: `go build -o ~/go/bin/fixloop .` (and put ~/go/bin on PATH)',
      "Or pass the full path: require('fixloop').setup({ cmd = { '/path/to/fixloop', 'serve' } })",
    })
  else
    h.ok('found: ' .. path)
    local out = vim.fn.system({ path, 'version' })
    if vim.v.shell_error == 0 then
      h.ok('version: ' .. vim.trim(out))
    else
      h.warn('`' .. path .. ' version` failed: ' .. vim.trim(out))
    end
  end

  h.start('fixloop: client')
  local all = vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
  local n = 0
  for _, c in ipairs(all) do
    if c.name == cfg.name then
      n = n + 1
      h.ok('running: client ' .. c.id .. ', root ' .. tostring(c.config.root_dir))
    end
  end
  if n == 0 then
    h.info('no fixloop client running (it starts on FileType ' .. table.concat(cfg.filetypes or {}, ', ')
      .. (fixloop.setup_done and ')' or '; call require("fixloop").setup() first)'))
  end

  h.start('fixloop: model')
  local model = type(settings.model) == 'table' and settings.model.name or nil
  local env_model = vim.env.FIXLOOP_MODEL
  if model and model ~= '' then
    h.ok('model from settings: ' .. model)
  elseif env_model and env_model ~= '' then
    h.ok('model from $FIXLOOP_MODEL: ' .. env_model)
  else
    h.info('no model configured (settings.model.name or $FIXLOOP_MODEL): the offline rules provider is used')
  end
  if type(settings.model) == 'table' and settings.model.apiKeyEnv then
    local var = settings.model.apiKeyEnv
    if (vim.env[var] or '') == '' then
      h.warn('$' .. var .. ' (model.apiKeyEnv) is not set')
    else
      h.ok('$' .. var .. ' is set')
    end
  end

  h.start('fixloop: tools')
  if path == '' then
    h.info('the tools are listed once the server binary is found')
  else
    -- The server's own list: every language's linters and test tools,
    -- what provides the missing ones, and what the sandbox enforces.
    local out = vim.fn.system({ path, 'check', '--tools', '--json' })
    local decoded, data = pcall(vim.fn.json_decode, out)
    if vim.v.shell_error ~= 0 or not decoded or type(data) ~= 'table' then
      h.warn('`' .. path .. ' check --tools --json` failed: ' .. vim.trim(out))
    else
      for _, t in ipairs(data.tools or {}) do
        local label = t.name .. ' (' .. ((t.language ~= nil and t.language ~= '') and t.language or 'all') .. ')'
        local how = (t.package or '') .. ((t.install ~= nil and t.install ~= '') and (': ' .. t.install) or '')
        if t.found then
          h.ok(label .. ': ' .. (t.path or '') .. ((t.version ~= nil and t.version ~= '') and (' (' .. t.version .. ')') or ''))
        elseif t.optional ~= nil and t.optional ~= '' then
          h.info(label .. ': not installed, optional (' .. t.optional .. '); ' .. how)
        else
          h.warn(label .. ': not installed', { how })
        end
      end
      for _, n in ipairs(data.notes or {}) do
        h.info(n)
      end
    end
  end
end

return M
