/**
 * The hidden mark on everything the platform writes on GitHub — outcome comments, "on it", the
 * agent's comments and pull requests — so its own words, which arrive back as events from the
 * owner's account, never command it (no loops).
 * @module
 */
export const PLATFORM_MARKER = '<!-- agent-platform';

/** `body` with the mark at its end (an HTML comment: GitHub shows nothing of it). */
export const marked = (body: string): string => (body.includes(PLATFORM_MARKER) ? body : `${body}\n\n${PLATFORM_MARKER} -->`);
