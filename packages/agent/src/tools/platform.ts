/**
 * Platform tools: the agent lists, creates, updates and disables its owner's
 * automations and lists the registered webhook sources. Every input goes through the same
 * service call as the HTTP API, so it is validated exactly as the API validates it, and a
 * refusal comes back to the model with the API's reasons. No answer holds a signing secret.
 * @module
 */
import { automationCreateInputSchema, automationUpdateInputSchema } from '@agent-platform/core';
import { z } from 'zod';
import { anyJson, defineJsonSchemaTool, defineTool, isObject, jsonSchemaOf, type ToolDefinition } from './define-tool.js';
import type { AnyTool, ToolContext, ToolResult } from './tool.js';
import { asText, refusal } from './refusal.js';

async function call(context: ToolContext, work: (tools: NonNullable<ToolContext['platform']>) => Promise<unknown>): Promise<ToolResult> {
  if (!context.platform) return { text: 'platform tools are not available here', isError: true };
  try {
    return { text: asText(await work(context.platform)), isError: false };
  } catch (error) {
    return refusal(error);
  }
}

const none = z.object({});
const byId = z.object({ id: z.string().min(1) });
const update = z.object({ id: z.string().min(1), changes: z.record(z.string(), z.unknown()) });

const kinds = { actionKind: 'PlatformToolAction', observationKind: 'PlatformToolObservation' } as const;

function platformTool<Input extends z.ZodType>(tool: Omit<ToolDefinition<Input>, keyof typeof kinds>) {
  return defineTool({ ...tool, ...kinds });
}

export function platformTools(): AnyTool[] {
  const updateSchema = jsonSchemaOf(automationUpdateInputSchema);
  return [
    platformTool({
      name: 'list_automations',
      description: "List the owner's event automations (up to 100): trigger, instructions, enabled.",
      input: none,
      summarize: () => 'list automations',
      readOnly: true,
      execute: (_args, context) => call(context, (tools) => tools.listAutomations()),
    }),
    platformTool({
      name: 'list_webhook_sources',
      description: 'List the registered webhook sources (custom event sources) an automation trigger can name. Secrets are never shown.',
      input: none,
      summarize: () => 'list webhook sources',
      readOnly: true,
      execute: (_args, context) => call(context, (tools) => tools.listWebhookSources()),
    }),
    // The API's own request schema, for the model; the service checks the body (as for the HTTP API) and says why it refuses.
    defineJsonSchemaTool({
      ...kinds,
      name: 'create_automation',
      description:
        'Create an event automation for the owner: when an event from `trigger.source` matching `trigger.on` (and `trigger.filter`, a JMESPath ' +
        'expression over the payload) arrives, an agent runs `instructions`. The body is exactly that of POST /api/automation/v1.',
      inputSchema: jsonSchemaOf(automationCreateInputSchema),
      accepts: anyJson,
      summarize: (args) => `create automation ${isObject(args) && typeof args.name === 'string' ? JSON.stringify(args.name) : ''}`.trim(),
      execute: (args, context) => call(context, (tools) => tools.createAutomation(args)),
    }),
    platformTool({
      name: 'update_automation',
      description: `Change an automation: \`changes\` holds the fields to change, as PATCH /api/automation/v1/{id} takes them: ${JSON.stringify(updateSchema)}`,
      input: update,
      summarize: (args) => `update automation ${args.id}`,
      execute: (args, context) => call(context, (tools) => tools.updateAutomation(args.id, args.changes)),
    }),
    platformTool({
      name: 'disable_automation',
      description: 'Disable an automation (it stays, and can be enabled again with update_automation).',
      input: byId,
      summarize: (args) => `disable automation ${args.id}`,
      execute: (args, context) => call(context, (tools) => tools.disableAutomation(args.id)),
    }),
  ];
}
