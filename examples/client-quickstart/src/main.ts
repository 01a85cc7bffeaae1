/**
 * The typed client, end to end, against a running service:
 *   1. register a custom webhook source (or, when it exists, rotate its secret to get one),
 *   2. create an automation on it,
 *   3. send a signed test event, as the external service would,
 *   4. wait for the run it started to finish, and print what the agent said.
 *
 *   AGENT_PLATFORM_API_KEY=dev-key-change-me-0000 pnpm --dir examples/client-quickstart start
 *
 * - AGENT_PLATFORM_API_KEY (required): a key the service accepts; the reference server seeds
 *   keys from AGENT_PLATFORM_API_KEYS (`alice@acme:dev-key-change-me-0000`).
 * - AGENT_PLATFORM_URL (default http://127.0.0.1:3000): where the service is.
 *
 * Exits 0 when the run completed, 1 when it did not or the service could not be reached, 2
 * without a key.
 */
import { createClient, isAgentPlatformConnectionError, isAgentPlatformError, type CreatedWebhook } from '@agent-platform/client';

const SOURCE = 'quickstart-tracker';

const baseUrl = process.env.AGENT_PLATFORM_URL ?? 'http://127.0.0.1:3000';
const apiKey = process.env.AGENT_PLATFORM_API_KEY;
if (!apiKey) {
  console.error(
    'Set AGENT_PLATFORM_API_KEY to a key the service accepts (the reference server seeds keys from AGENT_PLATFORM_API_KEYS), and AGENT_PLATFORM_URL if it is not at http://127.0.0.1:3000.',
  );
  process.exit(2);
}
const client = createClient({ baseUrl, apiKey });

/** Registers the source; on a re-run it already exists (409), so a new secret is taken instead. */
async function webhookWithSecret(): Promise<CreatedWebhook & { webhook_secret: string }> {
  try {
    const webhook = await client.webhooks.register({ name: 'Quick-start tracker', source: SOURCE });
    return { ...webhook, webhook_secret: webhook.webhook_secret as string };
  } catch (error) {
    if (!isAgentPlatformError(error) || error.code !== 'CONFLICT') throw error;
    for await (const webhook of client.webhooks.iterate()) {
      if (webhook.source === SOURCE) return client.webhooks.rotateSecret(webhook.id, { grace_period_seconds: 0 });
    }
    throw error;
  }
}

const AUTOMATION_NAME = 'Triage new crash reports';

/** The automation this example made on an earlier run, or a new one. */
async function automationOn(source: string) {
  for await (const automation of client.automations.iterate()) {
    if (automation.name === AUTOMATION_NAME && automation.trigger.source === source) return automation;
  }
  return client.automations.create({
    name: AUTOMATION_NAME,
    trigger: { type: 'event', source, on: 'Issue', filter: "action == 'create' && icontains(data.title, 'crash')" },
    instructions: 'Triage the issue: find the likely cause and suggest a fix.',
  });
}

async function main() {
  const webhook = await webhookWithSecret();
  console.log(`webhook   ${webhook.source} → ${webhook.webhook_url}`);

  const automation = await automationOn(SOURCE);
  console.log(`automation ${automation.id} (${automation.name})`);

  // Each event is new (an identical body would be recognised as a redelivery and answered `duplicate`).
  const result = await client.events.send({
    org_id: webhook.org_id,
    source: SOURCE,
    secret: webhook.webhook_secret,
    payload: { type: 'Issue', action: 'create', data: { id: `ISS-${Date.now()}`, title: 'Crash on start' } },
  });
  console.log(`event     delivery ${result.delivery_id}: matched ${result.matched}, runs ${result.runs_created.join(', ')}`);
  const runId = result.runs_created[0];
  if (!runId) throw new Error('the event matched no automation');

  const run = await client.automations.waitForRun(runId, { timeoutMs: 120_000 });
  console.log(`run       ${run.id} ${run.status}${run.error_detail ? `: ${run.error_detail}` : ''}`);
  if (run.conversation_id) {
    for await (const event of client.conversations.iterateEvents(run.conversation_id)) {
      if (event.kind === 'agent_output' && event.message) console.log(`  agent   ${event.message}`);
    }
  }
  if (run.status !== 'COMPLETED') process.exitCode = 1;
}

main().catch((error: unknown) => {
  if (isAgentPlatformError(error)) console.error(`The service answered ${error.status} ${error.code}: ${error.message}`);
  else if (isAgentPlatformConnectionError(error)) console.error(`No answer from ${baseUrl} (${error.reason}): is the server running?`);
  else console.error(error);
  process.exitCode = 1;
});
