import { describe, expect, it } from 'vitest';
import { PlatformError } from '@agent-platform/core';
import { checkLimit, decodeCursor, decodeSeq, encodeCursor, encodeSeq } from './paging.js';

function validationLoc(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(PlatformError);
    return (error as PlatformError).issues?.[0]?.loc;
  }
  throw new Error('expected a validation error');
}

describe('cursor page ids', () => {
  it('round-trip the created_at and id of the last item', () => {
    const row = { created_at: '2025-01-01T00:00:01.500Z', id: 'sbx-é/🎉' };
    expect(decodeCursor(encodeCursor(row))).toEqual({ createdAt: row.created_at, id: row.id });
  });

  it('refuse page ids the adapter did not hand out, at ["query", "page_id"]', () => {
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const bad = [
      '',
      'not a page id',
      '%%%',
      '-1',
      'null',
      `${encodeCursor({ created_at: '2025-01-01T00:00:00Z', id: 'x' })}=`,
      forged(['2025-01-01T00:00:00Z']),
      forged(['2025-01-01 00:00:00', 'x']),
      forged(['2025-01-01T00:00:00+02:00', 'x']),
      forged(['2025-13-45T00:00:00Z', 'x']),
      forged([1735689600000, 'x']),
      forged(['2025-01-01T00:00:00Z', 7]),
      forged({ at: '2025-01-01T00:00:00Z', id: 'x' }),
    ];
    for (const pageId of bad) expect(validationLoc(() => decodeCursor(pageId)), pageId).toEqual(['query', 'page_id']);
  });
});

describe('event page ids', () => {
  it('are the next seq in decimal', () => {
    expect(decodeSeq(encodeSeq(0))).toBe(0);
    expect(decodeSeq(encodeSeq(1234))).toBe(1234);
    for (const pageId of ['-1', '01', '1.5', '', 'null', '1e3', '9999999999999999']) {
      expect(validationLoc(() => decodeSeq(pageId)), pageId).toEqual(['query', 'page_id']);
    }
  });
});

describe('checkLimit', () => {
  it('takes positive integers and refuses the rest at ["query", "limit"]', () => {
    expect(checkLimit(1)).toBe(1);
    for (const limit of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(validationLoc(() => checkLimit(limit))).toEqual(['query', 'limit']);
    }
  });
});
