/**
 * The owner's `llm_model` as a model to call, named as LiteLLM names them:
 * `openai/<model>`, `anthropic/<model>`, `openrouter/<model>`, `ollama/<model>`, … With
 * `llm_base_url` set, `openai/<model>` or a bare name goes to the OpenAI-compatible Chat
 * Completions API at `{llm_base_url}/chat/completions` (LiteLLM proxy, vLLM, Ollama), and
 * `anthropic/<model>` to `{llm_base_url}/v1/messages`.
 * @module
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3 } from '@ai-sdk/provider';

export interface ResolvedModel {
  model: LanguageModelV3;
  /** The model's name without the routing prefix, as the provider knows it. */
  modelId: string;
  /**
   * Who serves it: the price table's provider id (`openai`, `anthropic`, `openrouter`, …),
   * `local` (Ollama: free), or `custom` (an OpenAI-compatible server: priced by model name if known).
   */
  provider: string;
  /** What the owner wrote. */
  name: string;
}

/** A model name the platform cannot route; the reason is shown as the run's failure. */
export class ModelConfigError extends Error {}

/** Providers that speak the OpenAI Chat Completions API at a known address. */
const OPENAI_COMPATIBLE: Record<string, { baseUrl: string; priceProvider: string }> = {
  openrouter: { baseUrl: 'https://openrouter.ai/api/v1', priceProvider: 'openrouter' },
  deepseek: { baseUrl: 'https://api.deepseek.com/v1', priceProvider: 'deepseek' },
  groq: { baseUrl: 'https://api.groq.com/openai/v1', priceProvider: 'groq' },
  mistral: { baseUrl: 'https://api.mistral.ai/v1', priceProvider: 'mistral' },
  xai: { baseUrl: 'https://api.x.ai/v1', priceProvider: 'x-ai' },
  together_ai: { baseUrl: 'https://api.together.xyz/v1', priceProvider: 'together' },
  fireworks_ai: { baseUrl: 'https://api.fireworks.ai/inference/v1', priceProvider: 'fireworks' },
  gemini: { baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai', priceProvider: 'google' },
  ollama: { baseUrl: 'http://localhost:11434/v1', priceProvider: 'local' },
  hosted_vllm: { baseUrl: '', priceProvider: 'custom' },
  litellm_proxy: { baseUrl: '', priceProvider: 'custom' },
};

const trimSlash = (url: string): string => url.replace(/\/+$/, '');

/** The provider a bare name (no `provider/`) most likely belongs to, without a base URL. */
function guessProvider(name: string): 'openai' | 'anthropic' | null {
  if (/^claude/i.test(name)) return 'anthropic';
  if (/^(gpt-|o\d|chatgpt-|codex)/i.test(name)) return 'openai';
  return null;
}

export interface ModelSettings {
  llmModel: string;
  llmApiKey: string | null;
  llmBaseUrl: string | null;
  /** `fetch` for the provider calls (tests, proxies). */
  fetch?: typeof globalThis.fetch;
}

export function resolveModel(settings: ModelSettings): ResolvedModel {
  const name = settings.llmModel.trim();
  if (name === '') throw new ModelConfigError('llm_model is empty');
  const baseUrl = settings.llmBaseUrl ? trimSlash(settings.llmBaseUrl) : null;
  if (baseUrl !== null && !URL.canParse(baseUrl)) throw new ModelConfigError('llm_base_url is not an absolute URL');
  // An API key is required by the SDKs' constructors; local servers (Ollama, vLLM) accept any.
  const apiKey = settings.llmApiKey ?? '';
  const fetchOption = settings.fetch ? { fetch: settings.fetch } : {};
  const slash = name.indexOf('/');
  const prefix = slash > 0 ? name.slice(0, slash) : null;
  const rest = slash > 0 ? name.slice(slash + 1) : name;

  const compatible = (url: string, modelId: string, provider: string): ResolvedModel => ({
    model: createOpenAICompatible({
      name: provider === 'custom' ? 'openai-compatible' : provider,
      baseURL: url,
      apiKey,
      includeUsage: true,
      ...fetchOption,
    }).chatModel(modelId),
    modelId,
    provider,
    name,
  });
  const anthropic = (modelId: string): ResolvedModel => ({
    model: createAnthropic({ apiKey, ...(baseUrl ? { baseURL: `${baseUrl}/v1` } : {}), ...fetchOption })(modelId),
    modelId,
    provider: 'anthropic',
    name,
  });
  const openai = (modelId: string): ResolvedModel =>
    baseUrl ? compatible(baseUrl, modelId, 'openai') : { model: createOpenAI({ apiKey, ...fetchOption }).chat(modelId), modelId, provider: 'openai', name };

  if (prefix === 'anthropic') return anthropic(rest);
  if (prefix === 'openai') return openai(rest);
  if (prefix && prefix in OPENAI_COMPATIBLE) {
    const known = OPENAI_COMPATIBLE[prefix] as { baseUrl: string; priceProvider: string };
    const url = baseUrl ? (prefix === 'ollama' && !/\/v1$/.test(baseUrl) ? `${baseUrl}/v1` : baseUrl) : known.baseUrl;
    if (!url) throw new ModelConfigError(`${prefix}/ models need llm_base_url (the server's address)`);
    return compatible(url, rest, known.priceProvider);
  }
  // A bare name, or one whose slash is part of the model's own name (`Qwen/Qwen2.5-Coder`).
  if (baseUrl) return compatible(baseUrl, name, 'custom');
  const guessed = guessProvider(name);
  if (guessed === 'anthropic') return anthropic(name);
  if (guessed === 'openai') return openai(name);
  throw new ModelConfigError(
    `cannot tell which provider serves "${name}": name it as provider/model (openai/…, anthropic/…, openrouter/…, ollama/…) or set llm_base_url`,
  );
}
