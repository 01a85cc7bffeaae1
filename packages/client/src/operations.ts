/**
 * Every endpoint the client calls, by the server's `operationId`: method, path template and
 * which credential it is sent with. A test holds this table equal to the server's route table,
 * so an endpoint added on the server and not here (or a path that drifts) fails CI.
 * @module
 */

/**
 * Which credential a call carries. The spec pairs the session key with settings and provider
 * tokens and the bearer key with everything else; the server takes either anywhere, so with one
 * key configured it is sent on every call in the scheme the call prefers.
 */
export type CredentialScheme = 'session' | 'bearer' | 'none';

export interface OperationSpec {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
  /** With `{name}` parameters, as in the server's route table. */
  readonly path: string;
  readonly auth: CredentialScheme;
}

const get = (path: string, auth: CredentialScheme = 'bearer'): OperationSpec => ({ method: 'GET', path, auth });
const post = (path: string, auth: CredentialScheme = 'bearer'): OperationSpec => ({ method: 'POST', path, auth });
const patch = (path: string): OperationSpec => ({ method: 'PATCH', path, auth: 'bearer' });
const del = (path: string): OperationSpec => ({ method: 'DELETE', path, auth: 'bearer' });

const AUTOMATIONS = '/api/automation/v1';
const WEBHOOKS = `${AUTOMATIONS}/webhooks`;
const DELIVERIES = `${AUTOMATIONS}/deliveries`;
const CONVERSATIONS = '/api/v1/app-conversations';

export const operations = {
  health: get('/health', 'none'),
  ready: get('/ready', 'none'),
  openapi: get('/openapi.json', 'none'),

  storeSettings: post('/api/settings', 'session'),
  getSettings: get('/api/settings', 'session'),
  storeProviderTokens: post('/api/add-git-providers', 'session'),
  unsetProviderTokens: post('/api/unset-provider-tokens', 'session'),

  createApiKey: post('/api/keys'),
  listApiKeys: get('/api/keys'),
  revokeApiKey: del('/api/keys/{id}'),

  registerWebhook: post(WEBHOOKS),
  listWebhooks: get(WEBHOOKS),
  getWebhook: get(`${WEBHOOKS}/{id}`),
  updateWebhook: patch(`${WEBHOOKS}/{id}`),
  deleteWebhook: del(`${WEBHOOKS}/{id}`),
  rotateWebhookSecret: post(`${WEBHOOKS}/{id}/rotate-secret`),

  ingestGithubEvent: post(`${AUTOMATIONS}/events/github`, 'none'),
  ingestCustomEvent: post(`${AUTOMATIONS}/events/{org_id}/{source}`, 'none'),

  listDeliveries: get(DELIVERIES),
  getDelivery: get(`${DELIVERIES}/{id}`),
  replayDelivery: post(`${DELIVERIES}/{id}/replay`),

  createAutomation: post(AUTOMATIONS),
  listAutomations: get(AUTOMATIONS),
  getAutomation: get(`${AUTOMATIONS}/{id}`),
  updateAutomation: patch(`${AUTOMATIONS}/{id}`),
  deleteAutomation: del(`${AUTOMATIONS}/{id}`),
  dispatchAutomation: post(`${AUTOMATIONS}/{id}/dispatch`),
  listAutomationRuns: get(`${AUTOMATIONS}/{id}/runs`),
  getRun: get(`${AUTOMATIONS}/runs/{run_id}`),
  cancelRun: post(`${AUTOMATIONS}/runs/{run_id}/cancel`),

  searchSandboxSpecs: get('/api/v1/sandbox-specs/search'),
  searchSandboxes: get('/api/v1/sandboxes/search'),
  batchGetSandboxes: get('/api/v1/sandboxes'),
  startSandbox: post('/api/v1/sandboxes'),
  pauseSandbox: post('/api/v1/sandboxes/{id}/pause'),
  resumeSandbox: post('/api/v1/sandboxes/{id}/resume'),
  deleteSandbox: del('/api/v1/sandboxes/{id}'),

  startAppConversation: post(CONVERSATIONS),
  listAppConversations: get(CONVERSATIONS),
  searchAppConversations: get(`${CONVERSATIONS}/search`),
  batchGetStartTasks: get(`${CONVERSATIONS}/start-tasks`),
  searchStartTasks: get(`${CONVERSATIONS}/start-tasks/search`),
  getAppConversation: get(`${CONVERSATIONS}/{id}`),
  listAppConversationEvents: get(`${CONVERSATIONS}/{id}/events`),

  getAgentServerConversation: get('/api/conversations/{id}'),
  searchAgentServerEvents: get('/api/conversations/{id}/events/search'),
  countAgentServerEvents: get('/api/conversations/{id}/events/count'),
  sendAgentServerMessage: post('/api/conversations/{id}/events'),
  runAgentServerConversation: post('/api/conversations/{id}/run'),
  pauseAgentServerConversation: post('/api/conversations/{id}/pause'),
  respondToConfirmation: post('/api/conversations/{id}/events/respond_to_confirmation'),
  getAgentFinalResponse: get('/api/conversations/{id}/agent_final_response'),
  streamAppConversationEvents: get(`${CONVERSATIONS}/{id}/events/stream`),
} as const satisfies Record<string, OperationSpec>;

export type OperationId = keyof typeof operations;
