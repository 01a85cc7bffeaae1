import type { AutomationIndex } from '../matching/automation-index.js';
import { PlatformError, notFound } from '../kernel/errors.js';
import { prepareDelivery, recordDeliveries, type DeliveryRecording } from './record-delivery.js';
import type { Principal } from '../schemas/principal.js';
import type { Delivery, DeliveryList, DeliveryListQuery, DeliveryRecord, DeliverySummary, IngestResult } from '../schemas/delivery.js';
import type { ServiceContext } from '../kernel/context.js';

function toSummary(record: DeliveryRecord): DeliverySummary {
  const { payload_json: _payload, dedup_key: _key, ...summary } = record;
  return summary;
}

/** The delivery log: every verified inbound event, and for each candidate automation why it did or did not match. */
export class DeliveriesService {
  constructor(
    private readonly context: ServiceContext,
    private readonly index: AutomationIndex,
    private readonly recording: DeliveryRecording,
  ) {}

  async list(principal: Principal, query: DeliveryListQuery): Promise<DeliveryList> {
    const { items, total } = await this.context.storage.deliveries.list(principal.orgId, query);
    return { deliveries: items.map(toSummary), total };
  }

  async get(principal: Principal, id: string): Promise<Delivery> {
    const record = await this.load(principal, id);
    return { ...toSummary(record), payload: record.payload_json === null ? null : (JSON.parse(record.payload_json) as unknown) };
  }

  /**
   * Matches a stored delivery again, against the automations as they are now, and records the
   * result as a new delivery (`replay_of`), creating runs for the matches. Replays are never
   * deduplicated.
   */
  async replay(principal: Principal, id: string): Promise<IngestResult> {
    const record = await this.load(principal, id);
    if (record.payload_json === null) throw new PlatformError('CONFLICT', 'A duplicate delivery keeps no payload; replay the delivery it duplicates');
    if (record.event_key === null) throw new PlatformError('CONFLICT', 'The delivery has no event key to match on');
    const prepared = await prepareDelivery(
      this.context,
      this.index,
      {
        orgId: record.org_id,
        source: record.source,
        providerDeliveryId: record.provider_delivery_id,
        dedupKey: null,
        eventKey: { ok: true, key: record.event_key },
        payload: JSON.parse(record.payload_json) as unknown,
        payloadJson: record.payload_json,
        replayOf: record.id,
      },
      this.recording.trust ?? null,
    );
    const [result] = await recordDeliveries(this.context, [prepared], this.recording);
    return result as IngestResult;
  }

  private async load(principal: Principal, id: string): Promise<DeliveryRecord> {
    const record = await this.context.storage.deliveries.get(principal.orgId, id);
    if (!record) throw notFound('Delivery');
    return record;
  }
}
