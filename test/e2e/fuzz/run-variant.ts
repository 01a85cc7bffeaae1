/**
 * One fuzzing session against one reference server variant: start it (child process, temp
 * data directory), create fixtures, explore with fast-check for 70% of the time budget while
 * recording every distinct violation, then replay each violation's first occurrence (seed +
 * path) and let fast-check shrink it. Always stops the server and removes the directory.
 *
 * - Requests go one at a time; one not answered within FOREGROUND_MS (at once for a request
 *   that never ends) goes on in the background until the hang limit, so a hang costs no time.
 * - The servers get 3 s request/headers deadlines (AGENT_PLATFORM_REQUEST_TIMEOUT_SECONDS,
 *   AGENT_PLATFORM_HEADERS_TIMEOUT_SECONDS), so a request that never ends must be answered
 *   (408) well within the hang limit.
 * - Ids in 2xx answers are harvested, with the request that produced them: generated paths
 *   refer to them by index, so the fuzzer reads back what it created (a stored deep payload,
 *   say) and a finding shows the request that made the id.
 * - A 5xx is grouped by the error the server logged for it.
 * @module
 */
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { startServer, type RunningServer } from '../support/reference-server.js';
import { HealthProbe } from './health-probe.js';
import { KIND_ORDER, judge, loggedErrors, normalize, type Violation, type ViolationKind } from './oracle.js';
import { operationsOf } from './openapi.js';
import { OPEN_ENDED_FRAMINGS, sendRaw, serialize, type RawResult } from './raw-http.js';
import { HARVEST_MARKER } from './hostile.js';
import { ID_PREFIXES, requestArb, type Fixtures, type FuzzCase } from './requests.js';
import { showRequest, showResult } from './show.js';

export interface Variant {
  name: string;
  /** `examples/server` or `examples/express-server`. */
  dir: string;
  storage: 'memory' | 'pglite';
}

export interface FuzzSettings {
  /** Time for exploring and minimizing, per variant. */
  seconds: number;
  seed: number;
  /** A request not answered within this is a hang. */
  hangMs: number;
  /** Replay one fast-check path (from a report) instead of exploring. */
  path?: string;
  /** At most this many findings are minimized (most severe first). */
  maxMinimized: number;
  log: (line: string) => void;
}

export interface Example {
  run: number;
  tags: string[];
  request: string;
  answer: string;
  detail: string;
  /** For each id the request took from an earlier answer, the request that created it. */
  origins?: string[];
}

export interface Finding {
  kind: ViolationKind;
  key: string;
  count: number;
  routes: Record<string, number>;
  tags: Record<string, number>;
  first: Example;
  minimized?: Example & { path: string; shrinks: number; note?: string };
  /** Why minimization was not possible, when it was tried and failed. */
  minimizeNote?: string;
}

export interface VariantReport {
  variant: string;
  seed: number;
  seconds: number;
  exploreMs: number;
  sent: number;
  skipped: number;
  minimizeSent: number;
  runs: number;
  byStatus: Record<string, number>;
  byRoute: Record<string, Record<string, number>>;
  /** The most frequent refusals: status and (normalized) detail. */
  byDetail: Record<string, number>;
  health: { probes: number; maxMs: number; slow: number; after: string };
  timingMs: { send: number; judge: number; generate: number };
  /** Wall time of each phase: start, fixtures, explore, minimize, drain, stop. */
  phasesMs: Record<string, number>;
  findings: Finding[];
  /** Answers that are not violations but worth a look (connections closed without an answer). */
  notes: Record<string, { count: number; example: string }>;
  serverExit: string | null;
  replay?: { failed: boolean; path: string | null; counterexample: string | null };
}

const KEY = 'fuzz-key-alice-0123456789abcdef';
const OTHER_KEY = 'fuzz-key-bob-0123456789abcdefgh';
const SOURCE_SECRET = 'fuzz-source-secret-0123456789';
const GITHUB_SECRET = 'fuzz-github-secret-0123456789';
const SOURCE = 'fuzz-src';
const HOST = '127.0.0.1';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const bump = (record: Record<string, number>, key: string, by = 1) => {
  record[key] = (record[key] ?? 0) + by;
};

/** Servers and directories not cleaned up yet: `cleanUpAll` (afterAll, process exit) gets them if a run was abandoned. */
const live = { servers: new Set<RunningServer>(), dirs: new Set<string>() };

export async function cleanUpAll(): Promise<void> {
  await Promise.all([...live.servers].map((server) => stopHard(server)));
  await Promise.all([...live.dirs].map((dir) => rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 })));
  live.servers.clear();
  live.dirs.clear();
}

process.once('exit', () => {
  for (const server of live.servers) server.child.kill('SIGKILL');
  for (const dir of live.dirs) rmSync(dir, { recursive: true, force: true });
});

export async function fuzzVariant(variant: Variant, settings: FuzzSettings): Promise<VariantReport> {
  const dir = await mkdtemp(path.join(tmpdir(), `agent-platform-fuzz-${variant.name}-`));
  live.dirs.add(dir);
  let server: RunningServer | undefined;
  let probe: HealthProbe | undefined;
  const phases: Record<string, number> = {};
  let mark = Date.now();
  const phase = (name: string) => {
    phases[name] = Date.now() - mark;
    mark = Date.now();
  };
  let report: VariantReport | undefined;
  // startServer leaves its child running when the server never says it is listening: the
  // marker finds that child again (and only it) to stop it.
  const marker = randomUUID();
  try {
    await mkdir(path.join(dir, 'tmp'));
    server = await startServer(variant.dir, {
      AGENT_PLATFORM_FUZZ_MARKER: marker,
      // startServer waits for the "listening at" line, logged at info: never inherit a quieter level.
      LOG_LEVEL: 'info',
      AGENT_PLATFORM_API_KEYS: `alice@acme:${KEY},bob@other:${OTHER_KEY}`,
      AGENT_PLATFORM_SECRET_KEY: Buffer.alloc(32, 9).toString('base64'),
      AGENT_PLATFORM_GITHUB_WEBHOOK_SECRET: GITHUB_SECRET,
      AGENT_PLATFORM_GITHUB_LINKS: 'Codertocat=acme,12345=acme',
      AGENT_PLATFORM_PUBLIC_URL: 'https://hooks.example.com',
      AGENT_PLATFORM_STORAGE: variant.storage,
      ...(variant.storage === 'pglite' ? { AGENT_PLATFORM_DATA_DIR: path.join(dir, 'data') } : {}),
      // Sandboxes (made by fuzzed requests) go under the temp directory too.
      TMPDIR: path.join(dir, 'tmp'),
      // A client that never finishes its request must be answered (408) well within the hang
      // limit: the reference servers' own deadlines, shortened from their 15 s / 30 s defaults.
      AGENT_PLATFORM_HEADERS_TIMEOUT_SECONDS: String(serverDeadlineMs(settings) / 1000),
      AGENT_PLATFORM_REQUEST_TIMEOUT_SECONDS: String(serverDeadlineMs(settings) / 1000),
    }).catch((error: unknown) => {
      killMarked(marker);
      throw error;
    });
    live.servers.add(server);
    phase('start');
    const port = Number(new URL(server.baseUrl).port);
    const document = await (await fetch(`${server.baseUrl}/openapi.json`)).json();
    const operations = operationsOf(document);
    const fixtures = await createFixtures(server.baseUrl, port);
    settings.log(`[${variant.name}] ${operations.length} operations from /openapi.json; fixtures: ${JSON.stringify(fixtures.ids)}`);
    phase('fixtures');

    // Built before the probe starts: building takes a moment of this process's time.
    const arbitrary = requestArb(fixtures, operations, 1024 * 1024);
    probe = new HealthProbe(HOST, port);
    probe.start();
    const session = new Session(variant, settings, server, probe, fixtures);
    const budgetMs = settings.seconds * 1000;
    let replay: VariantReport['replay'];
    let exploreMs = 0;
    if (settings.path) {
      replay = await session.replay(arbitrary, settings.path);
    } else {
      const exploreStarted = Date.now();
      await session.explore(arbitrary, Math.round(budgetMs * 0.7));
      exploreMs = Date.now() - exploreStarted;
      phase('explore');
      await session.minimize(arbitrary, budgetMs - exploreMs);
      phase('minimize');
    }
    await session.drain();
    await probe.stop();
    phase('drain');

    // After the fuzzing: still up, and /health answers within the limit at once (two more
    // probes only say whether it recovers).
    const after = [] as string[];
    const first = await probe.once();
    after.push(`${first.outcome} in ${first.ms} ms`);
    if (!first.ok) {
      for (let i = 0; i < 2; i++) {
        await sleep(500);
        const again = await probe.once();
        after.push(`${again.outcome} in ${again.ms} ms`);
      }
      session.record({ kind: 'health', key: 'health: /health not answered within 1 s after the fuzzing', summary: after.join('; ') }, null, null, -1);
    }
    const exit = session.exitStatus();
    if (exit) session.record({ kind: 'server-exit', key: 'server-exit: the server process is gone', summary: exit }, null, null, -1);
    for (const slow of probe.slow.filter((entry) => !entry.attributed)) {
      session.record({ kind: 'health', key: 'health: slow /health between requests', summary: `${slow.outcome} in ${slow.ms} ms` }, null, null, -1);
    }
    report = session.report(exploreMs, { probes: probe.probes, maxMs: probe.maxMs, slow: probe.slow.length, after: after.join('; ') }, replay);
    report.phasesMs = phases;
    return report;
  } finally {
    mark = Date.now();
    await probe?.stop();
    if (server) await stopHard(server);
    live.servers.delete(server as RunningServer);
    await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    live.dirs.delete(dir);
    phase('stop');
  }
}

/** Kills (by pid) the processes whose environment carries `marker`: a server that failed to start. Linux only. */
function killMarked(marker: string): void {
  const needle = `AGENT_PLATFORM_FUZZ_MARKER=${marker}`;
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return;
  }
  for (const pid of pids) {
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(needle)) process.kill(Number(pid), 'SIGKILL');
    } catch {
      // gone, or not ours to read
    }
  }
}

/** SIGTERM; SIGKILL if the process is still there after 10 s. */
async function stopHard(server: RunningServer): Promise<void> {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** Sources, automations, a delivery, a run, keys, a sandbox and a conversation, for ids that exist. */
async function createFixtures(baseUrl: string, port: number): Promise<Fixtures> {
  const call = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(baseUrl + route, {
      method,
      headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json().catch(() => undefined)) as any;
    if (!response.ok) throw new Error(`fixture ${method} ${route}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  // The signing source: its id stays hidden, so the fuzzer cannot delete or rotate it.
  await call('POST', '/api/automation/v1/webhooks', { name: 'fuzz', source: SOURCE, webhook_secret: SOURCE_SECRET });
  const victim = await call('POST', '/api/automation/v1/webhooks', { name: 'victim', source: 'fuzz-victim' });
  const automation = await call('POST', '/api/automation/v1', {
    name: 'fuzz',
    trigger: { type: 'event', source: SOURCE, on: '*', filter: "fuzz == 'match-me'" },
    instructions: 'Say hello.',
  });
  await call('POST', '/api/automation/v1', {
    name: 'gh',
    trigger: { type: 'event', source: 'github', on: 'issues.*', filter: "contains(issue.title, 'match-me')" },
    instructions: 'Hi.',
  });
  const body = JSON.stringify({ type: 'fuzz', fuzz: 'no' });
  const delivered = await fetch(`${baseUrl}/api/automation/v1/events/acme/${SOURCE}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-signature-256': `sha256=${createHmac('sha256', SOURCE_SECRET).update(body).digest('hex')}` },
  });
  const delivery = (await delivered.json()) as { delivery_id: string };
  const run = await call('POST', `/api/automation/v1/${automation.id}/dispatch`, { payload: { fuzz: 'fixture' } });
  const apiKey = await call('POST', '/api/keys', { name: 'victim' });
  const sandbox = await call('POST', '/api/v1/sandboxes', {});
  const task = await call('POST', '/api/v1/app-conversations', { initial_message: 'hello' });
  let conversation: string | null = null;
  for (let i = 0; i < 50 && !conversation; i++) {
    const tasks = await call('GET', `/api/v1/app-conversations/start-tasks?ids=${task.id}`);
    conversation = (Array.isArray(tasks) ? tasks[0] : tasks?.items?.[0])?.app_conversation_id ?? null;
    if (!conversation) await sleep(100);
  }
  const runId = run.id ?? run.run_id ?? run.runs_created?.[0];
  return {
    host: HOST,
    port,
    key: KEY,
    otherKey: OTHER_KEY,
    org: 'acme',
    source: SOURCE,
    spareSources: ['fuzz-a', 'fuzz-b'],
    sourceSecret: SOURCE_SECRET,
    githubSecret: GITHUB_SECRET,
    ids: {
      keys: [apiKey.id],
      webhooks: [victim.id],
      automations: [automation.id],
      deliveries: [delivery.delivery_id],
      runs: runId ? [runId] : [],
      sandboxes: [sandbox.id],
      'app-conversations': conversation ? [conversation, task.id] : [task.id],
    },
  };
}

interface Outcome {
  result: RawResult;
  violations: Violation[];
  /** The request as sent: harvested ids filled in. */
  sent: FuzzCase;
  /** For each harvested id it used, the request that created it. */
  origins: string[];
}

const ID_PATTERN = /^(key|wh|auto|dlv|run|sbx|conv|task)_[0-9a-f]{32}$/;

/** Ids in an answer (any depth up to 4), e.g. `dlv_…` from an ingested event. */
function idsIn(value: unknown, into: string[] = [], depth = 0): string[] {
  if (depth > 4) return into;
  if (typeof value === 'string' && ID_PATTERN.test(value)) into.push(value);
  else if (Array.isArray(value)) for (const item of value.slice(0, 50)) idsIn(item, into, depth + 1);
  else if (value !== null && typeof value === 'object') for (const item of Object.values(value).slice(0, 50)) idsIn(item, into, depth + 1);
  return into;
}

const fingerprint = (fuzzCase: FuzzCase) => createHash('sha1').update(serialize(fuzzCase.request)).digest('hex');

/** State of one variant's fuzzing: statistics, findings, and the way each request is sent and judged. */
class Session {
  private readonly findings = new Map<string, Finding>();
  private readonly notes = new Map<string, { count: number; example: string }>();
  private readonly byStatus: Record<string, number> = {};
  private readonly byRoute: Record<string, Record<string, number>> = {};
  private readonly byDetail: Record<string, number> = {};
  private readonly tagSent: Record<string, number> = {};
  private readonly tagHung: Record<string, number> = {};
  private readonly fingerprints = new Map<number, string>();
  private sent = 0;
  private skipped = 0;
  private minimizeSent = 0;
  private runs = 0;
  private dead: string | null = null;
  private stopped = false;
  private lastEnd = 0;
  /** Where the time goes (ms): sending and awaiting answers, judging them, and everything else (generating). */
  private readonly timing = { send: 0, judge: 0, outside: 0 };

  constructor(
    private readonly variant: Variant,
    private readonly settings: FuzzSettings,
    private readonly server: RunningServer,
    private readonly probe: HealthProbe,
    private readonly fixtures: Fixtures,
  ) {}

  exitStatus(): string | null {
    const { child } = this.server;
    if (child.exitCode !== null || child.signalCode !== null) return `exited with ${child.exitCode ?? child.signalCode}`;
    return null;
  }

  /**
   * Sends one case and judges the answer (and the health probes that ran meanwhile). With
   * `foregroundMs`, gives up waiting after that long and returns `null`: the request goes on in
   * the background until `hangMs`, and `onLate` gets its outcome then.
   */
  async execute(generated: FuzzCase, hangMs: number, foregroundMs = Infinity, onLate?: (outcome: Outcome) => void): Promise<Outcome | null> {
    const { fuzzCase, origins } = this.resolve(generated);
    const logFrom = this.server.output.length;
    const from = performance.now();
    this.timing.outside += this.lastEnd ? from - this.lastEnd : 0;
    const sending = sendRaw({
      host: this.fixtures.host,
      port: this.fixtures.port,
      bytes: serialize(fuzzCase.request),
      timeoutMs: hangMs,
      head: fuzzCase.request.method.toUpperCase() === 'HEAD',
    });
    const result = Number.isFinite(foregroundMs) ? await Promise.race([sending, sleep(foregroundMs).then(() => null)]) : await sending;
    const to = performance.now();
    this.timing.send += to - from;
    if (result === null) {
      // Slow: judge it when it ends, without blaming it for slow health probes or log lines.
      const late = sending.then((answer) => {
        this.harvest(fuzzCase, answer);
        const outcome = { result: answer, violations: [...judge(fuzzCase, answer, ''), ...this.exitViolation()], sent: fuzzCase, origins };
        onLate?.(outcome);
      });
      this.background.add(late);
      void late.finally(() => this.background.delete(late));
      this.lastEnd = performance.now();
      return null;
    }
    await this.probe.settle();
    const serverError = result.kind === 'response' && result.status >= 500;
    // startServer captures each stdout chunk twice, one after the other: drop the repeats.
    const logSince = () =>
      this.server.output
        .slice(logFrom)
        .filter((chunk, i, all) => i === 0 || chunk !== all[i - 1])
        .join('');
    let log = '';
    if (serverError) {
      // Let the error's log line arrive (a large one comes in pieces).
      for (let waited = 0; waited < 1000 && loggedErrors(log, false).length === 0; waited += 25) {
        await sleep(25);
        log = logSince();
      }
    }
    // The server logs every request: keep only the recent output, for the exit report.
    if (this.server.output.length > 400) this.server.output.splice(0, this.server.output.length - 200);
    const violations = judge(fuzzCase, result, log);
    for (const slow of this.probe.take(from, to)) {
      const weight = fuzzCase.tags.filter((tag) => /^(body|hdr|auth|frame):/.test(tag) && !['body:valid', 'body:none'].includes(tag)).sort();
      violations.push({
        kind: 'health',
        key: `health: /health slower than 1 s during ${weight.length ? weight.join(' ') : fuzzCase.route}`,
        summary: `/health ${slow.outcome} in ${slow.ms} ms while this request ran (${result.kind === 'response' ? `answered in ${result.ms} ms` : result.kind})`,
      });
    }
    violations.push(...this.exitViolation());
    this.harvest(fuzzCase, result);
    this.lastEnd = performance.now();
    this.timing.judge += this.lastEnd - to;
    return { result, violations, sent: fuzzCase, origins };
  }

  /** Ids the server handed out, by prefix, each with the request that produced it (newest last). */
  private readonly harvested = new Map<string, Array<{ id: string; origin: string }>>();

  private harvest(fuzzCase: FuzzCase, result: RawResult): void {
    if (result.kind !== 'response' || result.status < 200 || result.status >= 300 || fuzzCase.request.method.toUpperCase() === 'GET') return;
    let body: unknown;
    try {
      body = JSON.parse(result.body.toString('utf8'));
    } catch {
      return;
    }
    for (const id of new Set(idsIn(body))) {
      const prefix = id.slice(0, id.indexOf('_'));
      const pool = this.harvested.get(prefix) ?? [];
      if (pool.some((entry) => entry.id === id)) continue;
      pool.push({ id, origin: showRequest(fuzzCase.request, 600) });
      if (pool.length > 100) pool.shift();
      this.harvested.set(prefix, pool);
    }
  }

  /** The case with its harvested-id markers replaced by ids seen so far (a fixture's, when none yet). */
  private resolve(generated: FuzzCase): { fuzzCase: FuzzCase; origins: string[] } {
    const target = generated.request.target.toString('latin1');
    if (!target.includes('{{harvest:')) return { fuzzCase: generated, origins: [] };
    const origins: string[] = [];
    const resolved = target.replace(HARVEST_MARKER, (_marker, prefix: string, n: string) => {
      const pool = this.harvested.get(prefix) ?? [];
      const entry = pool.length > 0 ? pool[Number(n) % pool.length]! : null;
      if (!entry) {
        const collection = Object.keys(ID_PREFIXES).find((name) => ID_PREFIXES[name] === prefix);
        return (collection && this.fixtures.ids[collection]?.[0]) || `${prefix}_none`;
      }
      origins.push(`${entry.id} came from: ${entry.origin}`);
      return entry.id;
    });
    return { fuzzCase: { ...generated, request: { ...generated.request, target: Buffer.from(resolved, 'latin1') } }, origins };
  }

  private exitViolation(): Violation[] {
    const exit = this.exitStatus();
    if (!exit) return [];
    this.dead ??= `${exit}; last output: ${this.server.output.slice(-20).join('').slice(-3000)}`;
    return [{ kind: 'server-exit', key: 'server-exit: the server process is gone', summary: this.dead }];
  }

  /** Requests still running (slow, maybe hung) after the exploring moved on. */
  private readonly background = new Set<Promise<void>>();

  async drain(): Promise<void> {
    await Promise.all([...this.background]);
  }

  /**
   * Whether to skip a case: it carries a framing, header or method tag whose requests mostly
   * hang (each one holds a connection until the hang limit, and teaches nothing new).
   * `tagSent` counts answered requests; `tagHung` those unanswered after FOREGROUND_MS.
   */
  private hopeless(fuzzCase: FuzzCase): boolean {
    return fuzzCase.tags.some(
      (tag) => /^(frame|hdr|method):/.test(tag) && (this.tagHung[tag] ?? 0) >= 3 && (this.tagHung[tag] ?? 0) >= (this.tagSent[tag] ?? 0),
    );
  }

  record(violation: Violation, fuzzCase: FuzzCase | null, result: RawResult | null, run: number, origins: string[] = []): void {
    let finding = this.findings.get(violation.key);
    if (!finding) {
      finding = {
        kind: violation.kind,
        key: violation.key,
        count: 0,
        routes: {},
        tags: {},
        first: {
          run,
          tags: fuzzCase?.tags ?? [],
          request: fuzzCase ? showRequest(fuzzCase.request) : '(none)',
          answer: result ? showResult(result) : '(none)',
          detail: violation.summary,
          ...(origins.length > 0 ? { origins } : {}),
        },
      };
      this.findings.set(violation.key, finding);
      this.settings.log(`[${this.variant.name}] new finding #${this.findings.size} (run ${run}): ${violation.key}`);
    }
    finding.count++;
    if (fuzzCase) {
      bump(finding.routes, fuzzCase.route);
      for (const tag of fuzzCase.tags) bump(finding.tags, tag);
    }
  }

  /** Phase 1: generate and send until the time is up; never fails, records everything. */
  async explore(arbitrary: fc.Arbitrary<FuzzCase>, timeMs: number): Promise<void> {
    // Requests that never end are left out near the end: waiting for their answers would
    // outlast the exploring (they are answered, if at all, after the server's deadline).
    const openEndedUntil = Date.now() + timeMs - serverDeadlineMs(this.settings) - 1000;
    const property = fc.asyncProperty(arbitrary, async (fuzzCase) => {
      const run = this.runs++;
      if (this.dead) {
        // Stop fast-check's loop once (the failure ends the run; nothing smaller fails after).
        if (this.stopped) return true;
        this.stopped = true;
        throw new Error(`server gone: ${this.dead}`);
      }
      if (this.hopeless(fuzzCase) || (OPEN_ENDED_FRAMINGS.has(fuzzCase.request.framing) && Date.now() > openEndedUntil)) {
        this.skipped++;
        return true;
      }
      this.fingerprints.set(run, fingerprint(fuzzCase));
      // Never more than MAX_BACKGROUND slow requests at once.
      while (this.background.size >= MAX_BACKGROUND) await Promise.race([...this.background]);
      const settle = (outcome: Outcome) => {
        this.count(outcome.sent, outcome.result);
        for (const violation of outcome.violations) this.record(violation, outcome.sent, outcome.result, run, outcome.origins);
      };
      // A body that never ends is slow by design: let it wait in the background at once.
      const foregroundMs = OPEN_ENDED_FRAMINGS.has(fuzzCase.request.framing) ? 100 : FOREGROUND_MS;
      const outcome = await this.execute(fuzzCase, this.settings.hangMs, foregroundMs, settle);
      if (outcome) settle(outcome);
      // Slow counts as hung for skipping at once: the answer may take until the hang limit.
      else for (const tag of fuzzCase.tags) bump(this.tagHung, tag);
      return true;
    });
    await fc.check(property, { seed: this.settings.seed, numRuns: NUM_RUNS, plugins: [fc.interruptAfterTimeLimit(timeMs)] });
  }

  private count(fuzzCase: FuzzCase, result: RawResult): void {
    this.sent++;
    const status = result.kind === 'response' ? String(result.status) : result.kind;
    bump(this.byStatus, status);
    const routeCounts = this.byRoute[fuzzCase.route] ?? {};
    this.byRoute[fuzzCase.route] = routeCounts;
    bump(routeCounts, status);
    if (result.kind === 'response' && result.status >= 300) {
      let detail: unknown;
      try {
        detail = (JSON.parse(result.body.toString('utf8')) as { detail?: unknown }).detail;
      } catch {
        detail = result.body.toString('latin1');
      }
      const text =
        typeof detail === 'string'
          ? detail
          : Array.isArray(detail)
            ? `[${detail.map((issue: { loc?: unknown[]; type?: string }) => `${(issue.loc ?? []).join('.')}:${issue.type}`).join(', ')}]`
            : JSON.stringify(detail);
      bump(this.byDetail, `${result.status} ${normalize(text ?? '', 90)}`);
    }
    for (const tag of fuzzCase.tags) bump(this.tagSent, tag);
    if (result.kind === 'closed') {
      const key = `closed without an answer: ${
        fuzzCase.tags
          .filter((tag) => /^(hdr|frame|method|auth):/.test(tag))
          .sort()
          .join(' ') || fuzzCase.route
      }`;
      const note = this.notes.get(key) ?? { count: 0, example: `${showRequest(fuzzCase.request, 400)}\n→ ${showResult(result)}` };
      note.count++;
      this.notes.set(key, note);
    }
  }

  /** Phase 2: replay each finding's first occurrence and let fast-check shrink it, most severe first. */
  async minimize(arbitrary: fc.Arbitrary<FuzzCase>, timeMs: number): Promise<void> {
    const deadline = Date.now() + Math.max(timeMs, 0);
    const candidates = [...this.findings.values()]
      .filter((finding) => finding.first.run >= 0 && !['server-exit', 'hang'].includes(finding.kind))
      .sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind))
      .slice(0, this.settings.maxMinimized);
    for (const finding of [...this.findings.values()].filter((f) => f.kind === 'hang')) {
      finding.minimizeNote = `not minimized: every attempt costs up to ${this.settings.hangMs} ms`;
    }
    // The time left is shared by weight: severe findings get more of it.
    const weightOf = (finding: Finding) => ({ 'server-exit': 3, '5xx': 3, health: 3, hang: 1, echo: 2, shape: 1 })[finding.kind];
    for (const [index, finding] of candidates.entries()) {
      if (this.dead) break;
      const left = deadline - Date.now();
      const weightLeft = candidates.slice(index).reduce((sum, candidate) => sum + weightOf(candidate), 0);
      const share = Math.floor((left * weightOf(finding)) / weightLeft);
      if (share < 500) {
        finding.minimizeNote = 'not minimized: out of time';
        continue;
      }
      const expected = this.fingerprints.get(finding.first.run);
      let first = true;
      let mismatch = false;
      let last: { fuzzCase: FuzzCase; outcome: Outcome } | null = null;
      const property = fc.asyncProperty(arbitrary, async (fuzzCase) => {
        if (first) {
          first = false;
          if (fingerprint(fuzzCase) !== expected) {
            mismatch = true;
            return true;
          }
        }
        if (this.dead) return true;
        // Shrinking is no place for hangs: give up on a candidate quickly.
        const outcome = (await this.execute(fuzzCase, Math.min(this.settings.hangMs, OPEN_ENDED_FRAMINGS.has(fuzzCase.request.framing) ? 1000 : 3000)))!;
        this.minimizeSent++;
        const hit = outcome.violations.some((violation) => violation.key === finding.key);
        if (hit) last = { fuzzCase: outcome.sent, outcome };
        return !hit;
      });
      const details = await fc.check(property, {
        seed: this.settings.seed,
        path: String(finding.first.run),
        numRuns: NUM_RUNS,
        plugins: [fc.interruptAfterTimeLimit(share)],
      });
      if (mismatch) finding.minimizeNote = 'not minimized: replaying the seed and path produced another request';
      else if (!details.failed || !last) finding.minimizeNote = 'not reproduced on replay (depends on server state or timing)';
      else {
        const { fuzzCase, outcome } = last as { fuzzCase: FuzzCase; outcome: Outcome };
        const violation = outcome.violations.find((v) => v.key === finding.key)!;
        finding.minimized = {
          run: finding.first.run,
          path: details.counterexamplePath ?? String(finding.first.run),
          shrinks: details.numShrinks,
          tags: fuzzCase.tags,
          request: showRequest(fuzzCase.request),
          answer: showResult(outcome.result),
          detail: violation.summary,
          ...(outcome.origins.length > 0 ? { origins: outcome.origins } : {}),
          ...(details.interrupted ? { note: 'shrinking stopped by the time limit' } : {}),
        };
      }
    }
  }

  /** Replays one path (from a report): fails on any violation, and shrinks. */
  async replay(arbitrary: fc.Arbitrary<FuzzCase>, pathToReplay: string): Promise<VariantReport['replay']> {
    let last: { fuzzCase: FuzzCase; outcome: Outcome } | null = null;
    const property = fc.asyncProperty(arbitrary, async (fuzzCase) => {
      const outcome = (await this.execute(fuzzCase, this.settings.hangMs))!;
      this.count(outcome.sent, outcome.result);
      this.settings.log(`[${this.variant.name}] replay: ${fuzzCase.route} ${fuzzCase.tags.join(' ')} → ${showResult(outcome.result, 200)}`);
      if (outcome.violations.length > 0) last = { fuzzCase: outcome.sent, outcome };
      for (const violation of outcome.violations) this.record(violation, outcome.sent, outcome.result, -1, outcome.origins);
      return outcome.violations.length === 0;
    });
    const details = await fc.check(property, {
      seed: this.settings.seed,
      path: pathToReplay,
      numRuns: NUM_RUNS,
      plugins: [fc.interruptAfterTimeLimit(this.settings.seconds * 1000)],
    });
    const found = last as { fuzzCase: FuzzCase; outcome: Outcome } | null;
    return {
      failed: details.failed,
      path: details.counterexamplePath,
      counterexample: found ? `${showRequest(found.fuzzCase.request)}\n→ ${showResult(found.outcome.result)}` : null,
    };
  }

  report(exploreMs: number, health: VariantReport['health'], replay: VariantReport['replay']): VariantReport {
    const findings = [...this.findings.values()].sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || b.count - a.count);
    return {
      variant: this.variant.name,
      seed: this.settings.seed,
      seconds: this.settings.seconds,
      exploreMs,
      sent: this.sent,
      skipped: this.skipped,
      minimizeSent: this.minimizeSent,
      runs: this.runs,
      byStatus: this.byStatus,
      byRoute: this.byRoute,
      byDetail: Object.fromEntries(
        Object.entries(this.byDetail)
          .sort((a, b) => b[1] - a[1])
          .slice(0, 60),
      ),
      health,
      timingMs: { send: Math.round(this.timing.send), judge: Math.round(this.timing.judge), generate: Math.round(this.timing.outside) },
      phasesMs: {},
      findings,
      notes: Object.fromEntries(this.notes),
      serverExit: this.dead,
      ...(replay ? { replay } : {}),
    };
  }
}

/** The request deadline given to the server: well within the hang limit. */
const serverDeadlineMs = (settings: FuzzSettings) => Math.min(3000, Math.floor(settings.hangMs / 3));

/** How long the exploring waits for an answer before leaving the request to finish in the background. */
const FOREGROUND_MS = 1000;
const MAX_BACKGROUND = 24;

/** The same in exploring and replaying, so a recorded path replays the same request. */
const NUM_RUNS = 10_000_000;
