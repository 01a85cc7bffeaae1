/**
 * The rules of a conversation patch, written once so that every storage adapter applies the same:
 * which members a patch writes, when its guard lets it, and the record it leaves.
 * @module
 */
import type { ConversationGuard, ConversationPatch } from '../ports/storage.js';
import type { AppConversationRecord } from '../schemas/app-conversation.js';

/**
 * Never written by a patch, whatever a caller passes at run time: the record's identity and owner
 * (a patch changes a conversation, never whose it is) and the version, which storage keeps.
 */
const FIXED_MEMBERS: ReadonlySet<string> = new Set(['id', 'org_id', 'created_by_user_id', 'version']);

/** The members of `patch` a write sets: those that are not `undefined`, the fixed ones left out. */
export function conversationPatchOf(patch: ConversationPatch): ConversationPatch {
  const written: Record<string, unknown> = {};
  for (const [member, value] of Object.entries(patch)) {
    if (value !== undefined && !FIXED_MEMBERS.has(member)) written[member] = value;
  }
  return written as ConversationPatch;
}

/** Whether `guard` lets a patch write `record`: no version asked for, or the one stored. */
export function conversationGuardAllows(record: AppConversationRecord, guard: ConversationGuard = {}): boolean {
  return guard.version === undefined || record.version === guard.version;
}

/**
 * The record a patch leaves, or `null` when there is none or the guard refuses: a new object
 * (`record` is not changed) with the patch's members written and the version one up.
 */
export function applyConversationPatch(
  record: AppConversationRecord | null | undefined,
  patch: ConversationPatch,
  guard?: ConversationGuard,
): AppConversationRecord | null {
  if (!record || !conversationGuardAllows(record, guard)) return null;
  return { ...record, ...conversationPatchOf(patch), version: record.version + 1 };
}
