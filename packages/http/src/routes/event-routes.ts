import { ingestAnswerSchema, ingestResultSchema } from '@agent-platform/core';
import { defineRoute } from '../routing/define-route.js';
import { errorDoc } from './shared-responses.js';

const TAG = 'events';

/** Inbound events: authenticated by their signature, not by an API key; bodies read raw. */
export const eventRoutes = [
  defineRoute({
    method: 'POST',
    role: 'member',
    path: '/api/automation/v1/events/github',
    operationId: 'ingestGithubEvent',
    summary: 'A native GitHub delivery, verified with X-Hub-Signature-256',
    tag: TAG,
    credential: 'none',
    rawBody: true,
    responses: {
      200: { description: 'Received (and matched, or a duplicate)', schema: ingestResultSchema },
      400: errorDoc('Missing X-GitHub-Event, or a body that is not JSON'),
      401: errorDoc('Missing or wrong signature; nothing was stored'),
      404: errorDoc('GitHub webhooks are not configured'),
      413: errorDoc('Body over the limit'),
    },
    async handle({ platform, headers, rawBody }) {
      return { status: 200, body: await platform.events.ingestGithub({ headers, body: rawBody }) };
    },
  }),
  defineRoute({
    method: 'POST',
    role: 'member',
    path: '/api/automation/v1/events/{org_id}/{source}',
    operationId: 'ingestCustomEvent',
    summary: 'An event for a registered source (custom, GitLab, Bitbucket or Slack), verified as its kind or signature scheme says',
    tag: TAG,
    credential: 'none',
    rawBody: true,
    responses: {
      200: {
        description:
          'Received (and matched, ignored, or a duplicate); for a Slack source, Slack’s `url_verification` is answered `{"challenge": …}` and nothing is stored',
        schema: ingestAnswerSchema,
      },
      400: errorDoc('Body is not JSON (or a form-encoded Slack request without its payload field)'),
      401: errorDoc('Missing or wrong signature; nothing was stored'),
      404: errorDoc('Unknown or disabled source'),
      413: errorDoc('Body over the limit'),
    },
    async handle({ platform, params, headers, rawBody }) {
      return { status: 200, body: await platform.events.answer(params.org_id, params.source, { headers, body: rawBody }) };
    },
  }),
] as const;
