/**
 * The platform tools an agent gets for its owner (so that automations can be created by the
 * conversational agent on the user's behalf): the same service calls the HTTP API makes, so
 * every input is validated exactly as the API validates it. Webhook views never hold a secret.
 * @module
 */
import type { AgentPlatformTools } from '../ports/agent-runner.js';
import type { Automation } from '../schemas/automation.js';
import type { Principal } from '../schemas/principal.js';
import type { WebhookView } from '../schemas/webhook.js';
import type { AutomationsService } from './automations-service.js';
import type { WebhooksService } from '../webhooks/webhooks-service.js';

/** Most items a list tool returns: enough for an agent, bounded for its context. */
const LIST_LIMIT = 100;

export function createAgentPlatformTools(automations: AutomationsService, webhooks: WebhooksService, owner: Principal): AgentPlatformTools {
  return {
    async listAutomations(): Promise<Automation[]> {
      return (await automations.list(owner, { limit: LIST_LIMIT, offset: 0 })).automations;
    },
    createAutomation: (input) => automations.create(owner, input),
    updateAutomation: (id, input) => automations.update(owner, id, input),
    disableAutomation: (id) => automations.update(owner, id, { enabled: false }),
    async listWebhookSources(): Promise<WebhookView[]> {
      return (await webhooks.list(owner, { limit: LIST_LIMIT, offset: 0 })).webhooks;
    },
  };
}
