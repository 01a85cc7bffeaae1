/**
 * Declaring a tool once. `defineTool` takes one zod schema for the arguments, and from it come
 * the check of the model's arguments, the JSON Schema the model is given and the type of
 * `execute`'s argument (as the AI SDK's `tool({ inputSchema, execute })`). `defineJsonSchemaTool`
 * is for arguments described by a JSON Schema that whoever runs the call checks (an MCP server,
 * a platform service). Both erase to `AnyTool`, so tools of any arguments share one list.
 * @module
 */
import type { JSONSchema7 } from '@ai-sdk/provider';
import { z } from 'zod';
import type { AgentTool, ParsedArguments, ToolContext, ToolResult } from './tool.js';

/** What every tool says besides its arguments' schema. */
interface ToolBasics<Args> {
  name: string;
  description: string;
  /** The OpenHands action kind (`TerminalAction`) and observation kind (`TerminalObservation`). */
  actionKind: string;
  observationKind: string;
  /** Changes nothing (think, finish): never held for confirmation. Default false. */
  readOnly?: boolean;
  /** One line saying what a call does, for events and consoles. */
  summarize(args: Args): string;
  execute(args: Args, context: ToolContext): Promise<ToolResult>;
}

export interface ToolDefinition<Input extends z.ZodType> extends ToolBasics<z.output<Input>> {
  /** The arguments' one schema: it checks the model's arguments, is sent to the model as JSON Schema, and types `execute`. */
  input: Input;
}

export function defineTool<Input extends z.ZodType>(definition: ToolDefinition<Input>): AgentTool<z.output<Input>> {
  const { input, ...basics } = definition;
  return assemble(basics, jsonSchemaOf(input), (value) => parseWith(input, value));
}

export interface JsonSchemaToolDefinition<Args> extends ToolBasics<Args> {
  /** The arguments' JSON Schema, as the model is given it. Whoever runs the call checks the arguments by it. */
  inputSchema: JSONSchema7;
  /** What is checked here first, and the arguments' type after it: {@link jsonObject} or {@link anyJson}. */
  accepts(input: unknown): ParsedArguments<Args>;
}

export function defineJsonSchemaTool<Args>(definition: JsonSchemaToolDefinition<Args>): AgentTool<Args> {
  const { inputSchema, accepts, ...basics } = definition;
  return assemble(basics, inputSchema, accepts);
}

/** A JSON object: not null, not an array. */
export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Arguments that must be a JSON object (MCP's `tools/call` takes one); the server checks the rest. */
export const jsonObject = (input: unknown): ParsedArguments<Record<string, unknown>> =>
  isObject(input) ? { ok: true, args: input } : { ok: false, error: 'the arguments must be a JSON object' };

/** Arguments taken as they are: the service the call goes to checks all of them, and says why it refuses. */
export const anyJson = (input: unknown): ParsedArguments<unknown> => ({ ok: true, args: input });

function assemble<Args>(basics: ToolBasics<Args>, inputSchema: JSONSchema7, parse: (input: unknown) => ParsedArguments<Args>): AgentTool<Args> {
  const { name, description, actionKind, observationKind, summarize, execute } = basics;
  return {
    name,
    description,
    inputSchema,
    actionKind,
    observationKind,
    readOnly: basics.readOnly ?? false,
    parse,
    summarize,
    execute,
    prepare(input) {
      const parsed = parse(input);
      if (parsed.ok) return { ok: true, summary: safely(() => summarize(parsed.args), name), run: (context) => execute(parsed.args, context) };
      // The call is recorded even when its arguments are wrong, with what its summary makes of
      // them (the summaries only read fields); one that throws falls back to the tool's name.
      return { ok: false, summary: safely(() => summarize(input as Args), name), error: parsed.error };
    },
  };
}

function safely(summary: () => string, fallback: string): string {
  try {
    return summary();
  } catch {
    return fallback;
  }
}

/** A zod schema's `safeParse`, its issues as one message for the model. */
function parseWith<Input extends z.ZodType>(schema: Input, input: unknown): ParsedArguments<z.output<Input>> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return { ok: true, args: parsed.data };
  const issues = parsed.error.issues.map((issue) => `${issue.path.map(String).join('.') || '(arguments)'}: ${issue.message}`);
  return { ok: false, error: `invalid arguments: ${issues.join('; ')}` };
}

/**
 * A zod schema as JSON Schema for the provider, converted once per schema (a conversion costs
 * milliseconds, against a bar of ≤ 10 ms of the agent's own overhead per step; the tools are built for each run).
 */
const converted = new WeakMap<z.ZodType, JSONSchema7>();
export function jsonSchemaOf(schema: z.ZodType): JSONSchema7 {
  let json = converted.get(schema);
  if (!json) {
    json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JSONSchema7;
    converted.set(schema, json);
  }
  return json;
}
