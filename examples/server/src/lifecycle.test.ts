import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';
import { startupProblem } from './lifecycle.js';

describe('why the server cannot start', () => {
  it('is the message alone for a configuration error', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'abc' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(startupProblem(error)).toBe('PORT must be an integer from 0 to 65535, got "abc"');
  });

  it('names PORT when the port is taken', async () => {
    const first = createServer();
    await new Promise<void>((resolve) => first.listen(0, '127.0.0.1', resolve));
    const { port } = first.address() as { port: number };
    const error = await new Promise<unknown>((resolve) => createServer().once('error', resolve).listen(port, '127.0.0.1'));
    first.close();
    expect(startupProblem(error)).toBe(`port ${port} on 127.0.0.1 is already in use (another server running?): stop it, or set PORT to another port`);
  });

  it('is null for anything else (logged with its stack)', () => {
    expect(startupProblem(new TypeError('x is not a function'))).toBeNull();
    expect(startupProblem('a string')).toBeNull();
  });
});
