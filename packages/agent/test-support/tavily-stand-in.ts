/**
 * A stand-in for Tavily's Search API on loopback, for the web-search tool's tests. It checks each
 * request as Tavily documents it (docs.tavily.com/api-reference/endpoint/search): `POST /search`,
 * `Authorization: Bearer <key>`, a JSON body with a non-empty `query`, `max_results` from 0 to 20,
 * `search_depth` and `topic` of Tavily's values, domain lists of strings. It answers as Tavily
 * does: `{ query, answer?, results: [{ title, url, content, score, published_date? }],
 * response_time, request_id }`, and refuses as Tavily does, `{"detail": {"error": "…"}}` with the
 * status (401 for a wrong key, 400 for a bad body). What a request got wrong is kept in
 * `violations`, which a test expects empty.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TavilyResult {
  title: string;
  url: string;
  content: string;
  score: number;
  published_date?: string;
}

/** What the stand-in answers to one (well-formed, authorised) search; by default `results` for every query. */
export type TavilyReply =
  | { results: TavilyResult[]; answer?: string }
  /** A status of its own, with a body (an object is sent as JSON, a string as it is) and headers. */
  | { status: number; body: unknown; headers?: Record<string, string> };

export interface TavilyStandInOptions {
  /** The key Tavily accepts; another (or none) is a 401. */
  apiKey: string;
  reply?: (body: Record<string, unknown>) => TavilyReply | Promise<TavilyReply>;
}

export interface RecordedSearch {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown> | null;
}

export interface TavilyStandIn {
  /** The base URL (`http://127.0.0.1:<port>`): searches go to `{url}/search`. */
  url: string;
  searches: RecordedSearch[];
  /** How requests differed from Tavily's documented API. */
  violations: string[];
  reply: (body: Record<string, unknown>) => TavilyReply | Promise<TavilyReply>;
  close(): Promise<void>;
}

const DEPTHS = ['basic', 'advanced', 'fast', 'ultra-fast'];
const TOPICS = ['general', 'news', 'finance'];
const TIME_RANGES = ['day', 'week', 'month', 'year', 'd', 'w', 'm', 'y'];

/** Where a body differs from Tavily's documented request; empty when it is one Tavily takes. */
function bodyViolations(body: Record<string, unknown>): string[] {
  const wrong: string[] = [];
  if (typeof body.query !== 'string' || body.query.trim() === '') wrong.push('query must be a non-empty string');
  if (body.max_results !== undefined && !(Number.isInteger(body.max_results) && (body.max_results as number) >= 0 && (body.max_results as number) <= 20))
    wrong.push('max_results must be an integer from 0 to 20');
  if (body.search_depth !== undefined && !DEPTHS.includes(body.search_depth as string)) wrong.push(`search_depth must be one of ${DEPTHS.join(', ')}`);
  if (body.topic !== undefined && !TOPICS.includes(body.topic as string)) wrong.push(`topic must be one of ${TOPICS.join(', ')}`);
  if (body.time_range !== undefined && !TIME_RANGES.includes(body.time_range as string)) wrong.push(`time_range must be one of ${TIME_RANGES.join(', ')}`);
  for (const field of ['include_domains', 'exclude_domains'])
    if (body[field] !== undefined && !(Array.isArray(body[field]) && (body[field] as unknown[]).every((domain) => typeof domain === 'string')))
      wrong.push(`${field} must be a list of strings`);
  for (const field of ['include_raw_content', 'include_images', 'include_image_descriptions'])
    if (body[field] !== undefined && typeof body[field] !== 'boolean') wrong.push(`${field} must be a boolean`);
  if (body.include_answer !== undefined && typeof body.include_answer !== 'boolean' && !['basic', 'advanced'].includes(body.include_answer as string))
    wrong.push('include_answer must be a boolean, basic or advanced');
  if ('api_key' in body) wrong.push('the key belongs in the Authorization header, not the body');
  return wrong;
}

export async function startTavilyStandIn(options: TavilyStandInOptions): Promise<TavilyStandIn> {
  const searches: RecordedSearch[] = [];
  const violations: string[] = [];
  const state: Pick<TavilyStandIn, 'reply'> = {
    reply: options.reply ?? ((body) => ({ results: [{ title: 'Result', url: 'https://example.com/', content: `About ${String(body.query)}`, score: 0.9 }] })),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        const text = typeof body === 'string' ? body : JSON.stringify(body);
        res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json', ...headers });
        res.end(text);
      };
      const path = (req.url ?? '').split('?')[0] ?? '';
      let body: Record<string, unknown> | null = null;
      try {
        const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        body = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
      } catch {
        body = null;
      }
      searches.push({ method: req.method ?? '', path, headers: req.headers, body });
      if (req.method !== 'POST' || path !== '/search') {
        violations.push(`${req.method} ${path}: Tavily's Search API is POST /search`);
        return send(404, { detail: 'Not Found' });
      }
      if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) violations.push('the body must be sent as application/json');
      if (req.headers.authorization !== `Bearer ${options.apiKey}`) return send(401, { detail: { error: 'Unauthorized: missing or invalid API key.' } });
      if (!body) {
        violations.push('the body must be a JSON object');
        return send(400, { detail: { error: 'The request body must be a JSON object.' } });
      }
      const wrong = bodyViolations(body);
      if (wrong.length > 0) {
        violations.push(...wrong);
        return send(400, { detail: { error: wrong.join('; ') } });
      }
      const reply = await state.reply(body);
      if ('status' in reply) return send(reply.status, reply.body, reply.headers);
      send(200, {
        query: body.query,
        ...(reply.answer === undefined ? {} : { answer: reply.answer }),
        images: [],
        results: reply.results,
        response_time: 0.42,
        request_id: randomUUID(),
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    searches,
    violations,
    get reply() {
      return state.reply;
    },
    set reply(next) {
      state.reply = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
