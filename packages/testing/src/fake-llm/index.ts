/**
 * A scripted fake LLM server (OpenAI Chat Completions and Anthropic Messages wire formats).
 * @module
 */
export { startFakeLlmServer } from './fake-llm-server.js';
export type {
  FakeLlmServer,
  FakeLlmServerOptions,
  FakeLlmToolCall,
  FakeLlmTurn,
  FakeLlmUsage,
  RecordedLlmRequest,
} from './types.js';
