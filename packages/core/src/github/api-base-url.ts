/**
 * Where GitHub's REST API is for a stored token's `host`: `api.github.com` for GitHub itself (no
 * host, `github.com` or `api.github.com`), `https://HOST/api/v3` for GitHub Enterprise Server
 * (a host name, or a base URL such as `https://github.example.com`), the way a user names the
 * host they clone from. Plain `http` only for a loopback host (a test stand-in), as for cloning.
 * @module
 */
import { PlatformError } from '../kernel/errors.js';

const PUBLIC_API = 'https://api.github.com';
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

export function githubApiBaseUrl(host: string | null): string {
  const text = host?.trim() ?? '';
  if (text === '' || /^(https?:\/\/)?(api\.)?github\.com\/?$/i.test(text)) return PUBLIC_API;
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    throw new PlatformError('BAD_REQUEST', `the GitHub host "${text}" is not a host name or URL`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.test(url.hostname)))
    throw new PlatformError('BAD_REQUEST', `the GitHub host ${url.origin} uses ${url.protocol.slice(0, -1)}, allowed only for a loopback host; use https`);
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}${path.endsWith('/api/v3') ? path : `${path}/api/v3`}`;
}
