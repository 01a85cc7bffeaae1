import { memberListSchema, memberRoleInputSchema, membershipRecordSchema } from '@agent-platform/core';
import { defineRoute } from '../routing/define-route.js';
import { bodyErrors, errorDoc, notFoundDoc, unauthorized } from './shared-responses.js';

const BASE = '/api/automation/v1';
const TAG = 'members';

/** The org's members (console sign-in's memberships): admins read the list, owners change roles. */
export const memberRoutes = [
  defineRoute({
    method: 'GET',
    role: 'admin',
    path: `${BASE}/members`,
    operationId: 'listMembers',
    summary: 'The org’s members — everyone who signed in to the console — with their roles, oldest first',
    tag: TAG,
    responses: { 200: { description: 'The members, oldest first', schema: memberListSchema }, 401: unauthorized },
    async handle({ platform, principal }) {
      return { status: 200, body: await platform.members.list(principal) };
    },
  }),
  defineRoute({
    method: 'PATCH',
    role: 'owner',
    path: `${BASE}/members/{user_id}`,
    operationId: 'setMemberRole',
    summary: 'Change a member’s role (applies to their next request); an owner cannot change their own',
    tag: TAG,
    body: { schema: memberRoleInputSchema, required: true },
    responses: {
      200: { description: 'The membership with its new role', schema: membershipRecordSchema },
      401: unauthorized,
      404: notFoundDoc,
      409: errorDoc('The caller’s own membership: another owner must change it'),
      ...bodyErrors,
    },
    async handle({ platform, principal, params, body }) {
      return { status: 200, body: await platform.members.setRole(principal, params.user_id, body) };
    },
  }),
] as const;
