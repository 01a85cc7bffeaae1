/**
 * The page tokens this adapter hands out are core's (`@agent-platform/core` storage/paging): the
 * checks that used to cover this package's own copy, now run against core's functions, which have
 * no unit test of their own. The conformance suite checks the pages themselves.
 */
import { describe, expect, it } from 'vitest';
import { PlatformError } from '@agent-platform/core';
import { checkPageLimit, decodePageCursor, decodeSeqPage, encodePageCursor, encodeSeqPage } from '@agent-platform/core/adapter-kit';

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
    expect(decodePageCursor(encodePageCursor(row))).toEqual({ createdAt: row.created_at, id: row.id });
  });

  it('refuse page ids the adapter did not hand out, at ["query", "page_id"]', () => {
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const bad = [
      '',
      'not a page id',
      '%%%',
      '-1',
      'null',
      `${encodePageCursor({ created_at: '2025-01-01T00:00:00Z', id: 'x' })}=`,
      forged(['2025-01-01T00:00:00Z']),
      forged(['2025-01-01 00:00:00', 'x']),
      forged(['2025-01-01T00:00:00+02:00', 'x']),
      forged(['2025-13-45T00:00:00Z', 'x']),
      forged([1735689600000, 'x']),
      forged(['2025-01-01T00:00:00Z', 7]),
      forged({ at: '2025-01-01T00:00:00Z', id: 'x' }),
    ];
    for (const pageId of bad)
      expect(
        validationLoc(() => decodePageCursor(pageId)),
        pageId,
      ).toEqual(['query', 'page_id']);
  });
});

describe('event page ids', () => {
  it('are the next seq in decimal', () => {
    expect(decodeSeqPage(encodeSeqPage(0))).toBe(0);
    expect(decodeSeqPage(encodeSeqPage(1234))).toBe(1234);
    for (const pageId of ['-1', '01', '1.5', '', 'null', '1e3', '9999999999999999']) {
      expect(
        validationLoc(() => decodeSeqPage(pageId)),
        pageId,
      ).toEqual(['query', 'page_id']);
    }
  });
});

describe('checkPageLimit', () => {
  it('takes positive integers and refuses the rest at ["query", "limit"]', () => {
    expect(checkPageLimit(1)).toBe(1);
    for (const limit of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(validationLoc(() => checkPageLimit(limit))).toEqual(['query', 'limit']);
    }
  });
});
