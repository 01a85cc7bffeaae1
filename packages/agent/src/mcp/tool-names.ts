/**
 * Tool names the model sees: unique across servers and valid for every provider.
 * @module
 */

/** What providers accept as a tool name. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_LENGTH = 64;

/** `name` with every character outside `[a-zA-Z0-9_-]` replaced by `_`, cut to 64; `tool` when empty. */
export function sanitizeToolName(name: string): string {
  const clean = name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, MAX_LENGTH);
  return clean === '' ? 'tool' : clean;
}

/**
 * Names for `tools`, in order: each tool's own name (sanitized); where several tools share one,
 * each of them is prefixed with its server's prefix and `_` (the prefix is shortened first when
 * the whole is too long). Any name still taken gets `_2`, `_3`...
 */
export function assignToolNames(tools: readonly { name: string; prefix: string }[]): string[] {
  const base = tools.map((tool) => ({ tool, name: sanitizeToolName(tool.name) }));
  const counts = new Map<string, number>();
  for (const { name } of base) counts.set(name, (counts.get(name) ?? 0) + 1);
  const wanted = base.map(({ tool, name }) => {
    if (counts.get(name) === 1) return name;
    const prefix = sanitizeToolName(tool.prefix).slice(0, Math.max(1, MAX_LENGTH - 1 - name.length));
    return sanitizeToolName(`${prefix}_${name}`);
  });
  const taken = new Set<string>();
  return wanted.map((name) => {
    let candidate = name;
    for (let n = 2; taken.has(candidate); n++) {
      const suffix = `_${n}`;
      candidate = `${name.slice(0, MAX_LENGTH - suffix.length)}${suffix}`;
    }
    taken.add(candidate);
    return candidate;
  });
}
