/**
 * Every statement the repositories send is served by an index: none needs a sequential scan (so
 * no lookup reads other orgs', users' or statuses' rows), and ordered pages come in index order
 * rather than from sorting the matches. Checked with EXPLAIN on a real server, with sequential
 * scans and sorts priced out, so the plan shows one only where no index can serve the statement.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fixtureTime,
  makeApiKeyRecord,
  makeAutomationRecord,
  makeConversationEvent,
  makeConversationRecord,
  makeDeliveryRecord,
  makeGithubLinkRecord,
  makeOutboundMessageRecord,
  makeProviderTokensRecord,
  makeRunRecord,
  makeSandboxRecord,
  makeSettingsRecord,
  makeStartTaskRecord,
  makeSubscriptionRecord,
  makeThreadRecord,
  makeWebhookRecord,
} from '@agent-platform/testing';
import { migrate } from './index.js';
import { createRepositories, PRUNE_EXPIRED_CLAIMS } from './repositories/index.js';
import { LIST_RUN_REPORTS_DUE } from './repositories/run-reports.js';
import { RUNS_OVERVIEW } from './repositories/runs-overview.js';
import { createRunQueue, RUN_QUEUE_STATEMENTS } from './run-queue.js';
import type { Sql, SqlResult } from './sql/sql.js';
import { createThrowawayDatabase, postgresAvailable, type ThrowawayDatabase } from '../test-support/postgres-server.js';

const available = await postgresAvailable();

/** `automations.listEnabledBySource`, `runs.listByStatus` and `runs.listLive`. */
const STRICT = [
  /AND enabled ORDER BY id/,
  /FROM agent_platform\.runs WHERE status = \$1/,
  /status IN \('PENDING', 'RUNNING'\) AND \(data->>'concurrency_key'\)/,
];

interface Recorded {
  text: string;
  params: readonly unknown[];
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

function nodesOf(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];
}

describe.skipIf(!available)('query plans', () => {
  let database: ThrowawayDatabase;
  let client: pg.Client;
  const recorded = new Map<string, Recorded>();

  beforeAll(async () => {
    database = await createThrowawayDatabase();
    await migrate({ connectionString: database.url });
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  });

  afterAll(async () => {
    await client?.end();
    await database?.drop();
  });

  it('serves every repository statement from an index, pages in index order', async () => {
    const run = async (text: string, params: readonly unknown[] = []): Promise<SqlResult<Record<string, unknown>>> => {
      if (!recorded.has(text)) recorded.set(text, { text, params });
      const result = await client.query(text, params as unknown[]);
      return { rows: result.rows, rowCount: result.rowCount ?? 0 };
    };
    const sql: Sql = { query: run as Sql['query'], guardedQuery: run as Sql['guardedQuery'], exec: async (text) => void (await client.query(text)) };
    const repos = createRepositories(sql, { claimed: () => undefined });

    // Every method once, with data present.
    const settings = makeSettingsRecord();
    await repos.settings.put(settings);
    await repos.settings.get(settings.user_id);
    const tokens = makeProviderTokensRecord();
    await repos.providerTokens.put(tokens);
    await repos.providerTokens.get(tokens.user_id);
    await repos.providerTokens.delete(tokens.user_id);
    const key = makeApiKeyRecord();
    await repos.apiKeys.insert(key);
    await repos.apiKeys.get(key.id);
    await repos.apiKeys.getByHash(key.key_hash);
    await repos.apiKeys.listByUser(key.user_id);
    await repos.apiKeys.touch(key.id, fixtureTime(1));
    await repos.apiKeys.delete(key.id);
    const webhook = makeWebhookRecord();
    await repos.webhooks.insert(webhook);
    await repos.webhooks.get(webhook.org_id, webhook.id);
    await repos.webhooks.getBySource(webhook.org_id, webhook.source);
    await repos.webhooks.list(webhook.org_id, { limit: 10, offset: 0 });
    await repos.webhooks.update(webhook);
    await repos.webhooks.delete(webhook.org_id, webhook.id);
    const automation = makeAutomationRecord();
    await repos.automations.insert(automation);
    await repos.automations.get(automation.org_id, automation.id);
    await repos.automations.list(automation.org_id, { limit: 10, offset: 0 });
    await repos.automations.listEnabledBySource(automation.org_id, automation.trigger.source);
    await repos.automations.update(automation);
    await repos.automations.markTriggered(automation.org_id, [automation.id], fixtureTime(2));
    await repos.automations.delete(automation.org_id, automation.id);
    const runRecord = makeRunRecord();
    await repos.runs.insertMany([runRecord]);
    await repos.runs.get(runRecord.org_id, runRecord.id);
    await repos.runs.listByAutomation(runRecord.org_id, runRecord.automation_id, { limit: 10, offset: 0 });
    await repos.runs.listByStatus('PENDING', 10);
    // The org-wide runs list, with each filter the API passes and the cursor of a next page.
    const before = { createdAt: fixtureTime(5), id: 'run-z' };
    for (const filter of [
      {},
      { statuses: ['FAILED' as const] },
      { statuses: ['PENDING' as const, 'RUNNING' as const] },
      { automationId: runRecord.automation_id },
      { since: fixtureTime(1) },
      { before },
      { statuses: ['FAILED' as const], automationId: runRecord.automation_id, since: fixtureTime(1), before },
    ]) {
      await repos.runs.listByOrg(runRecord.org_id, { limit: 51, ...filter });
    }
    // The overview's aggregate, by hour and by day.
    await repos.runs.overview(runRecord.org_id, { from: fixtureTime(0), to: fixtureTime(86_400), bucket: 'hour' });
    await repos.runs.overview(runRecord.org_id, { from: fixtureTime(0), to: fixtureTime(86_400), bucket: 'day' });
    await repos.runs.transition(runRecord.org_id, runRecord.id, { from: ['PENDING'] }, { error_detail: 'noted' });
    await repos.runs.transition(runRecord.org_id, runRecord.id, { from: ['PENDING'], leaseOwner: null }, { error_detail: null });
    await repos.runs.transition(runRecord.org_id, runRecord.id, { from: ['RUNNING'], leaseOwner: 'wkr-a' }, { status: 'COMPLETED' });
    // The run queue: its transaction is the recording connection's statements, one after another.
    const queue = createRunQueue({ sql, transaction: (fn) => fn(sql) }, repos.runs);
    const queued = [makeRunRecord({ org_id: runRecord.org_id }), makeRunRecord(), makeRunRecord()];
    await repos.runs.insertMany(queued);
    const now = new Date(fixtureTime(100));
    const claimed = await queue.claim({ owner: 'wkr-a', max: 2, leaseMs: 1_000, now, limits: { perOrg: 1, global: 10 } });
    expect(claimed.length).toBe(2);
    await queue.claim({ owner: 'wkr-a', max: 1, leaseMs: 1_000, now, limits: { perOrg: Infinity, global: Infinity } });
    const refs = claimed.map((claimedRun) => ({ orgId: claimedRun.org_id, id: claimedRun.id }));
    await queue.renew('wkr-a', refs, fixtureTime(200));
    await queue.recover(new Date(fixtureTime(300)), 3);
    // A claim's later rounds, which a small table does not reach.
    await run(RUN_QUEUE_STATEMENTS.candidates(true), [now.toISOString(), [runRecord.org_id], 10, fixtureTime(0), 'run-0']);
    const delivery = makeDeliveryRecord();
    await repos.deliveries.insert(delivery);
    await repos.deliveries.get(delivery.org_id, delivery.id);
    for (const filter of [{}, { source: 'github' }, { status: 'matched' as const }, { source: 'github', status: 'matched' as const }]) {
      await repos.deliveries.list(delivery.org_id, { limit: 10, offset: 0, ...filter });
    }
    await repos.deliveries.claimDedupKey({
      orgId: delivery.org_id,
      source: delivery.source,
      key: delivery.dedup_key,
      deliveryId: delivery.id,
      expiresAt: fixtureTime(60),
      now: fixtureTime(0),
    });
    await run(PRUNE_EXPIRED_CLAIMS, [fixtureTime(0), 10]);
    const link = makeGithubLinkRecord();
    await repos.githubLinks.put(link);
    await repos.githubLinks.findOrgs([{ kind: link.kind, key: link.key }]);
    await repos.githubLinks.listByOrg(link.org_id);
    await repos.githubLinks.delete(link.kind, link.key, link.org_id);
    const sandbox = makeSandboxRecord();
    await repos.sandboxes.insert(sandbox);
    await repos.sandboxes.get(sandbox.id);
    const page = await repos.sandboxes.listByUser(sandbox.created_by_user_id, { limit: 1 });
    await repos.sandboxes.listByUser(sandbox.created_by_user_id, { limit: 1, pageId: page.nextPageId ?? 'WyIyMDI1LTAxLTAxVDAwOjAwOjAwWiIsIngiXQ' });
    await repos.sandboxes.update(sandbox);
    await repos.sandboxes.delete(sandbox.id);
    const conversation = makeConversationRecord();
    await repos.conversations.insert(conversation);
    await repos.conversations.get(conversation.id);
    await repos.conversations.listByUser(conversation.created_by_user_id, { limit: 10 });
    await repos.conversations.patch(conversation.id, { title: 'renamed', created_at: fixtureTime(1) });
    await repos.conversations.patch(conversation.id, { title: 'renamed' }, { version: 1 });
    await repos.conversations.appendEvents(conversation.id, [makeConversationEvent({ conversation_id: conversation.id })]);
    await repos.conversations.listEvents(conversation.id, { limit: 10, pageId: '0' });
    const task = makeStartTaskRecord();
    await repos.startTasks.insert(task);
    await repos.startTasks.get(task.id);
    await repos.startTasks.listByUser(task.created_by_user_id, { limit: 10 });
    await repos.startTasks.update(task);
    await repos.startTasks.insert(makeStartTaskRecord({ created_by_user_id: conversation.created_by_user_id, app_conversation_id: conversation.id }));
    await repos.conversations.delete(conversation.id);
    // Outbound events and flow control.
    const subscription = makeSubscriptionRecord({ id: 'sub-plan', org_id: 'org-plan' });
    await repos.subscriptions.insert(subscription);
    await repos.subscriptions.get(subscription.org_id, subscription.id);
    await repos.subscriptions.list(subscription.org_id, { limit: 10, offset: 0 });
    await repos.subscriptions.listEnabled(subscription.org_id);
    await repos.subscriptions.update(subscription);
    const message = makeOutboundMessageRecord({ id: 'msg-plan', org_id: subscription.org_id, subscription_id: subscription.id });
    await repos.outboundMessages.insertMany([message]);
    await repos.outboundMessages.get(message.org_id, message.id);
    await repos.outboundMessages.listBySubscription(message.org_id, message.subscription_id, { limit: 10, offset: 0 });
    await repos.outboundMessages.listBySubscription(message.org_id, message.subscription_id, { limit: 10, offset: 0, status: 'pending' });
    expect(await repos.outboundMessages.claimDue({ owner: 'sender-a', max: 5, leaseMs: 1_000, now })).toHaveLength(1);
    await repos.outboundMessages.transition(message.org_id, message.id, { from: ['pending'] }, { detail: 'noted' });
    await repos.outboundMessages.transition(message.org_id, message.id, { from: ['pending'], leaseOwner: null }, { detail: null });
    await repos.outboundMessages.transition(message.org_id, message.id, { from: ['pending'], leaseOwner: 'sender-a' }, { status: 'delivered' });
    await repos.subscriptions.delete(subscription.org_id, subscription.id);
    const keyed = makeRunRecord({ concurrency_key: 'pr-1' });
    await repos.runs.insertMany([keyed]);
    await repos.runs.listLive(keyed.org_id, keyed.automation_id, 'pr-1');
    await repos.runs.listLive(keyed.org_id, keyed.automation_id, null);
    await repos.runs.countCreatedSince(keyed.org_id, keyed.automation_id, fixtureTime(0));
    // Run reports: one owed by a final run, one by a running run, one paid, one run without any.
    const report = { target: 'a/b#1', reaction: null, comment_id: null, comment_url: null, error: null, comment_due: true, updated_at: fixtureTime(0) };
    const reported = [makeRunRecord({ status: 'COMPLETED' }), makeRunRecord({ status: 'RUNNING' }), makeRunRecord({ status: 'COMPLETED' })];
    await repos.runs.insertMany([...reported, makeRunRecord({ status: 'COMPLETED' })]);
    for (const [n, reportedRun] of reported.entries()) {
      await repos.runReports.put(reportedRun.org_id, reportedRun.id, { ...report, comment_due: n < 2 });
    }
    await repos.runReports.get(reported[0]!.org_id, reported[0]!.id);
    await repos.runReports.getMany(reported[0]!.org_id, [reported[0]!.id, 'run-none']);
    expect(await repos.runReports.listDue(10)).toHaveLength(1);
    // Threads: written twice (an insert, then a replace), read by their whole key.
    const thread = makeThreadRecord();
    await repos.threads.put(thread);
    await repos.threads.put({ ...thread, updated_at: fixtureTime(1) });
    await repos.threads.get(thread.org_id, thread.automation_id, thread.key);

    await client.query('SET enable_seqscan = off');
    await client.query('SET enable_sort = off');
    const problems: string[] = [];
    for (const { text, params } of recorded.values()) {
      const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${text}`, params as unknown[]);
      const nodes = nodesOf(rows[0]?.['QUERY PLAN'][0].Plan as PlanNode);
      for (const node of nodes) {
        if (node['Node Type'] === 'Seq Scan') problems.push(`sequential scan of ${node['Relation Name']}: ${text.trim()}`);
        // DISTINCT org ids (findOrgs) are the one result that has to be sorted.
        if (node['Node Type'] === 'Sort' && !/DISTINCT/.test(text)) problems.push(`sort: ${text.trim()}`);
        // The port's "must not scan" lookups read exactly the rows they return: nothing filtered out.
        if (STRICT.some((pattern) => pattern.test(text)) && node.Filter) problems.push(`filter ${node.Filter}: ${text.trim()}`);
      }
      // The overview: the period's runs three times (counts per bucket, durations, failures per
      // automation), each a range of an index bounded by the org and both ends of the period (on
      // a table of some size, the covering runs_by_org, read index-only; on this small one the
      // planner may take another); the queue from an index of the org's PENDING runs (by status,
      // or the partial one of live runs: either way never its finished runs).
      if (text === RUNS_OVERVIEW) {
        const runs = nodes.filter((node) => node['Relation Name'] === 'runs');
        const bounded = (node: PlanNode) => /org_id = .*created_at >= .*created_at < /.test(node['Index Cond'] ?? '');
        const period = runs.filter(bounded);
        if (period.length !== 3 || period.some((node) => !/^Index (Only )?Scan$/.test(node['Node Type']))) {
          problems.push(`the overview's period not read from an index range: ${JSON.stringify(runs)}`);
        }
        const queue = runs.filter((node) => !bounded(node));
        if (queue.length !== 1 || queue.some((node) => !['runs_by_org_status', 'runs_live_by_key'].includes(node['Index Name'] ?? ''))) {
          problems.push(`the overview's queue not read from runs_by_org_status: ${JSON.stringify(queue)}`);
        }
      }
      // The owed reports: read from their partial index alone, none filtered out (the reports
      // paid are not in it), each one's run looked up by its key, whose status check alone may
      // drop one — never a read of the runs' history.
      if (text === LIST_RUN_REPORTS_DUE) {
        const reports = nodes.filter((node) => node['Relation Name'] === 'run_reports');
        if (reports.length !== 1 || reports[0]?.['Index Name'] !== 'run_reports_due' || reports[0]?.Filter) {
          problems.push(`run_reports not read from run_reports_due alone: ${JSON.stringify(reports)}`);
        }
        const runs = nodes.filter((node) => node['Relation Name'] === 'runs');
        if (runs.length !== 1 || runs[0]?.['Node Type'] !== 'Index Scan' || runs[0]?.['Index Name'] !== 'runs_pkey') {
          problems.push(`runs not looked up by key: ${JSON.stringify(runs)}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(recorded.size).toBeGreaterThan(40);
  });
});
