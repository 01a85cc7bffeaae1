/**
 * Reading a native GitHub delivery: JSON or form-encoded (`payload=`) body, the event key
 * `<X-GitHub-Event>.<action>` (the bare event name when there is no action), and what it is
 * about (installation and accounts), for routing to linked orgs.
 * @module
 */
import { PlatformError } from '../kernel/errors.js';
import { header, type RequestHeaders } from './request-headers.js';
import { decodeUtf8, parseJsonText } from './json-body.js';

export interface GithubDeliveryInfo {
  event: string;
  eventKey: string;
  payload: unknown;
  payloadJson: string;
  installationId: number | null;
  /** Logins of the repository owner and the organization, lower-cased, deduplicated. */
  accounts: string[];
}

/** Who decides which orgs a GitHub delivery reaches. The default reads links stored with the engine. */
export type GithubOrgResolver = (delivery: Readonly<GithubDeliveryInfo>) => Promise<readonly string[]> | readonly string[];

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const EVENT_NAME = /^[a-z0-9_]{1,100}$/;

export function readGithubDelivery(headers: RequestHeaders, body: Uint8Array): GithubDeliveryInfo {
  const event = header(headers, 'x-github-event')?.trim();
  if (!event) throw new PlatformError('BAD_REQUEST', 'X-GitHub-Event header is required');
  if (!EVENT_NAME.test(event)) throw new PlatformError('BAD_REQUEST', 'X-GitHub-Event is not a valid event name');
  const text = decodeUtf8(body);
  const contentType = header(headers, 'content-type')?.split(';')[0]?.trim().toLowerCase();
  let payloadJson = text;
  if (contentType === 'application/x-www-form-urlencoded') {
    const payload = new URLSearchParams(text).get('payload');
    if (payload === null) throw new PlatformError('BAD_REQUEST', 'form-encoded GitHub delivery has no payload field');
    payloadJson = payload;
  }
  const payload = parseJsonText(payloadJson);
  const action = isRecord(payload) && typeof payload.action === 'string' && payload.action !== '' ? payload.action : null;
  const record = isRecord(payload) ? payload : {};
  const installation = isRecord(record.installation) && typeof record.installation.id === 'number' ? record.installation.id : null;
  const accounts = new Set<string>();
  const repository = isRecord(record.repository) ? record.repository : null;
  const owner = repository && isRecord(repository.owner) ? repository.owner : null;
  if (owner && typeof owner.login === 'string') accounts.add(owner.login.toLowerCase());
  const organization = isRecord(record.organization) ? record.organization : null;
  if (organization && typeof organization.login === 'string') accounts.add(organization.login.toLowerCase());
  return {
    event,
    eventKey: action ? `${event}.${action}` : event,
    payload,
    payloadJson,
    installationId: installation,
    accounts: [...accounts],
  };
}
