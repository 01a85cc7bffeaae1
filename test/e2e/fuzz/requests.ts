/**
 * The request generator: for each operation of the server's OpenAPI document, requests built
 * from its path template, parameters and body schema, with hostile mutations layered on (method,
 * path shape and encoding, query, credentials, headers, content type, body, framing), plus the
 * inbound event endpoints signed correctly (or not) so the fuzzer reaches past verification,
 * plus paths no route has.
 * @module
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { NOT_JSON_TOKENS, NUMBER_TOKENS, choice, hostileString, percentEncode, segment, tagged, wtf8, type Segment, type Tagged } from './hostile.js';
import { Entries, Raw, cloneTree, deepNesting, slotsOf, toJsonText } from './json-text.js';
import { expressionArb, globArb } from './grammars.js';
import { fillPath, valueFor, type Hints, type JsonSchema, type Operation, type Parameter } from './openapi.js';
import type { Framing, WireRequest } from './raw-http.js';

export interface Fixtures {
  host: string;
  port: number;
  /** The seeded key (alice@acme). */
  key: string;
  /** Another seeded key, of another org (bob@other). */
  otherKey: string;
  org: string;
  /** A registered hmac-sha256 source whose secret is known; its id is never given to the fuzzer. */
  source: string;
  /** Sources the fuzzer may create (with `sourceSecret`, so their events can be signed). */
  spareSources: string[];
  sourceSecret: string;
  githubSecret: string;
  /** Existing ids, by the collection their route names (`keys`, `webhooks`, `deliveries`, ...). */
  ids: Record<string, string[]>;
}

export interface FuzzCase {
  /** `GET /api/keys/{id}`, or `RANDOM` for paths no operation has. */
  route: string;
  /** Every mutation applied, e.g. `auth:none`, `body:deep-object`, `frame:short`. */
  tags: string[];
  request: WireRequest;
}

const EVENT_PATH = '/api/automation/v1/events/{org_id}/{source}';
const GITHUB_PATH = '/api/automation/v1/events/github';
const ALL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'FOO', 'get', 'CONNECT'];

// ---------------------------------------------------------------------------------------------
// Credentials and headers

type HeaderList = Array<[string, Buffer]>;
const h = (name: string, value: string | Buffer): [string, Buffer] => [name, typeof value === 'string' ? Buffer.from(value, 'latin1') : value];

function authArb(fixtures: Fixtures, usual: 'bearer' | 'none'): fc.Arbitrary<Tagged<HeaderList>> {
  const bearer = (key: string) => h('Authorization', `Bearer ${key}`);
  const session = (key: string) => h('X-Session-API-Key', key);
  const wrong = fc.stringMatching(/^[A-Za-z0-9_-]{16,40}$/);
  const options: Array<fc.Arbitrary<Tagged<HeaderList>> | fc.WeightedArbitrary<Tagged<HeaderList>>> = [
    tagged('auth:bearer', fc.constant([bearer(fixtures.key)])),
    tagged('auth:session', fc.constant([session(fixtures.key)])),
    tagged('auth:none', fc.constant([])),
    tagged(
      'auth:wrong',
      wrong.map((key) => [bearer(key)]),
    ),
    tagged(
      'auth:dup-authorization',
      fc.constantFrom(
        [bearer(fixtures.key), h('Authorization', 'Bearer wrong-wrong-wrong-wrong')],
        [h('Authorization', 'Bearer wrong-wrong-wrong-wrong'), bearer(fixtures.key)],
        [bearer(fixtures.key), bearer(fixtures.otherKey)],
      ),
    ),
    tagged(
      'auth:bearer+session-differ',
      fc.constantFrom(
        [bearer(fixtures.key), session(fixtures.otherKey)],
        [session(fixtures.key), bearer(fixtures.otherKey)],
        [bearer(fixtures.key), session('wrong-wrong-wrong-wrong')],
        [session(fixtures.key), session(fixtures.otherKey)],
        [bearer(fixtures.key), h('X-Session-API-Key', '')],
      ),
    ),
    tagged('auth:nul', fc.constantFrom([h('Authorization', `Bearer ${fixtures.key}\u0000`)], [h('X-Session-API-Key', `\u0000${fixtures.key}`)])),
    tagged('auth:huge', fc.constantFrom([h('Authorization', `Bearer ${'a'.repeat(60 * 1024)}`)], [h('X-Session-API-Key', 'k'.repeat(60 * 1024))])),
    tagged(
      'auth:odd-scheme',
      fc.constantFrom(
        [h('Authorization', `bearer ${fixtures.key}`)],
        [h('Authorization', `Bearer  ${fixtures.key}  `)],
        [h('Authorization', `Bearer ${fixtures.key} extra`)],
        [h('Authorization', `Basic ${Buffer.from(`alice:${fixtures.key}`).toString('base64')}`)],
        [h('Authorization', 'Bearer')],
        [h('Authorization', `Bearer\t${fixtures.key}`)],
      ),
    ),
    tagged(
      'auth:hostile-key',
      hostileString(2000).map(({ value }) => [h('Authorization', Buffer.concat([Buffer.from('Bearer '), wtf8(value)]))]),
    ),
    tagged(
      'auth:hostile-session',
      hostileString(2000).map(({ value }) => [h('X-Session-API-Key', wtf8(value))]),
    ),
  ];
  if (usual === 'none') {
    // Event endpoints take no API key: usually send none.
    const none = options.splice(2, 1)[0] as fc.Arbitrary<Tagged<HeaderList>>;
    options.unshift({ weight: 40, arbitrary: none });
  } else {
    options[0] = { weight: 40, arbitrary: options[0] as fc.Arbitrary<Tagged<HeaderList>> };
  }
  return choice(...options);
}

interface HeaderMutation {
  tag: string;
  add: HeaderList;
  dropHost?: boolean;
  keepAlive?: boolean;
  /** Another protocol version on the request line. */
  version?: string;
}

function headerMutationArb(): fc.Arbitrary<HeaderMutation> {
  const m = (tag: string, add: HeaderList, extra: Partial<HeaderMutation> = {}): HeaderMutation => ({ tag, add, ...extra });
  return choice(
    fc.constantFrom(
      m('hdr:huge-60k', [h('X-Fuzz', 'a'.repeat(60 * 1024))]),
      m('hdr:big-8k', [h('X-Fuzz', 'b'.repeat(8 * 1024))]),
      m('hdr:nul', [h('X-Fuzz', 'a\u0000b')]),
      m('hdr:control', [h('X-Fuzz', '\u0001\u0002\u001b[31m')]),
      m('hdr:high-bytes', [h('X-Fuzz', Buffer.from([0x80, 0xff, 0xfe, 0xc3]))]),
      m('hdr:utf8', [h('X-Fuzz', wtf8('é💥\ud800'))]),
      m('hdr:obs-fold', [h('X-Fuzz', 'a\r\n b')]),
      m('hdr:bare-cr', [h('X-Fuzz', 'a\rb')]),
      m('hdr:bad-name', [h('X Fuzz', 'a')]),
      m('hdr:bad-name-utf8', [h('X-F\u00fc', 'a')]),
      m('hdr:empty-name', [h('', 'a')]),
      m(
        'hdr:many',
        Array.from({ length: 300 }, (_, i) => h(`X-F-${i}`, String(i))),
      ),
      m('hdr:expect-continue', [h('Expect', '100-continue')]),
      m('hdr:expect-bogus', [h('Expect', '999-bogus')]),
      m('hdr:no-host', [], { dropHost: true }),
      m('hdr:dup-host', [h('Host', 'evil.example')]),
      m('hdr:upgrade', [h('Connection', 'Upgrade'), h('Upgrade', 'websocket')], { keepAlive: true }),
      m('hdr:keep-alive', [h('Connection', 'keep-alive')], { keepAlive: true }),
      m('hdr:content-encoding', [h('Content-Encoding', 'gzip')]),
      m('hdr:dup-content-type', [h('Content-Type', 'text/plain')]),
      m('hdr:x-forwarded', [h('X-Forwarded-For', '1.1.1.1, \u0000, ::1'), h('X-Forwarded-Host', 'evil.example')]),
      m('hdr:accept', [h('Accept', 'application/xml;q=1, */*;q=0')]),
      m('hdr:te', [h('TE', 'trailers, deflate')]),
      m('hdr:http-1.0', [], { version: 'HTTP/1.0' }),
      m('hdr:http-2', [], { version: 'HTTP/2.0' }),
      m('hdr:http-9', [], { version: 'HTTP/9.9' }),
      m('hdr:http-lower', [], { version: 'http/1.1' }),
      m('hdr:http-none', [], { version: '' }),
    ),
    hostileString(4000).map(({ value, tag }) => m(`hdr:hostile-${tag}`, [h('X-Fuzz', wtf8(value))])),
  );
}

const CONTENT_TYPES: Array<[string, string | null]> = [
  ['ct:json', 'application/json'],
  ['ct:json-utf8', 'application/json; charset=utf-8'],
  ['ct:none', null],
  ['ct:upper', 'APPLICATION/JSON'],
  ['ct:plus-json', 'application/merge-patch+json'],
  ['ct:text', 'text/plain'],
  ['ct:form', 'application/x-www-form-urlencoded'],
  ['ct:multipart', 'multipart/form-data; boundary=x'],
  ['ct:utf16', 'application/json; charset=utf-16le'],
  ['ct:empty', ''],
  ['ct:semicolons', ';;;'],
  ['ct:nul', 'application/json\u0000'],
  ['ct:long', `application/${'x'.repeat(10_000)}+json`],
  ['ct:list', 'application/json, text/plain'],
  ['ct:bad-charset', 'application/json; charset=klingon'],
];

function contentTypeArb(): fc.Arbitrary<Tagged<string | null>> {
  return choice(
    { weight: 50, arbitrary: fc.constant({ tag: 'ct:json', value: 'application/json' as string | null }) },
    ...CONTENT_TYPES.slice(1).map(([tag, value]) => ({ weight: 1, arbitrary: fc.constant({ tag, value }) })),
  );
}

const FRAMINGS: Framing[] = [
  'length',
  'chunked',
  'bad-chunked',
  'unterminated-chunked',
  'short',
  'long',
  'conflicting',
  'duplicate-length',
  'bad-length',
  'none',
  'unterminated-headers',
];

function framingArb(): fc.Arbitrary<Framing> {
  return choice(
    { weight: 80, arbitrary: fc.constant<Framing>('length') },
    { weight: 4, arbitrary: fc.constant<Framing>('chunked') },
    ...FRAMINGS.slice(2).map((framing) => ({ weight: 1, arbitrary: fc.constant(framing) })),
  );
}

// ---------------------------------------------------------------------------------------------
// Bodies

interface BodyPlan {
  tag: string;
  bytes: Buffer | null;
}

type Mutation =
  | { kind: 'wrong-type'; at: number; value: unknown }
  | { kind: 'null'; at: number }
  | { kind: 'huge-string'; at: number; value: string }
  | { kind: 'hostile-string'; at: number; value: string; tag: string }
  | { kind: 'deep'; at: number; depth: number; shape: 'array' | 'object' }
  | { kind: 'number'; at: number; token: string }
  | { kind: 'not-json'; at: number; token: string }
  | { kind: 'extra-key'; at: number; key: string; tag: string }
  | { kind: 'dup-key'; at: number; value: unknown }
  | { kind: 'remove-key'; at: number };

function mutationArb(): fc.Arbitrary<Mutation> {
  const at = fc.nat(1000);
  return choice<Mutation>(
    fc.record({ kind: fc.constant('wrong-type' as const), at, value: fc.constantFrom<unknown>(0, -1, 'x', true, [], {}, [[1]], { a: null }) }),
    fc.record({ kind: fc.constant('null' as const), at }),
    fc.record({ kind: fc.constant('huge-string' as const), at, value: fc.constantFrom('a'.repeat(100_000), 'é'.repeat(50_000), '\u0000'.repeat(20_000)) }),
    hostileString(10_000).chain(({ value, tag }) =>
      fc.record({ kind: fc.constant('hostile-string' as const), at, value: fc.constant(value), tag: fc.constant(tag) }),
    ),
    fc.record({
      kind: fc.constant('deep' as const),
      at,
      depth: fc.constantFrom(100, 1000, 10_000, 100_000),
      shape: fc.constantFrom('array' as const, 'object' as const),
    }),
    fc.record({ kind: fc.constant('number' as const), at, token: fc.constantFrom(...NUMBER_TOKENS) }),
    fc.record({ kind: fc.constant('not-json' as const), at, token: fc.constantFrom(...NOT_JSON_TOKENS) }),
    hostileString(10_000).chain(({ value, tag }) => fc.record({ kind: fc.constant('extra-key' as const), at, key: fc.constant(value), tag: fc.constant(tag) })),
    fc.record({ kind: fc.constant('dup-key' as const), at, value: fc.constantFrom<unknown>(1, 'dup', null, { x: 1 }) }),
    fc.record({ kind: fc.constant('remove-key' as const), at }),
  );
}

/** `value` with `mutation` applied (on a copy); the tag names what was done. */
function mutate(value: unknown, mutation: Mutation): { value: unknown; tag: string } {
  const root = { v: cloneTree(value) } as Record<string, unknown>;
  const slots = slotsOf(root.v);
  const slot = slots[mutation.at % slots.length]!;
  const replace = (next: unknown) => {
    if (slot.parent === null) root.v = next;
    else (slot.parent as Record<string | number, unknown>)[slot.key as string | number] = next;
  };
  const objects = slots.filter((candidate) => isObject(candidate.value) && !(candidate.value instanceof Raw) && !(candidate.value instanceof Entries));
  const objectSlot = objects.length > 0 ? objects[mutation.at % objects.length]! : null;
  const replaceObject = (next: unknown) => {
    if (!objectSlot || objectSlot.parent === null) root.v = next;
    else (objectSlot.parent as Record<string | number, unknown>)[objectSlot.key as string | number] = next;
  };
  switch (mutation.kind) {
    case 'wrong-type':
      replace(mutation.value);
      return { value: root.v, tag: 'body:wrong-type' };
    case 'null':
      replace(null);
      return { value: root.v, tag: 'body:null-field' };
    case 'huge-string':
      replace(mutation.value);
      return { value: root.v, tag: 'body:huge-string' };
    case 'hostile-string':
      replace(mutation.value);
      return { value: root.v, tag: `body:string-${mutation.tag}` };
    case 'deep':
      replace(deepNesting(mutation.depth, mutation.shape));
      return { value: root.v, tag: `body:deep-${mutation.shape}-${mutation.depth}` };
    case 'number':
      replace(new Raw(mutation.token));
      return { value: root.v, tag: 'body:number-token' };
    case 'not-json':
      replace(new Raw(mutation.token));
      return { value: root.v, tag: 'body:not-json-token' };
    case 'extra-key': {
      const target = objectSlot?.value as Record<string, unknown> | undefined;
      replaceObject(new Entries([...Object.entries(target ?? {}), [mutation.key, 1]]));
      return { value: root.v, tag: `body:extra-key-${mutation.tag}` };
    }
    case 'dup-key': {
      const target = objectSlot?.value as Record<string, unknown> | undefined;
      const entries = Object.entries(target ?? {});
      const key = entries[0]?.[0] ?? 'name';
      replaceObject(new Entries([...entries, [key, mutation.value]]));
      return { value: root.v, tag: 'body:dup-key' };
    }
    case 'remove-key': {
      const target = objectSlot?.value as Record<string, unknown> | undefined;
      const entries = Object.entries(target ?? {});
      replaceObject(new Entries(entries.slice(1)));
      return { value: root.v, tag: 'body:remove-key' };
    }
  }
}

const INVALID_UTF8 = [[0xed, 0xa0, 0x80], [0xff], [0xc0, 0xaf], [0xe2, 0x82], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xfe, 0xff]];

/** Bodies for a JSON-taking route: valid from the schema first, then every way of breaking it. */
function bodyArb(valid: fc.Arbitrary<unknown>, hasBody: boolean, maxBytes: number): fc.Arbitrary<BodyPlan> {
  const text = (value: unknown) => toJsonText(value);
  const plans: Array<fc.WeightedArbitrary<BodyPlan>> = [
    { weight: hasBody ? 6 : 1, arbitrary: valid.map((value) => ({ tag: 'body:valid', bytes: Buffer.from(text(value)) })) },
    {
      weight: hasBody ? 14 : 1,
      arbitrary: fc.tuple(valid, mutationArb()).map(([value, mutation]) => {
        const mutated = mutate(value, mutation);
        return { tag: mutated.tag, bytes: wtf8(text(mutated.value)) };
      }),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom('', ' ', '\n\t ', 'null', '[]', '"s"', '1', 'true', '{}').map((top) => ({ tag: 'body:top-level', bytes: Buffer.from(top) })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(1000, 100_000), fc.constantFrom('array' as const, 'object' as const))
        .map(([depth, shape]) => ({ tag: `body:top-deep-${shape}-${depth}`, bytes: Buffer.from(deepNesting(depth, shape).text) })),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(valid, fc.nat()).map(([value, cut]) => {
        const full = text(value);
        return { tag: 'body:truncated', bytes: Buffer.from(full.slice(0, full.length > 1 ? (cut % (full.length - 1)) + 1 : 0)) };
      }),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(valid, fc.constantFrom(...INVALID_UTF8)).map(([value, bytes]) => {
        const full = text({ ...(isObject(value) ? value : {}), fuzz: '\u0001MARK\u0001' });
        const [before, after] = full.split('\\u0001MARK\\u0001');
        return { tag: 'body:invalid-utf8', bytes: Buffer.concat([Buffer.from(before ?? ''), Buffer.from(bytes), Buffer.from(after ?? '')]) };
      }),
    },
    { weight: 1, arbitrary: valid.map((value) => ({ tag: 'body:bom', bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text(value))]) })) },
    { weight: 1, arbitrary: valid.map((value) => ({ tag: 'body:utf16', bytes: Buffer.from(text(value), 'utf16le') })) },
    { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => ({ tag: 'body:garbage', bytes: Buffer.from(bytes) })) },
    { weight: 1, arbitrary: fc.constantFrom(...NOT_JSON_TOKENS).map((token) => ({ tag: 'body:not-json', bytes: Buffer.from(token) })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(maxBytes + 1, maxBytes + 64 * 1024)
        .map((size) => ({ tag: 'body:over-limit', bytes: Buffer.from(`{"pad":"${'p'.repeat(size)}"}`) })),
    },
  ];
  const none = { weight: hasBody ? 1 : 40, arbitrary: fc.constant<BodyPlan>({ tag: 'body:none', bytes: null }) };
  // The benign choice first: shrinking goes there.
  return hasBody ? choice(...plans, none) : choice(none, ...plans);
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

// ---------------------------------------------------------------------------------------------
// Paths and queries

/** The collection a path parameter names, judged by the path segment before it. */
function collectionOf(template: string, name: string): string {
  const parts = template.split('/');
  const collection = parts[parts.indexOf(`{${name}}`) - 1] ?? '';
  return collection === 'v1' && parts[2] === 'automation' ? 'automations' : collection;
}

/** The prefix of the ids of each collection (`dlv_…`), for ids harvested from answers. */
export const ID_PREFIXES: Record<string, string> = {
  keys: 'key',
  webhooks: 'wh',
  automations: 'auto',
  deliveries: 'dlv',
  runs: 'run',
  sandboxes: 'sbx',
  'app-conversations': 'conv',
};

/** Which fixture ids fit a path parameter, judged by the collection named before it. */
function knownIds(fixtures: Fixtures, template: string, name: string): string[] {
  if (name === 'org_id') return [fixtures.org];
  // The fixture source (it exists from the start) half the time, sources the fuzzer may create otherwise.
  if (name === 'source') return [fixtures.source, ...fixtures.spareSources.map(() => fixtures.source), ...fixtures.spareSources];
  return fixtures.ids[collectionOf(template, name)] ?? [];
}

type PathShape = 'exact' | 'trailing-slash' | 'double-slash' | 'upper-case' | 'dot-segment' | 'extra-segment' | 'fragment' | 'matrix' | 'encoded-slash';

function shapePath(path: string, shape: PathShape): string {
  switch (shape) {
    case 'exact':
      return path;
    case 'trailing-slash':
      return `${path}/`;
    case 'double-slash':
      return path.replace(/\//g, '//');
    case 'upper-case':
      return path.toUpperCase();
    case 'dot-segment':
      return path.replace(/^\/api\//, '/api/./x/../');
    case 'extra-segment':
      return `${path}/extra`;
    case 'fragment':
      return `${path}#frag`;
    case 'matrix':
      return `${path};x=1`;
    case 'encoded-slash':
      return path.replace(/\/([^/]*)$/, '%2F$1');
  }
}

function pathShapeArb(): fc.Arbitrary<PathShape> {
  return choice(
    { weight: 30, arbitrary: fc.constant<PathShape>('exact') },
    {
      weight: 1,
      arbitrary: fc.constantFrom<PathShape>(
        'trailing-slash',
        'double-slash',
        'upper-case',
        'dot-segment',
        'extra-segment',
        'fragment',
        'matrix',
        'encoded-slash',
      ),
    },
  );
}

const WRONG_TYPED = ['abc', '1.5', '-1', '1e400', '', '99999999999999999999999', 'true', '[]', 'null', '%201', '0x10', 'NaN', '-0'];

function queryValueArb(parameter: Parameter): fc.Arbitrary<Segment> {
  const schema = parameter.schema ?? {};
  const itemSchema = schema.type === 'array' ? (schema.items ?? {}) : schema;
  const valid = valueFor(itemSchema as JsonSchema).map((value) => ({ wire: Buffer.from(percentEncode(wtf8(String(value))), 'latin1'), tag: 'q:valid' }));
  return choice(
    { weight: 16, arbitrary: valid },
    { weight: 3, arbitrary: fc.constantFrom(...WRONG_TYPED).map((text) => ({ wire: Buffer.from(text, 'latin1'), tag: 'q:wrong-type' })) },
    { weight: 4, arbitrary: segment([], 10_000).map((value) => ({ ...value, tag: value.tag.replace(/^id:/, 'q:') })) },
    { weight: 1, arbitrary: fc.constant({ wire: Buffer.from('9'.repeat(50_000), 'latin1'), tag: 'q:huge' }) },
  );
}

interface QueryPlan {
  text: Buffer;
  tags: string[];
}

function queryArb(parameters: Parameter[]): fc.Arbitrary<QueryPlan> {
  const query = parameters.filter((parameter) => parameter.in === 'query');
  const perParameter = query.map((parameter) =>
    fc.option(fc.array(queryValueArb(parameter), { minLength: 1, maxLength: 3 }), { nil: undefined, freq: 2 }).map((values) => ({ parameter, values })),
  );
  const extras = choice(
    { weight: 8, arbitrary: fc.constant([] as string[]) },
    {
      weight: 1,
      arbitrary: fc.array(
        choice(
          fc.constantFrom(
            '&&&',
            '=',
            'limit',
            'limit[]=1',
            'limit[a]=1',
            '__proto__[x]=1',
            'constructor=1',
            '%00=%00',
            '%FF=%FF',
            `x=${'y'.repeat(20_000)}`,
            'a=1&a=2&a=3',
          ),
          fc.tuple(segment([], 1000), segment([], 1000)).map(([key, value]) => `${key.wire.toString('latin1')}=${value.wire.toString('latin1')}`),
        ),
        { minLength: 1, maxLength: 2 },
      ),
    },
  );
  return fc.tuple(fc.tuple(...perParameter), extras).map(([chosen, extra]) => {
    const parts: Buffer[] = [];
    const tags = new Set<string>();
    for (const { parameter, values } of chosen) {
      if (!values) continue;
      if (values.length > 1) tags.add('q:duplicate');
      for (const value of values) {
        parts.push(Buffer.concat([Buffer.from(`${parameter.name}=`, 'latin1'), value.wire]));
        if (value.tag !== 'q:valid') tags.add(value.tag);
      }
    }
    for (const text of extra) {
      parts.push(Buffer.from(text, 'latin1'));
      tags.add('q:extra');
    }
    if (parts.length === 0) return { text: Buffer.alloc(0), tags: [] };
    const joined: Buffer[] = [Buffer.from('?')];
    for (const [index, part] of parts.entries()) joined.push(...(index > 0 ? [Buffer.from('&'), part] : [part]));
    return { text: Buffer.concat(joined), tags: [...tags] };
  });
}

// ---------------------------------------------------------------------------------------------
// Signed inbound events

type SignatureMode =
  | 'valid'
  | 'valid-bare'
  | 'valid-upper'
  | 'missing'
  | 'wrong'
  | 'empty'
  | 'dup-valid-wrong'
  | 'dup-wrong-valid'
  | 'valid-nul'
  | 'huge'
  | 'sha1'
  | 'hostile';

function signatureArb(): fc.Arbitrary<Tagged<SignatureMode>> {
  return choice(
    { weight: 12, arbitrary: fc.constant({ tag: 'sig:valid', value: 'valid' as SignatureMode }) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom<SignatureMode>(
          'valid-bare',
          'valid-upper',
          'missing',
          'wrong',
          'empty',
          'dup-valid-wrong',
          'dup-wrong-valid',
          'valid-nul',
          'huge',
          'sha1',
          'hostile',
        )
        .map((mode) => ({ tag: `sig:${mode}`, value: mode })),
    },
  );
}

function signatureHeaders(header: string, secret: string, body: Buffer, mode: SignatureMode): HeaderList {
  const hex = createHmac('sha256', secret).update(body).digest('hex');
  const wrong = createHmac('sha256', 'not-the-secret').update(body).digest('hex');
  switch (mode) {
    case 'valid':
      return [h(header, `sha256=${hex}`)];
    case 'valid-bare':
      return [h(header, hex)];
    case 'valid-upper':
      return [h(header, `SHA256=${hex.toUpperCase()}`)];
    case 'missing':
      return [];
    case 'wrong':
      return [h(header, `sha256=${wrong}`)];
    case 'empty':
      return [h(header, '')];
    case 'dup-valid-wrong':
      return [h(header, `sha256=${hex}`), h(header, `sha256=${wrong}`)];
    case 'dup-wrong-valid':
      return [h(header, `sha256=${wrong}`), h(header, `sha256=${hex}`)];
    case 'valid-nul':
      return [h(header, `sha256=${hex}\u0000`)];
    case 'huge':
      return [h(header, `sha256=${'a'.repeat(60 * 1024)}`)];
    case 'sha1':
      return [h(header, `sha1=${createHmac('sha1', secret).update(body).digest('hex')}`)];
    case 'hostile':
      return [h(header, wtf8(`sha256=${hex}\ud800\u0001`))];
  }
}

/** Payloads a custom source might send: `type` is the event key; `fuzz: "match-me"` passes the fixture automation's filter. */
/** Objects nested deep enough to break a recursive serializer or a database's JSON type. */
const deepObjectArb = fc.constantFrom(1000, 10_000, 100_000).map((depth) => new Entries([['deep', deepNesting(depth, 'object')]]));

function customPayloadArb(): fc.Arbitrary<unknown> {
  return fc.record(
    {
      type: choice(
        { weight: 6, arbitrary: fc.constantFrom('fuzz', 'Issue', 'push', 'fuzz.sub.event') },
        { weight: 2, arbitrary: hostileString(5000).map(({ value }) => value) },
        { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 1, true, [], {}, ['a'], 1e308) },
      ),
      action: fc.constantFrom('create', 'update', 'remove'),
      fuzz: choice({ weight: 9, arbitrary: fc.constant('no') }, { weight: 1, arbitrary: fc.constant('match-me') }),
      data: choice({ weight: 8, arbitrary: fc.jsonValue({ maxDepth: 3 }) }, { weight: 1, arbitrary: deepObjectArb as fc.Arbitrary<unknown> }),
    },
    { requiredKeys: ['type'] },
  );
}

function githubPayloadArb(): fc.Arbitrary<unknown> {
  return fc.record(
    {
      action: fc.constantFrom('opened', 'closed', 'created', 'labeled'),
      issue: fc.record({ title: fc.string({ maxLength: 40 }), number: fc.nat() }),
      repository: fc.record({
        full_name: fc.constantFrom('Codertocat/app', 'other/repo'),
        owner: fc.record({
          login: choice(
            fc.constant('Codertocat'),
            hostileString(1000).map(({ value }) => value),
          ),
        }),
      }),
      installation: fc.record({ id: fc.constantFrom<unknown>(12345, 99, '12345', null, -1, Number.POSITIVE_INFINITY) }),
    },
    { requiredKeys: ['action', 'repository'] },
  );
}

// ---------------------------------------------------------------------------------------------
// Cases

interface Choices {
  method: Tagged<string>;
  shape: PathShape;
  segments: Segment[];
  query: QueryPlan;
  auth: Tagged<HeaderList>;
  mutations: HeaderMutation[];
  contentType: Tagged<string | null>;
  body: BodyPlan;
  framing: Framing;
  signature?: Tagged<SignatureMode>;
  github?: { event: Tagged<string | null>; delivery: Tagged<string | null>; form: boolean };
}

function methodArb(usual: string): fc.Arbitrary<Tagged<string>> {
  return choice(
    { weight: 20, arbitrary: fc.constant({ tag: 'method:usual', value: usual }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(...ALL_METHODS.filter((method) => method !== usual)).map((method) => ({ tag: `method:${method}`, value: method })),
    },
  );
}

function build(fixtures: Fixtures, route: string, template: string, names: string[], c: Choices): FuzzCase {
  const tags = new Set<string>();
  if (c.method.tag !== 'method:usual') tags.add(c.method.tag);
  if (c.shape !== 'exact') tags.add(`path:${c.shape}`);
  const values: Record<string, string> = {};
  names.forEach((name, index) => {
    const part = c.segments[index]!;
    values[name] = `\u0000SEG${index}\u0000`;
    if (part.tag !== 'id:known') tags.add(part.tag);
  });
  // Fill the template with markers, shape it, then splice the (possibly non-ASCII) segment bytes in.
  const shaped = shapePath(fillPath(template, values), c.shape);
  const pieces: Buffer[] = [];
  // The split alternates text and captured segment indexes.
  for (const piece of shaped.split(/\u0000SEG(\d+)\u0000/))
    pieces.push(pieces.length % 2 === 0 ? Buffer.from(piece, 'latin1') : c.segments[Number(piece)]!.wire);
  const target = Buffer.concat([...pieces, c.query.text]);
  for (const tag of c.query.tags) tags.add(tag);

  tags.add(c.auth.tag);
  const headers: HeaderList = [];
  const dropHost = c.mutations.some((mutation) => mutation.dropHost);
  const keepAlive = c.mutations.some((mutation) => mutation.keepAlive);
  if (!dropHost) headers.push(h('Host', `${fixtures.host}:${fixtures.port}`));
  if (!keepAlive) headers.push(h('Connection', 'close'));
  headers.push(...c.auth.value);
  for (const mutation of c.mutations) {
    tags.add(mutation.tag);
    headers.push(...mutation.add);
  }
  let body = c.body.bytes;
  let contentType = c.contentType;
  if (c.github?.form && body) {
    body = Buffer.concat([Buffer.from('payload='), Buffer.from(encodeURIComponent(body.toString('latin1')), 'latin1')]);
    contentType = { tag: 'ct:form', value: 'application/x-www-form-urlencoded' };
    tags.add('gh:form');
  }
  if (body !== null || contentType.tag !== 'ct:json') {
    if (contentType.value !== null) headers.push(h('Content-Type', contentType.value));
    if (contentType.tag !== 'ct:json') tags.add(contentType.tag);
  }
  tags.add(c.body.tag);
  if (c.signature) {
    const isGithub = template === GITHUB_PATH;
    headers.push(
      ...signatureHeaders(
        isGithub ? 'X-Hub-Signature-256' : 'X-Signature-256',
        isGithub ? fixtures.githubSecret : fixtures.sourceSecret,
        body ?? Buffer.alloc(0),
        c.signature.value,
      ),
    );
    tags.add(c.signature.tag);
  }
  if (c.github) {
    if (c.github.event.value !== null) headers.push(h('X-GitHub-Event', wtf8(c.github.event.value)));
    if (c.github.delivery.value !== null) headers.push(h('X-GitHub-Delivery', wtf8(c.github.delivery.value)));
    if (c.github.event.tag !== 'gh:event-ok') tags.add(c.github.event.tag);
    if (c.github.delivery.tag !== 'gh:delivery-ok') tags.add(c.github.delivery.tag);
  }
  if (c.framing !== 'length') tags.add(`frame:${c.framing}`);
  const version = c.mutations.find((mutation) => mutation.version !== undefined)?.version;
  return {
    route,
    tags: [...tags],
    request: { method: c.method.value, target, headers, body, framing: c.framing, ...(version === undefined ? {} : { version }) },
  };
}

/**
 * Grammar-based values for the fields the server parses, and values that tie fuzzed resources
 * together: automations and webhook sources on the sources events are signed for.
 */
function hintsFor(fixtures: Fixtures): Hints {
  const sources = [fixtures.source, ...fixtures.spareSources];
  return {
    filter: expressionArb,
    event_key_expr: expressionArb,
    on: fc.oneof(globArb, fc.array(globArb, { minLength: 1, maxLength: 50 })),
    source: fc.constantFrom(...sources, 'github'),
    webhook_secret: fc.constant(fixtures.sourceSecret),
    // Free-form objects: stored as given, so deep ones come back on every read.
    payload: deepObjectArb,
    secrets_store: deepObjectArb,
  };
}

function operationArb(fixtures: Fixtures, op: Operation, maxBytes: number): fc.Arbitrary<FuzzCase> {
  const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
  const isEvent = op.path === EVENT_PATH || op.path === GITHUB_PATH;
  const eventKnownWeight = (name: string) => knownIds(fixtures, op.path, name);
  const segments = fc.tuple(
    ...names.map((name) => {
      const known = eventKnownWeight(name);
      if (isEvent)
        return choice(
          { weight: 12, arbitrary: fc.constantFrom(...known).map((id) => ({ wire: Buffer.from(id), tag: 'id:known' })) },
          { weight: 1, arbitrary: segment(known) },
        );
      return segment(known, 10_000, ID_PREFIXES[collectionOf(op.path, name)]);
    }),
  );
  const payload =
    op.path === GITHUB_PATH
      ? githubPayloadArb()
      : op.path === EVENT_PATH
        ? customPayloadArb()
        : valueFor(op.body ?? { type: 'object', properties: {} }, 0, hintsFor(fixtures));
  const eventLimit = 5 * 1024 * 1024;
  const record: Record<string, fc.Arbitrary<unknown>> = {
    method: methodArb(op.method),
    shape: pathShapeArb(),
    segments,
    query: queryArb(op.parameters),
    auth: authArb(fixtures, op.authenticated ? 'bearer' : 'none'),
    // Most requests carry no header mutation.
    mutations: choice(
      { weight: 5, arbitrary: fc.constant([] as HeaderMutation[]) },
      { weight: 2, arbitrary: fc.array(headerMutationArb(), { minLength: 1, maxLength: 2 }) },
    ),
    contentType: contentTypeArb(),
    body: bodyArb(payload, op.body !== null || isEvent, isEvent ? eventLimit : maxBytes),
    framing: framingArb(),
  };
  if (isEvent) record.signature = signatureArb();
  if (op.path === GITHUB_PATH) {
    const hostile = hostileString(3000).map(({ value, tag }) => ({ value: value as string | null, tag }));
    record.github = fc.record({
      event: choice(
        {
          weight: 8,
          arbitrary: fc.constantFrom('issues', 'push', 'ping', 'issue_comment').map((value) => ({ value: value as string | null, tag: 'gh:event-ok' })),
        },
        { weight: 1, arbitrary: fc.constant({ value: null as string | null, tag: 'gh:event-missing' }) },
        { weight: 1, arbitrary: hostile.map((value) => ({ ...value, tag: `gh:event-${value.tag}` })) },
      ),
      delivery: choice(
        { weight: 8, arbitrary: fc.uuid().map((value) => ({ value: value as string | null, tag: 'gh:delivery-ok' })) },
        { weight: 1, arbitrary: fc.constant({ value: null as string | null, tag: 'gh:delivery-missing' }) },
        { weight: 1, arbitrary: hostile.map((value) => ({ ...value, tag: `gh:delivery-${value.tag}` })) },
      ),
      form: choice({ weight: 9, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    });
  }
  const route = `${op.method} ${op.path}`;
  return fc.record(record).map((choices) => build(fixtures, route, op.path, names, choices as unknown as Choices));
}

const RANDOM_TARGETS = [
  '/',
  '//api//settings',
  '/api/settings/.',
  '/api/automation/v1/../../settings',
  '/API/SETTINGS',
  '*',
  'http://127.0.0.1/api/settings',
  '/%2e%2e/%2e%2e/etc/passwd',
  '/api/settings?',
  '/api/settings#frag',
  '/api',
  '/api/',
  '/api/v1',
  '/api/automation',
  '/api/automation/v1/events',
  '/api/automation/v1/events/acme',
  '/api/automation/v1/runs',
  '/health/',
  '/health?x=1',
  '/openapi.json/x',
  '/favicon.ico',
  `/${'x'.repeat(60_000)}`,
  `/api/automation/v1/${'a/'.repeat(2000)}`,
];

function randomPathArb(fixtures: Fixtures, maxBytes: number): fc.Arbitrary<FuzzCase> {
  const words = fc.constantFrom('api', 'automation', 'v1', 'webhooks', 'events', 'keys', 'settings', 'sandboxes', 'runs', 'github', 'acme');
  const path = choice(
    fc.constantFrom(...RANDOM_TARGETS).map((text) => ({ wire: Buffer.from(text, 'latin1'), tag: 'random:listed' })),
    fc
      .array(
        choice(
          words.map((word) => ({ wire: Buffer.from(word), tag: 'id:known' })),
          segment([], 2000),
        ),
        { minLength: 1, maxLength: 6 },
      )
      .map((parts) => ({
        wire: Buffer.concat(parts.flatMap((part) => [Buffer.from('/'), part.wire])),
        tag: `random:${[...new Set(parts.map((part) => part.tag).filter((tag) => tag !== 'id:known'))].join('+') || 'words'}`,
      })),
  );
  return fc
    .record({
      path,
      method: fc.constantFrom(...ALL_METHODS).map((method) => ({ tag: `method:${method}`, value: method })),
      auth: authArb(fixtures, 'bearer'),
      mutations: choice(
        { weight: 5, arbitrary: fc.constant([] as HeaderMutation[]) },
        { weight: 1, arbitrary: fc.array(headerMutationArb(), { minLength: 1, maxLength: 2 }) },
      ),
      contentType: contentTypeArb(),
      body: bodyArb(fc.jsonValue({ maxDepth: 2 }), false, maxBytes),
      framing: framingArb(),
    })
    .map((c) => {
      const built = build(fixtures, 'RANDOM', '', [], {
        ...c,
        shape: 'exact',
        segments: [],
        query: { text: Buffer.alloc(0), tags: [] },
      });
      return { ...built, tags: [c.path.tag, ...built.tags], request: { ...built.request, target: c.path.wire } };
    });
}

/** Every request the fuzzer sends, weighted towards the inbound event endpoints. */
export function requestArb(fixtures: Fixtures, operations: Operation[], maxBytes: number): fc.Arbitrary<FuzzCase> {
  const weightOf = (op: Operation) => (op.path === EVENT_PATH ? 24 : op.path === GITHUB_PATH ? 12 : op.path === '/health' ? 1 : 3);
  return fc.oneof(...operations.map((op) => ({ weight: weightOf(op), arbitrary: operationArb(fixtures, op, maxBytes) })), {
    weight: 8,
    arbitrary: randomPathArb(fixtures, maxBytes),
  });
}
