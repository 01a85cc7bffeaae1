/**
 * The OpenAPI 3.1 document, generated from the route table and its zod schemas (zod's own JSON
 * Schema output is 2020-12, which OpenAPI 3.1 uses as is).
 * @module
 */
import { z } from 'zod';
import type { RouteDefinition } from './types.js';

export interface OpenApiInfo {
  title?: string;
  version?: string;
  description?: string;
}

type JsonObject = Record<string, unknown>;

const toSchema = (schema: z.ZodType, io: 'input' | 'output'): JsonObject => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonObject;
  return rest;
};

function queryParameters(schema: z.ZodType | undefined): JsonObject[] {
  if (!schema) return [];
  const json = toSchema(schema, 'input') as { properties?: Record<string, JsonObject>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: json.required?.includes(name) ?? false,
    schema: property,
  }));
}

const pathParameters = (path: string): JsonObject[] =>
  [...path.matchAll(/\{([^}]+)\}/g)].map((match) => ({ name: match[1], in: 'path', required: true, schema: { type: 'string' } }));

export function buildOpenApiDocument(routes: RouteDefinition[], info: OpenApiInfo = {}): Record<string, unknown> {
  const paths: Record<string, JsonObject> = {};
  for (const route of routes) {
    const responses: JsonObject = {};
    for (const [status, doc] of Object.entries(route.responses)) {
      responses[status] = doc.schema
        ? { description: doc.description, content: { [doc.contentType ?? 'application/json']: { schema: toSchema(doc.schema, 'output') } } }
        : { description: doc.description };
    }
    const operation: JsonObject = {
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
      parameters: [...pathParameters(route.path), ...queryParameters(route.query)],
      responses,
    };
    if (route.body) {
      operation.requestBody = {
        required: route.body.required,
        content: { 'application/json': { schema: toSchema(route.body.schema, 'input') } },
      };
    }
    if (route.auth === false) operation.security = [];
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: info.title ?? 'agent-platform',
      version: info.version ?? '0.1.0',
      ...(info.description ? { description: info.description } : {}),
    },
    components: {
      securitySchemes: {
        sessionApiKey: { type: 'apiKey', in: 'header', name: 'X-Session-API-Key' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
    },
    security: [{ sessionApiKey: [] }, { bearer: [] }],
    paths,
  };
}
