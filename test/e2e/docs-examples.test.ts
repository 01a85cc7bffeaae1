/**
 * Every `curl` example of `README.md` and `docs/*.md` that talks to the server, run by bash as a
 * reader pastes it, against a reference server: one `it` per example, named by file and line
 * (`docs/automations.md:16`), so a new example is picked up and a broken one is named.
 *
 * One fresh server per document; its examples run in order, each in its own `bash` with
 * `set -euo pipefail`, the shell variables of the ones before carried over (the docs say their
 * blocks run in one shell, in order). A preamble gives what the docs take as known: the seeded
 * key (`$KEY`), the base URL (`$API`), a registered webhook source (`$WEBHOOK_URL`,
 * `$WEBHOOK_SECRET`), an automation on it (`$AUTOMATION_ID`) — made through the API beforehand.
 *
 * `curl` on the examples' PATH is a stand-in that calls the real one with `-sS`, points
 * `http://localhost:3000` at the test server and records each transfer's method, URL and status:
 * every invocation must exit 0 and every answer must be below 400, unless the block shows that
 * status as its expected answer (`# → 409 …`). A block that cannot run as pasted is marked right
 * before it with `<!-- example: not-runnable (why) -->` and is skipped, with its reason.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from './support/http-api.js';
import { curlExamples, hardCodedServer, placeholders, shellQuote, shownStatuses, targetsServer, type ShellExample } from './support/markdown-examples.js';
import { root, startServer, stopServer, type RunningServer } from './support/reference-server.js';

/** The address the docs use; the stand-in `curl` sends it to the test server instead. */
const DOCS_ORIGIN = 'http://localhost:3000';
const work = mkdtempSync(path.join(tmpdir(), 'ap-docs-examples-'));

afterAll(() => rmSync(work, { recursive: true, force: true }));

const documents = [
  'README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
/** The key the docs have the server seeded with (`AGENT_PLATFORM_API_KEYS='alice@acme:…'`). */
const seededKeys = /AGENT_PLATFORM_API_KEYS='([^']+)'/.exec(readme)?.[1] ?? '';
const seededKey = seededKeys.split(':').at(-1) ?? '';

/** A `curl` that records each transfer (exit code, status, method, URL) in `$AP_CALLS` and sends the docs' address to `$AP_BASE`. */
const CURL_STAND_IN = `#!/usr/bin/env bash
args=()
for arg in "$@"; do args+=("\${arg//${DOCS_ORIGIN.replaceAll('/', '\\/')}/$AP_BASE}"); done
err=$(mktemp)
"$AP_REAL_CURL" -q -sS "\${args[@]}" -w '%{stderr}@@ap-transfer@@ %{http_code} %{method} %{url_effective}\\n' 2>"$err"
code=$?
{ grep '^@@ap-transfer@@ ' "$err" | sed 's/^@@ap-transfer@@ /transfer /'; echo "exit $code"; } >>"$AP_CALLS"
grep -v '^@@ap-transfer@@ ' "$err" >&2
rm -f "$err"
exit $code
`;

/**
 * Runs an example after the state file (the preamble, then what the examples before it set), and
 * writes its shell variables (those bash did not start with) back to it for the next one.
 */
const SCRIPT_HEAD = `__ap_builtin=" $(compgen -v | tr '\\n' ' ') "
__ap_save() {
  local __ap_name
  for __ap_name in $(compgen -v); do
    case "$__ap_builtin" in *" $__ap_name "*) continue ;; esac
    case "$__ap_name" in __ap_*|BASH*|_|PIPESTATUS|FUNCNAME|LINENO|RANDOM|SECONDS|SRANDOM|EPOCH*|COMP*|HIST*) continue ;; esac
    declare -p "$__ap_name"
  done >"$AP_STATE.next" 2>/dev/null
  mv "$AP_STATE.next" "$AP_STATE"
}
trap __ap_save EXIT
source "$AP_STATE"
set -euo pipefail
`;
const SCRIPT_HEAD_LINES = SCRIPT_HEAD.split('\n').length - 1;

/** bash's `line N` in its messages, with the document's line beside it. */
const withDocumentLines = (text: string, example: ShellExample) =>
  text.replace(/\bline (\d+):/g, (match, line: string) =>
    Number(line) > SCRIPT_HEAD_LINES ? `line ${line} (${example.file}:${example.line + Number(line) - SCRIPT_HEAD_LINES}):` : match,
  );

interface Transfer {
  status: number;
  method: string;
  url: string;
}

interface Outcome {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** Each curl invocation's exit code. */
  exits: number[];
  transfers: Transfer[];
}

function runExample(example: ShellExample, dir: string, server: RunningServer): Promise<Outcome> {
  const calls = path.join(dir, 'calls');
  writeFileSync(calls, '');
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-c', `${SCRIPT_HEAD}${example.code}\n`],
      {
        cwd: dir,
        timeout: 50_000,
        maxBuffer: 16 * 1024 * 1024,
        // Nothing of the test's own environment (no real model keys): the path, and the stand-in's settings.
        env: {
          PATH: `${path.join(work, 'bin')}:${process.env.PATH}`,
          HOME: dir,
          LANG: 'C.UTF-8',
          TMPDIR: dir,
          AP_REAL_CURL: realCurl,
          AP_BASE: server.baseUrl,
          AP_CALLS: calls,
          AP_STATE: path.join(dir, 'state.sh'),
        },
      },
      (error, stdout, stderr) => {
        const exits: number[] = [];
        const transfers: Transfer[] = [];
        for (const line of readFileSync(calls, 'utf8').split('\n')) {
          const [kind, first, method = '', url = ''] = line.split(' ');
          if (kind === 'exit') exits.push(Number(first));
          if (kind === 'transfer') transfers.push({ status: Number(first), method, url: url.replace(server.baseUrl, DOCS_ORIGIN) });
        }
        const exitCode = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ exitCode, stdout, stderr, exits, transfers });
      },
    );
  });
}

/** What a failure may show: no secret the examples print (webhook and subscription secrets, the key). */
function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const secret of secrets.filter((value) => value.length >= 8)) out = out.replaceAll(secret, '<redacted>');
  return out
    .replace(/whsec_[A-Za-z0-9+/=_-]+/g, 'whsec_<redacted>')
    .replace(/("[a-z_]*(?:secret|token|api_key)[a-z_]*"\s*:\s*)"[^"]*"/gi, '$1"<redacted>"')
    .slice(-4000);
}

let realCurl = '';

beforeAll(async () => {
  expect(seededKey, 'the seeded key the README starts the server with').toBeTruthy();
  for (const tool of ['curl', 'jq', 'openssl']) expect(() => execFileSync('bash', ['-c', `command -v ${tool}`]), `${tool} on PATH`).not.toThrow();
  realCurl = execFileSync('bash', ['-c', 'command -v curl'], { encoding: 'utf8' }).trim();
  const bin = path.join(work, 'bin');
  execFileSync('mkdir', ['-p', bin]);
  writeFileSync(path.join(bin, 'curl'), CURL_STAND_IN);
  chmodSync(path.join(bin, 'curl'), 0o755);
});

for (const file of documents) {
  const examples = curlExamples(file, readFileSync(path.join(root, file), 'utf8'));
  if (examples.length === 0) continue;
  const runnable = examples.filter((example) => !example.notRunnable);

  describe(`${file}: ${examples.length} curl example(s), ${runnable.length} run`, { timeout: 60_000 }, () => {
    let server: RunningServer | undefined;
    const dir = mkdtempSync(path.join(work, `${path.basename(file, '.md')}-`));
    const secrets: string[] = [seededKey];
    let failedBefore: string | undefined;
    const serverLog = () => `--- the server's log (tail, secrets redacted)\n${redact(server?.output.join('') ?? '', secrets)}`;

    beforeAll(async () => {
      if (runnable.length === 0) return;
      // The docs' webhook URLs name http://localhost:3000, as the server on its default port would.
      server = await startServer('examples/server', { AGENT_PLATFORM_API_KEYS: seededKeys, AGENT_PLATFORM_PUBLIC_URL: DOCS_ORIGIN });
      const api = apiClient(server.baseUrl, seededKey);
      const webhook = await api('POST', '/api/automation/v1/webhooks', { name: 'Docs examples', source: 'docs-examples' });
      expect(webhook.status, `the preamble registers a webhook source: ${JSON.stringify(webhook.json)}\n${serverLog()}`).toBe(201);
      secrets.push(webhook.json.webhook_secret);
      const automation = await api('POST', '/api/automation/v1', {
        name: 'Docs examples',
        trigger: { type: 'event', source: 'docs-examples', on: '*' },
        instructions: 'Say hello',
      });
      expect(automation.status, `the preamble creates an automation: ${JSON.stringify(automation.json)}\n${serverLog()}`).toBe(201);
      const preamble = {
        KEY: seededKey,
        API: DOCS_ORIGIN,
        WEBHOOK_URL: webhook.json.webhook_url as string,
        WEBHOOK_SECRET: webhook.json.webhook_secret as string,
        AUTOMATION_ID: automation.json.id as string,
        // Stand-ins for what a reader brings: a Linear signing secret, a model key (stored, never used: the README clears the model next).
        LINEAR_SIGNING_SECRET: 'lin_wh_docs-example-secret',
        ANTHROPIC_API_KEY: 'sk-ant-docs-example-not-a-key',
      };
      writeFileSync(
        path.join(dir, 'state.sh'),
        Object.entries(preamble)
          .map(([name, value]) => `${name}=${shellQuote(value)}\n`)
          .join(''),
      );
    }, 60_000);

    afterAll(async () => {
      if (server) await stopServer(server);
    }, 30_000);

    for (const example of examples) {
      const name = `${file}:${example.line}`;
      if (example.notRunnable) {
        it.skip(`${name} (not runnable: ${example.notRunnable})`, () => {});
        continue;
      }
      it(name, async () => {
        expect(
          targetsServer(example),
          `${name}: a curl example that does not name $API, a *_URL variable or ${DOCS_ORIGIN}; mark it not-runnable if it is not for the server`,
        ).toBe(true);
        expect(hardCodedServer(example), `${name}: the server's address written out: use $API, as the README names it`).toEqual([]);
        expect(placeholders(example), `${name}: placeholders to replace: use a variable the preamble defines, or mark the block not-runnable`).toEqual([]);
        const outcome = await runExample(example, dir, server as RunningServer);
        const expected = shownStatuses(example);
        const calls = outcome.transfers.map((transfer) => `${transfer.method} ${transfer.url} → ${transfer.status}`);
        const report = [
          `${name}${failedBefore ? ` (after ${failedBefore} failed)` : ''}`,
          `bash exit code ${outcome.exitCode}; curl exit codes [${outcome.exits.join(', ')}]`,
          'requests:',
          ...calls.map((call) => `  ${call}`),
          '--- stderr (tail, secrets redacted)',
          withDocumentLines(redact(outcome.stderr, secrets), example),
          '--- stdout (tail, secrets redacted)',
          redact(outcome.stdout, secrets),
          ...(outcome.transfers.some((transfer) => transfer.status >= 500) ? [serverLog()] : []),
        ].join('\n');
        const problems = [
          ...(outcome.exitCode === 0 ? [] : [outcome.exitCode === -1 ? 'bash was stopped after 50 s' : `bash exited with ${outcome.exitCode}`]),
          ...(outcome.exits.length === 0 ? ['it made no request'] : []),
          ...outcome.exits.filter((code) => code !== 0).map((code) => `a curl exited with ${code}`),
          ...outcome.transfers
            .filter((transfer) => transfer.status === 0 || transfer.status >= 500 || (transfer.status >= 400 && !expected.includes(transfer.status)))
            .map((transfer) => `${transfer.method} ${transfer.url} answered ${transfer.status || 'nothing'}`),
          ...expected
            .filter((status) => !outcome.transfers.some((transfer) => transfer.status === status))
            .map((status) => `the block shows a ${status} answer, but no request got one`),
        ];
        if (problems.length > 0) failedBefore ??= name;
        expect(problems, report).toEqual([]);
      });
    }
  });
}
