/**
 * How a delivery is laid out in its row: the record in `data` with `payload_json` null, and the
 * payload in the `payload` column as text (see migration 4). Rows written before that migration
 * hold the payload in `data` and NULL in `payload`; {@link DELIVERY_DATA} reads both kinds alike.
 * @module
 */
import type { DeliveryRecord } from '@agent-platform/core';
import { toJsonb, toText } from '../sql/json.js';

/** The record as stored in `data`: everything but the payload. */
export function deliveryData(delivery: DeliveryRecord): string {
  return toJsonb(delivery.payload_json === null ? delivery : { ...delivery, payload_json: null });
}

/** The payload as stored in `payload` (escaped as every stored string is), or `null`. */
export function deliveryPayload(delivery: DeliveryRecord): string | null {
  return delivery.payload_json === null ? null : toText(delivery.payload_json);
}

/** The whole record as JSON text, from a row of `agent_platform.deliveries`. */
export const DELIVERY_DATA = `(CASE WHEN payload IS NULL THEN data ELSE jsonb_set(data, '{payload_json}', to_jsonb(payload)) END)::text`;
