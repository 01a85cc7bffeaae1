/**
 * Output as a consumer can take it without starving the event loop. A command that floods its
 * output (`yes`) fills the event queue faster than a consumer that handles each line (the
 * command agent stores an event per line) can empty it, and the queue hands over all that is
 * waiting at once — up to `maxOutputBytes` of lines, worked through in one unbroken chain of
 * promises. So output goes out in pieces of at most {@link OUTPUT_PIECE_LINES} lines and
 * {@link OUTPUT_PIECE_CHARS} characters, and the event loop gets a turn between pieces once the
 * consumer has held it for {@link EVENT_LOOP_TURN_MS}.
 * @module
 */
import type { ExecEvent } from '@agent-platform/core';

/** The most output handed to a consumer in one event (UTF-16 code units). */
export const OUTPUT_PIECE_CHARS = 4096;
/** The most lines handed to a consumer in one event. */
export const OUTPUT_PIECE_LINES = 64;
/** How long a consumer may work through events before the event loop gets a turn. */
export const EVENT_LOOP_TURN_MS = 5;

/** An output event as pieces within the bounds above, cut after a line where one ends. */
export function* outputPieces(event: ExecEvent): Generator<ExecEvent> {
  if (event.type === 'exit') {
    yield event;
    return;
  }
  let rest = event.data;
  while (rest !== '') {
    const cut = pieceEnd(rest);
    yield cut === rest.length ? { type: event.type, data: rest } : { type: event.type, data: rest.slice(0, cut) };
    rest = rest.slice(cut);
  }
}

/** Where the first piece of `text` ends: after its last whole line within the bounds, if any. */
function pieceEnd(text: string): number {
  let end = 0;
  for (let lines = 0; lines < OUTPUT_PIECE_LINES; lines++) {
    const newline = text.indexOf('\n', end);
    if (newline === -1) return text.length <= OUTPUT_PIECE_CHARS ? text.length : end || charactersEnd(text);
    if (newline >= OUTPUT_PIECE_CHARS) return end || charactersEnd(text);
    end = newline + 1;
  }
  return end;
}

/** A line longer than a piece is cut at the bound, never between the halves of a surrogate pair. */
function charactersEnd(text: string): number {
  const code = text.charCodeAt(OUTPUT_PIECE_CHARS - 1);
  return code >= 0xd800 && code <= 0xdbff ? OUTPUT_PIECE_CHARS - 1 : OUTPUT_PIECE_CHARS;
}
