-- Headless test of workspace trust in the fixloop Neovim plugin; run by
-- test/run.sh. Env: FIXLOOP_BIN (built server), FIXLOOP_TRUSTDIR (a copy of
-- testdata/calc), a private XDG_STATE_HOME and XDG_DATA_HOME.
--
-- An untrusted workspace gets the built-in Go analysers only: the command
-- linter its .fixloop.yaml configures does not run, and the server's notice
-- names :FixloopTrust. :FixloopTrust records the root in the trust file and
-- the command linter runs; a changed .fixloop.yaml is no longer trusted;
-- :FixloopTrust! revokes the trust; before_init sends what the trust file
-- says as initializationOptions.trusted.
local function out(msg)
  io.stdout:write(msg .. '\n')
  io.stdout:flush()
end

local function fail(msg)
  error({ fixloop_failure = msg }, 0)
end

local function check(cond, msg)
  if not cond then
    fail(msg)
  end
  out('ok   - ' .. msg)
end

local function wait_for(ms, what, pred)
  if not vim.wait(ms, pred, 100) then
    fail('timed out after ' .. ms / 1000 .. ' s waiting for ' .. what)
  end
  out('ok   - ' .. what)
end

local function has_source(bufnr, source)
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.source == source then
      return true
    end
  end
  return false
end

local function has_code(bufnr, code)
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.code == code then
      return true
    end
  end
  return false
end

local function main()
  local bin = assert(vim.env.FIXLOOP_BIN, 'FIXLOOP_BIN not set')
  local dir = assert(vim.env.FIXLOOP_TRUSTDIR, 'FIXLOOP_TRUSTDIR not set')
  local root = vim.fn.fnamemodify(dir, ':p'):gsub('/$', '')
  local yaml = table.concat({
    'linters:',
    '  - name: marker',
    [[    command: [sh, -c, 'printf "%s:1:1: warning: the repository command ran\n" "$1"; exit 1', sh, "${file}"] ]],
    '    extensions: [.go]',
    '    errorformat: ["%f:%l:%c: %tarning: %m"]',
    '',
  }, '\n')
  vim.fn.writefile(vim.split(yaml, '\n', { plain = true }), dir .. '/.fixloop.yaml')

  local fixloop = require('fixloop')
  fixloop.setup({
    cmd = { bin, 'serve', '--log-file', dir .. '/../fixloop-trust.log' },
    settings = { tests = { mode = 'off' } },
  })
  check(vim.fn.exists(':FixloopTrust') == 2, ':FixloopTrust exists')
  check(not fixloop.is_trusted(root), 'a new workspace is not trusted')
  local params = { initializationOptions = vim.empty_dict() }
  fixloop.before_init(params, { root_dir = root })
  check(params.initializationOptions.trusted == false and vim.json.encode(params.initializationOptions) == '{"trusted":false}',
    'before_init sends trusted: false for it')

  vim.cmd('filetype on')
  vim.cmd('edit ' .. vim.fn.fnameescape(dir .. '/calc.go'))
  local bufnr = vim.api.nvim_get_current_buf()
  wait_for(10000, 'the fixloop client attached', function()
    return fixloop.get_client(bufnr) ~= nil
  end)
  wait_for(60000, 'the built-in analysers report S1039 untrusted', function()
    return has_code(bufnr, 'S1039')
  end)
  check(not has_source(bufnr, 'marker'), 'the repository command linter did not run untrusted')
  wait_for(10000, 'the server says the workspace is not trusted, naming :FixloopTrust', function()
    for _, m in ipairs(fixloop.messages) do
      if m:find('not trusted', 1, true) and m:find(':FixloopTrust', 1, true) then
        return true
      end
    end
    return false
  end)

  vim.cmd('FixloopTrust')
  check(fixloop.is_trusted(root), ':FixloopTrust trusts the workspace root')
  local lines = vim.fn.readfile(fixloop.trust_file())
  check(#lines == 1 and lines[1] == fixloop.config_hash(root) .. '\t' .. root, 'the trust file holds the root and its .fixloop.yaml hash')
  wait_for(60000, 'the repository command linter runs once trusted', function()
    return has_source(bufnr, 'marker')
  end)
  params = { initializationOptions = { tests = { mode = 'off' } } }
  fixloop.before_init(params, { root_dir = root })
  check(params.initializationOptions.trusted == true and params.initializationOptions.tests.mode == 'off',
    'before_init sends trusted: true beside the settings')
  check(fixloop.config.settings.trusted == nil, 'the shared settings are left alone')

  vim.fn.writefile(vim.split(yaml .. '# changed\n', '\n', { plain = true }), dir .. '/.fixloop.yaml')
  check(not fixloop.is_trusted(root), 'a changed .fixloop.yaml is not trusted')
  vim.fn.writefile(vim.split(yaml, '\n', { plain = true }), dir .. '/.fixloop.yaml')
  check(fixloop.is_trusted(root), 'the same .fixloop.yaml again is')

  vim.cmd('FixloopTrust!')
  check(not fixloop.is_trusted(root), ':FixloopTrust! revokes the trust')
  params = { initializationOptions = vim.empty_dict() }
  fixloop.before_init(params, { root_dir = root })
  check(params.initializationOptions.trusted == false, 'before_init sends trusted: false again')
end

local ok, err = xpcall(main, function(e)
  if type(e) == 'table' and e.fixloop_failure then
    return e.fixloop_failure
  end
  return debug.traceback(tostring(e), 2)
end)
if ok then
  out('PASS: fixloop nvim trust')
  vim.cmd('qa!')
else
  out('FAIL: ' .. tostring(err))
  local log = vim.env.FIXLOOP_TRUSTDIR and (vim.env.FIXLOOP_TRUSTDIR .. '/../fixloop-trust.log')
  if log and vim.fn.filereadable(log) == 1 then
    out('--- last lines of the server log ---')
    local lines = vim.fn.readfile(log)
    for i = math.max(1, #lines - 20), #lines do
      out(lines[i])
    end
  end
  vim.cmd('cquit 1')
end
