/**
 * The load: signed deliveries to the servers up at the moment, at a steady rate, spread over the
 * orgs and the event kinds (`tenants.ts`), with redeliveries (the same delivery id and body,
 * later) and a sender's retries of what was not acknowledged (up to three, a second apart). What
 * each delivery was answered is recorded: acknowledged (2xx), and the delivery and runs a 2xx
 * that was not a duplicate reported.
 * @module
 */
import { createHmac } from 'node:crypto';
import type { Fleet } from './fleet.js';
import type { SoakOptions } from './options.js';
import { SOURCE, type Org } from './tenants.js';

export interface SentDelivery {
  /** The provider's delivery id (`X-Delivery`). */
  id: string;
  org: string;
  type: string;
  body: string;
  requests: number;
  acknowledged: boolean;
  /** Each 2xx answer that was not a duplicate: the delivery stored and its runs. */
  stored: { deliveryId: string; runs: string[] }[];
  /** 2xx answers saying it was a duplicate. */
  duplicates: number;
}

export interface Load {
  readonly deliveries: readonly SentDelivery[];
  /** Requests by answer: the status code, or `network` (refused, reset, timed out). */
  readonly statuses: Record<string, number>;
  readonly counts: { requests: number; redeliveries: number; retries: number };
  /** Resolves once every delivery, redelivery and retry has been sent and answered. */
  readonly done: Promise<void>;
  /** Distinct deliveries sent so far. */
  sent(): number;
}

const KINDS: [type: string, share: number][] = [
  ['job.run', 0.4],
  ['job.keyed', 0.25],
  ['job.latest', 0.1],
  ['job.noop', 0.25],
];

/** The kind whose share of [0, 1) holds `draw`. */
function pickKind(draw: number): string {
  let below = 0;
  for (const [type, share] of KINDS) {
    below += share;
    if (draw < below) return type;
  }
  return 'job.noop';
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function startLoad(options: SoakOptions, orgs: readonly Org[], fleet: Fleet, rnd: () => number): Load {
  const deliveries: SentDelivery[] = [];
  const statuses: Record<string, number> = {};
  const counts = { requests: 0, redeliveries: 0, retries: 0 };
  const secrets = new Map(orgs.map((org) => [org.id, org.webhookSecret]));
  const pending = new Set<Promise<void>>();
  let inFlight = 0;

  const post = async (delivery: SentDelivery): Promise<boolean> => {
    let servers = fleet.servers();
    for (let waited = 0; servers.length === 0 && waited < 600; waited++) {
      await sleep(100);
      servers = fleet.servers();
    }
    const baseUrl = servers[Math.floor(rnd() * servers.length)];
    counts.requests++;
    delivery.requests++;
    inFlight++;
    try {
      if (!baseUrl) throw new Error('no server up');
      const signature = `sha256=${createHmac('sha256', secrets.get(delivery.org)!).update(delivery.body).digest('hex')}`;
      const response = await fetch(`${baseUrl}/api/automation/v1/events/${delivery.org}/${SOURCE}`, {
        method: 'POST',
        body: delivery.body,
        headers: { 'content-type': 'application/json', 'x-delivery': delivery.id, 'x-signature-256': signature },
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      if (response.status < 200 || response.status >= 300) return false;
      delivery.acknowledged = true;
      const answer = JSON.parse(text) as { duplicate?: boolean; delivery_id?: string; runs_created?: string[] };
      if (answer.duplicate) delivery.duplicates++;
      else delivery.stored.push({ deliveryId: answer.delivery_id ?? '', runs: answer.runs_created ?? [] });
      return true;
    } catch {
      statuses.network = (statuses.network ?? 0) + 1;
      return false;
    } finally {
      inFlight--;
    }
  };

  /** Sends, and retries what was not acknowledged, as a sender would. */
  const deliver = async (delivery: SentDelivery) => {
    for (let attempt = 0; attempt < 4; attempt++) {
      if (attempt > 0) {
        counts.retries++;
        await sleep(1000);
      }
      if (await post(delivery)) return;
    }
  };

  const track = (work: Promise<void>) => {
    pending.add(work);
    void work.finally(() => pending.delete(work));
  };

  const done = (async () => {
    const began = Date.now();
    for (let seq = 0; seq < options.deliveries; seq++) {
      const due = began + (seq * 1000) / options.rate;
      if (due > Date.now()) await sleep(due - Date.now());
      while (inFlight >= options.senders) await sleep(10);
      const org = orgs[Math.floor(rnd() * orgs.length)]!;
      const type = pickKind(rnd());
      const payload: Record<string, unknown> = { type, seq };
      if (type === 'job.keyed' || type === 'job.latest') payload.key = `k${Math.floor(rnd() * 3)}`;
      if (type === 'job.run' && rnd() < options.failShare) payload.fail = true;
      if ((type === 'job.run' || type === 'job.keyed') && rnd() < options.longShare) payload.long = true;
      if (type !== 'job.noop' && rnd() < options.twoStepShare) payload.steps = 2;
      const delivery: SentDelivery = {
        id: `soak-${options.seed}-${seq}`,
        org: org.id,
        type,
        body: JSON.stringify(payload),
        requests: 0,
        acknowledged: false,
        stored: [],
        duplicates: 0,
      };
      deliveries.push(delivery);
      track(deliver(delivery));
      if (rnd() < options.redeliveryShare) {
        const after = 500 + rnd() * 10_000;
        track(
          (async () => {
            await sleep(after);
            counts.redeliveries++;
            await deliver(delivery);
          })(),
        );
      }
    }
    while (pending.size > 0) await Promise.all([...pending]);
  })();

  return { deliveries, statuses, counts, done, sent: () => deliveries.length };
}
