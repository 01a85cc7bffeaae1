/**
 * The platform's Markdown as Bitbucket shows it. Bitbucket escapes HTML in comments and pull
 * request descriptions, so the platform's hidden marker (`<!-- agent-platform … -->`, see
 * `github/platform-marker.ts`) would show as text; on a line of its own it becomes the title of a
 * Markdown link reference definition (`[//]: # "<!-- agent-platform … -->"`), which renders as
 * nothing and keeps the marker's text whole — so the platform still finds its comments by it, and
 * still knows its own words when they come back as events.
 * @module
 */
import { PLATFORM_MARKER } from '../github/platform-marker.js';

/** A line that is nothing but a marker (without `"`: the definition's title is quoted). */
const MARKER_LINE = new RegExp(`^${PLATFORM_MARKER.replace(/[.*+?^$(){}|[\]\\]/g, '\\$&')}[^"]*-->$`);

/** `body` with each marker line hidden the way Bitbucket renders nothing of. */
export function bitbucketMarkdown(body: string): string {
  if (!body.includes(PLATFORM_MARKER)) return body;
  return body
    .split('\n')
    .map((line) => (MARKER_LINE.test(line.trim()) ? `[//]: # "${line.trim()}"` : line))
    .join('\n');
}
