import { describe, expect, it } from 'vitest';
import { requiresConfirmation, worstRating } from './confirmation.js';

describe('which rated actions wait in confirmation mode', () => {
  it('waits at or above the threshold (HIGH by default), and always when unrated', () => {
    expect(['UNKNOWN', 'LOW', 'MEDIUM', 'HIGH'].filter((risk) => requiresConfirmation(risk as never))).toEqual(['UNKNOWN', 'HIGH']);
    expect(['UNKNOWN', 'LOW', 'MEDIUM', 'HIGH'].filter((risk) => requiresConfirmation(risk as never, 'MEDIUM'))).toEqual(['UNKNOWN', 'MEDIUM', 'HIGH']);
    expect(['UNKNOWN', 'LOW', 'MEDIUM', 'HIGH'].filter((risk) => requiresConfirmation(risk as never, 'LOW'))).toEqual(['UNKNOWN', 'LOW', 'MEDIUM', 'HIGH']);
  });

  it('takes the worst of several ratings, the first of equals', () => {
    expect(
      worstRating([
        { risk: 'LOW', reason: 'a' },
        { risk: 'HIGH', reason: 'b' },
        { risk: 'HIGH', reason: 'c' },
        { risk: 'UNKNOWN', reason: 'd' },
      ]),
    ).toEqual({ risk: 'HIGH', reason: 'b' });
    expect(worstRating([])).toBeNull();
  });
});
