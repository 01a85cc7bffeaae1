/**
 * What the signed-in user's settings change in the console itself: `language` (dates and
 * numbers, format.ts) and `enable_sound_notifications` (a sound when a conversation or run
 * finishes or waits for confirmation, status-sound.ts). Read from `GET /api/v1/settings` when
 * the console opens, and again after the settings page saves them.
 */
import type { AgentPlatformClient } from '@agent-platform/client';
import { createContext } from 'preact';
import { useContext, useEffect } from 'preact/hooks';
import { unlockAudioOnGesture } from './chime.js';
import { setLanguage } from './format.js';
import { useResource } from './hooks.js';

export interface Preferences {
  /** The `language` setting (`de`, `pt-BR`), or `null` for the browser's. */
  language: string | null;
  /** The `enable_sound_notifications` setting. */
  sound: boolean;
  /** Whether the settings were read (or could not be, and the defaults hold). */
  loaded: boolean;
  /** Reads the settings again (after the settings page saved them). */
  reload(): void;
}

const DEFAULTS: Preferences = { language: null, sound: false, loaded: false, reload: () => {} };

export const PreferencesContext = createContext<Preferences>(DEFAULTS);

export const usePreferences = (): Preferences => useContext(PreferencesContext);

/**
 * Reads the user's preferences for the signed-in console (the shell, once): dates and numbers
 * follow the language from the first page drawn, and audio is unblocked on the next click while
 * sound is on. A key whose settings cannot be read gets the defaults (the browser's language, no
 * sound).
 */
export function useLoadedPreferences(client: AgentPlatformClient): Preferences {
  const settings = useResource((signal) => client.request('GET /api/v1/settings', {}, { signal }), [client]);
  const language = settings.data?.language ?? null;
  const sound = settings.data?.enable_sound_notifications ?? false;
  const loaded = settings.data !== undefined || settings.error !== undefined;
  // Set while rendering, not in an effect: the pages drawn in this same render format with it.
  if (loaded) setLanguage(language);
  useEffect(() => (sound ? unlockAudioOnGesture() : undefined), [sound]);
  return { language, sound, loaded, reload: settings.reload };
}
