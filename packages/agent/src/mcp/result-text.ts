/**
 * The text of a `tools/call` result, for the model.
 * @module
 */

/** Most UTF-8 bytes of a result's text (the truncation notice included): 64 KiB. */
export const MAX_RESULT_BYTES = 64 * 1024;

interface ContentItem {
  type: string;
  [key: string]: unknown;
}

/**
 * The text items of the result's content, one after another; other items described in brackets
 * (`[image: image/png, 1234 bytes]`); the structured content as JSON when there is no content.
 * Bounded to {@link MAX_RESULT_BYTES}.
 */
export function resultText(result: Record<string, unknown>): string {
  const content = Array.isArray(result.content) ? (result.content as ContentItem[]) : [];
  const parts = content.map(describeItem);
  // Without content: the structured content, or a pre-2024-11-05 server's `toolResult`.
  const fallback = result.structuredContent ?? result.toolResult;
  if (parts.length === 0 && fallback !== undefined) parts.push(JSON.stringify(fallback) ?? '');
  return boundText(parts.join('\n'));
}

function describeItem(item: ContentItem): string {
  switch (item.type) {
    case 'text':
      return typeof item.text === 'string' ? item.text : '';
    case 'image':
    case 'audio':
      return `[${item.type}: ${String(item.mimeType ?? 'unknown type')}, ${base64Bytes(item.data)} bytes]`;
    case 'resource': {
      const resource = (item.resource ?? {}) as Record<string, unknown>;
      const head = `[resource: ${String(resource.uri ?? '')}${resource.mimeType ? `, ${String(resource.mimeType)}` : ''}]`;
      if (typeof resource.text === 'string') return `${head}\n${resource.text}`;
      return typeof resource.blob === 'string' ? `${head.slice(0, -1)}, ${base64Bytes(resource.blob)} bytes]` : head;
    }
    case 'resource_link':
      return `[resource link: ${String(item.name ?? '')} ${String(item.uri ?? '')}]`;
    default:
      return `[${String(item.type)} content]`;
  }
}

function base64Bytes(data: unknown): number {
  if (typeof data !== 'string') return 0;
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** `text`, or its beginning and a notice when it is longer than {@link MAX_RESULT_BYTES} in UTF-8. */
export function boundText(text: string, maxBytes = MAX_RESULT_BYTES): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  const notice = (kept: number): string => `\n[output truncated: the first ${kept} of ${bytes.length} bytes shown]`;
  // The notice's own length depends on the number in it; the number only gets smaller.
  let keep = maxBytes - Buffer.byteLength(notice(maxBytes));
  // Never cut a character: step back over UTF-8 continuation bytes.
  while (keep > 0 && ((bytes[keep] ?? 0) & 0xc0) === 0x80) keep--;
  return `${bytes.subarray(0, keep).toString('utf8')}${notice(keep)}`;
}
