/**
 * The console's notification sound (the `enable_sound_notifications` setting): two short tones
 * made with the Web Audio API, so there is no audio file to load — rising for a conversation or
 * run that finished, level for one waiting for confirmation.
 *
 * Browsers keep audio off until the person has clicked or typed in the page. The audio context
 * is made (or resumed) on the first click or key press after sound is turned on; a sound due
 * before that, while audio is still blocked, is dropped rather than played late.
 */
import type { ChimeKind } from './status-changes.js';

/** The tones of each sound, in hertz, one after the other. */
const TONES: Record<ChimeKind, readonly number[]> = { finished: [660, 880], waiting: [880, 880] };
const TONE_SECONDS = 0.16;
const GAP_SECONDS = 0.06;
const VOLUME = 0.15;
/** How long a blocked audio context may take to start before a sound is dropped. */
const RESUME_WAIT_MS = 250;

let context: AudioContext | null = null;

/** The page's one audio context, made on first use; `null` where the browser has no Web Audio. */
function audio(): AudioContext | null {
  if (context) return context;
  if (typeof AudioContext === 'undefined') return null;
  try {
    context = new AudioContext();
  } catch {
    return null;
  }
  return context;
}

/** Resumes audio when it is blocked; resolves to whether it can play now. */
async function ready(audioContext: AudioContext): Promise<boolean> {
  if (audioContext.state === 'running') return true;
  // A blocked context's resume() settles only after a user gesture: do not wait for it.
  await Promise.race([audioContext.resume().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, RESUME_WAIT_MS))]);
  return (audioContext.state as AudioContextState) === 'running';
}

/**
 * Unblocks audio on the person's next click or key press (a browser allows audio only after
 * one). Returns the function that stops listening.
 */
export function unlockAudioOnGesture(): () => void {
  const events = ['pointerdown', 'keydown'] as const;
  const unlock = () => {
    const audioContext = audio();
    if (audioContext && audioContext.state !== 'running') void audioContext.resume().catch(() => undefined);
  };
  for (const type of events) document.addEventListener(type, unlock, { capture: true, passive: true });
  return () => {
    for (const type of events) document.removeEventListener(type, unlock, { capture: true });
  };
}

/** Plays a sound, if audio can play now. */
export async function playChime(kind: ChimeKind): Promise<void> {
  const audioContext = audio();
  if (!audioContext || !(await ready(audioContext))) return;
  let at = audioContext.currentTime + 0.02;
  for (const frequency of TONES[kind]) {
    const tone = audioContext.createOscillator();
    const gain = audioContext.createGain();
    tone.type = 'sine';
    tone.frequency.value = frequency;
    // A short fade in and out: a tone cut off abruptly clicks.
    gain.gain.setValueAtTime(0.0001, at);
    gain.gain.exponentialRampToValueAtTime(VOLUME, at + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + TONE_SECONDS);
    tone.connect(gain).connect(audioContext.destination);
    tone.start(at);
    tone.stop(at + TONE_SECONDS);
    at += TONE_SECONDS + GAP_SECONDS;
  }
}
