// End-to-end: the real fixloop server driven over stdio the way the
// extension's language client drives it, with a scripted OpenAI-compatible
// model server. Fails (never skips) when it cannot run.
import assert from 'node:assert/strict';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import {
  ApplyWorkspaceEditParams,
  CodeAction,
  Command,
  createProtocolConnection,
  Diagnostic,
  ProtocolConnection,
  PublishDiagnosticsParams,
  StreamMessageReader,
  StreamMessageWriter,
  TextDocumentEdit,
  TextEdit,
  WorkDoneProgress,
  WorkDoneProgressBegin,
  WorkDoneProgressEnd,
  WorkDoneProgressReport,
} from 'vscode-languageserver-protocol/node';
import { initializationOptionsFor, serverEnv } from '../src/settings';
import { ScriptedModel } from './scriptedModel';

const TIMEOUT = 60_000;
const PKG = path.resolve(__dirname, '..', '..'); // editors/vscode (compiled file is in out/test)
const REPO = path.resolve(PKG, '..', '..');

let tmp: string;
let bin: string;

before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fixloop-vscode-e2e-'));
  if (process.env.FIXLOOP_BIN) {
    bin = path.resolve(process.env.FIXLOOP_BIN);
    assert.ok(fs.existsSync(bin), `FIXLOOP_BIN=${bin} does not exist`);
  } else {
    bin = path.join(tmp, 'fixloop');
    execFileSync('go', ['build', '-o', bin, '../..'], { cwd: PKG, stdio: 'inherit', timeout: TIMEOUT });
  }
});

after(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

function withTimeout<T>(p: Promise<T>, what: string, ms = TIMEOUT): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
    }),
  ]);
}

/** Applies LSP text edits (UTF-16 positions) to text. */
function applyEdits(text: string, edits: TextEdit[]): string {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  const offset = (p: { line: number; character: number }) => lineStarts[p.line] + p.character;
  const sorted = [...edits].sort((a, b) => offset(b.range.start) - offset(a.range.start));
  for (const e of sorted) {
    text = text.slice(0, offset(e.range.start)) + e.newText + text.slice(offset(e.range.end));
  }
  return text;
}

test('refactor with model: the real server, a scripted model, progress and applyEdit', { timeout: TIMEOUT }, async () => {
  // A private copy of the calc module.
  const work = path.join(tmp, 'calc');
  fs.cpSync(path.join(REPO, 'testdata', 'calc'), work, { recursive: true });
  const file = path.join(work, 'calc.go');
  const uri = `file://${file}`;
  const original = fs.readFileSync(file, 'utf8');
  assert.ok(original.includes('fmt.Sprintf("hello")'), 'testdata/calc/calc.go has the S1039 case');
  const fixed = original.replace('fmt.Sprintf("hello")', '"hello"');
  const model = await new ScriptedModel('Here is the file.\n\n```go\n' + fixed + '```\n').start();

  const stateHome = path.join(tmp, 'state');
  fs.mkdirSync(stateHome, { recursive: true });
  const settings = {
    'model.baseUrl': model.url,
    'model.name': 'scripted-model',
    'tests.mode': 'save',
    applyMode: 'apply',
    'python.linters': ['pylint', 'flake8'],
  };
  const initOptions = initializationOptionsFor({ get: (k: string) => (settings as Record<string, unknown>)[k] }, true);
  const env = serverEnv('sk-test-key', undefined, { ...process.env, XDG_STATE_HOME: stateHome });
  delete env.OPENAI_BASE_URL;
  delete env.FIXLOOP_MODEL;

  const proc: ChildProcess = spawn(bin, ['serve', '--log-level', 'debug'], {
    cwd: work,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const conn: ProtocolConnection = createProtocolConnection(
    new StreamMessageReader(proc.stdout!),
    new StreamMessageWriter(proc.stdin!),
  );

  // What the client sees.
  const diagnostics: PublishDiagnosticsParams[] = [];
  const diagWaiters: (() => void)[] = [];
  const progress: (WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd)[] = [];
  const edits: ApplyWorkspaceEditParams[] = [];
  const messages: string[] = [];
  let progressEnded!: () => void;
  const ended = new Promise<void>((resolve) => (progressEnded = resolve));
  let createdTokens = 0;

  conn.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
    diagnostics.push(p);
    diagWaiters.splice(0).forEach((w) => w());
  });
  conn.onNotification('window/showMessage', (p: { message: string }) => messages.push(p.message));
  conn.onNotification('window/logMessage', () => {});
  conn.onRequest('window/workDoneProgress/create', (p: { token: string | number }) => {
    createdTokens++;
    conn.onProgress(WorkDoneProgress.type, p.token, (v) => {
      progress.push(v);
      if (v.kind === 'end') progressEnded();
    });
    return null;
  });
  conn.onRequest('workspace/applyEdit', (p: ApplyWorkspaceEditParams) => {
    edits.push(p);
    return { applied: true };
  });
  conn.onRequest('window/showMessageRequest', () => null);
  conn.onRequest('client/registerCapability', () => null);
  conn.onRequest('workspace/configuration', (p: { items: unknown[] }) => p.items.map(() => null));
  conn.listen();

  const fail = (what: string) => (err: unknown) => {
    throw new Error(`${what}: ${err instanceof Error ? err.message : String(err)}\n--- server log ---\n${stderr.slice(-4000)}`);
  };

  try {
    const init: any = await withTimeout(
      conn.sendRequest('initialize', {
        processId: process.pid,
        clientInfo: { name: 'fixloop-vscode-e2e' },
        rootUri: `file://${work}`,
        workspaceFolders: [{ uri: `file://${work}`, name: 'calc' }],
        initializationOptions: initOptions,
        capabilities: {
          general: { positionEncodings: ['utf-16'] },
          window: { workDoneProgress: true, showMessage: { messageActionItem: { additionalPropertiesSupport: true } } },
          workspace: {
            applyEdit: true,
            workspaceEdit: { documentChanges: true },
            configuration: true,
            didChangeConfiguration: { dynamicRegistration: false },
            executeCommand: { dynamicRegistration: false },
          },
          textDocument: {
            synchronization: { dynamicRegistration: false, didSave: true },
            publishDiagnostics: { relatedInformation: true, versionSupport: true, codeDescriptionSupport: true },
            codeAction: {
              dynamicRegistration: false,
              isPreferredSupport: true,
              codeActionLiteralSupport: {
                codeActionKind: { valueSet: ['', 'quickfix', 'refactor', 'refactor.rewrite', 'source', 'source.fixAll'] },
              },
            },
          },
        },
      }),
      'initialize',
    ).catch(fail('initialize'));
    const commands: string[] = init.capabilities.executeCommandProvider?.commands ?? [];
    assert.ok(commands.includes('fixloop.refactor'), `server commands: ${commands}`);
    await conn.sendNotification('initialized', {});

    await conn.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'go', version: 1, text: original },
    });

    // Wait for the S1039 diagnostic.
    const s1039 = await withTimeout(
      (async () => {
        for (;;) {
          for (const p of diagnostics) {
            const d = p.uri === uri ? p.diagnostics.find((x: Diagnostic) => x.code === 'S1039') : undefined;
            if (d) return d;
          }
          await new Promise<void>((resolve) => diagWaiters.push(resolve));
        }
      })(),
      'the S1039 diagnostic',
    ).catch(fail('diagnostics'));
    assert.equal(s1039.range.start.line, original.split('\n').findIndex((l) => l.includes('fmt.Sprintf("hello")')));

    // The code action menu, invoked by the user on the whole file.
    const actions = (await withTimeout(
      conn.sendRequest('textDocument/codeAction', {
        textDocument: { uri },
        range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
        context: { diagnostics: [], triggerKind: 1 },
      }),
      'codeAction',
    ).catch(fail('codeAction'))) as (CodeAction | Command)[];
    const refactorAction = actions.find((a) => a.title.startsWith('Refactor with model')) as CodeAction | undefined;
    assert.ok(refactorAction, `no "Refactor with model" among ${JSON.stringify(actions.map((a) => a.title))}`);
    const cmd = refactorAction.command!;
    assert.equal(cmd.command, 'fixloop.refactor');
    assert.equal(cmd.arguments?.[0]?.uri, uri);
    assert.equal(cmd.arguments?.[0]?.version, 1);

    await withTimeout(
      conn.sendRequest('workspace/executeCommand', { command: cmd.command, arguments: cmd.arguments }),
      'executeCommand',
    ).catch(fail('executeCommand'));
    await withTimeout(ended, 'the end of the session progress').catch(fail('progress'));
    // applyEdit is sent before the progress ends; give it a moment if not yet.
    for (let i = 0; i < 50 && edits.length === 0; i++) await new Promise((r) => setTimeout(r, 100));

    // Progress: begin, a "round 1/3" report, end.
    assert.ok(createdTokens >= 1, 'window/workDoneProgress/create was sent');
    const kinds = progress.map((p) => p.kind);
    assert.equal(kinds[0], 'begin', `progress: ${JSON.stringify(progress)}`);
    assert.equal(kinds[kinds.length - 1], 'end', `progress: ${JSON.stringify(progress)}`);
    assert.ok(
      progress.some((p) => p.kind === 'report' && (p.message ?? '').includes('round 1/3')),
      `no "round 1/3" report in ${JSON.stringify(progress)}`,
    );

    // The edit: version 1, replaces fmt.Sprintf("hello") with "hello".
    assert.equal(edits.length, 1, `applyEdit requests: ${JSON.stringify(edits)}; messages: ${messages}\n${stderr.slice(-3000)}`);
    const changes = edits[0].edit.documentChanges as TextDocumentEdit[];
    assert.ok(Array.isArray(changes) && changes.length === 1, JSON.stringify(edits[0]));
    assert.equal(changes[0].textDocument.uri, uri);
    assert.equal(changes[0].textDocument.version, 1);
    const result = applyEdits(original, changes[0].edits as TextEdit[]);
    assert.equal(result, fixed);
    assert.ok(result.includes('return "hello"') && !result.includes('fmt.Sprintf("hello")'));

    // The model saw the alert, the model name and the key from the environment.
    assert.ok(model.requests.length >= 1, 'the model server got no request');
    const first = model.requests[0];
    assert.equal(first.body.model, 'scripted-model');
    assert.equal(first.headers.authorization, 'Bearer sk-test-key');
    const promptText = (first.body.messages as { content: string }[]).map((m) => m.content).join('\n');
    assert.ok(promptText.includes('S1039'), `prompt lacks S1039:\n${promptText}`);
    assert.ok(promptText.includes(s1039.message), `prompt lacks the alert text "${s1039.message}"`);

    // The session record went to $XDG_STATE_HOME.
    assert.ok(fs.existsSync(path.join(stateHome, 'fixloop')), 'nothing written under XDG_STATE_HOME/fixloop');

    // Shut down cleanly.
    await withTimeout(conn.sendRequest('shutdown'), 'shutdown').catch(fail('shutdown'));
    await conn.sendNotification('exit');
    const code = await withTimeout(exited, 'the server to exit', 10_000);
    assert.equal(code, 0, `exit code ${code}`);
  } finally {
    conn.dispose();
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    await model.close();
  }
});

/** A server on a workspace, as the extension starts it, and what it sent. */
async function startServer(work: string, trusted: boolean) {
  const env = { ...process.env, XDG_STATE_HOME: path.join(tmp, 'state-trust') };
  const proc: ChildProcess = spawn(bin, ['serve'], { cwd: work, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += d));
  const conn = createProtocolConnection(new StreamMessageReader(proc.stdout!), new StreamMessageWriter(proc.stdin!));
  const diagnostics: PublishDiagnosticsParams[] = [];
  const messages: string[] = [];
  conn.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => diagnostics.push(p));
  conn.onNotification('window/showMessage', (p: { message: string }) => messages.push(p.message));
  conn.onNotification('window/logMessage', () => {});
  conn.onRequest('window/workDoneProgress/create', () => null);
  conn.listen();
  const initializationOptions = initializationOptionsFor({ get: () => undefined }, trusted);
  await withTimeout(
    conn.sendRequest('initialize', {
      processId: process.pid,
      rootUri: `file://${work}`,
      workspaceFolders: [{ uri: `file://${work}`, name: path.basename(work) }],
      initializationOptions,
      capabilities: { window: { showMessage: {} } },
    }),
    'initialize',
  );
  await conn.sendNotification('initialized', {});
  const stop = async () => {
    await withTimeout(conn.sendRequest('shutdown'), 'shutdown');
    await conn.sendNotification('exit');
    conn.dispose();
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  };
  const until = async <T>(what: string, f: () => T | undefined): Promise<T> =>
    withTimeout(
      (async () => {
        for (;;) {
          const v = f();
          if (v !== undefined) return v;
          await new Promise((r) => setTimeout(r, 50));
        }
      })(),
      `${what}\n--- server log ---\n${stderr.slice(-3000)}`,
    );
  return { conn, diagnostics, messages, stop, until, initializationOptions };
}

test('Restricted Mode: trusted false runs only the Go analysers; trusting restarts with the repository commands', { timeout: 4 * TIMEOUT }, async () => {
  const work = path.join(tmp, 'calc-untrusted');
  fs.cpSync(path.join(REPO, 'testdata', 'calc'), work, { recursive: true });
  // A repository command linter that reports one warning on every Go file.
  fs.writeFileSync(
    path.join(work, '.fixloop.yaml'),
    JSON.stringify({
      linters: [
        {
          name: 'marker',
          command: ['sh', '-c', `printf '%s:1:1: warning: the repository command ran\\n' "$1"; exit 1`, 'sh', '${file}'],
          extensions: ['.go'],
          errorformat: ['%f:%l:%c: %tarning: %m'],
        },
      ],
    }) + '\n',
  );
  const file = path.join(work, 'calc.go');
  const uri = `file://${file}`;
  const text = fs.readFileSync(file, 'utf8');
  const open = (s: Awaited<ReturnType<typeof startServer>>) =>
    s.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'go', version: 1, text } });
  const lastFor = (s: Awaited<ReturnType<typeof startServer>>) =>
    [...s.diagnostics].reverse().find((p) => p.uri === uri);

  // Restricted Mode.
  const untrusted = await startServer(work, false);
  assert.equal(untrusted.initializationOptions.trusted, false);
  try {
    const notice = await untrusted.until('the notice', () => untrusted.messages.find((m) => m.includes('not trusted')));
    assert.ok(notice.includes('Trust the workspace'), notice);
    await open(untrusted);
    const p = await untrusted.until('the Go diagnostics', () => {
      const last = lastFor(untrusted);
      return last && last.diagnostics.some((d) => d.code === 'S1039') ? last : undefined;
    });
    assert.ok(!p.diagnostics.some((d) => d.source === 'marker'), `the repository command ran: ${JSON.stringify(p.diagnostics)}`);
    const actions = (await withTimeout(
      untrusted.conn.sendRequest('textDocument/codeAction', {
        textDocument: { uri },
        range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
        context: { diagnostics: [], triggerKind: 1 },
      }),
      'codeAction',
    )) as (CodeAction | Command)[];
    assert.ok(!actions.some((a) => a.title.includes('with model')), JSON.stringify(actions.map((a) => a.title)));
  } finally {
    await untrusted.stop();
  }

  // The user trusts the workspace: the extension restarts the server with
  // trusted: true.
  const trusted = await startServer(work, true);
  try {
    await open(trusted);
    await trusted.until('the marker diagnostic', () => {
      const last = lastFor(trusted);
      return last && last.diagnostics.some((d) => d.source === 'marker') ? last : undefined;
    });
    assert.ok(!trusted.messages.some((m) => m.includes('not trusted')), trusted.messages.join('\n'));
  } finally {
    await trusted.stop();
  }
});
