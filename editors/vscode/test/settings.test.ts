import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  documentSelector,
  initializationOptions,
  initializationOptionsFor,
  logLevel,
  mcpArgs,
  mcpEnabled,
  mcpEnv,
  parseRound,
  progressTitle,
  serverEnv,
} from '../src/settings';

function cfg(values: Record<string, unknown>) {
  return { get: (key: string) => values[key] };
}

test('defaults: nothing set sends nothing', () => {
  assert.deepEqual(initializationOptions(cfg({})), {});
});

test('VS Code defaults (empty strings, nulls) are omitted except enums', () => {
  const opts = initializationOptions(
    cfg({
      path: '',
      'model.baseUrl': '',
      'model.name': '',
      'model.apiKeyEnv': '',
      'model.temperature': null,
      'rounds.repair': null,
      'rounds.refactor': null,
      'minimize.enabled': true,
      'minimize.maxChecks': null,
      'minimize.budget': '',
      'stuck.repeats': null,
      'stuck.sameFeedback': null,
      applyMode: 'apply',
      'tests.mode': 'open_save',
      'python.linters': null,
      'python.pylintCategories': null,
      'cpp.checks': '',
      'java.checkstyle': '',
      logLevel: 'info',
    }),
  );
  assert.deepEqual(opts, { tests: { mode: 'open_save' }, applyMode: 'apply' });
});

test('each key maps to the server shape', () => {
  assert.deepEqual(initializationOptions(cfg({ 'tests.mode': 'save' })), { tests: { mode: 'save' } });
  assert.deepEqual(initializationOptions(cfg({ 'model.baseUrl': 'http://127.0.0.1:8080/v1' })), {
    model: { baseUrl: 'http://127.0.0.1:8080/v1' },
  });
  assert.deepEqual(initializationOptions(cfg({ 'model.name': 'qwen' })), { model: { name: 'qwen' } });
  assert.deepEqual(initializationOptions(cfg({ 'model.apiKeyEnv': 'MY_KEY' })), { model: { apiKeyEnv: 'MY_KEY' } });
  assert.deepEqual(initializationOptions(cfg({ 'model.temperature': 0 })), { model: { temperature: 0 } });
  assert.deepEqual(initializationOptions(cfg({ 'rounds.repair': 5 })), { rounds: { repair: 5 } });
  assert.deepEqual(initializationOptions(cfg({ 'rounds.refactor': 2 })), { rounds: { refactor: 2 } });
  assert.deepEqual(initializationOptions(cfg({ 'minimize.enabled': false })), { minimize: { enabled: false } });
  assert.deepEqual(initializationOptions(cfg({ 'minimize.maxChecks': 20 })), { minimize: { maxChecks: 20 } });
  assert.deepEqual(initializationOptions(cfg({ 'minimize.maxChecks': 0 })), {});
  assert.deepEqual(initializationOptions(cfg({ 'minimize.budget': '30s' })), { minimize: { budget: '30s' } });
  assert.deepEqual(initializationOptions(cfg({ 'stuck.repeats': 0 })), { stuck: { repeats: 0 } });
  assert.deepEqual(initializationOptions(cfg({ 'stuck.sameFeedback': 4 })), { stuck: { sameFeedback: 4 } });
  assert.deepEqual(initializationOptions(cfg({ 'stuck.sameFeedback': 11 })), {});
  assert.deepEqual(initializationOptions(cfg({ applyMode: 'ask' })), { applyMode: 'ask' });
  assert.deepEqual(initializationOptions(cfg({ sandbox: 'none' })), { sandbox: 'none' });
  assert.deepEqual(initializationOptions(cfg({ sandbox: 'bubblewrap' })), {});
  assert.deepEqual(initializationOptions(cfg({ sandbox: 'off' })), {});
  assert.deepEqual(initializationOptions(cfg({ maxToolProcesses: 4 })), { maxToolProcesses: 4 });
});

test('maxToolProcesses: a whole number from 1 to 256, else the server default (one per CPU)', () => {
  for (const bad of [null, 0, -1, 1.5, 257, '4', Number.NaN]) {
    assert.deepEqual(initializationOptions(cfg({ maxToolProcesses: bad })), {}, String(bad));
  }
  assert.deepEqual(initializationOptions(cfg({ maxToolProcesses: 1 })), { maxToolProcesses: 1 });
  assert.deepEqual(initializationOptions(cfg({ maxToolProcesses: 256 })), { maxToolProcesses: 256 });
});

test('all keys together', () => {
  assert.deepEqual(
    initializationOptions(
      cfg({
        'tests.mode': 'off',
        'model.baseUrl': ' http://h/v1 ',
        'model.name': 'm',
        'model.apiKeyEnv': 'K',
        'model.temperature': 0.2,
        'rounds.repair': 10,
        'rounds.refactor': 3,
        applyMode: 'apply',
      }),
    ),
    {
      tests: { mode: 'off' },
      model: { baseUrl: 'http://h/v1', name: 'm', apiKeyEnv: 'K', temperature: 0.2 },
      rounds: { repair: 10, refactor: 3 },
      applyMode: 'apply',
    },
  );
});

test('invalid values are omitted', () => {
  assert.deepEqual(
    initializationOptions(
      cfg({
        'tests.mode': 'always',
        applyMode: 'maybe',
        'model.temperature': 'hot',
        'rounds.repair': 0,
        'rounds.refactor': 1.5,
        'model.name': 42,
      }),
    ),
    {},
  );
});

test('path and logLevel are never sent', () => {
  const opts = initializationOptions(cfg({ path: '/usr/bin/fixloop', logLevel: 'debug', 'model.name': 'm' }));
  assert.deepEqual(opts, { model: { name: 'm' } });
});

test('language settings map to the server keys; unknown linters are dropped', () => {
  const opts = initializationOptions(
    cfg({ 'python.linters': ['pylint', 'ruff', 'pyright'], 'cpp.checks': ' -*,bugprone-* ', 'java.checkstyle': 'google' }),
  );
  assert.deepEqual(opts, {
    python: { linters: ['pylint', 'pyright'] },
    cpp: { checks: '-*,bugprone-*' },
    java: { checkstyle: 'google' },
  });
  const allowed = ['debounce', 'tests', 'staticcheck', 'maxFileSize', 'maxToolProcesses', 'model', 'rounds', 'applyMode', 'store', 'python', 'cpp', 'java', 'linters', 'judge'];
  for (const k of Object.keys(opts)) assert.ok(allowed.includes(k), k);
  // [] means no Python linters; only unknown names keep the defaults.
  assert.deepEqual(initializationOptions(cfg({ 'python.linters': [] })), { python: { linters: [] } });
  assert.deepEqual(initializationOptions(cfg({ 'python.linters': ['ruff'] })), {});
});

test('python.pylintCategories maps to the server key, beside python.linters', () => {
  const paper = ['error', 'performance', 'refactor', 'convention'];
  assert.deepEqual(initializationOptions(cfg({ 'python.pylintCategories': paper })), {
    python: { pylintCategories: paper },
  });
  assert.deepEqual(
    initializationOptions(cfg({ 'python.linters': ['pylint'], 'python.pylintCategories': ['performance', 'style', 'performance'] })),
    { python: { linters: ['pylint'], pylintCategories: ['performance'] } },
  );
  // [] goes to the server, which refuses it with a message; only unknown
  // names, or no setting, keep pylint's defaults.
  assert.deepEqual(initializationOptions(cfg({ 'python.pylintCategories': [] })), { python: { pylintCategories: [] } });
  assert.deepEqual(initializationOptions(cfg({ 'python.pylintCategories': ['style', 3] })), {});
  assert.deepEqual(initializationOptions(cfg({ 'python.pylintCategories': 'error' })), {});
});

test('serverEnv puts a stored key in the named variable', () => {
  const base = { PATH: '/bin' };
  assert.deepEqual(serverEnv('sk-1', undefined, base), { PATH: '/bin', OPENAI_API_KEY: 'sk-1' });
  assert.deepEqual(serverEnv('sk-1', '', base), { PATH: '/bin', OPENAI_API_KEY: 'sk-1' });
  assert.deepEqual(serverEnv('sk-2', 'MY_KEY', base), { PATH: '/bin', MY_KEY: 'sk-2' });
  assert.deepEqual(base, { PATH: '/bin' }, 'base env not modified');
});

test('serverEnv without a key leaves the environment alone', () => {
  const base = { PATH: '/bin', OPENAI_API_KEY: 'from-shell' };
  assert.deepEqual(serverEnv(undefined, 'MY_KEY', base), base);
  assert.deepEqual(serverEnv('', undefined, base), base);
  assert.equal(serverEnv(undefined, undefined).PATH, process.env.PATH);
});

test('the key never appears in initializationOptions', () => {
  const opts = initializationOptions(cfg({ 'model.apiKeyEnv': 'MY_KEY' }));
  assert.ok(!JSON.stringify(opts).includes('sk-'));
});

test('logLevel', () => {
  assert.equal(logLevel(cfg({})), 'info');
  assert.equal(logLevel(cfg({ logLevel: 'debug' })), 'debug');
  assert.equal(logLevel(cfg({ logLevel: 'loud' })), 'info');
});

test('progressTitle: the server\'s title is shown once, not prefixed again', () => {
  // What the server sends (editor/sessions: "fixloop <goal>: <file>").
  const title = progressTitle('fixloop refactor: cart.go');
  assert.equal(title, 'fixloop refactor: cart.go');
  // VS Code shows a notification as "title: message".
  const shown = `${title}: round 1/3: asking fake`;
  assert.equal(shown, 'fixloop refactor: cart.go: round 1/3: asking fake');
  assert.equal(shown.match(/fixloop/g)?.length, 1, shown);
  assert.equal(progressTitle('Fixloop repair: a.py'), 'Fixloop repair: a.py');
  // A title that does not name fixloop, or none, still says whose it is.
  assert.equal(progressTitle('checking'), 'fixloop: checking');
  assert.equal(progressTitle(''), 'fixloop');
  assert.equal(progressTitle(undefined), 'fixloop');
  assert.equal(progressTitle('fixloopish: x'), 'fixloop: fixloopish: x');
});

test('parseRound', () => {
  assert.deepEqual(parseRound('round 2/3: tests 4/4, fixed 1, new 0'), { round: 2, of: 3 });
  assert.deepEqual(parseRound('Round 10/10'), { round: 10, of: 10 });
  assert.equal(parseRound('baseline: checking'), undefined);
  assert.equal(parseRound(undefined), undefined);
});

test('documentSelector adds extraLanguages to the built-in ones, once each', () => {
  const sel = documentSelector(['go', 'python'], ['shellscript', 'go', '', 7, ' javascript ']);
  assert.deepEqual(
    sel.map((s) => s.language),
    ['go', 'python', 'shellscript', 'javascript'],
  );
  assert.ok(sel.every((s) => s.scheme === 'file'));
  assert.deepEqual(documentSelector(['go'], undefined), [{ scheme: 'file', language: 'go' }]);
});

test('trust: initializationOptionsFor sends workspace.isTrusted as trusted, beside the settings', () => {
  assert.deepEqual(initializationOptionsFor(cfg({}), false), { trusted: false });
  assert.deepEqual(initializationOptionsFor(cfg({}), true), { trusted: true });
  assert.deepEqual(initializationOptionsFor(cfg({ 'tests.mode': 'save' }), true), { tests: { mode: 'save' }, trusted: true });
  // No setting can stand in for trust: only VS Code's workspace trust says it.
  assert.deepEqual(initializationOptionsFor(cfg({ trusted: true }), false), { trusted: false });
});

test('package.json: limited support in untrusted workspaces, program and endpoint settings restricted', () => {
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const pkg = JSON.parse(require('node:fs').readFileSync(require('node:path').resolve(__dirname, '..', '..', 'package.json'), 'utf8'));
  const u = pkg.capabilities?.untrustedWorkspaces;
  assert.equal(u?.supported, 'limited');
  assert.ok(typeof u.description === 'string' && u.description.includes('Go analysers'));
  // Sessions and test runs need trust: their commands are off in Restricted Mode.
  for (const id of ['fixloop.repairFile', 'fixloop.refactorFile', 'fixloop.runFileTests']) {
    const c = pkg.contributes.commands.find((x: { command: string }) => x.command === id);
    assert.equal(c?.enablement, 'isWorkspaceTrusted', id);
  }
  for (const key of ['fixloop.path', 'fixloop.model.baseUrl', 'fixloop.model.apiKeyEnv', 'fixloop.sandbox', 'fixloop.java.checkstyle']) {
    assert.ok(u.restrictedConfigurations.includes(key), `${key} is not restricted`);
    assert.ok(pkg.contributes.configuration.properties[key], `${key} is not a setting`);
  }
});

test('mcp.enable: on unless set to false', () => {
  assert.equal(mcpEnabled(cfg({})), true);
  assert.equal(mcpEnabled(cfg({ 'mcp.enable': true })), true);
  assert.equal(mcpEnabled(cfg({ 'mcp.enable': false })), false);
});

test('mcpArgs: one --root per folder, the log level, and only the provider flags that are set', () => {
  assert.deepEqual(mcpArgs(cfg({ 'model.name': '', 'model.temperature': null, sandbox: 'bubblewrap' }), ['/w/a']), [
    'mcp', '--root', '/w/a', '--log-level', 'info',
  ]);
  assert.deepEqual(
    mcpArgs(
      cfg({
        logLevel: 'debug',
        'model.baseUrl': ' http://localhost:8080/v1 ',
        'model.name': 'qwen',
        'model.apiKeyEnv': 'MY_KEY',
        'model.temperature': 0.2,
        sandbox: 'none',
        'rounds.repair': 4,
      }),
      ['/w/a', '/w/b'],
    ),
    [
      'mcp', '--root', '/w/a', '--root', '/w/b', '--log-level', 'debug',
      '--base-url', 'http://localhost:8080/v1', '--model', 'qwen', '--api-key-env', 'MY_KEY',
      '--temperature', '0.2', '--sandbox', 'none',
    ],
  );
});

test('mcpEnv: only the stored key, in the named variable', () => {
  assert.deepEqual(mcpEnv(undefined, undefined), {});
  assert.deepEqual(mcpEnv('', 'MY_KEY'), {});
  assert.deepEqual(mcpEnv('sk-1', undefined), { OPENAI_API_KEY: 'sk-1' });
  assert.deepEqual(mcpEnv('sk-2', 'MY_KEY'), { MY_KEY: 'sk-2' });
});
