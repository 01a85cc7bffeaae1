/**
 * The few HTML answers a browser sees during sign-in when it cannot go on to the console: a
 * refused callback (400), an account no mapping places (403), a provider out of reach (502).
 * Plain pages with a way back; every value escaped, no script, nothing of the request echoed
 * but the provider's error code.
 * @module
 */
import type { HttpResponse } from '../exchange/types.js';

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char);

export function signInPage(status: number, title: string, message: string, consoleUrl: string, headers: Record<string, string> = {}): HttpResponse {
  const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p><p><a href="${escapeHtml(consoleUrl)}">Back to the console</a></p></main></body></html>
`;
  return {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      ...headers,
    },
    body,
  };
}

export function redirect(location: string, setCookie?: string): HttpResponse {
  return {
    status: 302,
    // no-referrer: the callback's URL (code and state) is never sent on to the next page.
    headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', ...(setCookie ? { 'set-cookie': setCookie } : {}) },
    body: null,
  };
}
