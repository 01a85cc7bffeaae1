/**
 * Deliveries as the senders sign them, for the end-to-end tests that post events to a running
 * server or hand them to the engine's ingest: GitHub's headers, the `sha256=` HMAC that generic
 * sources and Bitbucket use, and one POST that expects the 200 every accepted delivery gets.
 * @module
 */
import { createHmac, randomUUID } from 'node:crypto';
import { signGithub } from '@agent-platform/core';
import { expect } from 'vitest';

/** `sha256=` and the hex HMAC-SHA256 of `body` (a generic source's `X-Signature-256`, Bitbucket's `X-Hub-Signature`). */
export const sha256Signature = (secret: string, body: string): string => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** The headers GitHub sends with a webhook delivery of `event`, signed with `secret`, each with a new delivery id. */
export const githubHeaders = (secret: string, event: string, body: string): Record<string, string> => ({
  'content-type': 'application/json',
  'x-github-event': event,
  'x-github-delivery': randomUUID(),
  'x-hub-signature-256': signGithub(secret, body),
});

/** POSTs a delivery to `url`, expects it accepted (200), and resolves to the delivery's answer. */
export async function postEvent<T = { matched: number; runs_created: string[]; delivery_id: string }>(
  url: string,
  body: string,
  headers: Record<string, string>,
): Promise<T> {
  const response = await fetch(url, { method: 'POST', body, headers });
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

/** Sends an event to the `ci` source of the org `acme` on the server at `baseUrl`, signed with its secret. */
export function sendCiEvent(baseUrl: string, secret: string, payload: Record<string, unknown>): Promise<{ matched: number }> {
  const body = JSON.stringify(payload);
  return postEvent(`${baseUrl}/api/automation/v1/events/acme/ci`, body, {
    'content-type': 'application/json',
    'x-signature-256': sha256Signature(secret, body),
  });
}
