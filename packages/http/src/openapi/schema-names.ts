/**
 * The names schemas go by under `components.schemas` in the OpenAPI document.
 *
 * Which schemas get a component: every top-level request body and response schema, and the
 * records and inputs below. A top-level schema without a name here is named after its operation
 * (`CreateApiKeyRequest`, `SearchSandboxesResponse`), so every operation refers to its payloads
 * by `$ref` and a generated client gets one named type per payload, while adding a route needs
 * no entry here. Records and inputs that appear inside other schemas (an `Automation` in an
 * `AutomationList`, a `Run` in a `RunList`) are named here so they appear once, not inlined in
 * each schema that holds them. A route file can name its own schemas with {@link nameSchema}.
 *
 * A schema whose input and output differ (defaults, transforms) and that is used both ways gets
 * two components: `Name` for what the API answers, `NameInput` for what it accepts.
 * @module
 */
import {
  apiKeyCreateInputSchema,
  apiKeyListSchema,
  apiKeyViewSchema,
  appConversationSchema,
  automationCreateInputSchema,
  automationDispatchInputSchema,
  automationListSchema,
  automationSchema,
  automationTriggerSchema,
  automationUpdateInputSchema,
  confirmationResponseSchema,
  conversationEventSchema,
  createdApiKeySchema,
  createdWebhookSchema,
  deliveryListSchema,
  deliverySchema,
  deliverySummarySchema,
  ingestAnswerSchema,
  ingestResultSchema,
  mcpConfigSchema,
  mcpConfigViewSchema,
  messageResponseSchema,
  outboundAttemptSchema,
  outboundMessageListSchema,
  outboundMessageSchema,
  outboundPayloadSchema,
  providerTokensInputSchema,
  rotatedWebhookSchema,
  runListSchema,
  runSchema,
  sandboxSchema,
  sandboxSpecSchema,
  sendMessageInputSchema,
  serviceStatusSchema,
  settingsInputSchema,
  settingsViewSchema,
  startConversationInputSchema,
  startSandboxInputSchema,
  startTaskSchema,
  storedTriggerSchema,
  subscriptionCreateInputSchema,
  subscriptionListSchema,
  subscriptionSchema,
  subscriptionUpdateInputSchema,
  subscriptionWithSecretSchema,
  successSchema,
  unsetProviderTokensInputSchema,
  webhookCreateInputSchema,
  webhookListSchema,
  webhookRotateInputSchema,
  webhookUpdateInputSchema,
  urlVerificationAnswerSchema,
  webhookViewSchema,
} from '@agent-platform/core';
import type { z } from 'zod';
import { errorBodySchema, validationErrorBodySchema } from '../exchange/error-bodies.js';

/** A component name: letters and digits, starting with a capital (OpenAPI allows `[A-Za-z0-9._-]+`). */
const NAME = /^[A-Z][A-Za-z0-9]*$/;

const names = new Map<z.ZodType, string>();
const taken = new Map<string, z.ZodType>();

/**
 * Gives `schema` the name it goes by under `components.schemas` (`#/components/schemas/<name>`),
 * and returns it. A name is given to one schema only.
 */
export function nameSchema<S extends z.ZodType>(name: string, schema: S): S {
  if (!NAME.test(name)) throw new Error(`Schema name "${name}" must be PascalCase letters and digits`);
  const holder = taken.get(name);
  if (holder && holder !== schema) throw new Error(`Schema name "${name}" is already given to another schema`);
  const current = names.get(schema);
  if (current && current !== name) throw new Error(`The schema named "${current}" cannot also be named "${name}"`);
  names.set(schema, name);
  taken.set(name, schema);
  return schema;
}

/** The name given to `schema`, if any. */
export const schemaName = (schema: z.ZodType): string | undefined => names.get(schema);

/** Every named schema with its name. */
export const namedSchemas = (): ReadonlyMap<z.ZodType, string> => names;

/** Whether a name is given to a schema. */
export const isSchemaNameTaken = (name: string): boolean => taken.has(name);

const CORE_NAMES: [string, z.ZodType][] = [
  // Answers.
  ['ErrorBody', errorBodySchema],
  ['ValidationErrorBody', validationErrorBodySchema],
  ['ServiceStatus', serviceStatusSchema],
  ['MessageResponse', messageResponseSchema],
  ['Success', successSchema],
  ['SettingsView', settingsViewSchema],
  ['McpConfigView', mcpConfigViewSchema],
  ['ApiKeyView', apiKeyViewSchema],
  ['CreatedApiKey', createdApiKeySchema],
  ['ApiKeyList', apiKeyListSchema],
  ['WebhookView', webhookViewSchema],
  ['CreatedWebhook', createdWebhookSchema],
  ['RotatedWebhook', rotatedWebhookSchema],
  ['WebhookList', webhookListSchema],
  ['Subscription', subscriptionSchema],
  ['SubscriptionWithSecret', subscriptionWithSecretSchema],
  ['SubscriptionList', subscriptionListSchema],
  ['OutboundPayload', outboundPayloadSchema],
  ['OutboundAttempt', outboundAttemptSchema],
  ['OutboundMessage', outboundMessageSchema],
  ['OutboundMessageList', outboundMessageListSchema],
  ['IngestResult', ingestResultSchema],
  ['UrlVerificationAnswer', urlVerificationAnswerSchema],
  ['IngestAnswer', ingestAnswerSchema],
  ['Delivery', deliverySchema],
  ['DeliverySummary', deliverySummarySchema],
  ['DeliveryList', deliveryListSchema],
  ['Automation', automationSchema],
  ['StoredTrigger', storedTriggerSchema],
  ['AutomationList', automationListSchema],
  ['Run', runSchema],
  ['RunList', runListSchema],
  ['SandboxSpec', sandboxSpecSchema],
  ['Sandbox', sandboxSchema],
  ['AppConversation', appConversationSchema],
  ['StartTask', startTaskSchema],
  ['ConversationEvent', conversationEventSchema],
  // Inputs.
  ['SettingsInput', settingsInputSchema],
  ['McpConfig', mcpConfigSchema],
  ['ProviderTokensInput', providerTokensInputSchema],
  ['UnsetProviderTokensInput', unsetProviderTokensInputSchema],
  ['ApiKeyCreateInput', apiKeyCreateInputSchema],
  ['WebhookCreateInput', webhookCreateInputSchema],
  ['WebhookUpdateInput', webhookUpdateInputSchema],
  ['WebhookRotateInput', webhookRotateInputSchema],
  ['SubscriptionCreateInput', subscriptionCreateInputSchema],
  ['SubscriptionUpdateInput', subscriptionUpdateInputSchema],
  ['AutomationTrigger', automationTriggerSchema],
  ['AutomationCreateInput', automationCreateInputSchema],
  ['AutomationUpdateInput', automationUpdateInputSchema],
  ['AutomationDispatchInput', automationDispatchInputSchema],
  ['StartSandboxInput', startSandboxInputSchema],
  ['StartConversationInput', startConversationInputSchema],
  ['SendMessageInput', sendMessageInputSchema],
  ['ConfirmationResponse', confirmationResponseSchema],
];

for (const [name, schema] of CORE_NAMES) nameSchema(name, schema);
