/**
 * Signing inbound events the way each sender does, with Web Crypto (`crypto.subtle`), which Node
 * 20+ and browsers both have: the client never imports a Node built-in. The formats match what
 * the service verifies (a test checks them against core's signers byte for byte).
 * @module
 */
import type { SignatureScheme } from '@agent-platform/core/schemas';

const encoder = new TextEncoder();

export interface SignInput {
  scheme: SignatureScheme | 'github';
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

/** The headers that carry a body's signature, names lower-cased. */
export async function signatureHeaders(input: SignInput): Promise<Record<string, string>> {
  const { secret, body, timestamp } = input;
  const t = String(timestamp);
  switch (input.scheme) {
    case 'hmac-sha256':
      return { [(input.signatureHeader ?? 'X-Signature-256').toLowerCase()]: toHex(await hmac(encoder.encode(secret), body)) };
    case 'github':
      return { 'x-hub-signature-256': `sha256=${toHex(await hmac(encoder.encode(secret), body))}` };
    case 'standard-webhooks': {
      const signature = await hmac(standardWebhooksKey(secret), concat(`${input.id}.${t}.`, body));
      return { 'webhook-id': input.id, 'webhook-timestamp': t, 'webhook-signature': `v1,${toBase64(signature)}` };
    }
    case 'stripe':
      return { 'stripe-signature': `t=${t},v1=${toHex(await hmac(encoder.encode(secret), concat(`${t}.`, body)))}` };
    case 'slack':
      return {
        'x-slack-signature': `v0=${toHex(await hmac(encoder.encode(secret), concat(`v0:${t}:`, body)))}`,
        'x-slack-request-timestamp': t,
      };
    default: {
      const unknown: never = input.scheme;
      throw new TypeError(`unknown signature scheme ${JSON.stringify(unknown)}`);
    }
  }
}

async function hmac(key: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new Error('Signing needs Web Crypto (crypto.subtle): Node 20+, or a browser page served over HTTPS or localhost');
  const cryptoKey = await subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await subtle.sign('HMAC', cryptoKey, data));
}

/** A Standard Webhooks secret's key: base64 (or base64url) after an optional `whsec_` prefix. */
function standardWebhooksKey(secret: string): Uint8Array {
  const encoded = (secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret).replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  let binary: string;
  try {
    binary = atob(encoded.padEnd(Math.ceil(encoded.length / 4) * 4, '='));
  } catch {
    throw new TypeError('a standard-webhooks secret must be base64 (optionally prefixed with "whsec_")');
  }
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

function concat(prefix: string, body: Uint8Array): Uint8Array {
  const head = encoder.encode(prefix);
  const joined = new Uint8Array(head.length + body.length);
  joined.set(head, 0);
  joined.set(body, head.length);
  return joined;
}

function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
