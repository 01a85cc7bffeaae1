/**
 * A tool the built-in agent can call: its schema for the model, how a call is shown as an
 * OpenHands action and observation, and what it does (in the sandbox, on the platform or on an
 * MCP server).
 * @module
 */
import type { AgentPlatformTools, SandboxRuntime } from '@agent-platform/core';
import type { JSONSchema7 } from '@ai-sdk/provider';
import type { z } from 'zod';

export interface ToolContext {
  runtime: SandboxRuntime;
  sandboxId: string;
  /** The sandbox's working directory, as seen inside it. */
  workingDir: string;
  /** Environment of the commands the agent runs: custom secrets, git identity, provider tokens. */
  env: Record<string, string>;
  signal: AbortSignal;
  platform?: AgentPlatformTools;
}

export interface ToolResult {
  /** What the model is told. */
  text: string;
  isError: boolean;
  /** Fields of the OpenHands observation besides `kind` and `content` (e.g. `exit_code`). */
  observation?: Record<string, unknown>;
  /** The finish tool: the agent is done, with `text` as its final answer. */
  finish?: boolean;
}

export interface AgentTool<Args = Record<string, unknown>> {
  name: string;
  description: string;
  /** The arguments' schema for the model: zod for the built-in tools, JSON Schema for MCP and platform tools. */
  inputSchema: z.ZodType | JSONSchema7;
  /** The OpenHands action kind (`TerminalAction`) and observation kind (`TerminalObservation`). */
  actionKind: string;
  observationKind: string;
  /** Checks a call's arguments; a message for the model when they are wrong. */
  parse(input: unknown): { ok: true; args: Args } | { ok: false; error: string };
  /** One line saying what a call does, for events and consoles. */
  summarize(args: Args): string;
  execute(args: Args, context: ToolContext): Promise<ToolResult>;
  /** Changes nothing (think, finish): never held for confirmation. */
  readOnly?: boolean;
}

/** Quotes a value for `sh`. */
export const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

/** At most `max` characters: the start and the end, with what was cut in between said. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.4);
  const tail = max - head;
  return `${text.slice(0, head)}\n[... ${text.length - max} characters cut ...]\n${text.slice(text.length - tail)}`;
}

/** A zod schema's `safeParse` as a tool's `parse`. */
export function parseWith<Args>(schema: { safeParse(input: unknown): { success: true; data: Args } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } } }) {
  return (input: unknown): { ok: true; args: Args } | { ok: false; error: string } => {
    const parsed = schema.safeParse(input);
    if (parsed.success) return { ok: true, args: parsed.data };
    const issues = parsed.error.issues.map((issue) => `${issue.path.map(String).join('.') || '(arguments)'}: ${issue.message}`);
    return { ok: false, error: `invalid arguments: ${issues.join('; ')}` };
  };
}
