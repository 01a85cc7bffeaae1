#!/usr/bin/env node
// `pnpm check:structure`: two rules about the shape of the code, read from the imports as text.
//
// 1. No cycle between folders. Within each package's `src/`, every folder is a node (nested
//    folders are nodes of their own), and a file's relative import — type-only ones included —
//    is an edge from its folder to the imported file's folder. A strongly connected group of
//    more than one folder is a cycle: some folder imports one that imports it. `src/` itself is
//    a folder like the others: files there that folders import (shared helpers) belong in a
//    folder of their own. Tests are not edges: a test may import whatever it checks.
// 2. No production source file over 500 lines (tests and generated files aside).
//
// It prints what it finds and exits 1 when either rule is broken. `--graph <package>` prints that
// package's folder graph instead (who imports whom), for finding one's way around.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// `--root <dir>` checks another tree laid out the same way (the script's own test does).
const rootArg = process.argv.indexOf('--root');
const root = rootArg === -1 ? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..') : path.resolve(process.argv[rootArg + 1]);
const MAX_LINES = 500;
const SOURCE = /\.(ts|tsx|mts)$/;
const NOT_PRODUCTION = /\.(test|spec|bench)\.(ts|tsx|mts)$|\.d\.ts$/;
// `import … from '…'`, `export … from '…'`, `import '…'`, `import('…')`, with type-only forms.
const IMPORT = /(?:^|[\s;])(?:import|export)\s(?:[^'";]*?\sfrom\s)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...walk(full));
    else if (SOURCE.test(name)) out.push(full);
  }
  return out;
}

/** The file a relative specifier names (`./x.js` → `./x.ts`, `./dir` → `./dir/index.ts`). */
function resolveSpecifier(fromFile, specifier) {
  const base = path.resolve(path.dirname(fromFile), specifier);
  const stem = base.replace(/\.(js|mjs|ts|tsx)$/, '');
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, path.join(base, 'index.ts')]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not this one
    }
  }
  return null;
}

/** Folder → folders it imports, for the files under `src`. */
function folderGraph(src, files) {
  const graph = new Map();
  const edgeFiles = new Map();
  for (const file of files) {
    if (NOT_PRODUCTION.test(file)) continue;
    const from = path.relative(src, path.dirname(file)) || '.';
    if (!graph.has(from)) graph.set(from, new Set());
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2];
      if (!specifier.startsWith('.')) continue;
      const target = resolveSpecifier(file, specifier);
      if (!target?.startsWith(src + path.sep)) continue;
      const to = path.relative(src, path.dirname(target)) || '.';
      if (to === from) continue;
      graph.get(from).add(to);
      const key = `${from} -> ${to}`;
      if (!edgeFiles.has(key)) edgeFiles.set(key, []);
      edgeFiles.get(key).push(`${path.relative(src, file)} imports ${path.relative(src, target)}`);
    }
  }
  return { graph, edgeFiles };
}

/** Strongly connected components of more than one node (Tarjan). */
function cycles(graph) {
  let index = 0;
  const stack = [];
  const on = new Set();
  const idx = new Map();
  const low = new Map();
  const found = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index += 1;
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const group = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return found;
}

const listDir = (dir) => {
  try {
    return readdirSync(dir).map((name) => path.join(dir, name, 'src'));
  } catch {
    return [];
  }
};
const sourceRoots = [...listDir(path.join(root, 'packages')), ...listDir(path.join(root, 'examples'))].filter((dir) => {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
});

const graphArg = process.argv.indexOf('--graph');
if (graphArg !== -1) {
  const wanted = process.argv[graphArg + 1];
  const src = sourceRoots.find((dir) => path.basename(path.dirname(dir)) === wanted);
  if (!src) {
    console.error(`no package "${wanted}"`);
    process.exit(2);
  }
  const { graph } = folderGraph(src, walk(src));
  for (const [from, tos] of [...graph].sort()) console.log(`${from} -> ${[...tos].sort().join(', ') || '(nothing)'}`);
  process.exit(0);
}

const problems = [];
let fileCount = 0;
for (const src of sourceRoots) {
  const files = walk(src);
  fileCount += files.length;
  const name = path.relative(root, path.dirname(src));
  const { graph, edgeFiles } = folderGraph(src, files);
  for (const group of cycles(graph)) {
    const members = new Set(group);
    const edges = [...edgeFiles].filter(([key]) => {
      const [from, to] = key.split(' -> ');
      return members.has(from) && members.has(to);
    });
    problems.push(
      `${name}: folders import each other: ${group.join(', ')}\n` +
        edges.map(([key, list]) => `    ${key}  (${list[0]}${list.length > 1 ? ` and ${list.length - 1} more` : ''})`).join('\n'),
    );
  }
  for (const file of files) {
    if (NOT_PRODUCTION.test(file)) continue;
    const lines = readFileSync(file, 'utf8').split('\n').length - 1;
    if (lines > MAX_LINES) problems.push(`${path.relative(root, file)}: ${lines} lines (at most ${MAX_LINES})`);
  }
}

if (problems.length > 0) {
  console.error(problems.join('\n'));
  console.error(`\ncheck-structure: ${problems.length} problem(s) in ${sourceRoots.length} source folders`);
  process.exit(1);
}
console.log(`check-structure: no folder cycle, no production file over ${MAX_LINES} lines (${fileCount} files in ${sourceRoots.length} source folders)`);
