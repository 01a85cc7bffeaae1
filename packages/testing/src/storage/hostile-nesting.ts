/**
 * Conformance: values nested deeper than any backend nests natively (10,000 levels) are stored
 * and read back, in `payload_json` and in the JSON fields of records.
 * @module
 */
import { expect, it } from 'vitest';
import { makeConversationEvent, makeConversationRecord, makeDeliveryRecord, makeStartTaskRecord, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';
import { nestedJsonText, nestedValue, sameJson } from './hostile-inputs.js';

/** Deeply nested values, stored and read back whole. */
export function describeHostileNesting(ctx: SuiteContext): void {
  it('stores and reads back a payload_json nested 10,000 levels deep', async () => {
    const payload = nestedJsonText(10_000);
    const delivery = makeDeliveryRecord({ payload_json: payload });
    await ctx.adapter.deliveries.insert(delivery);
    const stored = await ctx.adapter.deliveries.get(delivery.org_id, delivery.id);
    expect(stored?.payload_json === payload).toBe(true);
    expect(stored).toEqual({ ...delivery, payload_json: stored?.payload_json });
    const listed = await ctx.adapter.deliveries.list(delivery.org_id, { limit: 10, offset: 0 });
    expect(listed.items[0]?.payload_json === payload).toBe(true);
  });

  it('stores and reads back record fields nested 256 and 10,000 levels deep', async () => {
    for (const depth of [256, 10_000]) {
      const userId = uniqueId('user');
      const leaf = { text: 'leaf \u0000 \ud800 \uffff0', list: [1, null, true] };
      const task = makeStartTaskRecord({ created_by_user_id: userId, request: { deep: nestedValue(depth, leaf), after: 'x\udc00' } });
      await ctx.adapter.startTasks.insert(task);
      expect(sameJson(await ctx.adapter.startTasks.get(task.id), task)).toBe(true);
      const page = await ctx.adapter.startTasks.listByUser(userId, { limit: 10 });
      expect(page.items).toHaveLength(1);
      expect(sameJson(page.items[0], task)).toBe(true);
      const updated = { ...task, status: 'READY' as const, request: { deeper: nestedValue(depth + 1, leaf) } };
      expect(await ctx.adapter.startTasks.update(updated)).toBe(true);
      expect(sameJson(await ctx.adapter.startTasks.get(task.id), updated)).toBe(true);

      const [outcome] = makeDeliveryRecord().outcomes;
      if (!outcome) throw new Error('no outcome');
      // Outcomes are typed; deep values reach them only through a loose caller, yet must still read back.
      const delivery = makeDeliveryRecord({ outcomes: [{ ...outcome, error: nestedValue(depth, leaf) as unknown as string }] });
      await ctx.adapter.deliveries.insert(delivery);
      expect(sameJson(await ctx.adapter.deliveries.get(delivery.org_id, delivery.id), delivery)).toBe(true);

      const conversation = makeConversationRecord();
      await ctx.adapter.conversations.insert(conversation);
      const { seq: _seq, ...event } = makeConversationEvent({ conversation_id: conversation.id, data: { deep: nestedValue(depth, leaf) } });
      const [appended] = await ctx.adapter.conversations.appendEvents(conversation.id, [event]);
      expect(sameJson(appended, { ...event, seq: 0 })).toBe(true);
      const events = await ctx.adapter.conversations.listEvents(conversation.id, { limit: 10 });
      expect(events.items).toHaveLength(1);
      expect(sameJson(events.items[0], { ...event, seq: 0 })).toBe(true);
    }
  });
}
