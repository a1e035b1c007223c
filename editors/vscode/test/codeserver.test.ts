// The packaged extension (.vsix) inside a real VS Code: code-server, driven
// from headless Chromium with playwright-core, against the real fixloop
// server and a scripted OpenAI-compatible model. Run by test/codeserver.sh,
// which installs code-server and says where everything is through:
//
//   CODE_SERVER       the code-server launcher
//   FIXLOOP_VSIX      the packaged extension
//   FIXLOOP_MCP_CALLER_VSIX  the test-only helper test/codeserver/mcp-caller,
//                     which calls an MCP tool as agent mode does
//   FIXLOOP_BIN       the fixloop server binary
//   CHROMIUM          the browser (Debian's /usr/bin/chromium)
//   FIXLOOP_ARTIFACTS where screenshots and logs go when a step fails
//
// It fails, never skips, when any of them is missing.
import assert from 'node:assert/strict';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { Browser, chromium, Page } from 'playwright-core';
import { ScriptedModel } from './scriptedModel';

const STEP = 120_000;
const HERE = path.resolve(__dirname, '..', '..', 'test'); // compiled file is in out/test
const FIXTURE = path.join(HERE, 'codeserver', 'workspace');
const API_KEY = 'sk-fixloop-codeserver-test-7f3a91';
/** The model's answer time: long enough for the editor to show "round 1/N". */
const ROUND_DELAY = 1500;

function need(name: string): string {
  const v = process.env[name];
  assert.ok(v && fs.existsSync(v), `${name} must name an existing file (got ${JSON.stringify(v)}); run test/codeserver.sh`);
  return path.resolve(v);
}

// ------------------------------------------------------------ the editor

let tmp: string;
let workspace: string;
let userData: string;
let settingsFile: string;
let bin: string;
let artifacts: string;
let model: ScriptedModel;
let codeServer: ChildProcess | undefined;
let codeServerLog = '';
/** Where the mcp-caller helper writes what it saw and got. */
let mcpCallOut: string;
let browser: Browser | undefined;
let page: Page;

function writeSettings(extra: Record<string, unknown>): void {
  const settings = {
    'fixloop.path': bin,
    'fixloop.model.baseUrl': model.url,
    'fixloop.model.name': 'scripted-model',
    'fixloop.applyMode': 'apply',
    'fixloop.rounds.refactor': 2,
    'fixloop.rounds.repair': 2,
    'fixloop.logLevel': 'debug',
    // A quiet workbench: no welcome page, no chat panel, no trust prompt,
    // nothing that reaches for the network.
    'workbench.startupEditor': 'none',
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'workbench.tips.enabled': false,
    'chat.disableAIFeatures': true,
    'security.workspace.trust.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'extensions.autoUpdate': false,
    'extensions.autoCheckUpdates': false,
    'update.mode': 'none',
    'files.autoSave': 'off',
    'editor.lightbulb.enabled': 'on',
    ...extra,
  };
  fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
}

async function startCodeServer(cs: string): Promise<string> {
  const proc = spawn(
    cs,
    [
      '--auth', 'none',
      '--bind-addr', '127.0.0.1:0',
      '--config', path.join(tmp, 'code-server.yaml'),
      '--user-data-dir', userData,
      '--extensions-dir', path.join(tmp, 'extensions'),
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
    ],
    {
      env: { ...process.env, XDG_STATE_HOME: path.join(tmp, 'state'), FIXLOOP_MCP_CALL_OUT: mcpCallOut },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  codeServer = proc;
  return await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`code-server did not start:\n${codeServerLog}`)), 60_000);
    const onData = (d: Buffer) => {
      codeServerLog += d.toString();
      const m = /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(codeServerLog);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.on('exit', (code) => reject(new Error(`code-server exited with ${code}:\n${codeServerLog}`)));
  });
}

before(async () => {
  const cs = need('CODE_SERVER');
  const vsix = need('FIXLOOP_VSIX');
  const callerVsix = need('FIXLOOP_MCP_CALLER_VSIX');
  bin = need('FIXLOOP_BIN');
  const chromiumPath = need('CHROMIUM');
  artifacts = path.resolve(process.env.FIXLOOP_ARTIFACTS || fs.mkdtempSync(path.join(os.tmpdir(), 'fixloop-vscode-artifacts-')));
  fs.mkdirSync(artifacts, { recursive: true });

  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fixloop-codeserver-'));
  workspace = path.join(tmp, 'workspace');
  mcpCallOut = path.join(tmp, 'mcp-call.json');
  fs.cpSync(FIXTURE, workspace, { recursive: true });
  userData = path.join(tmp, 'user-data');
  settingsFile = path.join(userData, 'User', 'settings.json');
  fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
  model = new ScriptedModel();
  model.delayMs = ROUND_DELAY;
  await model.start();
  writeSettings({});

  // The packaged extension, installed the way a user installs a .vsix
  // (and the test's MCP caller beside it).
  for (const v of [vsix, callerVsix]) {
    const out = execFileSync(
      cs,
      ['--user-data-dir', userData, '--extensions-dir', path.join(tmp, 'extensions'), '--install-extension', v],
      { encoding: 'utf8', timeout: STEP },
    );
    assert.match(out, /successfully installed/, out);
  }

  const url = await startCodeServer(cs);
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  page = await context.newPage();
  await page.goto(`${url}/?folder=${encodeURIComponent(workspace)}`);
  await page.waitForSelector('.monaco-workbench', { timeout: STEP });
  // The explorer shows the folder once the workbench has loaded it.
  await page.locator('.explorer-folders-view', { hasText: 'wallet' }).waitFor({ timeout: STEP });
});

after(async () => {
  saveLogs();
  await browser?.close().catch(() => undefined);
  if (codeServer && codeServer.exitCode === null) {
    codeServer.kill('SIGTERM');
    await new Promise((r) => codeServer!.once('exit', r));
  }
  await model?.close();
  for (const pid of [...serverPids(), ...serverPids('mcp')]) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** The extension's output channel, as VS Code writes it to its log folder. */
function extensionLog(): string {
  const logs = path.join(userData, 'logs');
  const found: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.existsSync(d) ? fs.readdirSync(d, { withFileTypes: true }) : []) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/fixloop\.log$/.test(e.name)) found.push(p);
    }
  };
  walk(logs);
  return found.sort().map((f) => fs.readFileSync(f, 'utf8')).join('\n');
}

function saveLogs(): void {
  if (!artifacts || !userData) return;
  try {
    fs.writeFileSync(path.join(artifacts, 'fixloop-extension.log'), extensionLog());
    fs.writeFileSync(path.join(artifacts, 'code-server.log'), codeServerLog);
    const records = path.join(tmp, 'state', 'fixloop', 'sessions');
    if (fs.existsSync(records)) fs.cpSync(records, path.join(artifacts, 'sessions'), { recursive: true });
  } catch (err) {
    console.error(`saving logs: ${String(err)}`);
  }
}

/** Runs one step; when it fails, a screenshot and the logs go to the artifacts. */
async function step(name: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    const shot = path.join(artifacts, `${name.replace(/[^a-z0-9]+/gi, '-')}.png`);
    await page?.screenshot({ path: shot }).catch(() => undefined);
    saveLogs();
    console.error(`step "${name}" failed; screenshot ${shot}, logs in ${artifacts}`);
    throw err;
  }
}

async function waitFor(what: string, cond: () => Promise<boolean> | boolean, ms = STEP / 2): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await cond()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const statusTexts = () => page.locator('.statusbar-item').allInnerTexts();
const notifications = () => page.locator('.notification-list-item-message').allInnerTexts();
const problemRows = () => page.locator('.markers-panel .monaco-list-row').allInnerTexts();

/** Runs a command from the palette, by its title; timeout bounds each wait (default: Playwright's). */
async function palette(title: string, timeout?: number): Promise<void> {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout });
  await input.fill('>' + title, { timeout });
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  await row.waitFor({ state: 'visible', timeout });
  await page.keyboard.press('Enter');
}

/** Opens a workspace file: its tab when it is open, else by quick open. */
async function openFile(rel: string): Promise<void> {
  const name = path.basename(rel);
  const tab = page.locator(`.tabs-container .tab[aria-label^="${name}"]`);
  if ((await tab.count()) > 0) {
    await tab.first().click();
  } else {
    await page.keyboard.press('Control+P');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill(rel);
    // Enter only once the list has filtered down to the file.
    const focused = page.locator('.quick-input-list .monaco-list-row.focused');
    await waitFor(`quick open to offer ${rel}`, async () => {
      const label = (await focused.count()) > 0 ? ((await focused.first().getAttribute('aria-label')) ?? '') : '';
      return label.startsWith(name) && label.includes(path.dirname(rel));
    });
    await page.keyboard.press('Enter');
  }
  await page.locator(`.editor-group-container.active .tabs-container .tab.active[aria-label^="${name}"]`).waitFor();
  await focusEditor();
}

/** Focuses the active editor without moving its cursor: a click on its tab. */
async function focusEditor(): Promise<void> {
  await page.locator('.editor-group-container.active .tabs-container .tab.active').click();
  await page.locator('.editor-group-container.active .monaco-editor.focused').first().waitFor();
}

async function save(): Promise<void> {
  await focusEditor();
  await page.keyboard.press('Control+S');
  await page.locator('.editor-group-container.active .tab.active.dirty').waitFor({ state: 'detached' });
}

/** Whether the active editor has unsaved changes. */
const dirty = async () => (await page.locator('.editor-group-container.active .tab.active.dirty').count()) > 0;
const read = (rel: string) => fs.readFileSync(path.join(workspace, rel), 'utf8');

async function showProblems(): Promise<void> {
  await palette('View: Focus Problems');
  await page.locator('.markers-panel').waitFor();
}

/** fixloop server processes (`fixloop serve`, or another subcommand) started from the test's binary. */
function serverPids(sub = 'serve'): number[] {
  const pids: number[] = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const argv = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0');
      if (argv[0] === bin && argv[1] === sub) pids.push(Number(d));
    } catch {
      /* gone */
    }
  }
  return pids;
}

/** Collects what the status bar and notifications show while fn runs. */
async function watching(fn: () => Promise<void>): Promise<string[]> {
  const seen = new Set<string>();
  let on = true;
  const poll = (async () => {
    while (on) {
      for (const t of [...(await statusTexts().catch(() => [])), ...(await notifications().catch(() => []))]) seen.add(t);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  try {
    await fn();
  } finally {
    on = false;
    await poll;
  }
  return [...seen];
}

// ------------------------------------------------------------ the steps
test('agent mode lists fixloop among the MCP servers, and its tools can be called', { timeout: 2 * STEP }, async () => {
  await step('mcp', async () => {
    // MCP belongs to VS Code's AI features, off at start. This step comes
    // first: in code-server 4.139 this write to settings.json takes effect
    // early in the run, but after the other steps MCP: List Servers was not
    // offered (cause not found). With the AI features on from the start,
    // the extension's MCP provider was not listed at all.
    writeSettings({ 'chat.disableAIFeatures': false });
    try {
      await mcpStep();
    } finally {
      writeSettings({});
    }
  });
});

/** Lists, starts and calls fixloop's MCP server, from the palette. */
async function mcpStep(): Promise<void> {
  const rows = page.locator('.quick-input-list .monaco-list-row');
  const serverRow = (state: RegExp) => rows.filter({ hasText: /^fixloop/ }).filter({ hasText: state }).first();

  // MCP: List Servers (offered once the workbench has read the setting;
  // F1 again when the palette does not open or lacks it).
  const listServers = () =>
    waitFor('MCP: List Servers in the palette', () =>
      palette('MCP: List Servers', 3_000).then(
        () => true,
        async () => {
          await page.keyboard.press('Escape');
          return false;
        },
      ),
    );
  // It shows the extension's server, under its provider.
  await listServers();
  const listed = serverRow(/Stopped|Starting|Running/);
  await listed.waitFor({ timeout: STEP / 2 });
  await listed.click();
  // Its actions: Start Server.
  const startRow = rows.filter({ hasText: 'Start Server' }).first();
  await startRow.waitFor();
  await startRow.click();

  // VS Code starts `fixloop mcp` with the same binary, one --root per folder.
  let argv: string[] = [];
  await waitFor('the fixloop mcp process', () => {
    const pid = serverPids('mcp')[0];
    if (pid === undefined) return false;
    argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    return true;
  });
  assert.deepEqual(argv.slice(0, 4), [bin, 'mcp', '--root', workspace], `argv: ${JSON.stringify(argv)}`);

  // VS Code opens the server's output: it found the five tools.
  await waitFor('"Discovered 5 tools" in the server\'s output', async () => {
    const text = (await page.locator('.part.panel .view-lines').allInnerTexts()).join('\n').replace(/\u00a0/g, ' ');
    return /MCP: fixloop/.test(await page.locator('.part.panel').innerText()) && /Discovered 5 tools/.test(text);
  });
  // Listed again, it runs.
  await listServers();
  await serverRow(/Running/).waitFor({ timeout: STEP / 2 });
  await page.keyboard.press('Escape');

  // A tool call through VS Code's language model tools, as agent mode
  // makes it (the test's mcp-caller extension).
  fs.rmSync(mcpCallOut, { force: true });
  await palette('fixloop test: Call fixloop_diagnostics');
  await waitFor('the tool call\'s result', () => fs.existsSync(mcpCallOut), STEP / 2);
  const call = JSON.parse(fs.readFileSync(mcpCallOut, 'utf8')) as {
    tools: string[];
    called?: string;
    content?: string[];
    error?: string;
  };
  assert.equal(call.error, undefined, `the call failed: ${call.error}`);
  for (const name of ['fixloop_diagnostics', 'fixloop_check_candidate', 'fixloop_repair', 'fixloop_refactor', 'fixloop_report']) {
    assert.ok(call.tools.some((t) => t.endsWith(name)), `VS Code's tools include ${name}: ${JSON.stringify(call.tools)}`);
  }
  const answer = (call.content ?? []).join('\n');
  assert.match(answer, /S1002/, `fixloop_diagnostics reports wallet.go's alerts: ${answer}`);
  await waitFor('the call\'s notification', async () => (await notifications()).some((n) => /fixloop_diagnostics answered/.test(n)));
}


test('diagnostics appear in the Problems panel with source and code', { timeout: STEP }, async () => {
  await step('problems', async () => {
    await openFile('wallet/wallet.go'); // activates the extension (onLanguage:go)
    await waitFor('fixloop: ready', async () => (await statusTexts()).includes('fixloop: ready'));
    await showProblems();
    await waitFor('the Go file\'s staticcheck diagnostics', async () => {
      const rows = await problemRows();
      return ['S1039', 'S1002'].every((code) => rows.some((r) => r.includes('staticcheck') && r.includes(code)));
    });
    await openFile('py/stats.py');
    await waitFor('the Python file\'s lint and test diagnostics', async () => {
      const rows = (await problemRows()).join('\n');
      return /pylint[\s\S]*W0611|flake8[\s\S]*F401/.test(rows) && rows.includes('test_median_even');
    });
  });
});

test('the quick fix comes first in the code action menu, applies, and clears its diagnostic', { timeout: STEP }, async () => {
  await step('quick-fix', async () => {
    await openFile('wallet/wallet.go');
    await showProblems();
    const row = page.locator('.markers-panel .monaco-list-row', { hasText: 'unnecessary use of fmt.Sprintf' });
    await row.waitFor();
    // Opening the problem selects its range in the editor and focuses it,
    // as a user does; Ctrl+. then asks for the code actions there.
    await row.dblclick();
    await page.locator('.editor-group-container.active .monaco-editor.focused').first().waitFor();
    // On a loaded machine the first Ctrl+. can come before the editor
    // takes it; press again, as a user would, until the menu shows.
    const actions = page.locator('.action-widget .monaco-list-row.action');
    await waitFor('the code action menu', async () => {
      if (await actions.first().isVisible()) return true;
      await page.keyboard.press('Control+.');
      return actions.first().waitFor({ timeout: 5_000 }).then(() => true, () => false);
    });
    const labels = await actions.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
    assert.match(labels[0], /^Replace with string literal/, `menu: ${JSON.stringify(labels)}`);
    assert.ok(labels.some((l) => l.startsWith('Repair with model')), `menu: ${JSON.stringify(labels)}`);
    await page.keyboard.press('Enter'); // the first, focused entry
    await waitFor('the fix in the buffer', dirty);
    await save();
    assert.match(read('wallet/wallet.go'), /return "nobody"/);
    await showProblems();
    await waitFor('S1039 to clear', async () => !(await problemRows()).some((r) => r.includes('S1039')));
  });
});

test('Set API key stores the key in SecretStorage and the server gets it only in its environment', { timeout: STEP }, async () => {
  await step('api-key', async () => {
    const before = serverPids();
    await palette('fixloop: Set API key');
    const input = page.locator('.quick-input-widget input[type="password"]');
    await input.waitFor({ state: 'visible' });
    await input.fill(API_KEY);
    await page.keyboard.press('Enter');
    let pid = 0;
    await waitFor('a restarted server', async () => {
      const now = serverPids().filter((p) => !before.includes(p));
      pid = now[0] ?? 0;
      return pid !== 0 && (await statusTexts()).includes('fixloop: ready');
    });
    const env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    assert.ok(env.includes(`OPENAI_API_KEY=${API_KEY}`), 'the server has the key in OPENAI_API_KEY');
    assert.ok(!fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(API_KEY), 'the key is not on the command line');
    assert.ok(!fs.readFileSync(settingsFile, 'utf8').includes(API_KEY), 'the key is not in settings.json');
    // SecretStorage: code-server keeps secrets in the workbench's own
    // storage, not in any settings file; the key must not be in plain text
    // in the user's settings or the extension's log.
    assert.ok(!extensionLog().includes(API_KEY), 'the key is not in the extension log');
  });
});

test('Refactor file runs rounds against the model, applies the result, and undo restores the text', { timeout: STEP }, async () => {
  await step('refactor', async () => {
    await openFile('wallet/wallet.go');
    await page.keyboard.press('Control+Home'); // no selection: the whole file
    const original = read('wallet/wallet.go');
    const refactored = original.replace(/if ok == true \{\n\t\treturn true\n\t\}\n\treturn false/, 'return ok');
    assert.notEqual(refactored, original, 'the fixture has the S1008 case');
    model.status = 200;
    model.answer = 'Here is the file.\n\n```go\n' + refactored + '```\n';
    const asked = model.requests.length;
    const seen = await watching(async () => {
      await palette('fixloop: Refactor file');
      await waitFor('the refactor result in the buffer', dirty, STEP - 20_000);
    });
    assert.ok(seen.some((t) => /round 1\/2/.test(t)), `round progress shown; saw ${JSON.stringify(seen)}`);
    assert.ok(model.requests.length > asked, 'the model was asked');
    assert.equal(model.requests[asked].headers.authorization, `Bearer ${API_KEY}`, 'the stored key reaches the model');
    assert.equal(model.requests[asked].body.model, 'scripted-model', 'fixloop.model.name is used');
    await save();
    assert.equal(read('wallet/wallet.go'), refactored);
    await focusEditor();
    await page.keyboard.press('Control+Z');
    await waitFor('undo to mark the buffer changed', dirty);
    await save();
    assert.equal(read('wallet/wallet.go'), original, 'one undo restores the text');
  });
});

test('Repair file makes the failing Python test pass', { timeout: STEP }, async () => {
  await step('repair', async () => {
    await openFile('py/stats.py');
    await page.keyboard.press('Control+Home');
    const original = read('py/stats.py');
    const repaired = original.replace('(ordered[middle] + ordered[middle + 1]) / 2', '(ordered[middle - 1] + ordered[middle]) / 2');
    assert.notEqual(repaired, original);
    model.answer = 'The median of an even count was off by one.\n\n```python\n' + repaired + '```\n';
    const asked = model.requests.length;
    const seen = await watching(async () => {
      await palette('fixloop: Repair file');
      await waitFor('the repaired file in the buffer', dirty, STEP - 20_000);
    });
    assert.ok(seen.some((t) => /round 1\/2/.test(t)), `round progress shown; saw ${JSON.stringify(seen)}`);
    assert.ok(model.requests.length > asked, 'the model was asked');
    await save();
    assert.equal(read('py/stats.py'), repaired);
    await showProblems();
    await waitFor('the test failure to clear', async () => !(await problemRows()).some((r) => r.includes('test_median_even')));
  });
});

test('Show last session shows the summary', { timeout: STEP }, async () => {
  await step('show-session', async () => {
    await openFile('py/stats.py');
    await palette('fixloop: Show last session');
    await page.locator('.editor-group-container.active .tab.active', { hasText: /Untitled/ }).waitFor();
    const text = (await page.locator('.editor-group-container.active .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
    assert.match(text, /"goal": "repair"/, text);
    assert.match(text, /stats\.py/, text);
  });
});

test('a model that answers HTTP 500 gives a clear error and leaves the text unchanged', { timeout: STEP }, async () => {
  await step('model-500', async () => {
    await openFile('wallet/wallet.go');
    await page.keyboard.press('Control+Home');
    const original = read('wallet/wallet.go');
    model.status = 500;
    model.delayMs = 0;
    try {
      await palette('fixloop: Refactor file');
      await waitFor('an error notification', async () => (await notifications()).some((n) => /fixloop refactor failed/.test(n)), STEP - 20_000);
      const msg = (await notifications()).find((n) => /fixloop refactor failed/.test(n))!;
      assert.match(msg, /500/, `the notification says what the model answered: ${msg}`);
      assert.ok(!(await dirty()), 'the buffer is unchanged');
      assert.equal(read('wallet/wallet.go'), original);
    } finally {
      model.status = 200;
      model.delayMs = ROUND_DELAY;
    }
  });
});

test('changing a setting restarts the client', { timeout: STEP }, async () => {
  await step('settings-restart', async () => {
    const before = serverPids();
    assert.equal(before.length, 1, `one server runs: ${before}`);
    // The way a user changes it: the Settings editor.
    await palette('Preferences: Open User Settings');
    await page.locator('.settings-editor').waitFor();
    await page.keyboard.type('fixloop.rounds.refactor');
    const field = page.locator('.settings-editor input[aria-label="fixloop.rounds.refactor"]');
    await field.waitFor();
    await field.fill('3');
    await waitFor('settings.json to have the new value', () => /"fixloop\.rounds\.refactor": 3/.test(fs.readFileSync(settingsFile, 'utf8')));
    await waitFor('the restart message in the extension log', () => /settings changed: restarting the server/.test(extensionLog()));
    let pid = 0;
    await waitFor('a new server process', async () => {
      const now = serverPids();
      pid = now[0] ?? 0;
      return now.length === 1 && now[0] !== before[0] && (await statusTexts()).includes('fixloop: ready');
    });
    // The key came back out of SecretStorage for the new server.
    const env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    assert.ok(env.includes(`OPENAI_API_KEY=${API_KEY}`), 'the restarted server has the stored key');
  });
});
