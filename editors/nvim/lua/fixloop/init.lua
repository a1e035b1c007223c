-- fixloop: Neovim client for the fixloop language server (Go, Python, C++, Java).
-- Works on Neovim 0.7 (vim.lsp.start_client + vim.lsp.buf_attach_client)
-- and 0.8+ (vim.lsp.start).
local M = {}

local defaults = {
  name = 'fixloop',
  cmd = { 'fixloop', 'serve' },
  filetypes = { 'go', 'python', 'cpp', 'java' },
  root_markers = { '.fixloop.yaml', 'go.mod', 'pyproject.toml', 'pom.xml', 'build.gradle', '.git' },
  settings = {},
  -- echo $/progress messages ("title: message") in the message area
  echo_progress = true,
}

M.config = vim.deepcopy(defaults)
-- every progress line echoed (newest last); handy for tests and :messages
M.progress_log = {}
-- every window/showMessage text (newest last); handy for tests and :messages
M.messages = {}
-- root_dir -> client id (only used on Neovim < 0.8)
local clients_by_root = {}
-- progress token -> title
local titles = {}

local function notify(msg, level)
  vim.notify('fixloop: ' .. msg, level or vim.log.levels.INFO)
end

local function is_dir(path)
  local st = vim.loop.fs_stat(path)
  return st ~= nil and st.type == 'directory'
end

--- The nearest ancestor of `path` holding one of the root markers, else nil:
--- a file outside any project is opened without a workspace folder, and
--- fixloop checks it with its built-in analysers only (no tests, repairs
--- or commands; no copy of its directory, which may be /tmp or /).
function M.find_root(path, markers)
  markers = markers or M.config.root_markers
  local dir = vim.fn.fnamemodify(path, ':p')
  if not is_dir(dir) then
    dir = vim.fn.fnamemodify(dir, ':h')
  end
  while true do
    for _, m in ipairs(markers) do
      if vim.loop.fs_stat(dir .. '/' .. m) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      break
    end
    dir = parent
  end
  return nil
end

-- workspace/configuration: the settings for section nil/"fixloop",
-- a sub-table for "fixloop.x.y", vim.NIL for anything else.
local function on_configuration(_, result, ctx)
  local out = {}
  for i, item in ipairs((result and result.items) or {}) do
    local section = item.section
    local value = vim.NIL
    if section == nil or section == '' or section == 'fixloop' then
      value = M.config.settings
    elseif section:sub(1, 8) == 'fixloop.' then
      local v = M.config.settings
      for key in section:sub(9):gmatch('[^.]+') do
        v = type(v) == 'table' and v[key] or nil
      end
      if v ~= nil then
        value = v
      end
    end
    out[i] = value
  end
  return out
end

-- ---------------------------------------------------------------- trust
-- fixloop runs the commands a repository's .fixloop.yaml configures, its
-- tests, the Python, C++ and Java tools and model sessions only in a
-- workspace you trust (otherwise only the built-in Go analysers): like
-- vim.secure for exrc files, :FixloopTrust records the workspace root
-- with a hash of its .fixloop.yaml in a trust file of its own, so that a
-- changed .fixloop.yaml (a git pull) is not trusted until you trust it
-- again. The plugin sends the answer as initializationOptions.trusted.

--- The trust file: stdpath('state') (Neovim 0.8+, else stdpath('data'))
--- .. '/fixloop/trust', one "<sha256 of .fixloop.yaml or 'none'>\t<root>"
--- line per trusted root.
function M.trust_file()
  local ok, dir = pcall(vim.fn.stdpath, 'state')
  if not ok or type(dir) ~= 'string' or dir == '' then
    dir = vim.fn.stdpath('data')
  end
  return dir .. '/fixloop/trust'
end

local function normalize_root(root)
  return (vim.fn.fnamemodify(root, ':p'):gsub('(.)/$', '%1'))
end

--- What trust of `root` is bound to: the sha256 of its .fixloop.yaml, or
--- 'none' when it has none.
function M.config_hash(root)
  local path = normalize_root(root) .. '/.fixloop.yaml'
  if vim.fn.filereadable(path) ~= 1 then
    return 'none'
  end
  local f = io.open(path, 'rb')
  if not f then
    return 'none'
  end
  local data = f:read('*a')
  f:close()
  return vim.fn.sha256(data)
end

local function read_trust()
  local entries = {}
  local f = io.open(M.trust_file(), 'r')
  if not f then
    return entries
  end
  for line in f:lines() do
    local hash, root = line:match('^(%S+)\t(.+)$')
    if hash then
      entries[root] = hash
    end
  end
  f:close()
  return entries
end

local function write_trust(entries)
  local file = M.trust_file()
  vim.fn.mkdir(vim.fn.fnamemodify(file, ':h'), 'p')
  local tmp = file .. '.tmp'
  local f = assert(io.open(tmp, 'w'))
  local roots = vim.tbl_keys(entries)
  table.sort(roots)
  for _, root in ipairs(roots) do
    f:write(entries[root] .. '\t' .. root .. '\n')
  end
  f:close()
  assert(os.rename(tmp, file))
end

--- Whether you trust the workspace at `root` as it is now (its
--- .fixloop.yaml unchanged since :FixloopTrust).
function M.is_trusted(root)
  if not root or root == '' then
    return false
  end
  root = normalize_root(root)
  return read_trust()[root] == M.config_hash(root)
end

--- Trust the workspace at `root` (allow = true), or revoke that trust.
function M.set_trust(root, allow)
  root = normalize_root(root)
  local entries = read_trust()
  entries[root] = allow and M.config_hash(root) or nil
  write_trust(entries)
end

local function clients_of_root(root)
  local out = {}
  local all = vim.lsp.get_clients and vim.lsp.get_clients({ name = M.config.name }) or vim.lsp.get_active_clients()
  for _, c in ipairs(all) do
    if c.name == M.config.name and c.config.root_dir and normalize_root(c.config.root_dir) == root then
      table.insert(out, c)
    end
  end
  return out
end

--- :FixloopTrust[!] [dir]: trust the workspace of the current buffer (or
--- dir), or with ! revoke that trust, and tell its running fixloop
--- clients (workspace/didChangeConfiguration with trusted).
function M.trust(opts)
  opts = opts or {}
  local root = opts.args and opts.args ~= '' and opts.args or nil
  if not root then
    local fname = vim.api.nvim_buf_get_name(0)
    if fname == '' then
      notify('open a file of the workspace first, or name its directory: :FixloopTrust DIR', vim.log.levels.WARN)
      return
    end
    local c = M.get_client(0)
    root = c and c.config.root_dir or M.find_root(fname)
  end
  root = normalize_root(root)
  local allow = not opts.bang
  M.set_trust(root, allow)
  local settings = vim.tbl_extend('force', {}, M.config.settings, { trusted = allow })
  for _, c in ipairs(clients_of_root(root)) do
    c.notify('workspace/didChangeConfiguration', { settings = settings })
  end
  notify((allow and 'trusted ' or 'no longer trusted: ') .. root)
end

-- before_init: initializationOptions.trusted from the trust file (or
-- settings.trusted = true in your own setup), never shared between roots.
local function before_init(params, config)
  local root = config and config.root_dir
  if not root and params.rootUri and params.rootUri ~= vim.NIL then
    root = vim.uri_to_fname(params.rootUri)
  end
  local opts = params.initializationOptions
  if type(opts) ~= 'table' or opts == vim.NIL then
    opts = {}
  end
  params.initializationOptions = vim.tbl_extend('force', {}, opts,
    { trusted = M.config.settings.trusted == true or M.is_trusted(root) })
end

M.before_init = before_init

-- window/showMessage: kept in M.messages, then shown as usual.
local function on_show_message(err, result, ctx, config)
  if result and result.message then
    table.insert(M.messages, result.message)
  end
  local default = vim.lsp.handlers['window/showMessage']
  if default then
    return default(err, result, ctx, config)
  end
end

local function default_progress_handler()
  return vim.lsp.handlers['$/progress']
end

-- $/progress: run Neovim's default handler, then echo "title: message".
local function on_progress(err, result, ctx, config)
  local default = default_progress_handler()
  if default then
    pcall(default, err, result, ctx, config)
  end
  if not result or type(result.value) ~= 'table' then
    return
  end
  local value = result.value
  local token = tostring(result.token)
  if value.kind == 'begin' then
    titles[token] = value.title or 'fixloop'
  end
  local title = titles[token] or 'fixloop'
  local msg = value.message
  if value.kind == 'end' then
    titles[token] = nil
    msg = msg or 'done'
  end
  if not msg then
    if value.kind ~= 'begin' then
      return
    end
    msg = 'started'
  end
  if value.percentage then
    msg = string.format('%s (%d%%)', msg, value.percentage)
  end
  local line = title .. ': ' .. msg
  table.insert(M.progress_log, line)
  if M.config.echo_progress then
    vim.schedule(function()
      vim.api.nvim_echo({ { line } }, false, {})
    end)
  end
end

--- The client configuration without a root: what Neovim 0.11's
--- vim.lsp.config takes (lsp/fixloop.lua returns it; the root then comes
--- from root_markers), and what the older paths add a root to.
function M.lsp_config()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.window = caps.window or {}
  caps.window.workDoneProgress = true
  caps.window.showMessage = caps.window.showMessage or {}
  return {
    name = M.config.name,
    cmd = M.config.cmd,
    filetypes = M.config.filetypes,
    root_markers = M.config.root_markers,
    -- an empty Lua table would be encoded as a JSON array
    init_options = next(M.config.settings) and M.config.settings or vim.empty_dict(),
    settings = { fixloop = M.config.settings },
    capabilities = caps,
    before_init = before_init,
    handlers = {
      ['workspace/configuration'] = on_configuration,
      ['$/progress'] = on_progress,
      ['window/showMessage'] = on_show_message,
    },
  }
end

local function client_config(root)
  local c = M.lsp_config()
  c.filetypes, c.root_markers = nil, nil
  c.root_dir = root
  -- No project (root nil): no workspace folder and no root URI.
  if root then
    c.workspace_folders = { { uri = vim.uri_from_fname(root), name = root } }
  end
  return c
end

local function client_alive(id)
  local c = id and vim.lsp.get_client_by_id(id)
  return c ~= nil and not c.is_stopped()
end

--- Start (once per root) and attach fixloop to buffer `bufnr`.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if vim.bo[bufnr].buftype ~= '' then
    return
  end
  local fname = vim.api.nvim_buf_get_name(bufnr)
  if fname == '' then
    return
  end
  local root = M.find_root(fname)
  if vim.lsp.start then
    return vim.lsp.start(client_config(root), { bufnr = bufnr })
  end
  local key = root or ''
  local id = clients_by_root[key]
  if not client_alive(id) then
    id = vim.lsp.start_client(client_config(root))
    if not id then
      notify('could not start ' .. table.concat(M.config.cmd, ' '), vim.log.levels.ERROR)
      return
    end
    clients_by_root[key] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

--- The fixloop client attached to `bufnr`, or nil.
function M.get_client(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local list
  if vim.lsp.get_clients then
    list = vim.lsp.get_clients({ bufnr = bufnr, name = M.config.name })
  else
    list = vim.tbl_values(vim.lsp.buf_get_clients(bufnr))
  end
  for _, c in ipairs(list) do
    if c.name == M.config.name then
      return c
    end
  end
end

local function buf_version(bufnr)
  local ok, v = pcall(function()
    return vim.lsp.util.buf_versions[bufnr]
  end)
  if ok and v then
    return v
  end
  return vim.api.nvim_buf_get_changedtick(bufnr)
end

local function char_index(client, line)
  local enc = client.offset_encoding or 'utf-16'
  if enc == 'utf-8' then
    return #line
  end
  local utf32, utf16 = vim.str_utfindex(line)
  return enc == 'utf-32' and utf32 or utf16
end

--- Send workspace/executeCommand `command` with one argument `arg` to the
--- fixloop client of `bufnr`; `on_result(result)` on success.
function M.execute(command, arg, bufnr, on_result)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = M.get_client(bufnr)
  if not client then
    notify('no fixloop client attached to this buffer', vim.log.levels.WARN)
    return false
  end
  client.request('workspace/executeCommand', { command = command, arguments = { arg } }, function(err, result)
    if err then
      notify(command .. ': ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    if on_result then
      on_result(result)
    end
  end, bufnr)
  return true
end

local function session_args(bufnr, opts)
  local client = M.get_client(bufnr)
  local arg = { uri = vim.uri_from_bufnr(bufnr), version = buf_version(bufnr) }
  if client and opts and opts.range and opts.range > 0 then
    local last = vim.api.nvim_buf_get_lines(bufnr, opts.line2 - 1, opts.line2, false)[1] or ''
    arg.range = {
      start = { line = opts.line1 - 1, character = 0 },
      ['end'] = { line = opts.line2 - 1, character = char_index(client, last) },
    }
  end
  return arg
end

M.session_args = session_args

function M.repair(opts)
  local bufnr = vim.api.nvim_get_current_buf()
  return M.execute('fixloop.repair', session_args(bufnr, opts), bufnr)
end

function M.refactor(opts)
  local bufnr = vim.api.nvim_get_current_buf()
  return M.execute('fixloop.refactor', session_args(bufnr, opts), bufnr)
end

function M.cancel()
  local bufnr = vim.api.nvim_get_current_buf()
  return M.execute('fixloop.cancel', { uri = vim.uri_from_bufnr(bufnr) }, bufnr)
end

-- the last summary returned by :FixloopSession
M.last_session = nil

--- One line for a fixloop.showSession result.
function M.format_session(r)
  if type(r) ~= 'table' then
    return tostring(r)
  end
  local parts = { tostring(r.goal or 'session') }
  if r.provider then
    local p = 'provider ' .. tostring(r.provider)
    if r.model and r.model ~= '' then
      p = p .. ' (' .. tostring(r.model) .. ')'
    end
    table.insert(parts, p)
  end
  if r.stop then
    table.insert(parts, 'stop ' .. tostring(r.stop))
  end
  local f = type(r.final) == 'table' and r.final or nil
  if f then
    table.insert(parts, string.format('round %s: tests %s/%s, fixed %s, new %s, %s lines edited, alerts %s -> %s',
      tostring(f.round), tostring(f.tests_passed), tostring(f.tests_total), tostring(f.fixed), tostring(f.new),
      tostring(f.lines_edited), tostring(f.alerts_before), tostring(f.alerts_after)))
  end
  if r.solved ~= nil then
    table.insert(parts, r.solved and 'solved' or 'not solved')
  end
  if r.id then
    table.insert(parts, 'id ' .. tostring(r.id))
  end
  return table.concat(parts, ', ')
end

function M.session()
  local bufnr = vim.api.nvim_get_current_buf()
  return M.execute('fixloop.showSession', { uri = vim.uri_from_bufnr(bufnr) }, bufnr, function(result)
    M.last_session = result
    vim.api.nvim_echo({ { 'fixloop session: ' .. M.format_session(result) } }, true, {})
  end)
end

local commands_defined = false
local function define_commands()
  if commands_defined then
    return
  end
  commands_defined = true
  local cmd = vim.api.nvim_create_user_command
  cmd('FixloopRepair', function(o)
    M.repair(o)
  end, { range = true, desc = 'fixloop: repair the file (or the range) with the model' })
  cmd('FixloopRefactor', function(o)
    M.refactor(o)
  end, { range = true, desc = 'fixloop: refactor the file (or the range) with the model' })
  cmd('FixloopCancel', function()
    M.cancel()
  end, { desc = 'fixloop: cancel the running session' })
  cmd('FixloopSession', function()
    M.session()
  end, { desc = "fixloop: show the last session's summary" })
  cmd('FixloopTrust', function(o)
    M.trust(o)
  end, {
    bang = true,
    nargs = '?',
    complete = 'dir',
    desc = "fixloop: trust this workspace (run its .fixloop.yaml commands, tests, sessions); ! revokes",
  })
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  -- lists replace rather than merge
  for _, k in ipairs({ 'cmd', 'filetypes', 'root_markers' }) do
    if opts and opts[k] then
      M.config[k] = opts[k]
    end
  end
  define_commands()
  M.setup_done = true
  local group = vim.api.nvim_create_augroup('fixloop', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = M.config.filetypes,
    callback = function(args)
      M.attach(args.buf)
    end,
  })
  -- buffers already open with a matching filetype
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.tbl_contains(M.config.filetypes, vim.bo[b].filetype) then
      M.attach(b)
    end
  end
end

return M
