/**
 * Public types of the scripted fake LLM server.
 * @module
 */

/** A tool call the fake model makes. */
export interface FakeLlmToolCall {
  name: string;
  arguments: Record<string, unknown>;
  /** Defaults to `call_<n>` (OpenAI) or `toolu_<n>` (Anthropic), `n` counting per server. */
  id?: string;
}

/**
 * Token usage of one answer. `input` is the total prompt size, cached tokens included (as OpenAI
 * reports `prompt_tokens`); the Anthropic answer reports `input_tokens` as
 * `input − cacheRead − cacheWrite`, as Anthropic does.
 */
export interface FakeLlmUsage {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** One scripted answer. */
export type FakeLlmTurn =
  | {
      /** The assistant's text; omitted or empty means none. */
      text?: string;
      /** Tool calls, in order, after the text. */
      toolCalls?: FakeLlmToolCall[];
      /** Defaults to an estimate from the request and answer sizes (4 characters a token). */
      usage?: FakeLlmUsage;
      /** Holds the answer (for streams: the first byte) back this long. */
      delayMs?: number;
    }
  | {
      /** Answered with the status and the error body the provider sends for it. */
      error: { status: number; message?: string; retryAfterSeconds?: number };
    };

/** A request the fake server received (recorded even when it was answered with an error). */
export interface RecordedLlmRequest {
  api: 'openai-chat' | 'anthropic-messages';
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body. */
  // biome-ignore lint/suspicious/noExplicitAny: the parsed body of whatever request a client under test sent; tests walk into it freely (`body.messages[0].content`), so it is any on purpose
  body: any;
  stream: boolean;
  model: string;
  /**
   * The key sent: `Authorization: Bearer …` (OpenAI) or `x-api-key` (Anthropic; a bearer token
   * when no `x-api-key` is sent, as with `createAnthropic({ authToken })`).
   */
  apiKey: string | null;
}

export interface FakeLlmServerOptions {
  /** Answers in order; when exhausted, `respond` (if given) or a plain text "done" answer. */
  turns?: FakeLlmTurn[];
  /** Computes an answer from the request (takes over once `turns` is exhausted). */
  respond?: (request: RecordedLlmRequest) => FakeLlmTurn | Promise<FakeLlmTurn>;
  /** When set, any other key gets the provider's real 401 answer. */
  apiKey?: string;
  /** When set, any other model gets the provider's real 404 / not_found answer. */
  models?: string[];
  /** The loopback port to listen on. Default 0: one the system picks. */
  port?: number;
}

export interface FakeLlmServer {
  /** e.g. `http://127.0.0.1:41234` — no trailing slash. */
  url: string;
  /** Every request routed to a model API, in arrival order. */
  readonly requests: RecordedLlmRequest[];
  /** Appends answers to the script. */
  enqueue(...turns: FakeLlmTurn[]): void;
  /** Stops the server and drops open connections. */
  close(): Promise<void>;
}

/** A successful answer, resolved: ids assigned and usage filled in. */
export interface ResolvedAnswer {
  text: string;
  toolCalls: { id: string; name: string; arguments: Record<string, unknown> }[];
  usage: Required<FakeLlmUsage>;
}
