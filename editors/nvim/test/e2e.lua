-- Headless end-to-end test of the fixloop Neovim plugin; run by test/run.sh.
-- Env: FIXLOOP_BIN (built server), FIXLOOP_WORKDIR (copy of testdata/calc),
-- FIXLOOP_E2E_BREAK=1 makes one assertion fail (to check the exit status).
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
  local ok = vim.wait(ms, pred, 100)
  if not ok then
    fail('timed out after ' .. ms / 1000 .. ' s waiting for ' .. what)
  end
  out('ok   - ' .. what)
end

local function buf_text(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n')
end

-- The scripted model server: an OpenAI-compatible endpoint on 127.0.0.1 in
-- Neovim's own event loop (so the test must wait with vim.wait, which runs
-- the loop). POST /v1/chat/completions gets replies[n] for the n-th request
-- (the last one once they run out), as a plain chat.completion JSON even when
-- the request asks for a stream. Every decoded request body is kept in
-- srv.requests.
local function scripted_server(replies)
  local srv = { requests = {}, errors = {} }
  local tcp = vim.loop.new_tcp()
  assert(tcp:bind('127.0.0.1', 0))
  srv.port = tcp:getsockname().port

  local function respond(sock, status, body)
    local head = table.concat({
      'HTTP/1.1 ' .. status,
      'Content-Type: application/json',
      'Content-Length: ' .. #body,
      'Connection: close',
      '', '',
    }, '\r\n')
    sock:write(head .. body, function()
      sock:shutdown(function()
        sock:close()
      end)
    end)
  end

  local function handle(sock, head, body)
    local method, path = head:match('^(%u+) (%S+) HTTP/1%.%d')
    if method ~= 'POST' or path ~= '/v1/chat/completions' then
      table.insert(srv.errors, 'unexpected request: ' .. tostring(head:match('^[^\r\n]*')))
      respond(sock, '404 Not Found', '{"error":{"message":"not found"}}')
      return
    end
    local ok, req = pcall(vim.fn.json_decode, body)
    if not ok or type(req) ~= 'table' then
      table.insert(srv.errors, 'request body is not JSON: ' .. tostring(req))
      respond(sock, '400 Bad Request', '{"error":{"message":"bad json"}}')
      return
    end
    table.insert(srv.requests, req)
    local text = replies[math.min(#srv.requests, #replies)]
    respond(sock, '200 OK', '{"id":"x","object":"chat.completion","created":0,"model":"scripted",'
      .. '"choices":[{"index":0,"message":{"role":"assistant","content":' .. vim.fn.json_encode(text)
      .. '},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":10,"total_tokens":20}}')
  end

  assert(tcp:listen(16, function(err)
    if err then
      table.insert(srv.errors, 'listen: ' .. err)
      return
    end
    local sock = vim.loop.new_tcp()
    tcp:accept(sock)
    local buf, done = '', false
    sock:read_start(function(rerr, chunk)
      if done then
        return
      end
      if rerr or not chunk then
        sock:close()
        return
      end
      buf = buf .. chunk
      local hend = buf:find('\r\n\r\n', 1, true)
      if not hend then
        return
      end
      local head = buf:sub(1, hend - 1)
      local len = tonumber(head:lower():match('\r\ncontent%-length:%s*(%d+)')) or 0
      if #buf - (hend + 3) < len then
        return
      end
      done = true
      sock:read_stop()
      local body = buf:sub(hend + 4, hend + 3 + len)
      vim.schedule(function()
        handle(sock, head, body)
      end)
    end)
  end))
  function srv.close()
    if not tcp:is_closing() then
      tcp:close()
    end
  end
  return srv
end

local function fenced(file)
  return 'Here is the file.\n\n```go\n' .. file .. '\n```\n'
end

local function main()
  local bin = assert(vim.env.FIXLOOP_BIN, 'FIXLOOP_BIN not set')
  local dir = assert(vim.env.FIXLOOP_WORKDIR, 'FIXLOOP_WORKDIR not set')
  out('nvim ' .. tostring(vim.version().major) .. '.' .. vim.version().minor .. '.' .. vim.version().patch
    .. (vim.lsp.start and ' (vim.lsp.start)' or ' (vim.lsp.start_client + buf_attach_client)'))

  local fixloop = require('fixloop')
  fixloop.setup({
    cmd = { bin, 'serve', '--log-file', dir .. '/../fixloop.log' },
    settings = { tests = { mode = 'off' } },
  })
  vim.cmd('filetype on')
  vim.cmd('edit ' .. vim.fn.fnameescape(dir .. '/calc.go'))
  local bufnr = vim.api.nvim_get_current_buf()
  check(vim.bo[bufnr].filetype == 'go', 'calc.go has filetype go')

  wait_for(10000, 'the fixloop client attached', function()
    return fixloop.get_client(bufnr) ~= nil
  end)
  local client = fixloop.get_client(bufnr)
  check(client.config.root_dir == vim.fn.fnamemodify(dir, ':p'):gsub('/$', ''), 'root_dir is the module root')

  check(client.config.init_options.tests.mode == 'off', 'settings are sent as init_options')
  local conf = client.config.handlers['workspace/configuration'](nil,
    { items = { { section = 'fixloop' }, { section = 'fixloop.tests.mode' }, { section = 'gopls' } } }, {})
  check(conf[1].tests.mode == 'off' and conf[2] == 'off' and conf[3] == vim.NIL,
    'workspace/configuration answers fixloop, fixloop.tests.mode and (null) gopls')

  local diag
  wait_for(60000, 'the S1039 diagnostic at line 25', function()
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      if d.lnum == 24 and (d.code == 'S1039' or tostring(d.message):find('unnecessary use of fmt.Sprintf', 1, true)) then
        diag = d
        return true
      end
    end
    return false
  end)
  out('       ' .. tostring(diag.source) .. ' ' .. tostring(diag.code) .. ': ' .. diag.message)
  check(buf_text(bufnr):find('fmt.Sprintf("hello")', 1, true) ~= nil, 'buffer starts with fmt.Sprintf("hello")')

  local a = fixloop.session_args(bufnr, { range = 2, line1 = 24, line2 = 26 })
  check(a.uri == vim.uri_from_bufnr(bufnr) and type(a.version) == 'number', 'command arguments carry uri and version')
  check(a.range and a.range.start.line == 23 and a.range['end'].line == 25 and a.range['end'].character == 1,
    'a :24,26 range becomes LSP range 23:0-25:1')
  check(fixloop.session_args(bufnr, { range = 0 }).range == nil, 'no range without one')

  -- Sessions run only in a workspace you trust (see test/trust.lua).
  wait_for(10000, 'the server says the workspace is not trusted', function()
    for _, m in ipairs(fixloop.messages) do
      if m:find('not trusted', 1, true) then
        return true
      end
    end
    return false
  end)
  vim.cmd('FixloopTrust')
  check(fixloop.is_trusted(client.config.root_dir), ':FixloopTrust trusts the module root')

  vim.cmd('FixloopRefactor')
  wait_for(60000, 'the refactor edit applied (no fmt.Sprintf("hello"), has return "hello")', function()
    local t = buf_text(bufnr)
    return not t:find('fmt.Sprintf("hello")', 1, true) and t:find('return "hello"', 1, true) ~= nil
  end)
  -- the end of the progress may arrive just after the edit
  vim.wait(2000, function()
    for _, l in ipairs(fixloop.progress_log) do
      if l:find('round', 1, true) then
        return true
      end
    end
  end, 50)
  for _, l in ipairs(fixloop.progress_log) do
    out('       progress: ' .. l)
  end
  check(#fixloop.progress_log > 0, 'progress messages were seen')
  if vim.env.FIXLOOP_E2E_BREAK == '1' then
    check(false, 'deliberately broken assertion (FIXLOOP_E2E_BREAK=1)')
  end

  vim.cmd('FixloopSession')
  wait_for(10000, 'the :FixloopSession summary', function()
    return fixloop.last_session ~= nil
  end)
  out('       session: ' .. fixloop.format_session(fixloop.last_session))
  check(type(fixloop.last_session) == 'table' and fixloop.last_session.solved == true, 'the session solved the file')

  -- :FixloopRefactor again, against the scripted model server: round 1's
  -- candidate does not compile, round 2's is the fixed file.
  local original = table.concat(vim.fn.readfile(dir .. '/calc.go'), '\n')
  local expected = original:gsub('return fmt%.Sprintf%("hello"%)', 'return "hello"', 1)
  local broken = original:gsub('return fmt%.Sprintf%("hello"%)', 'return "hello" +', 1)
  check(expected ~= original and broken ~= original, 'the scripted replies differ from calc.go')
  local srv = scripted_server({ fenced(broken), fenced(expected) })
  out('       scripted model server on 127.0.0.1:' .. srv.port)
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, vim.split(original, '\n', { plain = true }))
  check(buf_text(bufnr) == original, 'the buffer is back to calc.go as on disk')
  fixloop.config.settings.model = {
    baseUrl = 'http://127.0.0.1:' .. srv.port .. '/v1',
    name = 'scripted',
    apiKeyEnv = 'FIXLOOP_NVIM_TEST_KEY',
  }
  client.notify('workspace/didChangeConfiguration', { settings = { fixloop = fixloop.config.settings } })
  fixloop.progress_log = {}
  fixloop.last_session = nil
  vim.cmd('FixloopRefactor')
  local function progress_has(s)
    for _, l in ipairs(fixloop.progress_log) do
      if l:find(s, 1, true) then
        return true
      end
    end
    return false
  end
  wait_for(90000, 'the model refactor finished (buffer is the fixed file, progress ended)', function()
    return #srv.errors > 0 or (buf_text(bufnr) == expected and progress_has('refactor round 2/3'))
  end)
  for _, l in ipairs(fixloop.progress_log) do
    out('       progress: ' .. l)
  end
  check(#srv.errors == 0, 'the scripted server saw only chat completion requests'
    .. (#srv.errors > 0 and (': ' .. table.concat(srv.errors, '; ')) or ''))
  check(buf_text(bufnr) == expected, 'the buffer is exactly the fixed file')
  check(#srv.requests == 2, 'the model was asked twice (got ' .. #srv.requests .. ')')
  local r1, r2 = srv.requests[1], srv.requests[2]
  out('       requests: stream=' .. tostring(r1.stream) .. ', ' .. #r1.messages .. ' then ' .. #r2.messages .. ' messages')
  check(r1.model == 'scripted' and #r1.messages == 2, 'round 1 asks model "scripted" with system and user messages')
  local roles = {}
  for i, m in ipairs(r2.messages) do
    roles[i] = m.role
  end
  check(table.concat(roles, ',') == 'system,user,assistant,user',
    'round 2 sends system, user, assistant, user (got ' .. table.concat(roles, ',') .. ')')
  check(r2.messages[3].content == fenced(broken), "round 2 carries round 1's answer")
  check(tostring(r2.messages[4].content):find('does not compile', 1, true) ~= nil,
    'the last message of round 2 says the candidate does not compile')
  check(progress_has('round 1/3: compile error, retrying'), 'progress has "round 1/3: compile error, retrying"')
  if vim.env.FIXLOOP_E2E_BREAK == '2' then
    check(false, 'deliberately broken assertion (FIXLOOP_E2E_BREAK=2)')
  end

  vim.cmd('FixloopSession')
  wait_for(10000, 'the :FixloopSession summary of the model session', function()
    return fixloop.last_session ~= nil
  end)
  local sum = fixloop.last_session
  out('       session: ' .. fixloop.format_session(sum))
  check(sum.provider == 'openai' and sum.model == 'scripted', 'the session used provider openai, model scripted')
  check(type(sum.final) == 'table' and sum.final.round == 2 and sum.solved == true,
    'the summary says solved in round 2')
  srv.close()

  -- A Python file: pylint's and flake8's alerts appear, and a model
  -- refactor removes the unused import.
  local pydir = vim.env.FIXLOOP_PYDIR
  if pydir and vim.fn.executable('pylint') == 1 and vim.fn.executable('flake8') == 1 then
    local pyfile = pydir .. '/stats.py'
    local pyorig = table.concat(vim.fn.readfile(pyfile), '\n')
    local pyfixed = pyorig:gsub('import os\n', '', 1)
    check(pyfixed ~= pyorig, 'stats.py has the unused import')
    local pysrv = scripted_server({ 'Here is the file.\n\n```python\n' .. pyfixed .. '\n```\n' })
    fixloop.config.settings.model.baseUrl = 'http://127.0.0.1:' .. pysrv.port .. '/v1'
    vim.cmd('edit ' .. vim.fn.fnameescape(pyfile))
    local pybuf = vim.api.nvim_get_current_buf()
    check(vim.bo[pybuf].filetype == 'python', 'stats.py has filetype python')
    wait_for(10000, 'the fixloop client attached to stats.py', function()
      return fixloop.get_client(pybuf) ~= nil
    end)
    -- A new root: the Python tools run once it is trusted.
    vim.cmd('FixloopTrust')
    check(fixloop.is_trusted(fixloop.get_client(pybuf).config.root_dir), ':FixloopTrust trusts the Python project')
    local seen = {}
    wait_for(60000, 'pylint W0611 and flake8 F401 at line 3 of stats.py', function()
      for _, d in ipairs(vim.diagnostic.get(pybuf)) do
        if d.lnum == 2 then
          seen[tostring(d.source) .. ' ' .. tostring(d.code)] = true
        end
      end
      return seen['pylint W0611'] and seen['flake8 F401']
    end)
    vim.cmd('FixloopRefactor')
    wait_for(90000, 'the Python refactor applied (no import os)', function()
      return #pysrv.errors > 0 or not buf_text(pybuf):find('import os', 1, true)
    end)
    check(#pysrv.errors == 0 and #pysrv.requests >= 1, 'the scripted server was asked for the Python file')
    check(tostring(pysrv.requests[1].messages[2].content):find('W0611', 1, true) ~= nil,
      'the Python prompt names the pylint alert W0611')
    pysrv.close()
  else
    out('skip - pylint or flake8 not installed: the Python part is skipped')
  end

  -- :checkhealth fixloop must not error
  -- (on 0.7 the health#report_* functions only work inside :checkhealth)
  local ok, err = pcall(vim.cmd, 'checkhealth fixloop')
  check(ok, ':checkhealth fixloop runs' .. (ok and '' or (': ' .. tostring(err))))
  local report = buf_text(vim.api.nvim_get_current_buf())
  check(report:find('fixloop: server binary', 1, true) ~= nil, ':checkhealth report has the fixloop sections')
  check(report:find('go (go): ', 1, true) ~= nil and report:find('pylint (python)', 1, true) ~= nil
    and report:find('javac (java)', 1, true) ~= nil and report:find('sandbox: ', 1, true) ~= nil,
    ':checkhealth lists every language\'s tools and the sandbox, not only go')
  check(not report:find('Failed to run healthcheck', 1, true) and not report:find('No healthcheck found', 1, true),
    ':checkhealth report has no healthcheck failure')
  for line in report:gmatch('[^\n]+') do
    if line:find('OK', 1, true) or line:find('INFO', 1, true) or line:find('ERROR', 1, true) or line:find('WARN', 1, true) then
      out('       health: ' .. vim.trim(line))
    end
  end
end

local ok, err = xpcall(main, function(e)
  if type(e) == 'table' and e.fixloop_failure then
    return e.fixloop_failure
  end
  return debug.traceback(tostring(e), 2)
end)
if ok then
  out('PASS: fixloop nvim e2e')
  vim.cmd('qa!')
else
  out('FAIL: ' .. tostring(err))
  local log = vim.env.FIXLOOP_WORKDIR and (vim.env.FIXLOOP_WORKDIR .. '/../fixloop.log')
  if log and vim.fn.filereadable(log) == 1 then
    out('--- last lines of the server log ---')
    local lines = vim.fn.readfile(log)
    for i = math.max(1, #lines - 20), #lines do
      out(lines[i])
    end
  end
  vim.cmd('cquit 1')
end
