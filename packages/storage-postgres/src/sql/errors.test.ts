import { describe, expect, it } from 'vitest';
import { StorageConflictError, StorageUnavailableError } from '@agent-platform/core';
import { isRetryable, isUnavailable, redactorFor, toStorageError, unavailable } from './errors.js';

const withCode = (code: string, message = 'boom') => Object.assign(new Error(message), { code });

describe('toStorageError', () => {
  const redact = redactorFor(undefined);

  it('turns a unique violation into StorageConflictError', () => {
    expect(toStorageError('PostgreSQL', withCode('23505'), redact)).toBeInstanceOf(StorageConflictError);
  });

  it('turns lost or refused connections into StorageUnavailableError', () => {
    const cases = [
      withCode('ECONNREFUSED'),
      withCode('ECONNRESET'),
      withCode('ETIMEDOUT'),
      withCode('57P01', 'terminating connection due to administrator command'),
      withCode('57P03', 'the database system is starting up'),
      withCode('08006'),
      withCode('53300', 'sorry, too many clients already'),
      withCode('28P01', 'password authentication failed'),
      withCode('3D000', 'database "x" does not exist'),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      new Error('Client has encountered a connection error and is not queryable'),
      new AggregateError([withCode('ECONNREFUSED')], ''),
    ];
    for (const error of cases) expect(toStorageError('PostgreSQL', error, redact), error.message).toBeInstanceOf(StorageUnavailableError);
  });

  it('passes other errors through unchanged', () => {
    const syntax = withCode('42601', 'syntax error');
    expect(toStorageError('PostgreSQL', syntax, redact)).toBe(syntax);
    const own = new Error('mine');
    expect(toStorageError('PostgreSQL', own, redact)).toBe(own);
  });

  it('knows serialization failures and deadlocks are worth another run', () => {
    expect(isRetryable(withCode('40001'))).toBe(true);
    expect(isRetryable(withCode('40P01'))).toBe(true);
    expect(isRetryable(withCode('23505'))).toBe(false);
    expect(isUnavailable(withCode('40001'))).toBe(false);
  });
});

describe('redactorFor', () => {
  it('removes the password of a URL, raw and percent-decoded', () => {
    const redact = redactorFor('postgres://user:p%40ss@db.example.com:5432/app');
    expect(redact('could not log in with p%40ss or p@ss')).toBe('could not log in with *** or ***');
    const error = unavailable('PostgreSQL', withCode('ECONNREFUSED', 'connect p@ss refused'), redact);
    expect(error.message).toBe('PostgreSQL is unavailable: connect *** refused (ECONNREFUSED)');
    expect(String((error as Error & { cause: unknown }).cause)).not.toContain('p@ss');
  });

  it('removes a key=value password, and leaves text alone without one', () => {
    expect(redactorFor("host=db password='se cret' user=u")('se cret!')).toBe('***!');
    expect(redactorFor('postgres://user@db/app')('nothing to hide')).toBe('nothing to hide');
  });
});
