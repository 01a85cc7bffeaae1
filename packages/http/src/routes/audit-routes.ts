import { auditPageSchema, auditQuerySchema, auditVerificationSchema } from '@agent-platform/core';
import { defineRoute } from '../routing/define-route.js';
import { invalid, unauthorized } from './shared-responses.js';

const BASE = '/api/automation/v1/audit';
const TAG = 'audit';

/** The org's audit log: read by admins (it names everyone's changes). */
export const auditRoutes = [
  defineRoute({
    method: 'GET',
    role: 'admin',
    path: BASE,
    operationId: 'listAuditEntries',
    summary: 'The audit log, oldest first, filtered; page on with `after`',
    tag: TAG,
    query: auditQuerySchema,
    responses: { 200: { description: 'A page of entries', schema: auditPageSchema }, 401: unauthorized, 422: invalid },
    async handle({ platform, principal, query }) {
      return { status: 200, body: await platform.audit.list(principal, query) };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'admin',
    path: `${BASE}/export`,
    operationId: 'exportAuditEntries',
    summary: 'Every entry matching the filters, as NDJSON (one JSON entry per line)',
    tag: TAG,
    query: auditQuerySchema,
    responses: { 200: { description: 'The entries, one per line', contentType: 'application/x-ndjson' }, 401: unauthorized, 422: invalid },
    async handle({ platform, principal, query }) {
      let text = '';
      for await (const line of platform.audit.export(principal, query)) text += line;
      // Bytes: only `text/*` answers are strings; NDJSON goes as UTF-8.
      return { status: 200, body: new TextEncoder().encode(text) };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'admin',
    path: `${BASE}/verify`,
    operationId: 'verifyAuditLog',
    summary: 'Checks the whole chain: every entry’s number, link and hash',
    tag: TAG,
    responses: { 200: { description: 'Whether the chain holds, and where it first breaks', schema: auditVerificationSchema }, 401: unauthorized },
    async handle({ platform, principal }) {
      return { status: 200, body: await platform.audit.verify(principal) };
    },
  }),
] as const;
