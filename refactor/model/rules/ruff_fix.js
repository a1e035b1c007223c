// ruff_fix.js: `ruff check --fix` for one Python text, with Ruff's
// WebAssembly build for Node (npm @astral-sh/ruff-wasm-nodejs). fixloop's
// rules provider runs it as
//
//   node -e <this script> <package dir> [--init]
//
// with the text on standard input; it prints the fixed text. --init says the
// file is a package's __init__.py, where Ruff's F401 fix is unsafe.
//
// The rules are Ruff's default set (E4, E7, E9, F), and only the fixes Ruff
// marks safe are applied, as `ruff check --fix` applies them. The WebAssembly
// API does not say how safe a fix is, so the rules whose fixes Ruff marks
// unsafe, always or in cases this script cannot tell, are made unfixable.
// As Ruff does, each pass applies the fixes in order of position, skipping
// one that overlaps an edit already applied, and checks the text again,
// until no fix applies or 100 passes have run. A pass whose result does not
// parse is dropped, and a text that does not parse is printed unchanged.
'use strict';

const fs = require('fs');

const [pkg, ...flags] = process.argv.slice(1);
const { Workspace, PositionEncoding } = require(pkg);

// Rules whose fixes Ruff marks unsafe: E711, E712 (== None, == True),
// E731 (lambda assignment), E402 (moved imports), F601, F602 (repeated
// dict keys), F841 (unused variable); F504, F522, F523 (unused format
// arguments) are unsafe when an argument has side effects.
const unsafe = ['E402', 'E711', 'E712', 'E731', 'F504', 'F522', 'F523', 'F601', 'F602', 'F841'];
if (flags.includes('--init')) {
  unsafe.push('F401');
}
// Ruff fixes one of these at a time in a nested block (each fix is isolated
// to its parent statement, which the API does not name).
const isolated = new Set(['F401', 'F811']);

const workspace = new Workspace(
  { lint: { select: ['E4', 'E7', 'E9', 'F'], unfixable: unsafe } },
  PositionEncoding.Utf16,
);

const maxPasses = 100;

function lineStarts(text) {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 13) {
      if (text.charCodeAt(i + 1) === 10) i++;
      starts.push(i + 1);
    } else if (c === 10) {
      starts.push(i + 1);
    }
  }
  return starts;
}

// offset turns Ruff's one-based row and column (UTF-16 units) into an
// index of text.
function offset(text, starts, loc) {
  if (loc.row - 1 >= starts.length) return text.length;
  return Math.min(starts[loc.row - 1] + loc.column - 1, text.length);
}

function syntaxError(diagnostics) {
  return diagnostics.some((d) => d.code === null || d.code === 'E999' || d.code === 'invalid-syntax');
}

// pass applies one pass of fixes to text; it returns the new text, or
// null when no fix applies.
function pass(text, diagnostics) {
  const starts = lineStarts(text);
  const fixes = [];
  for (const d of diagnostics) {
    if (!d.fix || d.fix.edits.length === 0) continue;
    const edits = d.fix.edits
      .map((e) => ({ start: offset(text, starts, e.location), end: offset(text, starts, e.end_location), content: e.content || '' }))
      .sort((a, b) => a.start - b.start || a.end - b.end);
    const line = starts[d.start_location.row - 1] ?? 0;
    const nested = isolated.has(d.code) && /^[ \t]/.test(text.slice(line, line + 1));
    fixes.push({ code: d.code, edits, nested, start: edits[0].start });
  }
  // RedefinedWhileUnused (F811) first, then by position, as Ruff does.
  fixes.sort((a, b) => (b.code === 'F811') - (a.code === 'F811') || a.start - b.start);
  const applied = new Set();
  const chosen = [];
  let lastEnd = -1;
  let nestedDone = false;
  for (const f of fixes) {
    const edits = f.edits.filter((e) => !applied.has(`${e.start}:${e.end}:${e.content}`));
    if (edits.length > 0) {
      if (f.nested && nestedDone) continue;
      if (lastEnd >= edits[0].start) continue;
    }
    if (f.nested) nestedDone = true;
    for (const e of edits) {
      applied.add(`${e.start}:${e.end}:${e.content}`);
      chosen.push(e);
      lastEnd = e.end;
    }
  }
  if (chosen.length === 0) return null;
  let out = '';
  let pos = 0;
  for (const e of chosen) {
    out += text.slice(pos, e.start) + e.content;
    pos = e.end;
  }
  return out + text.slice(pos);
}

function fix(text) {
  let diagnostics = workspace.check(text);
  if (syntaxError(diagnostics)) return text;
  for (let i = 0; i < maxPasses; i++) {
    const next = pass(text, diagnostics);
    if (next === null || next === text) break;
    const after = workspace.check(next);
    if (syntaxError(after)) break;
    text = next;
    diagnostics = after;
  }
  return text;
}

process.stdout.write(fix(fs.readFileSync(0, 'utf8')));
