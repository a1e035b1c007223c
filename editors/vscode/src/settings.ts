// Pure mapping from the extension's `fixloop.*` settings to what the server
// expects. No `vscode` import here, so it runs under plain node in the tests.

/** The subset of vscode.WorkspaceConfiguration this module needs. */
export interface ConfigLike {
  get(key: string): unknown;
}

/** The server's initializationOptions (and didChangeConfiguration) shape. */
export interface InitializationOptions {
  /** Whether the user trusts the workspace (VS Code's workspace trust). */
  trusted?: boolean;
  tests?: { mode?: string };
  model?: { baseUrl?: string; name?: string; apiKeyEnv?: string; temperature?: number };
  rounds?: { repair?: number; refactor?: number };
  minimize?: { enabled?: boolean; maxChecks?: number; budget?: string; share?: number };
  stuck?: { repeats?: number; sameFeedback?: number };
  applyMode?: string;
  sandbox?: string;
  maxToolProcesses?: number;
  python?: { linters?: string[]; pylintCategories?: string[] };
  cpp?: { checks?: string };
  java?: { checkstyle?: string };
}

export const DEFAULT_API_KEY_ENV = 'OPENAI_API_KEY';
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
const TEST_MODES = ['off', 'save', 'open_save'];
const APPLY_MODES = ['apply', 'ask'];
const SANDBOX_MODES = ['bubblewrap', 'none'];
const PYTHON_LINTERS = ['pylint', 'flake8', 'pyright'];
const PYLINT_CATEGORIES = ['convention', 'refactor', 'warning', 'error', 'info', 'performance'];
const MAX_TOOL_PROCESSES = 256;
const MAX_MINIMIZE_CHECKS = 100;
const MAX_STUCK_RULE = 10;

function str(cfg: ConfigLike, key: string): string | undefined {
  const v = cfg.get(key);
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  return t === '' ? undefined : t;
}

function num(cfg: ConfigLike, key: string): number | undefined {
  const v = cfg.get(key);
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function oneOf(cfg: ConfigLike, key: string, allowed: string[]): string | undefined {
  const v = str(cfg, key);
  return v !== undefined && allowed.includes(v) ? v : undefined;
}

/**
 * Maps `fixloop.*` settings (keys relative to the `fixloop` section, e.g.
 * `model.name`) to the server's initializationOptions. Unset (undefined,
 * null, empty string) or invalid values are omitted, so the server's own
 * defaults and .fixloop.yaml apply. Only keys the server knows are sent
 * (the server rejects unknown keys with a warning); `path` and `logLevel`
 * are the extension's own.
 */
export function initializationOptions(cfg: ConfigLike): InitializationOptions {
  const out: InitializationOptions = {};

  const testsMode = oneOf(cfg, 'tests.mode', TEST_MODES);
  if (testsMode !== undefined) out.tests = { mode: testsMode };

  const model: NonNullable<InitializationOptions['model']> = {};
  const baseUrl = str(cfg, 'model.baseUrl');
  if (baseUrl !== undefined) model.baseUrl = baseUrl;
  const name = str(cfg, 'model.name');
  if (name !== undefined) model.name = name;
  const apiKeyEnv = str(cfg, 'model.apiKeyEnv');
  if (apiKeyEnv !== undefined) model.apiKeyEnv = apiKeyEnv;
  const temperature = num(cfg, 'model.temperature');
  if (temperature !== undefined) model.temperature = temperature;
  if (Object.keys(model).length > 0) out.model = model;

  const rounds: NonNullable<InitializationOptions['rounds']> = {};
  const repair = num(cfg, 'rounds.repair');
  if (repair !== undefined && Number.isInteger(repair) && repair > 0) rounds.repair = repair;
  const refactor = num(cfg, 'rounds.refactor');
  if (refactor !== undefined && Number.isInteger(refactor) && refactor > 0) rounds.refactor = refactor;
  if (Object.keys(rounds).length > 0) out.rounds = rounds;

  const minimize: NonNullable<InitializationOptions['minimize']> = {};
  // Sent only when the user turned minimisation off: on is the server's
  // default, and .fixloop.yaml may set it.
  if (cfg.get('minimize.enabled') === false) minimize.enabled = false;
  const maxChecks = num(cfg, 'minimize.maxChecks');
  if (maxChecks !== undefined && Number.isInteger(maxChecks) && maxChecks >= 1 && maxChecks <= MAX_MINIMIZE_CHECKS) {
    minimize.maxChecks = maxChecks;
  }
  const budget = str(cfg, 'minimize.budget');
  if (budget !== undefined) minimize.budget = budget;
  const share = num(cfg, 'minimize.share');
  if (share !== undefined) minimize.share = share;
  if (Object.keys(minimize).length > 0) out.minimize = minimize;

  const stuck: NonNullable<InitializationOptions['stuck']> = {};
  const repeats = num(cfg, 'stuck.repeats');
  if (repeats !== undefined && Number.isInteger(repeats) && repeats >= 0 && repeats <= MAX_STUCK_RULE) {
    stuck.repeats = repeats;
  }
  const sameFeedback = num(cfg, 'stuck.sameFeedback');
  if (sameFeedback !== undefined && Number.isInteger(sameFeedback) && sameFeedback >= 0 && sameFeedback <= MAX_STUCK_RULE) {
    stuck.sameFeedback = sameFeedback;
  }
  if (Object.keys(stuck).length > 0) out.stuck = stuck;

  const applyMode = oneOf(cfg, 'applyMode', APPLY_MODES);
  if (applyMode !== undefined) out.applyMode = applyMode;
  // Sent only when the user turned the sandbox off: the default is the
  // server's own.
  const sandbox = oneOf(cfg, 'sandbox', SANDBOX_MODES);
  if (sandbox === 'none') out.sandbox = sandbox;
  const tools = num(cfg, 'maxToolProcesses');
  if (tools !== undefined && Number.isInteger(tools) && tools >= 1 && tools <= MAX_TOOL_PROCESSES) {
    out.maxToolProcesses = tools;
  }

  const python: NonNullable<InitializationOptions['python']> = {};
  const pyLinters = cfg.get('python.linters');
  if (Array.isArray(pyLinters)) {
    const valid = pyLinters.filter((l): l is string => typeof l === 'string' && PYTHON_LINTERS.includes(l));
    // [] turns the Python linters off; a list of only unknown names is a
    // mistake, not a wish for none, so it keeps the server's defaults.
    if (valid.length > 0 || pyLinters.length === 0) python.linters = valid;
  }
  const pylintCategories = cfg.get('python.pylintCategories');
  if (Array.isArray(pylintCategories)) {
    const valid = pylintCategories.filter(
      (c): c is string => typeof c === 'string' && PYLINT_CATEGORIES.includes(c),
    );
    // [] is sent so that the server says why it refuses it (it would hide
    // every pylint message); only unknown names keep pylint's defaults.
    if (valid.length > 0 || pylintCategories.length === 0) python.pylintCategories = [...new Set(valid)];
  }
  if (Object.keys(python).length > 0) out.python = python;
  const checks = str(cfg, 'cpp.checks');
  if (checks !== undefined) out.cpp = { checks };
  const checkstyle = str(cfg, 'java.checkstyle');
  if (checkstyle !== undefined) out.java = { checkstyle };

  return out;
}

/**
 * The initializationOptions the extension sends: the mapped settings and
 * whether the user trusts the workspace (`vscode.workspace.isTrusted`).
 * Untrusted (Restricted Mode), the server runs the built-in Go analysers
 * only: none of the commands the repository's .fixloop.yaml configures, no
 * tests, no sessions.
 */
export function initializationOptionsFor(cfg: ConfigLike, trusted: boolean): InitializationOptions {
  return { ...initializationOptions(cfg), trusted };
}

/**
 * The environment for the server process: the extension host's environment
 * plus, when an API key is stored in SecretStorage, that key in the variable
 * named by `fixloop.model.apiKeyEnv` (default OPENAI_API_KEY). The key never
 * goes into settings or initializationOptions.
 */
export function serverEnv(
  apiKey: string | undefined,
  apiKeyEnv: string | undefined,
  base: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  if (apiKey !== undefined && apiKey !== '') {
    const name = apiKeyEnv !== undefined && apiKeyEnv.trim() !== '' ? apiKeyEnv.trim() : DEFAULT_API_KEY_ENV;
    env[name] = apiKey;
  }
  return env;
}

/** Whether to offer `fixloop mcp` to VS Code's agent mode (`fixloop.mcp.enable`, default on). */
export function mcpEnabled(cfg: ConfigLike): boolean {
  return cfg.get('mcp.enable') !== false;
}

/**
 * The arguments of the `fixloop mcp` server the extension registers with
 * VS Code's MCP API: one --root per workspace folder, the log level, and the
 * provider and sandbox settings the language server gets too (as fix's
 * flags). The API key is not here: it goes in the environment, when VS Code
 * starts the server.
 */
export function mcpArgs(cfg: ConfigLike, roots: string[]): string[] {
  const args = ['mcp'];
  for (const r of roots) args.push('--root', r);
  args.push('--log-level', logLevel(cfg));
  const opts = initializationOptions(cfg);
  const model = opts.model ?? {};
  if (model.baseUrl !== undefined) args.push('--base-url', model.baseUrl);
  if (model.name !== undefined) args.push('--model', model.name);
  if (model.apiKeyEnv !== undefined) args.push('--api-key-env', model.apiKeyEnv);
  if (model.temperature !== undefined) args.push('--temperature', String(model.temperature));
  if (opts.sandbox === 'none') args.push('--sandbox', 'none');
  return args;
}

/**
 * Only the stored key, in the variable named by `fixloop.model.apiKeyEnv`
 * (default OPENAI_API_KEY): VS Code adds it to its own environment when it
 * starts the MCP server. Empty without a key.
 */
export function mcpEnv(apiKey: string | undefined, apiKeyEnv: string | undefined): Record<string, string> {
  return serverEnv(apiKey, apiKeyEnv, {}) as Record<string, string>;
}

/** The --log-level value: one of debug|info|warn|error, else info. */
export function logLevel(cfg: ConfigLike): string {
  const v = str(cfg, 'logLevel');
  return v !== undefined && (LOG_LEVELS as readonly string[]).includes(v) ? v : 'info';
}

/**
 * The title of the progress notification for a $/progress begin. The
 * server's title already names fixloop ("fixloop refactor: cart.go"), and
 * VS Code shows the notification as "title: message", so it is used as
 * sent: prefixing "fixloop: " again read "fixloop: fixloop refactor:
 * cart.go: round 1/3: …" (issue 28). Only a title that does not start with
 * fixloop's name (or none) gets it.
 */
export function progressTitle(title: string | undefined): string {
  const t = (title ?? '').trim();
  if (t === '') return 'fixloop';
  return /^fixloop\b/i.test(t) ? t : `fixloop: ${t}`;
}

/** Parses "round N/K..." from a $/progress message or title. */
export function parseRound(text: string | undefined): { round: number; of: number } | undefined {
  if (!text) return undefined;
  const m = /round\s+(\d+)\s*\/\s*(\d+)/i.exec(text);
  return m ? { round: Number(m[1]), of: Number(m[2]) } : undefined;
}

/**
 * The documents the client sends to the server: the built-in languages plus
 * `fixloop.extraLanguages` (VS Code language ids such as "shellscript",
 * for the file types of command linters configured in .fixloop.yaml).
 */
export function documentSelector(
  builtin: string[],
  extra: unknown,
): { scheme: string; language: string }[] {
  const ids = [...builtin];
  if (Array.isArray(extra)) {
    for (const id of extra) {
      if (typeof id === 'string' && id.trim() !== '' && !ids.includes(id.trim())) ids.push(id.trim());
    }
  }
  return ids.map((language) => ({ scheme: 'file', language }));
}
