/**
 * Requests and answers as readable text: bytes shown exactly (non-printables as `\xNN`, valid
 * UTF-8 as characters), with long repetitions folded to `«'a' × 10000»` so a 100,000-level body
 * fits on a line and can still be rebuilt by hand.
 * @module
 */
import type { RawResult, WireRequest } from './raw-http.js';

/** One display token per character or byte. */
function tokens(bytes: Buffer): string[] {
  const out: string[] = [];
  for (let i = 0; i < bytes.length; ) {
    const byte = bytes[i]!;
    if (byte >= 0x20 && byte < 0x7f) {
      out.push(byte === 0x5c ? '\\\\' : String.fromCharCode(byte));
      i++;
      continue;
    }
    if (byte === 0x0a) {
      out.push('\\n');
      i++;
      continue;
    }
    if (byte === 0x0d) {
      out.push('\\r');
      i++;
      continue;
    }
    if (byte === 0x09) {
      out.push('\\t');
      i++;
      continue;
    }
    const length = byte >= 0xf0 && byte < 0xf5 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc2 && byte < 0xe0 ? 2 : 0;
    if (length > 0 && i + length <= bytes.length) {
      const text = bytes.subarray(i, i + length).toString('utf8');
      const valid = !text.includes('\ufffd') && Buffer.from(text, 'utf8').equals(bytes.subarray(i, i + length));
      if (valid && !/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(text)) {
        out.push(text);
        i += length;
        continue;
      }
    }
    out.push(`\\x${byte.toString(16).toUpperCase().padStart(2, '0')}`);
    i++;
  }
  return out;
}

/** `bytes` as text with repetitions (a unit of 1 to 8 tokens repeated to 24+ tokens) folded. */
export function showBytes(bytes: Buffer, max = 2000): string {
  const CAP = 2_000_000;
  if (bytes.length > CAP) return `${showBytes(bytes.subarray(0, CAP), max)}…(+${bytes.length - CAP} more bytes, ${bytes.length} in all)`;
  const list = tokens(bytes);
  let out = '';
  for (let i = 0; i < list.length && out.length < max; ) {
    let folded = false;
    for (let unit = 1; unit <= 8 && i + unit * 2 <= list.length; unit++) {
      let reps = 1;
      while (i + (reps + 1) * unit <= list.length && sameRun(list, i, i + reps * unit, unit)) reps++;
      if (reps * unit >= 24 && reps >= 3) {
        out += `«'${list.slice(i, i + unit).join('')}' × ${reps}»`;
        i += reps * unit;
        folded = true;
        break;
      }
    }
    if (!folded) out += list[i++];
  }
  return out.length >= max ? `${out.slice(0, max)}…(${bytes.length} bytes in all)` : out;
}

function sameRun(list: string[], a: number, b: number, unit: number): boolean {
  for (let k = 0; k < unit; k++) if (list[a + k] !== list[b + k]) return false;
  return true;
}

export function showRequest(request: WireRequest, max = 2000): string {
  const lines = [`${request.method} ${showBytes(request.target, max)} ${request.version ?? 'HTTP/1.1'}   [framing: ${request.framing}]`];
  for (const [name, value] of request.headers) lines.push(`${showBytes(Buffer.from(name, 'latin1'), 200)}: ${showBytes(value, Math.min(max, 600))}`);
  if (request.body !== null) lines.push(`body (${request.body.length} bytes): ${showBytes(request.body, max)}`);
  return lines.join('\n');
}

export function showResult(result: RawResult, max = 600): string {
  if (result.kind === 'timeout') return `no answer within ${result.ms} ms (${result.received} bytes received)`;
  if (result.kind === 'closed') return `connection closed without an answer after ${result.ms} ms${result.error ? ` (${result.error})` : ''}`;
  const headers = Object.entries(result.headers)
    .filter(([name]) => ['content-type', 'retry-after', 'allow', 'connection'].includes(name))
    .map(([name, values]) => `${name}: ${values.join(', ')}`)
    .join('; ');
  return `HTTP ${result.status} (${result.ms} ms) [${headers}] ${showBytes(result.body, max)}`;
}
