/**
 * The settings that change the console itself (and, for the language, the agent's answers): the
 * `language` dates and numbers are written in, and `enable_sound_notifications`. Saved as a
 * partial update; the console applies them at once (preferences.ts).
 */
import { useState } from 'preact/hooks';
import { checked, fieldValue } from '../components.js';
import { ActionForm, Submit } from '../forms.js';
import { useAction } from '../hooks.js';
import { usePreferences } from '../preferences.js';
import { useClient } from '../session.js';
import type { OnChanged, SettingsView } from './settings.js';

/** The languages OpenHands offers (its clients store these codes), in its order. */
const LANGUAGES = ['en', 'ja', 'zh-CN', 'zh-TW', 'ko-KR', 'no', 'it', 'pt', 'es', 'ar', 'fr', 'tr', 'de', 'uk', 'ca'] as const;

/** A language by its English name and its own: `German — Deutsch (de)`; the code alone where the browser has no names. */
function languageName(code: string): string {
  try {
    const english = new Intl.DisplayNames(['en'], { type: 'language' }).of(code);
    const own = new Intl.DisplayNames([code], { type: 'language' }).of(code);
    if (!english || english === code) return code;
    return own && own !== english ? `${english} — ${own} (${code})` : `${english} (${code})`;
  } catch {
    return code;
  }
}

export function ConsoleSettings({ view, onChanged }: { view: SettingsView; onChanged: OnChanged }) {
  const client = useClient();
  const preferences = usePreferences();
  const stored = view.language ?? '';
  const [language, setLanguage] = useState(stored);
  const soundOn = view.enable_sound_notifications;
  // A language stored through the API that the list does not have stays selectable.
  const codes: readonly string[] = stored && !(LANGUAGES as readonly string[]).includes(stored) ? [stored, ...LANGUAGES] : LANGUAGES;
  const save = useAction(async (form: HTMLFormElement) => {
    await client.request('POST /api/v1/settings', {
      json: { language: fieldValue(form, 'language'), enable_sound_notifications: checked(form, 'enable_sound_notifications') },
    });
    preferences.reload();
    onChanged('Language and sound saved.');
  });
  return (
    <section aria-labelledby="console-settings-title">
      <h2 id="console-settings-title">Language and sound</h2>
      <ActionForm onSubmit={save.run} aria-labelledby="console-settings-title">
        <label>
          Language
          <select
            name="language"
            value={language}
            onChange={(event) => setLanguage((event.currentTarget as HTMLSelectElement).value)}
            aria-describedby="language-help"
          >
            <option value="">The browser's language</option>
            {codes.map((code) => (
              <option key={code} value={code}>
                {languageName(code)}
              </option>
            ))}
          </select>
        </label>
        <small id="language-help">
          The agent answers and writes its comments in it, and the console shows dates and numbers in it. The console's own words stay in English.
        </small>
        <label>
          {/* biome-ignore lint/a11y/useAriaPropsForRole: a native checkbox styled as a switch (Pico); its checked state is the native one, and ARIA in HTML says not to add aria-checked to an input type=checkbox */}
          <input name="enable_sound_notifications" type="checkbox" role="switch" defaultChecked={soundOn} aria-describedby="sound-help" />
          Sound notifications: play a sound when a conversation or run finishes or waits for confirmation
        </label>
        <small id="sound-help">Browsers allow sound only once you have clicked or typed in the page: a sound due before that is not played.</small>
        <Submit action={save} failed="Saving failed">
          Save language and sound
        </Submit>
      </ActionForm>
    </section>
  );
}
