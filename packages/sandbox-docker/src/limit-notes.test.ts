/**
 * Reading the kernel's count of refused forks: what the reading command's output means, the
 * engine's own words included — when a sandbox is out of processes, Docker cannot start the
 * reading command either and writes why into its output instead (a fork bomb's run once lost its
 * note to that). The reads against a real engine are in `hardening.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { refusedForksOf } from './limit-notes.js';

describe('refusedForksOf', () => {
  it('takes the count the command printed', () => {
    expect(refusedForksOf('0\n')).toEqual({ kind: 'count', count: 0 });
    expect(refusedForksOf('4127\n')).toEqual({ kind: 'count', count: 4127 });
  });

  it('nothing printed: the kernel keeps no count here', () => {
    expect(refusedForksOf('')).toEqual({ kind: 'absent' });
    expect(refusedForksOf('\n')).toEqual({ kind: 'absent' });
  });

  it('the engine could not start the command for want of processes: the sandbox is out of them', () => {
    const said = [
      'OCI runtime exec failed: exec failed: unable to start container process: fork/exec /proc/self/exe: resource temporarily unavailable: unknown\r\n',
      'OCI runtime exec failed: exec failed: container_linux.go:380: starting container process caused: process_linux.go:130: executing setns process caused: fork: Resource temporarily unavailable: unknown\r\n',
    ];
    for (const output of said) expect(refusedForksOf(output)).toEqual({ kind: 'no-process' });
  });

  it('anything else is a failed read, never a count', () => {
    expect(refusedForksOf('OCI runtime exec failed: read init-p: connection reset by peer: unknown\r\n')).toEqual({ kind: 'failed' });
    expect(refusedForksOf('12 and more')).toEqual({ kind: 'failed' });
    expect(refusedForksOf('-1')).toEqual({ kind: 'failed' });
  });
});
