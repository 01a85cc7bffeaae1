/**
 * The route table: every route file's array, in one list, and the same list as a type
 * ({@link ApiRoutes}) for typed clients. A new route file is registered here once, in
 * {@link routeGroups}; a route added to an existing file needs nothing else.
 * @module
 */
import type { AnyRoute, ApiRoutesOf } from '../routing/define-route.js';
import { agentServerRoutes } from './agent-server-routes.js';
import { apiKeyRoutes } from './api-key-routes.js';
import { auditRoutes } from './audit-routes.js';
import { automationRoutes } from './automation-routes.js';
import { budgetRoutes } from './budget-routes.js';
import { conversationRoutes } from './conversation-routes.js';
import { deliveryRoutes } from './delivery-routes.js';
import { eventRoutes } from './event-routes.js';
import { eventStreamRoutes } from './event-stream-routes.js';
import { memberRoutes } from './member-routes.js';
import { openHandsRoutes } from './openhands-routes.js';
import { optionsRoutes } from './options-routes.js';
import { overviewRoutes } from './overview-routes.js';
import { sandboxRoutes } from './sandbox-routes.js';
import { settingsRoutes } from './settings-routes.js';
import { subscriptionRoutes } from './subscription-routes.js';
import { type openApiRoute, systemRoutes } from './system-routes.js';
import { webhookRoutes } from './webhook-routes.js';

/** Each route file's routes, in the order they are matched and documented. */
export const routeGroups = [
  systemRoutes,
  settingsRoutes,
  optionsRoutes,
  apiKeyRoutes,
  webhookRoutes,
  subscriptionRoutes,
  eventRoutes,
  deliveryRoutes,
  automationRoutes,
  auditRoutes,
  budgetRoutes,
  overviewRoutes,
  memberRoutes,
  sandboxRoutes,
  conversationRoutes,
  agentServerRoutes,
  eventStreamRoutes,
  openHandsRoutes,
] as const;

/** Every route of the route files (not `/openapi.json`, which the handler adds: it serves its own document). */
export const allRoutes = (): AnyRoute[] => routeGroups.flat();

/**
 * Every endpoint as a type, keyed by `` `${method} ${path}` ``:
 *
 * ```ts
 * type CreateAutomation = ApiRoutes['POST /api/automation/v1'];
 * // { operationId: 'createAutomation'; credential: 'bearer'; role: 'member'; params: {}; query: undefined;
 * //   body: AutomationCreateInput; bodyRequired: true; response: Automation }
 * ```
 *
 * Derived from the route files' `defineRoute` declarations (routes still declared as untyped
 * `RouteDefinition`s are not in it), and `/openapi.json`.
 */
export type ApiRoutes = ApiRoutesOf<(typeof routeGroups)[number][number] | typeof openApiRoute>;

/** One endpoint's key in {@link ApiRoutes}, e.g. `'GET /api/automation/v1/runs/{run_id}'`. */
export type RouteKey = keyof ApiRoutes;
