/**
 * The fake LLM server in a process of its own (as a real provider is: its work is not the
 * platform's), answering every call at once with one no-op terminal command. Prints its URL.
 */
import { startFakeLlmServer } from '@agent-platform/testing/fake-llm';

const llm = await startFakeLlmServer({
  apiKey: process.env.FAKE_LLM_KEY ?? 'sk-bench',
  respond: () => ({ toolCalls: [{ name: 'terminal', arguments: { command: 'true' } }], usage: { input: 1000, output: 20 } }),
});
process.send?.({ url: llm.url });
process.on('disconnect', () => void llm.close().then(() => process.exit(0)));
