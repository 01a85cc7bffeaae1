/**
 * The automation form's trigger fields: the source, what starts it (event keys, or on GitHub a
 * mention or a label), and for GitHub who may command it (`allowed_actors`).
 */
import { GITHUB_SOURCE, SOURCE_NAME_PATTERN, type Automation } from '@agent-platform/client';
import { inputPattern } from '../components.js';
import { isGithub, patternsOf, triggerKindOf, type ActorGroup, type Draft, type TriggerKind } from './automation-draft.js';

type OnChange = (field: keyof Draft) => (event: Event) => void;

const KIND_LABELS: Record<TriggerKind, string> = {
  on: 'Event keys',
  mention: 'A mention',
  label: 'A label',
};

/** Each group in words, in the select after the default. */
const ACTOR_GROUP_LABELS: Record<ActorGroup, string> = {
  writers: 'People with write permission',
  members: 'People with any role on the repository',
  anyone: 'Anyone who can comment',
};

export function TriggerFields({
  draft,
  stored,
  sources,
  onChange,
  onKind,
}: {
  draft: Draft;
  /** The automation as saved (`null` for a new one): what a changed trigger kind keeps of it. */
  stored: Automation | null;
  sources: string[];
  onChange: OnChange;
  onKind: (kind: TriggerKind) => void;
}) {
  const kind = triggerKindOf(draft);
  return (
    <div class="grid">
      <div>
        <label>
          Source
          <input
            name="source"
            required
            pattern={inputPattern(SOURCE_NAME_PATTERN)}
            list="automation-sources"
            value={draft.source}
            onInput={onChange('source')}
            aria-describedby="source-help"
          />
        </label>
        <small id="source-help">github, or the source of a registered webhook.</small>
        <datalist id="automation-sources">
          {sources.map((source) => (
            <option key={source} value={source} />
          ))}
        </datalist>
      </div>
      {isGithub(draft) && (
        // Labelled with `for`: a label around a select would take the chosen option into its name.
        <div>
          <label for="trigger-kind">Runs on</label>
          <select
            id="trigger-kind"
            name="trigger_kind"
            value={kind}
            onChange={(event) => onKind((event.currentTarget as HTMLSelectElement).value as TriggerKind)}
          >
            {(Object.keys(KIND_LABELS) as TriggerKind[]).map((value) => (
              <option key={value} value={value}>
                {KIND_LABELS[value]}
              </option>
            ))}
          </select>
        </div>
      )}
      <div>
        {kind === 'on' && <EventPatterns draft={draft} onChange={onChange} />}
        {kind === 'mention' && <MentionField draft={draft} onChange={onChange} />}
        {kind === 'label' && <LabelField draft={draft} onChange={onChange} />}
        {kind !== 'on' && <KeptEvents stored={stored} />}
      </div>
    </div>
  );
}

function EventPatterns({ draft, onChange }: { draft: Draft; onChange: OnChange }) {
  return (
    <>
      <label>
        Event patterns
        <input name="on" required value={draft.on} onInput={onChange('on')} aria-describedby="on-help" />
      </label>
      <small id="on-help">
        Event keys, separated by commas; <code>*</code>, <code>?</code> and <code>[...]</code> are wildcards (<code>pull_request.*</code>).
      </small>
    </>
  );
}

function MentionField({ draft, onChange }: { draft: Draft; onChange: OnChange }) {
  return (
    <>
      <label>
        Mention
        <input
          name="mention"
          required
          maxLength={120}
          value={draft.mention}
          onInput={onChange('mention')}
          placeholder="@agent"
          aria-describedby="mention-help"
        />
      </label>
      <small id="mention-help">
        Runs when a comment, a new issue or a pull request mentions it; a later mention in the same thread continues its conversation; <code>@agent stop</code>{' '}
        or <code>/stop</code> stops it.
      </small>
    </>
  );
}

function LabelField({ draft, onChange }: { draft: Draft; onChange: OnChange }) {
  return (
    <>
      <label>
        Label
        <input name="label" required maxLength={100} value={draft.label} onInput={onChange('label')} placeholder="agent" aria-describedby="label-help" />
      </label>
      <small id="label-help">Runs when this label is added to an issue or pull request; removing it (or /stop) stops it.</small>
    </>
  );
}

/**
 * A saved automation that ran on event keys keeps them when it becomes a mention's or a label's
 * (the API replaces only the trigger's members given, and a mention sends none): said here, so
 * that the narrower trigger is no surprise.
 */
function KeptEvents({ stored }: { stored: Automation | null }) {
  if (!stored || stored.trigger.source !== GITHUB_SOURCE || stored.trigger.mention || stored.trigger.label) return null;
  return (
    <small>
      It keeps its event patterns (<code>{patternsOf(stored.trigger.on).join(', ')}</code>): only those of the events it brings start it.
    </small>
  );
}

/** Who may command a GitHub automation: the default, a group, or a list of logins. */
export function AllowedActorsFields({ draft, onChange }: { draft: Draft; onChange: OnChange }) {
  return (
    <div class="grid">
      <div>
        <label for="allowed-actors">Who may command it</label>
        <select id="allowed-actors" name="allowed_actors" value={draft.allowedActors} onChange={onChange('allowedActors')} aria-describedby="actors-help">
          <option value="">The default: people with write permission</option>
          {(Object.keys(ACTOR_GROUP_LABELS) as ActorGroup[]).map((value) => (
            <option key={value} value={value}>
              {ACTOR_GROUP_LABELS[value]}
            </option>
          ))}
          <option value="logins">These logins only</option>
        </select>
        <small id="actors-help">
          By default the sender of a comment, a mention or a label is checked; chosen here, the sender of every event of the automation. Bots and the platform's
          own comments never command it.
        </small>
      </div>
      {draft.allowedActors === 'logins' && (
        <label>
          Logins
          <input
            name="allowed_actor_logins"
            required
            value={draft.actorLogins}
            onInput={onChange('actorLogins')}
            placeholder="carol, dave"
            spellcheck={false}
          />
        </label>
      )}
    </div>
  );
}
