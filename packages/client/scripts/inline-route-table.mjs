#!/usr/bin/env node
// Build step, after tsup: inlines the server's route table into the client's declarations.
//
// The client's types come from `ApiRoutes` of `@agent-platform/http` (`src/transport/routes.ts`
// imports it with `import type`). tsup's declarations keep that import, which would make http —
// and with it console, ws, and the optional fastify and express peers — something every app that
// installs the client has to install. This step evaluates the imported types with the TypeScript
// checker (against http's sources, a devDependency of the client) and writes them into
// dist/index.d.ts and dist/index.d.cts in place of the import: each endpoint as a plain object
// type, a body or an answer that is one of `@agent-platform/core/schemas`' named types (exactly
// that type) by its name, anything else spelled out. The published declarations then import
// only the client's dependencies (ky, core), and the types are the same: the build test checks
// the inlined table against http's, key by key, and type-checks an app against it.
//
// `node scripts/inline-route-table.mjs` (the `build` script runs it); exits 1, leaving the
// declarations as they were, if anything of http is left or cannot be inlined.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const HTTP = '@agent-platform/http';
const SCHEMAS = '@agent-platform/core/schemas';
/** The local name the inlined table reads core's schema types through. */
const SCHEMAS_NAMESPACE = 'RouteTableSchemas';

const clientDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const files = ['dist/index.d.ts', 'dist/index.d.cts'].map((file) => path.join(clientDir, file));

const IMPORT_LINE = new RegExp(String.raw`^import \{([^}]*)\} from '${HTTP}';\n`, 'gm');
const EXPORT_LINE = new RegExp(String.raw`^export \{([^}]*)\} from '${HTTP}';\n`, 'gm');

/** `A, B as C` → `[['A', 'A'], ['B', 'C']]`. */
const bindings = (list) =>
  list
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [name, alias] = part.split(/\s+as\s+/);
      return [name, alias ?? name];
    });

function fail(message) {
  console.error(`inline-route-table: ${message}`);
  process.exit(1);
}

/** What each declaration file takes from http: imported names (→ local name) and re-exported ones (→ exported name). */
function readHttpBindings(code) {
  const imports = [...code.matchAll(IMPORT_LINE)].flatMap((match) => bindings(match[1]));
  const exports = [...code.matchAll(EXPORT_LINE)].flatMap((match) => bindings(match[1]));
  return { imports, exports };
}

const sources = files.map((file) => readFileSync(file, 'utf8'));
const names = new Set(
  sources.flatMap((code) =>
    Object.values(readHttpBindings(code))
      .flat()
      .map(([name]) => name),
  ),
);
if (names.size === 0) fail(`no import of ${HTTP} in ${files.map((f) => path.relative(clientDir, f)).join(', ')}: nothing to inline (has the build changed?)`);

// A program with one probe file in the client's src/, compiled with the client's tsconfig (its
// `agent-platform-source` condition reads http and core from their sources).
const probeFile = path.join(clientDir, 'src/__inline-route-table-probe.ts');
const probeText = `import type { ${[...names].join(', ')} } from '${HTTP}';\nimport type * as ${SCHEMAS_NAMESPACE} from '${SCHEMAS}';\n`;
const config = ts.getParsedCommandLineOfConfigFile(
  path.join(clientDir, 'tsconfig.json'),
  {},
  { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => fail(ts.flattenDiagnosticMessageText(d.messageText, '\n')) },
);
const host = ts.createCompilerHost(config.options);
const getSourceFile = host.getSourceFile.bind(host);
const fileExists = host.fileExists.bind(host);
host.getSourceFile = (file, ...rest) =>
  path.resolve(file) === probeFile ? ts.createSourceFile(file, probeText, ts.ScriptTarget.ES2022, true) : getSourceFile(file, ...rest);
host.fileExists = (file) => path.resolve(file) === probeFile || fileExists(file);
const program = ts.createProgram([probeFile], { ...config.options, noEmit: true }, host);
const checker = program.getTypeChecker();
const probe = program.getSourceFile(probeFile);

const diagnostics = ts.getPreEmitDiagnostics(program, probe);
if (diagnostics.length > 0)
  fail(ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => clientDir, getNewLine: () => '\n' }));

/** The symbols the probe file imports, by module specifier and name. */
function moduleExports(specifier) {
  const declaration = probe.statements.find((s) => ts.isImportDeclaration(s) && s.moduleSpecifier.text === specifier);
  const moduleSymbol = checker.getSymbolAtLocation(declaration.moduleSpecifier);
  return new Map(checker.getExportsOfModule(moduleSymbol).map((symbol) => [symbol.name, symbol]));
}
const httpExports = moduleExports(HTTP);
const schemaExports = moduleExports(SCHEMAS);

/** Core's named schema types, by the type itself: a field whose type is exactly one of them is written by its name. */
const namedSchemaTypes = new Map();
for (const [name, symbol] of schemaExports) {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  if (!(target.flags & (ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Interface))) continue;
  const type = checker.getDeclaredTypeOfSymbol(target);
  // Objects and unions of objects only: a `string` or a literal union is shorter written out, and
  // would otherwise take the name of whichever alias happens to equal it.
  const objectLike = (t) => Boolean(t.flags & ts.TypeFlags.Object) || (t.isUnionOrIntersection() && t.types.some(objectLike));
  if (objectLike(type) && !namedSchemaTypes.has(type)) namedSchemaTypes.set(type, name);
}

const FORMAT = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.InTypeAlias | ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType;

/** A type as text that needs nothing but the globals and core's schemas. */
function typeText(type, where) {
  const named = namedSchemaTypes.get(type);
  if (named) return `${SCHEMAS_NAMESPACE}.${named}`;
  const text = checker.typeToString(type, probe, FORMAT);
  if (/\bimport\(|\btypeof\b/.test(text)) fail(`${where}: its type cannot be written without a module reference (or was truncated): ${text.slice(0, 300)}`);
  return text;
}

const quote = (key) => (/^[A-Za-z_$][\w$]*$/.test(key) ? key : `'${key.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`);

function memberModifiers(symbol) {
  const declaration = symbol.valueDeclaration ?? symbol.declarations?.[0];
  const readonly = declaration && ts.getCombinedModifierFlags(declaration) & ts.ModifierFlags.Readonly ? 'readonly ' : '';
  const optional = symbol.flags & ts.SymbolFlags.Optional ? '?' : '';
  return { readonly, optional };
}

function httpType(name) {
  const symbol = httpExports.get(name);
  if (!symbol) fail(`${HTTP} exports no ${name}`);
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  return checker.getDeclaredTypeOfSymbol(target);
}

/** The declarations that replace the import, each under its local name. */
function inlinedDeclarations(locals) {
  const out = [];
  for (const [name, local] of locals) {
    const type = httpType(name);
    if (name === 'ApiRoutes') {
      const routes = checker.getPropertiesOfType(type);
      if (routes.length === 0) fail('ApiRoutes has no endpoint');
      out.push(
        `/**\n * Every endpoint as a type, keyed by \`\${method} \${path}\`: the server's route table (\`ApiRoutes\` of the\n * http package), inlined when the client was built. ${routes.length} endpoints.\n */`,
        `interface ${local} {`,
      );
      for (const route of routes) {
        const entry = checker.getTypeOfSymbol(route);
        const { readonly, optional } = memberModifiers(route);
        out.push(`  ${readonly}${quote(route.name)}${optional}: {`);
        for (const field of checker.getPropertiesOfType(entry)) {
          const m = memberModifiers(field);
          out.push(`    ${m.readonly}${quote(field.name)}${m.optional}: ${typeText(checker.getTypeOfSymbol(field), `${route.name} → ${field.name}`)};`);
        }
        out.push('  };');
      }
      out.push('}');
    } else if (name === 'RouteKey') {
      const apiRoutes = locals.get('ApiRoutes');
      out.push("/** One endpoint's key in the route table, e.g. `'GET /api/automation/v1/runs/{run_id}'`. */");
      out.push(apiRoutes ? `type ${local} = keyof ${apiRoutes};` : `type ${local} = ${typeText(type, name)};`);
    } else {
      out.push(`type ${local} = ${typeText(type, name)};`);
    }
  }
  return out.join('\n');
}

const rewritten = sources.map((code, index) => {
  const { imports, exports } = readHttpBindings(code);
  const locals = new Map(imports);
  const taken = new Set([...code.matchAll(/\b[A-Za-z_$][\w$]*\b/g)].map(([word]) => word));
  for (const [name] of exports) {
    if (locals.has(name)) continue;
    let local = `${name}$inlined`;
    while (taken.has(local)) local += '_';
    locals.set(name, local);
  }
  if (locals.has('RouteKey') && !locals.has('ApiRoutes')) {
    locals.set('ApiRoutes', taken.has('ApiRoutes$inlined') ? 'ApiRoutes$inlined_' : 'ApiRoutes$inlined');
  }
  const exportList = exports.map(([name, exported]) => (locals.get(name) === exported ? exported : `${locals.get(name)} as ${exported}`));
  const block = [
    `import * as ${SCHEMAS_NAMESPACE} from '${SCHEMAS}';`,
    inlinedDeclarations(locals),
    exportList.length > 0 ? `export { ${exportList.join(', ')} };` : '',
  ]
    .filter(Boolean)
    .join('\n');
  let placed = false;
  const result = code
    .replace(IMPORT_LINE, () => {
      if (placed) return '';
      placed = true;
      return `${block}\n`;
    })
    .replace(EXPORT_LINE, '');
  // Any other mention as a module (`import('@agent-platform/http')`, a `/// <reference>`) has no inlining here.
  const left = result.split('\n').filter((line) => line.includes(`'${HTTP}`) || line.includes(`"${HTTP}`));
  if (left.length > 0) fail(`${path.relative(clientDir, files[index])} still references ${HTTP}:\n${left.join('\n')}`);
  if (taken.has(SCHEMAS_NAMESPACE)) fail(`${SCHEMAS_NAMESPACE} is already a name in ${files[index]}`);
  return result;
});

for (const [index, code] of rewritten.entries()) writeFileSync(files[index], code);
console.log(`inline-route-table: ${[...names].join(', ')} of ${HTTP} inlined into ${files.map((f) => path.relative(clientDir, f)).join(', ')}`);
