/**
 * When the console plays its sound (app/status-changes.ts): on a change it saw, of a conversation to
 * a final status or to waiting for confirmation, and of a run to a final status — never for a
 * record first seen already finished, nor twice for one change seen on two pages.
 */
import { describe, expect, it } from 'vitest';
import { observeStatuses, soundFor, startedHere } from '../app/status-changes.js';

describe('the console’s status sound', () => {
  it('sounds for a conversation that finishes, fails or waits for confirmation, and for a run that ends', () => {
    expect(soundFor('conversation', 'waiting_for_confirmation')).toBe('waiting');
    for (const status of ['finished', 'error', 'stuck', 'stopped']) expect(soundFor('conversation', status)).toBe('finished');
    for (const status of ['idle', 'running', 'paused']) expect(soundFor('conversation', status)).toBeNull();
    for (const status of ['COMPLETED', 'FAILED', 'CANCELLED', 'SKIPPED']) expect(soundFor('run', status)).toBe('finished');
    for (const status of ['PENDING', 'RUNNING']) expect(soundFor('run', status)).toBeNull();
  });

  it('sounds on a change it saw, once, and not for a record first seen finished', () => {
    expect(observeStatuses('conversation', [{ id: 'conv_a', status: 'finished' }])).toBeNull();
    expect(observeStatuses('conversation', [{ id: 'conv_b', status: 'running' }])).toBeNull();
    expect(observeStatuses('conversation', [{ id: 'conv_b', status: 'running' }])).toBeNull();
    expect(observeStatuses('conversation', [{ id: 'conv_b', status: 'waiting_for_confirmation' }])).toBe('waiting');
    // The same change seen again (the list after the conversation's page): no second sound.
    expect(observeStatuses('conversation', [{ id: 'conv_b', status: 'waiting_for_confirmation' }])).toBeNull();
    expect(observeStatuses('conversation', [{ id: 'conv_b', status: 'running' }])).toBeNull();
    expect(observeStatuses('conversation', [{ id: 'conv_b', status: 'finished' }])).toBe('finished');
  });

  it('tells runs from conversations, and sounds for a list where one of many ended', () => {
    expect(
      observeStatuses('run', [
        { id: 'x', status: 'RUNNING' },
        { id: 'y', status: 'PENDING' },
      ]),
    ).toBeNull();
    expect(observeStatuses('conversation', [{ id: 'x', status: 'finished' }])).toBeNull();
    expect(
      observeStatuses('run', [
        { id: 'x', status: 'RUNNING' },
        { id: 'y', status: 'FAILED' },
      ]),
    ).toBe('finished');
  });

  it('sounds for a record this tab started even when it is first seen finished', () => {
    startedHere('run', 'run_quick');
    expect(observeStatuses('run', [{ id: 'run_quick', status: 'COMPLETED' }])).toBe('finished');
    // Started here but already seen: what was seen stands.
    expect(observeStatuses('conversation', [{ id: 'conv_seen', status: 'finished' }])).toBeNull();
    startedHere('conversation', 'conv_seen');
    expect(observeStatuses('conversation', [{ id: 'conv_seen', status: 'finished' }])).toBeNull();
  });
});
