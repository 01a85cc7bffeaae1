#!/usr/bin/env node
// The demo agent the reference server runs by default, so a new user sees a run finish with no
// setup. It calls no model: it reads its task and event from the environment the command agent
// runner provides, reports what it got as conversation events (JSON lines) and messages (plain
// lines), and exits 0. Replace it with a real agent through AGENT_PLATFORM_AGENT_COMMAND.
import { readFileSync } from 'node:fs';

const emit = (event) => process.stdout.write(`${JSON.stringify(event)}\n`);

emit({ type: 'status', status: 'started', conversation_id: process.env.AGENT_PLATFORM_CONVERSATION_ID ?? null });
console.log(`Task: ${process.env.AGENT_PLATFORM_INSTRUCTIONS ?? '(none)'}`);

const eventFile = process.env.AGENT_PLATFORM_EVENT_FILE;
if (eventFile) {
  const payload = JSON.parse(readFileSync(eventFile, 'utf8'));
  const keys = payload && typeof payload === 'object' ? Object.keys(payload).slice(0, 10) : [];
  emit({ type: 'observation', source: 'event', top_level_keys: keys });
  console.log(`Looked at the triggering event (${keys.length} top-level fields).`);
} else {
  console.log('No triggering event: started by hand.');
}

console.log(
  `Model: ${process.env.LLM_MODEL ?? 'not configured'}; API key ${process.env.LLM_API_KEY ? 'provided' : 'not provided'}.`,
);
emit({ type: 'status', status: 'finished' });
