/**
 * A conversation as a zip (`GET /api/v1/app-conversations/{id}/download`), laid out as the
 * OpenHands agent-server keeps a conversation on disk: `meta.json`, the conversation, and one
 * `event-NNNNN-<id>.json` per event in order (`NNNNN` its `seq`, zero-padded to five digits or
 * more). Each event file holds the event in the agent-server's shape, as
 * `GET /api/conversations/{id}/events/search` answers it (`{ id, timestamp, source, kind, ...data }`),
 * with `seq`, and with `message` for the platform's own kinds (`agent_output`, `status`, ...),
 * whose text would otherwise be lost. Built with fflate (deflate), in memory.
 * @module
 */
import { strToU8, zipSync, type Zippable } from 'fflate';
import { toAgentServerEvent, type AppConversation, type ConversationEvent } from '../schemas/app-conversation.js';
import { AGENT_EVENT_KINDS } from '../schemas/agent-events.js';

export interface ConversationArchive {
  /** `conversation_<id>.zip`, as OpenHands names it. */
  filename: string;
  bytes: Uint8Array;
}

/** Zip entries carry DOS times, which start in 1980. */
const EARLIEST_ZIP_TIME = Date.UTC(1980, 0, 2);

/** A name made of safe characters only: ids come from agents too. */
const safeName = (value: string): string => value.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 100) || '_';

/** The entry name of an event: `event-00042-evt_abc.json`. */
export const eventEntryName = (event: Pick<ConversationEvent, 'seq' | 'id'>): string =>
  `event-${String(event.seq).padStart(5, '0')}-${safeName(event.id)}.json`;

function mtimeOf(timestamp: string, fallback: Date): Date {
  const time = Date.parse(timestamp);
  return Number.isNaN(time) || time < EARLIEST_ZIP_TIME ? fallback : new Date(time);
}

const OPENHANDS_KINDS = new Set<string>(AGENT_EVENT_KINDS);

/** An event as its file holds it. */
function exportedEvent(event: ConversationEvent): Record<string, unknown> {
  const shaped = { ...toAgentServerEvent(event), seq: event.seq };
  return OPENHANDS_KINDS.has(event.kind) ? shaped : { ...shaped, message: event.message };
}

/** JSON text of a value; a stand-in naming the problem when it cannot be serialized (nested too deep). */
function jsonText(value: unknown, standIn: () => unknown): string {
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return JSON.stringify(standIn(), null, 2);
  }
}

/** The zip of a conversation and its events (all of them, in `seq` order). */
export function conversationArchive(conversation: AppConversation, events: readonly ConversationEvent[], exportedAt: Date): ConversationArchive {
  const files: Zippable = {};
  const meta = { ...conversation, event_count: events.length, exported_at: exportedAt.toISOString() };
  files['meta.json'] = [strToU8(jsonText(meta, () => ({ id: conversation.id }))), { mtime: exportedAt }];
  for (const event of events) {
    const text = jsonText(exportedEvent(event), () => ({ id: event.id, seq: event.seq, kind: event.kind, error: 'the event is nested too deep to export' }));
    files[eventEntryName(event)] = [strToU8(text), { mtime: mtimeOf(event.created_at, exportedAt) }];
  }
  return { filename: `conversation_${safeName(conversation.id)}.zip`, bytes: zipSync(files, { level: 6 }) };
}
