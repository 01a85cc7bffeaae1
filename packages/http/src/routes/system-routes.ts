import { serviceStatusSchema as statusSchema } from '@agent-platform/core';
import { z } from 'zod';
import { defineRoute } from '../routing/define-route.js';
import { nameSchema } from '../openapi/schema-names.js';
import { errorDoc } from './shared-responses.js';

/** Liveness and readiness: no credentials needed. */
export const systemRoutes = [
  defineRoute({
    method: 'GET',
    path: '/health',
    operationId: 'health',
    summary: 'Liveness: the process answers',
    tag: 'system',
    credential: 'none',
    responses: { 200: { description: 'Alive', schema: statusSchema } },
    async handle() {
      return { status: 200, body: { status: 'ok' } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/ready',
    operationId: 'ready',
    summary: 'Readiness: storage is reachable',
    tag: 'system',
    credential: 'none',
    responses: { 200: { description: 'Ready', schema: statusSchema }, 503: errorDoc('Storage unreachable') },
    async handle({ platform }) {
      try {
        await platform.ready();
      } catch {
        return { status: 503, body: { detail: 'Storage is not reachable' } };
      }
      return { status: 200, body: { status: 'ready' } };
    },
  }),
] as const;

/** The OpenAPI document, as an object (its schema is OpenAPI's own, not repeated here). */
export const openApiDocumentSchema = nameSchema('OpenApiDocument', z.record(z.string(), z.unknown()));

/**
 * `/openapi.json`. Its `handle` is a stand-in: the handler serves the route with one that answers
 * the document it built from its own route table.
 */
export const openApiRoute = defineRoute({
  method: 'GET',
  path: '/openapi.json',
  operationId: 'openapi',
  summary: 'This document',
  tag: 'system',
  credential: 'none',
  responses: { 200: { description: 'The OpenAPI 3.1 document', schema: openApiDocumentSchema } },
  async handle() {
    return { status: 200, body: {} };
  },
});
