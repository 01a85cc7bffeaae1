/**
 * The platform's comments on GitHub in the automation owner's language: the outcome, "on it",
 * the approval request and a run a budget kept from starting, with their figures and dates as
 * the language writes them; English without one (word for word as before).
 */
import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../schemas/run.js';
import { describeBreach } from '../spend/spend-control.js';
import { budgetRefusalOf, heldComment, onItComment, outcomeComment, runMarker } from './outcome-comment.js';

const run = (overrides: Partial<RunRecord> = {}): RunRecord => ({
  id: 'run_1',
  org_id: 'org',
  automation_id: 'auto_1',
  delivery_id: 'dlv_1',
  trigger: 'event',
  event_key: 'issue_comment.created',
  status: 'COMPLETED',
  attempt: 1,
  conversation_id: null,
  sandbox_id: null,
  error_detail: null,
  created_by: null,
  created_at: '2026-01-01T00:00:00.000Z',
  started_at: '2026-01-01T00:00:01.000Z',
  completed_at: '2026-01-01T00:00:02.000Z',
  dispatch_payload_json: null,
  ...overrides,
});
const plain = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');

/** A budget refusal exactly as spend control words it. */
const refusal = `not started: ${describeBreach({
  budget: {
    id: 'bud_1',
    org_id: 'org',
    scope: 'org',
    subject_id: null,
    period: 'month',
    limit_usd: 0.25,
    updated_by: 'alice',
    created_at: '2026-06-01T00:00:00.000Z',
    updated_at: '2026-06-01T00:00:00.000Z',
  },
  spentUsd: 0.3,
  periodStart: '2026-06-01',
  resetsAt: new Date('2026-07-01T00:00:00.000Z'),
})}`;

describe('the outcome comment in the owner’s language', () => {
  it('German: the headline, the link and the attempts; the agent’s answer as it wrote it', () => {
    const body = outcomeComment(run({ attempt: 3 }), 'Fix on request', { response: 'Ich habe den Fehler behoben.' }, 'http://x/console/runs/run_1', 'de');
    expect(body).toBe(
      [
        runMarker('run_1'),
        '**Fix on request** ✅ abgeschlossen.',
        '',
        'Ich habe den Fehler behoben.',
        '',
        '[Lauf `run_1`](http://x/console/runs/run_1) · 3 Versuche',
      ].join('\n'),
    );
    expect(outcomeComment(run(), 'T', null, null, 'de')).toContain('_Der Agent hat keine abschließende Antwort gegeben._');
    expect(outcomeComment(run({ status: 'FAILED', error_detail: 'boom' }), 'T', null, null, 'de')).toContain('**T** ❌ fehlgeschlagen.');
    expect(outcomeComment(run({ status: 'CANCELLED' }), 'T', null, null, 'ja')).toContain('**T** ⏹️ キャンセルされました。');
  });

  it('a cut answer says how much was cut, counted as the language counts', () => {
    expect(outcomeComment(run(), 'T', { output: 'x'.repeat(61_234) }, null, 'de')).toContain(
      '… (gekürzt: 1.234 weitere Zeichen in der Unterhaltung des Laufs)',
    );
  });

  it('English without a language, or with one the catalog has not: as before, word for word', () => {
    const english = [runMarker('run_1'), '**Triage** ✅ completed.', '', 'Done.', '', '[Run `run_1`](http://x) · 2 attempts'].join('\n');
    for (const language of [null, 'en', 'fi', 'zh-TW', 'not a tag']) {
      expect(outcomeComment(run({ attempt: 2 }), 'Triage', { response: 'Done.' }, 'http://x', language)).toBe(english);
    }
    expect(outcomeComment(run({ attempt: 2 }), 'Triage', { response: 'Done.' }, 'http://x')).toBe(english);
  });

  it('a run a budget kept from starting: a sentence in the language with its sums and date, then the exact reason', () => {
    expect(budgetRefusalOf(refusal)).toEqual({ limit: 0.25, spent: 0.3, resetsAt: new Date('2026-07-01T00:00:00.000Z') });
    expect(budgetRefusalOf('not started: something else')).toBeNull();
    const skipped = run({ status: 'SKIPPED', error_detail: refusal });
    const german = plain(outcomeComment(skipped, 'Nightly', null, null, 'de'));
    expect(german).toContain('**Nightly** ⏭️ wurde übersprungen.');
    expect(german).toContain('Nicht gestartet: Ein Budget ist aufgebraucht (0,30 $ von 0,25 $); es wird am 1. Juli 2026 um 00:00 UTC zurückgesetzt.');
    expect(german).toContain(`\`\`\`text\n${refusal}\n\`\`\``);
    expect(plain(outcomeComment(skipped, 'Nightly', null, null, null))).toContain(
      'Not started: a budget is spent ($0.30 of $0.25); it resets on July 1, 2026 at 12:00 AM UTC.',
    );
    expect(plain(outcomeComment(skipped, 'Nightly', null, null, 'fr'))).toContain('Non démarré : un budget est épuisé (0,30 $US sur 0,25 $US)');
  });
});

describe('"on it" and the approval request in the owner’s language', () => {
  it('"on it", with the solvability as a percentage of the language', () => {
    const body = plain(onItComment(run(), 'Fix', 'http://x', { score: 0.8, summary: 'Klein und klar.' }, 'de'));
    expect(body).toContain('👀 **Fix** kümmert sich darum.');
    expect(body).toContain('Lösbarkeit: **80 %** — Klein und klar.');
    expect(body).toContain('[Lauf `run_1`](http://x)');
    expect(onItComment(run(), 'Fix', null, { score: 0.8, summary: 'Clear.' })).toContain(
      '👀 **Fix** is on it.\n\nSolvability: **80%** — Clear.\n\nRun `run_1`',
    );
  });

  it('the approval request: its phrases in the language, the commands as they are', () => {
    const body = heldComment(run(), 'Fix', { toolName: 'terminal', summary: null } as Parameters<typeof heldComment>[2], null, 'es');
    expect(body).toContain('⏸️ **Fix** espera aprobación para usar `terminal`:');
    expect(body).toContain('(sin resumen)');
    expect(body).toContain('Responda `/approve` para permitirlo, o `/reject` con un motivo para rechazarlo');
    expect(body).toContain('Ejecución `run_1`');
    const english = heldComment(run(), 'Fix', { toolName: 'terminal', summary: 'rm -rf build' } as Parameters<typeof heldComment>[2], null);
    expect(english).toContain('⏸️ **Fix** waits for approval to use `terminal`:');
    expect(english).toContain('Reply `/approve` to let it, or `/reject` with a reason to refuse (people who may command the agent).');
  });
});
