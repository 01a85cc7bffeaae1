/**
 * Signing inbound events the way each sender does, with Web Crypto (`crypto.subtle`), which Node
 * 20+ and browsers both have: the client never imports a Node built-in. The formats are core's
 * signature registry's own (pure files, bundled with the client), so every scheme the service
 * verifies can be signed here; a test checks them against core's signers byte for byte.
 * @module
 */
import { signatureScheme, type SignatureSchemeName } from '@agent-platform/core/signature-schemes';

const encoder = new TextEncoder();

export interface SignInput {
  scheme: SignatureSchemeName;
  secret: string;
  /** The exact bytes that will be sent. */
  body: Uint8Array;
  /** Unix seconds, for the timestamped schemes. */
  timestamp: number;
  /** `hmac-sha256`: the header the webhook reads (default `X-Signature-256`). */
  signatureHeader?: string | undefined;
  /** `standard-webhooks`: the `webhook-id`. */
  id: string;
}

/**
 * The headers that carry a body's signature, names lower-cased. Each scheme's file in core's
 * signature registry says what to sign (its `SigningPlan`); this computes the HMAC with Web Crypto.
 */
export async function signatureHeaders(input: SignInput): Promise<Record<string, string>> {
  const scheme = signatureScheme(input.scheme);
  if (scheme === undefined) throw new TypeError(`unknown signature scheme ${JSON.stringify(input.scheme)}`);
  const plan = scheme.sign(input);
  const key = typeof plan.key === 'string' ? encoder.encode(plan.key) : plan.key;
  return plan.headers(await hmac(key, plan.prefix === '' ? input.body : concat(plan.prefix, input.body)));
}

async function hmac(key: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new Error('Signing needs Web Crypto (crypto.subtle): Node 20+, or a browser page served over HTTPS or localhost');
  const cryptoKey = await subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await subtle.sign('HMAC', cryptoKey, data));
}

function concat(prefix: string, body: Uint8Array): Uint8Array {
  const head = encoder.encode(prefix);
  const joined = new Uint8Array(head.length + body.length);
  joined.set(head, 0);
  joined.set(body, head.length);
  return joined;
}
