/**
 * Where Slack's Web API is for a stored Slack token's `host`: `https://slack.com/api/` for Slack
 * itself (no host, `slack.com`), `https://HOST/api/` for another Slack domain (GovSlack's
 * `slack-gov.com`), named as a host or a base URL. Plain `http` only for a loopback host (a test
 * stand-in), as for GitHub.
 * @module
 */
import { PlatformError } from '../kernel/errors.js';

const PUBLIC_API = 'https://slack.com/api/';
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

export function slackApiBaseUrl(host: string | null): string {
  const text = host?.trim() ?? '';
  if (text === '' || /^(https?:\/\/)?slack\.com(\/api)?\/?$/i.test(text)) return PUBLIC_API;
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    throw new PlatformError('BAD_REQUEST', `the Slack host "${text}" is not a host name or URL`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.test(url.hostname)))
    throw new PlatformError('BAD_REQUEST', `the Slack host ${url.origin} uses ${url.protocol.slice(0, -1)}, allowed only for a loopback host; use https`);
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}${path.endsWith('/api') ? path : `${path}/api`}/`;
}
