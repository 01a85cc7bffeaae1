import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The demo agent's command line: this Node running `agents/demo-agent.mjs`. */
export function demoAgentCommand(): string {
  const script = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../agents/demo-agent.mjs');
  const quote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;
  return `${quote(process.execPath)} ${quote(script)}`;
}
