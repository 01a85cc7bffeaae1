#!/usr/bin/env node
// Type-checks the browser app (app/, with the DOM's types): its own files only.
// The app's types come from the workspace's sources (the client, and through it http and core),
// which are written for Node's types: under the DOM's stricter ones (BufferSource, BodyInit) a
// few of their lines do not check, and those files are checked where they belong, by the
// workspace's own `tsc -p tsconfig.json`.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const appDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../app');
const parsed = ts.getParsedCommandLineOfConfigFile(
  path.join(appDir, 'tsconfig.json'),
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  },
);
if (!parsed) throw new Error('app/tsconfig.json could not be read');
const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
// Only the app's files are checked (the checker reads the rest only as far as the app uses it).
const appFiles = program.getSourceFiles().filter((file) => path.resolve(file.fileName).startsWith(appDir + path.sep));
const own = [
  ...program.getOptionsDiagnostics(),
  ...program.getGlobalDiagnostics(),
  ...appFiles.flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]),
];
if (own.length > 0) {
  const host = { getCanonicalFileName: (name) => name, getCurrentDirectory: () => process.cwd(), getNewLine: () => '\n' };
  process.stderr.write(ts.formatDiagnosticsWithColorAndContext(own, host));
  process.exitCode = 1;
}
