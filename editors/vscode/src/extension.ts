import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
  TransportKind,
  WorkDoneProgress,
  WorkDoneProgressBegin,
  WorkDoneProgressCancelNotification,
  WorkDoneProgressCreateRequest,
  WorkDoneProgressEnd,
  WorkDoneProgressReport,
} from 'vscode-languageclient/node';
import {
  documentSelector,
  initializationOptionsFor,
  logLevel,
  mcpArgs,
  mcpEnabled,
  mcpEnv,
  parseRound,
  progressTitle,
  serverEnv,
} from './settings';

const SECTION = 'fixloop';
const SECRET_KEY = 'fixloop.apiKey';
const LANGUAGES = ['go', 'python', 'cpp', 'java'];
/** The id of contributes.mcpServerDefinitionProviders in package.json. */
const MCP_PROVIDER = 'fixloop';

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let status: vscode.StatusBarItem;
let ctx: vscode.ExtensionContext;
let lastSessionUri: string | undefined;
let restarting: Promise<void> = Promise.resolve();

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  ctx = context;
  output = vscode.window.createOutputChannel('fixloop');
  status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 0);
  status.command = 'fixloop.showLastSession';
  status.tooltip = 'fixloop: click to show the last session summary';
  setStatus('starting');
  status.show();
  context.subscriptions.push(output, status);

  const reg = (id: string, fn: (...args: any[]) => unknown) =>
    context.subscriptions.push(vscode.commands.registerCommand(id, fn));
  reg('fixloop.repairFile', () => startSession('fixloop.repair'));
  reg('fixloop.refactorFile', () => startSession('fixloop.refactor'));
  reg('fixloop.cancelSession', () => uriCommand('fixloop.cancel'));
  reg('fixloop.runFileTests', (arg?: { uri?: string }) => uriCommand('fixloop.runTests', arg?.uri));
  reg('fixloop.showLastSession', () => showLastSession());
  reg('fixloop.restartServer', () => restart());
  reg('fixloop.setApiKey', () => setApiKey());

  context.subscriptions.push(
    // Restricted Mode: the server runs the built-in Go analysers only.
    // Trusting the workspace restarts it with trusted: true, so that the
    // commands of .fixloop.yaml, the other languages' tools, tests and
    // sessions run from then on.
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      output.appendLine('[fixloop] the workspace is now trusted: restarting the server');
      void restart();
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (affectsServer(e)) {
        output.appendLine('[fixloop] settings changed: restarting the server');
        void restart();
      }
    }),
  );
  registerMcp(context);

  await restart();
}

/** Whether a settings change concerns the language server: any fixloop.* setting but fixloop.mcp.enable. */
function affectsServer(e: vscode.ConfigurationChangeEvent): boolean {
  if (!e.affectsConfiguration(SECTION)) return false;
  const props = Object.keys(ctx.extension.packageJSON?.contributes?.configuration?.properties ?? {});
  if (props.length === 0) return true;
  return props.some((key) => key !== `${SECTION}.mcp.enable` && e.affectsConfiguration(key));
}

export async function deactivate(): Promise<void> {
  await stopClient();
}

function setStatus(state: 'starting' | 'ready' | 'stopped' | string): void {
  status.text = `fixloop: ${state}`;
}

// ---------------------------------------------------------------- server

function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** fixloop.path, else `fixloop` on PATH, else $GOPATH/bin, else ~/go/bin. */
export function findServer(configured: string | undefined): string | undefined {
  if (configured && configured.trim() !== '') {
    const p = configured.trim().replace(/^~(?=$|[\\/])/, os.homedir());
    return p;
  }
  const exe = process.platform === 'win32' ? 'fixloop.exe' : 'fixloop';
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const gp of (process.env.GOPATH ?? '').split(path.delimiter).filter(Boolean)) {
    dirs.push(path.join(gp, 'bin'));
  }
  dirs.push(path.join(os.homedir(), 'go', 'bin'));
  for (const d of dirs) {
    const p = path.join(d, exe);
    if (isExecutable(p)) return p;
  }
  return undefined;
}

async function stopClient(): Promise<void> {
  const c = client;
  client = undefined;
  if (c) {
    try {
      await c.stop(5000);
    } catch (err) {
      output.appendLine(`[fixloop] stopping the server: ${String(err)}`);
    }
  }
}

function restart(): Promise<void> {
  restarting = restarting.then(doRestart, doRestart);
  return restarting;
}

async function doRestart(): Promise<void> {
  await stopClient();
  setStatus('starting');
  const cfg = vscode.workspace.getConfiguration(SECTION);
  const bin = findServer(cfg.get<string>('path'));
  if (!bin) {
    setStatus('not found');
    const msg =
      'fixloop: server binary not found on PATH, in $GOPATH/bin or ~/go/bin. Install it with `go install github.com/fixloop/fixloop@latest` or set `fixloop.path`.';
    output.appendLine(`[fixloop] ${msg}`);
    void vscode.window.showErrorMessage(msg, 'Open settings').then((a) => {
      if (a) void vscode.commands.executeCommand('workbench.action.openSettings', 'fixloop.path');
    });
    return;
  }
  const apiKey = await ctx.secrets.get(SECRET_KEY);
  const serverOptions: ServerOptions = {
    command: bin,
    args: ['serve', '--log-level', logLevel(cfg)],
    transport: TransportKind.stdio,
    options: { env: serverEnv(apiKey, cfg.get<string>('model.apiKeyEnv')) },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: documentSelector(LANGUAGES, cfg.get('extraLanguages')),
    initializationOptions: initializationOptionsFor(cfg, vscode.workspace.isTrusted),
    outputChannel: output, // the server's stderr (its log) goes here
    // No synchronize.configurationSection: the server gets the mapped settings
    // at initialize, and a settings change restarts it.
  };
  const c = new LanguageClient('fixloop', 'fixloop', serverOptions, clientOptions);
  hookProgress(c);
  c.onDidChangeState((e) => {
    if (e.newState === State.Running) setStatus('ready');
    else if (e.newState === State.Starting) setStatus('starting');
    else if (client === c) setStatus('stopped');
  });
  client = c;
  output.appendLine(`[fixloop] starting ${bin} ${(serverOptions as { args: string[] }).args.join(' ')}`);
  try {
    await c.start();
  } catch (err) {
    setStatus('stopped');
    output.appendLine(`[fixloop] the server failed to start: ${String(err)}`);
    void vscode.window.showErrorMessage(`fixloop: the server failed to start: ${String(err)}`);
    return;
  }
  setStatus('ready');
}

/**
 * Replaces the client's default window/workDoneProgress/create handler (also
 * after an automatic restart, when the client's features re-register it) so
 * the status bar can follow sessions ("round 2/3") while a cancellable
 * progress notification is still shown.
 */
function hookProgress(c: LanguageClient): void {
  const onRequest = c.onRequest.bind(c) as (type: unknown, handler: unknown) => vscode.Disposable;
  (c as unknown as { onRequest: typeof onRequest }).onRequest = (type, handler) => {
    const method = typeof type === 'string' ? type : (type as { method: string }).method;
    if (method !== WorkDoneProgressCreateRequest.method) return onRequest(type, handler);
    return onRequest(WorkDoneProgressCreateRequest.type, ({ token }: { token: string | number }) => {
      trackProgress(c, token);
      return null;
    });
  };
}

function trackProgress(c: LanguageClient, token: string | number): void {
  let report: vscode.Progress<{ message?: string }> | undefined;
  let finish: (() => void) | undefined;
  const update = (text: string | undefined) => {
    const r = parseRound(text);
    if (r) setStatus(`round ${r.round}/${r.of}`);
  };
  const sub = c.onProgress(WorkDoneProgress.type, token, (v: WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd) => {
    switch (v.kind) {
      case 'begin':
        update(`${v.title} ${v.message ?? ''}`);
        void vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: progressTitle(v.title), cancellable: !!v.cancellable },
          (progress, cancel) => {
            report = progress;
            if (v.message) progress.report({ message: v.message });
            cancel.onCancellationRequested(() => {
              void c.sendNotification(WorkDoneProgressCancelNotification.type, { token });
            });
            return new Promise<void>((resolve) => (finish = resolve));
          },
        );
        break;
      case 'report':
        update(v.message);
        if (v.message) report?.report({ message: v.message });
        break;
      case 'end':
        if (v.message) output.appendLine(`[fixloop] ${v.message}`);
        finish?.();
        sub.dispose();
        if (client === c) setStatus('ready');
        break;
    }
  });
}

// ---------------------------------------------------------------- commands

function runningClient(): LanguageClient | undefined {
  if (!client || !client.isRunning()) {
    void vscode.window.showWarningMessage('fixloop: the server is not running (fixloop: Restart server).');
    return undefined;
  }
  return client;
}

function activeDocument(): vscode.TextEditor | undefined {
  const ed = vscode.window.activeTextEditor;
  if (!ed || ed.document.uri.scheme !== 'file') {
    void vscode.window.showWarningMessage('fixloop: open a file first.');
    return undefined;
  }
  return ed;
}

async function execute(command: string, arg: object): Promise<unknown> {
  const c = runningClient();
  if (!c) return undefined;
  try {
    return await c.sendRequest(ExecuteCommandRequest.type, { command, arguments: [arg] });
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    void vscode.window.showErrorMessage(`fixloop: ${msg}`);
    return undefined;
  }
}

async function startSession(command: 'fixloop.repair' | 'fixloop.refactor'): Promise<void> {
  const ed = activeDocument();
  const c = runningClient();
  if (!ed || !c) return;
  const uri = c.code2ProtocolConverter.asUri(ed.document.uri);
  const arg: { uri: string; version: number; range?: unknown } = { uri, version: ed.document.version };
  if (!ed.selection.isEmpty) arg.range = c.code2ProtocolConverter.asRange(ed.selection);
  lastSessionUri = uri;
  await execute(command, arg);
}

async function uriCommand(command: string, uri?: string): Promise<void> {
  if (!uri) {
    const ed = activeDocument();
    const c = runningClient();
    if (!ed || !c) return;
    uri = c.code2ProtocolConverter.asUri(ed.document.uri);
  }
  await execute(command, { uri });
}

async function showLastSession(): Promise<void> {
  const ed = vscode.window.activeTextEditor;
  const c = runningClient();
  if (!c) return;
  const uri = ed && ed.document.uri.scheme === 'file' ? c.code2ProtocolConverter.asUri(ed.document.uri) : lastSessionUri;
  if (!uri) {
    void vscode.window.showInformationMessage('fixloop: no session has run yet.');
    return;
  }
  const summary = await execute('fixloop.showSession', { uri });
  if (summary === undefined || summary === null) return;
  const doc = await vscode.workspace.openTextDocument({
    language: 'json',
    content: JSON.stringify(summary, null, 2),
  });
  await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
}

async function setApiKey(): Promise<void> {
  const env = vscode.workspace.getConfiguration(SECTION).get<string>('model.apiKeyEnv') || 'OPENAI_API_KEY';
  const key = await vscode.window.showInputBox({
    title: 'fixloop: API key',
    prompt: `Stored in VS Code's secret storage and passed to the server as $${env}. Leave empty to remove it.`,
    password: true,
    ignoreFocusOut: true,
  });
  if (key === undefined) return;
  if (key === '') await ctx.secrets.delete(SECRET_KEY);
  else await ctx.secrets.store(SECRET_KEY, key);
  await restart();
}

// ---------------------------------------------------------------- MCP

// VS Code's MCP API (stable since 1.101). The extension's engines stay at
// 1.85, so it is looked up at run time and typed here; an older VS Code
// simply gets no MCP server.
interface McpStdioServerDefinition {
  readonly label: string;
  cwd?: vscode.Uri;
  command: string;
  args: string[];
  env: Record<string, string | number | null>;
  version?: string;
}
interface McpServerDefinitionProvider {
  readonly onDidChangeMcpServerDefinitions?: vscode.Event<void>;
  provideMcpServerDefinitions(token: vscode.CancellationToken): vscode.ProviderResult<McpStdioServerDefinition[]>;
  resolveMcpServerDefinition?(
    server: McpStdioServerDefinition,
    token: vscode.CancellationToken,
  ): vscode.ProviderResult<McpStdioServerDefinition>;
}
interface McpApi {
  lm?: {
    registerMcpServerDefinitionProvider?(id: string, provider: McpServerDefinitionProvider): vscode.Disposable;
  };
  McpStdioServerDefinition?: new (
    label: string,
    command: string,
    args?: string[],
    env?: Record<string, string | number | null>,
    version?: string,
  ) => McpStdioServerDefinition;
}

/**
 * Offers `fixloop mcp` (the same binary as the language server) to VS Code's
 * agent mode, with one --root per workspace folder. Nothing is offered when
 * fixloop.mcp.enable is off or the workspace is not trusted: the MCP server
 * runs the repository's .fixloop.yaml commands and tests.
 */
function registerMcp(context: vscode.ExtensionContext): void {
  const api = vscode as unknown as McpApi;
  const Definition = api.McpStdioServerDefinition;
  if (typeof api.lm?.registerMcpServerDefinitionProvider !== 'function' || typeof Definition !== 'function') {
    output.appendLine('[fixloop] this VS Code has no MCP server API: fixloop mcp is not offered to agent mode');
    return;
  }
  // Fires when the definitions change: settings, trust, folders, the key.
  const changed = new vscode.EventEmitter<void>();
  const fire = () => changed.fire();
  context.subscriptions.push(
    changed,
    api.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER, {
      onDidChangeMcpServerDefinitions: changed.event,
      provideMcpServerDefinitions: () => {
        const cfg = vscode.workspace.getConfiguration(SECTION);
        if (!mcpEnabled(cfg) || !vscode.workspace.isTrusted) return [];
        const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
        const bin = findServer(cfg.get<string>('path'));
        if (folders.length === 0 || !bin) return [];
        const def = new Definition(
          'fixloop',
          bin,
          mcpArgs(
            cfg,
            folders.map((f) => f.uri.fsPath),
          ),
          {},
          context.extension.packageJSON.version as string,
        );
        def.cwd = folders[0].uri;
        return [def];
      },
      // Just before VS Code starts it: the stored API key, in the
      // environment only (definitions are cached by VS Code; this is not).
      resolveMcpServerDefinition: async (def) => {
        const cfg = vscode.workspace.getConfiguration(SECTION);
        def.env = { ...def.env, ...mcpEnv(await ctx.secrets.get(SECRET_KEY), cfg.get<string>('model.apiKeyEnv')) };
        return def;
      },
    }),
    context.secrets.onDidChange((e) => {
      if (e.key === SECRET_KEY) fire();
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(fire),
    vscode.workspace.onDidChangeWorkspaceFolders(fire),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(SECTION)) fire();
    }),
  );
}
