/**
 * The automation form's flow-control fields (concurrency key, on conflict, debounce, rate limit),
 * their draft, and the draft as the API takes it.
 */
import { ON_CONFLICT_POLICIES, type Automation, type AutomationCreateInput } from '@agent-platform/client';

type OnConflict = NonNullable<AutomationCreateInput['on_conflict']>;

/** What each policy does, beside its name in the select; the select offers them in core's order (`queue`, the API's default, first). */
const ON_CONFLICT_LABELS: Record<OnConflict, string> = {
  queue: 'queue: wait for the live run',
  cancel_previous: 'cancel previous: cancel the live run',
  skip: 'skip: drop the new run',
};

/** The fields as typed: text, so an emptied field reads as "none". */
export interface FlowDraft {
  concurrencyKey: string;
  onConflict: OnConflict;
  debounce: string;
  rateMaxRuns: string;
  ratePerSeconds: string;
}

export const flowDraftOf = (automation: Automation | null): FlowDraft => ({
  concurrencyKey: automation?.concurrency_key ?? '',
  onConflict: automation?.on_conflict ?? 'queue',
  debounce: automation?.debounce_seconds?.toString() ?? '',
  rateMaxRuns: automation?.rate_limit?.max_runs.toString() ?? '',
  ratePerSeconds: automation?.rate_limit?.per_seconds.toString() ?? '',
});

/** Whether either half of the rate limit is filled in: then both are required. */
const rateGiven = (draft: FlowDraft) => draft.rateMaxRuns.trim() !== '' || draft.ratePerSeconds.trim() !== '';

/**
 * The draft's flow control for create, update and validate: an empty field is `null` (none, or
 * removed on update). The form requires both halves of a rate limit; an empty one reaches the
 * filter tester as 0, which the server refuses at that field.
 */
export const flowInputOf = (draft: FlowDraft) =>
  ({
    concurrency_key: draft.concurrencyKey.trim() || null,
    on_conflict: draft.onConflict,
    debounce_seconds: draft.debounce.trim() ? Number(draft.debounce) : null,
    rate_limit: rateGiven(draft) ? { max_runs: Number(draft.rateMaxRuns.trim() || 0), per_seconds: Number(draft.ratePerSeconds.trim() || 0) } : null,
  }) satisfies Pick<AutomationCreateInput, 'concurrency_key' | 'on_conflict' | 'debounce_seconds' | 'rate_limit'>;

export function FlowControlFields({ draft, onChange }: { draft: FlowDraft; onChange: (field: keyof FlowDraft) => (event: Event) => void }) {
  return (
    <fieldset>
      <legend>Flow control</legend>
      <div class="grid">
        <div>
          <label>
            Concurrency key
            <input
              name="concurrency_key"
              value={draft.concurrencyKey}
              onInput={onChange('concurrencyKey')}
              spellcheck={false}
              placeholder="none"
              aria-describedby="concurrency-help"
            />
          </label>
          <small id="concurrency-help">
            A JMESPath over the payload, e.g. <code>pull_request.number</code>: runs with the same key never run at once.
          </small>
        </div>
        {/* Labelled with `for`: a label around a select would take the chosen option into its name. */}
        <div>
          <label for="on-conflict">On conflict</label>
          <select id="on-conflict" name="on_conflict" value={draft.onConflict} onChange={onChange('onConflict')}>
            {ON_CONFLICT_POLICIES.map((value) => (
              <option key={value} value={value}>
                {ON_CONFLICT_LABELS[value]}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div class="grid">
        <div>
          <label>
            Debounce (seconds)
            <input
              name="debounce_seconds"
              type="number"
              min={1}
              max={86400}
              value={draft.debounce}
              onInput={onChange('debounce')}
              placeholder="none"
              aria-describedby="debounce-help"
            />
          </label>
          <small id="debounce-help">A run waits this long; a later event with the same key replaces it.</small>
        </div>
        <label>
          Rate limit: max runs
          <input
            name="rate_limit_max_runs"
            type="number"
            min={1}
            max={10000}
            value={draft.rateMaxRuns}
            onInput={onChange('rateMaxRuns')}
            required={rateGiven(draft)}
            placeholder="no limit"
          />
        </label>
        <label>
          Rate limit: per seconds
          <input
            name="rate_limit_per_seconds"
            type="number"
            min={1}
            max={604800}
            value={draft.ratePerSeconds}
            onInput={onChange('ratePerSeconds')}
            required={rateGiven(draft)}
            placeholder="no limit"
          />
        </label>
      </div>
    </fieldset>
  );
}
