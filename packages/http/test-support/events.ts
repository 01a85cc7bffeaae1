import { signatureHeaders, type SignatureSchemeName } from '@agent-platform/core';
import type { ApiResponse, Harness, RequestOptions } from './harness.js';

export interface SendOptions {
  scheme?: SignatureSchemeName;
  secret: string;
  signatureHeader?: string;
  headers?: Record<string, string>;
  /** Sign this body instead (to send a tampered one). */
  signedBody?: string;
  now?: Date;
  id?: string;
}

/** Posts a signed event to a custom source, as the external service would. */
export function sendEvent(api: Harness, orgId: string, source: string, body: string | object, options: SendOptions): Promise<ApiResponse> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const signed = signatureHeaders({
    scheme: options.scheme ?? 'hmac-sha256',
    secret: options.secret,
    body: Buffer.from(options.signedBody ?? text),
    now: options.now ?? new Date(),
    ...(options.signatureHeader ? { signatureHeader: options.signatureHeader } : {}),
    ...(options.id ? { id: options.id } : {}),
  });
  const init: RequestOptions = { as: null, body: text, headers: { 'content-type': 'application/json', ...signed, ...options.headers } };
  return api.request('POST', `/api/automation/v1/events/${orgId}/${source}`, init);
}

export async function registerWebhook(api: Harness, body: Record<string, unknown>, as: 'alice' | 'mallory' = 'alice'): Promise<{ id: string; secret: string }> {
  const response = await api.request('POST', '/api/automation/v1/webhooks', { as, json: { webhook_secret: 'test-secret-0123456789', ...body } });
  if (response.status !== 201) throw new Error(`register failed: ${response.status} ${response.text}`);
  return { id: response.json.id, secret: (body.webhook_secret as string | undefined) ?? 'test-secret-0123456789' };
}

export async function createAutomation(
  api: Harness,
  trigger: Record<string, unknown>,
  as: 'alice' | 'mallory' = 'alice',
  name = 'automation',
): Promise<string> {
  const response = await api.request('POST', '/api/automation/v1', { as, json: { name, trigger: { type: 'event', ...trigger }, instructions: 'act' } });
  if (response.status !== 201) throw new Error(`create automation failed: ${response.status} ${response.text}`);
  return response.json.id as string;
}
