import { createServer } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recordingLogger } from '../test-support/recording-logger.js';
import { ConfigError, loadConfig } from './config.js';
import { onShutdown, startupProblem } from './lifecycle.js';

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

describe('stopping on SIGTERM', () => {
  const before = { SIGTERM: process.listeners('SIGTERM'), SIGINT: process.listeners('SIGINT') };
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      for (const listener of process.listeners(signal)) if (!before[signal].includes(listener)) process.off(signal, listener);
    }
  });

  it('drains first (not ready, runs finishing), then stops, then exits 0', async () => {
    const exited = new Promise<unknown>((resolve) => vi.spyOn(process, 'exit').mockImplementation(((code: unknown) => resolve(code)) as never));
    const steps: string[] = [];
    const { logger, messages } = recordingLogger();
    onShutdown(logger, async () => void steps.push('stop'), {
      drain: async () => {
        steps.push('drain');
        await new Promise((resolve) => setTimeout(resolve, 20));
        steps.push('drained');
      },
    });
    process.emit('SIGTERM', 'SIGTERM');
    expect(await exited).toBe(0);
    expect(steps).toEqual(['drain', 'drained', 'stop']);
    expect(messages('info')).toEqual(['shutting down: not ready any more, letting running runs finish', 'stopped']);
  });

  it('stops at once on a second signal during the grace (after the first Ctrl-C’s copies)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const codes: unknown[] = [];
    vi.spyOn(process, 'exit').mockImplementation(((code: unknown) => void codes.push(code)) as never);
    const { logger } = recordingLogger();
    onShutdown(logger, async () => {}, { drain: () => new Promise(() => {}) });
    process.emit('SIGTERM', 'SIGTERM');
    // A copy of the same Ctrl-C: ignored.
    process.emit('SIGINT', 'SIGINT');
    expect(codes).toEqual([]);
    vi.setSystemTime(Date.now() + 1_500);
    process.emit('SIGTERM', 'SIGTERM');
    expect(codes).toEqual([143]);
  });
});
