/**
 * Filter bounds: how long the worst hostile filters take to fail closed over
 * the largest payload, and how long 132 `glob()` calls over a 1 MiB string take. Each hostile
 * filter below is accepted when saved (the save-time growth check lets it through), so only the
 * evaluation budget stands between it and the event loop. They run through `matchEvent`, as a
 * delivery does, over three 5 MiB payloads (text, a long array, an object of 300,000 keys);
 * each is timed warm: the slowest of 5 runs after one warm-up, in wall time (what blocks the
 * event loop) and in CPU time of the process (garbage-collector threads included). Prints one
 * line (VERBOSE=1 also prints each filter's figures on stderr).
 *
 *   npx tsx --conditions=agent-platform-source filter-bounds.ts [runs]
 */
import { SourceIndex, compileExpression, matchEvent } from '@agent-platform/core';
import { makeAutomationRecord } from '@agent-platform/testing/fixtures';

const runs = Number(process.argv[2] ?? 5);
const MiB = 1 << 20;
const LIMIT = 5 * MiB;

function fill<T>(make: (i: number) => T, size: (value: T[]) => number): T[] {
  const values: T[] = [];
  let length = 1;
  while (size(values) < LIMIT - 64 * 1024) {
    for (let i = 0; i < length; i++) values.push(make(values.length));
    length *= 2;
    if (size(values) > LIMIT) {
      while (size(values) > LIMIT - 64 * 1024) values.length = Math.floor(values.length * 0.98);
      break;
    }
  }
  return values;
}

const jsonSize = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
const sentence = 'The login page crashes when the password contains a quote; see the attached log. ';
const textPayload = { action: 'opened', title: 'Crash', body: sentence.repeat(Math.floor((LIMIT - 4096) / sentence.length)) };
const items = fill(
  (i) => ({ x: i % 3, id: i, name: `n${i}` }),
  (values) => jsonSize(values) + 32,
);
const arrayPayload = { action: 'opened', items };
const keyCount = 300_000;
const dict: Record<string, number> = JSON.parse(`{${Array.from({ length: keyCount }, (_, i) => `"k${i}":${i}`).join(',')}}`);
const dictPayload = { action: 'opened', d: dict };
const payloads = { text: textPayload, array: arrayPayload, object: dictPayload };
for (const [name, payload] of Object.entries(payloads)) {
  if (jsonSize(payload) > LIMIT) throw new Error(`${name} payload exceeds 5 MiB`);
}

const repeat = (count: number, make: (i: number) => string, separator: string) => Array.from({ length: count }, (_, i) => make(i)).join(separator);
const eight = `[${repeat(8, () => '@', ',')}]`;
const HOSTILE: [string, keyof typeof payloads, string][] = [
  ['512-fold multi-select serialised', 'text', `length(to_string(@|${eight}|${eight}|${eight})) > \`0\``],
  ['512-fold flatten of the array', 'array', `length(items|${eight}[]|${eight}[]|${eight}[]) > \`0\``],
  ['1024-fold doubling, projected', 'array', `length(items|${repeat(10, () => '[@,@][]', '|')}|[?x > \`1\`]) > \`0\``],
  ['deep equality of built arrays', 'array', 'items[*].[x, id, name] == items[*].[x, id, name]'],
  ['projection of the array over itself', 'array', 'length(let $r = @ in items[*].[$r.items][][*].[$r.items][][*].x) > `0`'],
  ['padding to 1e9', 'text', 'length(pad_left(title, `1000000000`)) > `0`'],
  ['replace 1e8 times', 'text', "replace(title, 'C', 'CC', `100000000`) == 'x'"],
  ['nested replace of the empty string', 'text', "length(replace(replace(replace(body, '', 'xx'), '', 'xx'), '', 'xx')) > `0`"],
  ['join of one text 500 times', 'text', `length(join('', [${repeat(500, () => 'body', ',')}])) > \`0\``],
  ['trim_right of the text (quadratic regex before)', 'text', `${repeat(40, () => 'length(trim_right(body))', ' + ')} > \`0\``],
  ['132 glob scans of the text', 'text', repeat(132, (i) => `glob(body,'*[!a]${i}*')`, '||')],
  ['132 icontains of the text', 'text', repeat(132, (i) => `icontains(body, 'zq${i}')`, ' || ')],
  ['lower-casing the text 120 times', 'text', repeat(120, (i) => `contains(lower(body),'q${i}')`, '||')],
  ['string slices 150 times', 'text', `${repeat(150, () => 'length(body[::-1])', '+')} > \`0\``],
  ['sorting the array 40 times', 'array', `${repeat(40, () => 'length(sort(items[].id))', ' + ')} > \`0\``],
  ['sort_by serialising each element', 'array', 'length(sort_by(items, &to_string(@))) > `0`'],
  ['serialising the array 20 times', 'array', `${repeat(20, () => 'length(to_string(items))', ' + ')} > \`0\``],
  ['filtering the array 50 times', 'array', `${repeat(50, () => 'length(items[?x > `1`].name)', ' + ')} > \`0\``],
  ['values of a 300,000-key object 200 times', 'object', `${repeat(200, () => 'length(values(d))', '+')} > \`0\``],
  ['truthiness of a 300,000-key object 600 times', 'object', repeat(600, () => 'd', ' && ')],
  ['items of a 300,000-key object', 'object', 'length(items(d)) > `0`'],
];

let counter = 0;
const indexOf = (filter: string) =>
  new SourceIndex([
    makeAutomationRecord({ id: `auto_${counter++}`, org_id: 'acme', enabled: true, trigger: { type: 'event', source: 'bench', on: 'x', filter } }),
  ]);

/** CPU time of the process (this thread and the garbage collector's), in ms. */
const cpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

let worstWall = { ms: 0, name: '' };
let worstCpu = { ms: 0, name: '' };
let failedClosed = 0;
for (const [name, payloadName, filter] of HOSTILE) {
  compileExpression(filter); // throws if the save-time check would refuse it
  const index = indexOf(filter);
  const payload = payloads[payloadName];
  let slowest = 0;
  let mostCpu = 0;
  let outcome = matchEvent(index, 'x', payload).outcomes[0];
  for (let run = 0; run < runs; run++) {
    const cpu = cpuMs();
    const started = performance.now();
    outcome = matchEvent(index, 'x', payload).outcomes[0];
    slowest = Math.max(slowest, performance.now() - started);
    mostCpu = Math.max(mostCpu, cpuMs() - cpu);
  }
  if (outcome?.reason === 'filter_error') failedClosed++;
  if (process.env.VERBOSE) console.error(`${name}: ${slowest.toFixed(1)} ms (CPU ${mostCpu.toFixed(1)} ms), ${outcome?.reason} ${outcome?.error ?? ''}`);
  if (slowest > worstWall.ms) worstWall = { ms: slowest, name };
  if (mostCpu > worstCpu.ms) worstCpu = { ms: mostCpu, name };
}

// 132 glob calls over a 1 MiB subject, with patterns of every shape (prefix, suffix, middle, sets).
const subject = `refs/heads/${'release-notes '.repeat(Math.floor((MiB - 20) / 14))}v1.2.3`;
const patterns = [
  'refs/heads/*',
  '*v1.2.3',
  '*notes v1.?.3',
  'refs/*/release-*',
  '*[0-9].[0-9].[0-9]',
  '*release-notes v1*',
  'refs/tags/*',
  '*v2.*',
  '*[!a-z]',
];
const globFilter = compileExpression(`[${repeat(132, (i) => `glob(s, '${patterns[i % patterns.length]}')`, ', ')}]`);
const expected = Array.from({ length: 132 }, (_, i) => ![6, 7].includes(i % patterns.length));
const globTimes: number[] = [];
let globFailure = '';
for (let run = 0; run <= Math.max(runs, 5); run++) {
  const started = performance.now();
  try {
    const result = globFilter.evaluate({ s: subject });
    if (JSON.stringify(result) !== JSON.stringify(expected)) throw new Error('glob results are wrong');
  } catch (error) {
    globFailure = (error as Error).message;
  }
  if (run > 0) globTimes.push(performance.now() - started);
}
globTimes.sort((a, b) => a - b);
const globFigure = globFailure ? `failed (${globFailure})` : `${globTimes[Math.floor(globTimes.length / 2)]!.toFixed(2)} ms (median)`;

console.log(
  `filter-bounds: ${HOSTILE.length} hostile filters over 5 MiB payloads, ${failedClosed} failed closed; ` +
    `slowest ${worstWall.ms.toFixed(1)} ms wall (${worstWall.name}), ${worstCpu.ms.toFixed(1)} ms CPU (${worstCpu.name}); ` +
    `132 glob() calls over 1 MiB ${globFigure}`,
);
