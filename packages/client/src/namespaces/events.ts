import { signatureHeaders } from '../signing/signing.js';
import type { CallOptions, Transport } from '../transport/transport.js';
import type { IngestResult, SignatureScheme } from '../transport/types.js';

const encoder = new TextEncoder();

/** The event itself: `payload` is sent as JSON; `body` is sent exactly as given (to test odd bodies). */
export type EventBody = { payload: unknown; body?: never } | { body: string | Uint8Array; payload?: never };

export type SendEventInput = EventBody & {
  org_id: string;
  /** The webhook's `source`. */
  source: string;
  /** The webhook's signing secret. */
  secret: string;
  /** The webhook's `signature_scheme` (default `hmac-sha256`). */
  scheme?: SignatureScheme;
  /** For `hmac-sha256`: the webhook's `signature_header` (default `X-Signature-256`). */
  signature_header?: string | null;
  /**
   * The sender's delivery id: the `webhook-id` for `standard-webhooks` (default `msg_` and a
   * random UUID), or sent in `delivery_id_header` for the other schemes.
   */
  delivery_id?: string;
  /** The webhook's `delivery_id_header`, if it has one. */
  delivery_id_header?: string | null;
  /** Signing time (default now); the timestamped schemes refuse one more than 5 minutes off. */
  timestamp?: Date;
  /** More headers to send (an `event_key_header`, say). */
  headers?: Record<string, string>;
};

export type SendGitHubInput = EventBody & {
  /** The `X-GitHub-Event`: `pull_request`, `issues`, `push`, ... */
  event: string;
  /** The host's GitHub webhook secret. */
  secret: string;
  /** The `X-GitHub-Delivery` (default a random UUID); a repeat is answered as a duplicate. */
  delivery?: string;
  /** Send as GitHub's `application/x-www-form-urlencoded` (`payload=...`) instead of JSON. */
  form?: boolean;
  headers?: Record<string, string>;
};

/**
 * Sends signed events to the inbound endpoints, as the provider would: for testing integrations
 * and automations end to end. No API key is sent; the signature is the credential.
 */
export function eventsNamespace(transport: Transport) {
  return {
    /**
     * Signs the raw body per `scheme` and posts it to `/api/automation/v1/events/{org_id}/{source}`.
     * Answers the inbound result (`delivery_id`, `matched`, `runs_created`); a wrong secret is a
     * 401 `AgentPlatformError`, an unknown source a 404.
     */
    send: async (input: SendEventInput, options?: CallOptions): Promise<IngestResult> => {
      const body = bytesOf(input);
      const scheme = input.scheme ?? 'hmac-sha256';
      const id = input.delivery_id ?? `msg_${globalThis.crypto.randomUUID()}`;
      const signed = await signatureHeaders({
        scheme,
        secret: input.secret,
        body,
        timestamp: unixSeconds(input.timestamp),
        signatureHeader: input.signature_header ?? undefined,
        id,
      });
      const delivery =
        input.delivery_id && input.delivery_id_header && scheme !== 'standard-webhooks' ? { [input.delivery_id_header.toLowerCase()]: input.delivery_id } : {};
      // The route also answers Slack's own url_verification (`{challenge}`), which Slack sends, not this SDK.
      return transport.call(
        'POST /api/automation/v1/events/{org_id}/{source}',
        {
          credential: 'none',
          params: { org_id: input.org_id, source: input.source },
          body,
          headers: { 'content-type': 'application/json', ...delivery, ...input.headers, ...signed },
        },
        options,
      ) as Promise<IngestResult>;
    },
    /** Signs like GitHub (`X-Hub-Signature-256`) and posts to `/api/automation/v1/events/github`. */
    sendGitHub: async (input: SendGitHubInput, options?: CallOptions) => {
      const json = input.body === undefined ? JSON.stringify(input.payload) : undefined;
      const body = input.form && json !== undefined ? encoder.encode(`payload=${encodeURIComponent(json)}`) : bytesOf(input);
      const signed = await signatureHeaders({ scheme: 'github', secret: input.secret, body, timestamp: 0, id: '' });
      const headers = {
        'content-type': input.form ? 'application/x-www-form-urlencoded' : 'application/json',
        'x-github-event': input.event,
        'x-github-delivery': input.delivery ?? globalThis.crypto.randomUUID(),
        ...input.headers,
        ...signed,
      };
      return transport.call('POST /api/automation/v1/events/github', { credential: 'none', body, headers }, options);
    },
  };
}

function bytesOf(input: EventBody): Uint8Array {
  if (input.body !== undefined) return typeof input.body === 'string' ? encoder.encode(input.body) : input.body;
  const json = JSON.stringify(input.payload);
  if (json === undefined) throw new TypeError('payload must be a JSON value');
  return encoder.encode(json);
}

const unixSeconds = (date: Date | undefined) => Math.floor((date ?? new Date()).getTime() / 1000);
