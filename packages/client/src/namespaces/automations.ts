import { AgentPlatformWaitError } from '../transport/errors.js';
import { cursorIterator, offsetIterator, type IterateOptions } from '../iteration/paging.js';
import { pollUntil, type WaitOptions } from '../iteration/polling.js';
import type { CallOptions, Transport } from '../transport/transport.js';
import type {
  AutomationCreateInput,
  AutomationDispatchInput,
  AutomationUpdateInput,
  AutomationValidateInput,
  CursorQueryInput,
  OrgRunsQueryInput,
  PageQueryInput,
} from '../transport/types.js';
import { FINAL_RUN_STATUSES } from '@agent-platform/core/schemas';

/** Event automations of the caller's org and their runs (`/api/automation/v1`). */
export function automationsNamespace(transport: Transport) {
  const list = (query: PageQueryInput = {}, options?: CallOptions) => transport.call('GET /api/automation/v1', { query }, options);
  const runs = (id: string, query: PageQueryInput = {}, options?: CallOptions) =>
    transport.call('GET /api/automation/v1/{id}/runs', { params: { id }, query }, options);
  const allRuns = (query: OrgRunsQueryInput = {}, options?: CallOptions) => transport.call('GET /api/automation/v1/runs', { query }, options);
  const getRun = (runId: string, options?: CallOptions) => transport.call('GET /api/automation/v1/runs/{run_id}', { params: { run_id: runId } }, options);
  return {
    /** Creates an automation; its filter is compiled now, and a bad one is a 422. */
    create: (input: AutomationCreateInput, options?: CallOptions) => transport.call('POST /api/automation/v1', { json: input }, options),
    /**
     * Checks a draft as `create` would (a 422 `AgentPlatformError` when invalid) and, with
     * `sample_payload` and/or `test_recent`, says per payload whether it would fire, or why not.
     * Stores nothing.
     */
    validate: (input: AutomationValidateInput, options?: CallOptions) => transport.call('POST /api/automation/v1/validate', { json: input }, options),
    /** A page of automations, newest first (`limit` 1–100, `offset`), with `total`. */
    list,
    /** Every automation, page by page. */
    iterate: (options?: IterateOptions) => offsetIterator(list, 'automations', options),
    get: (id: string, options?: CallOptions) => transport.call('GET /api/automation/v1/{id}', { params: { id } }, options),
    /** Changes any subset of fields; `trigger` members given replace the stored ones (`filter: null` removes the filter). */
    update: (id: string, input: AutomationUpdateInput, options?: CallOptions) =>
      transport.call('PATCH /api/automation/v1/{id}', { params: { id }, json: input }, options),
    delete: (id: string, options?: CallOptions) => transport.call('DELETE /api/automation/v1/{id}', { params: { id } }, options),
    /** Runs the automation now; `payload` stands in for the event. Answers the PENDING run. */
    dispatch: (id: string, input: AutomationDispatchInput = {}, options?: CallOptions) =>
      transport.call('POST /api/automation/v1/{id}/dispatch', { params: { id }, json: input }, options),
    /** A page of the automation's runs, newest first. */
    runs,
    /** Every run of the automation, page by page. */
    iterateRuns: (id: string, options?: IterateOptions) => offsetIterator((page, call) => runs(id, page, call), 'runs', options),
    /**
     * A page of the org's runs across its automations, newest first, narrowed by `status` (one or
     * several, comma-separated: `'FAILED'`, `'PENDING,RUNNING'`), `automation_id` and `since` (ISO);
     * `next_page_id` continues it (`page_id`).
     */
    allRuns,
    /** Every run of the org matching the filters, page by page, newest first. */
    iterateAllRuns: (query: Omit<OrgRunsQueryInput, 'limit' | 'page_id'> = {}, options?: IterateOptions) =>
      cursorIterator((page, call) => allRuns({ ...query, ...page }, call), options),
    /** One run by id, whichever automation it belongs to. */
    getRun,
    /**
     * A page of a run's events, oldest first (`limit` 1–100; `page_id` continues from the last
     * page's `next_page_id`): its conversation's, readable by anyone in the run's org.
     */
    runEvents: (runId: string, query: CursorQueryInput = {}, options?: CallOptions) =>
      transport.call('GET /api/automation/v1/runs/{run_id}/events', { params: { run_id: runId }, query }, options),
    /** Cancels a run that has not finished (a 409 `AgentPlatformError` when it has). */
    cancelRun: (runId: string, options?: CallOptions) => transport.call('POST /api/automation/v1/runs/{run_id}/cancel', { params: { run_id: runId } }, options),
    /**
     * Polls a run until it is COMPLETED, FAILED, CANCELLED or SKIPPED and answers it (a failed run
     * is an answer, with `error_detail`; it is not thrown). Throws `AgentPlatformWaitError`
     * (`reason: 'timeout'`) when `timeoutMs` passes first.
     */
    waitForRun: (runId: string, options: WaitOptions = {}) =>
      pollUntil(
        (signal) => getRun(runId, { ...(signal ? { signal } : {}) }),
        (run) => FINAL_RUN_STATUSES.includes(run.status),
        options,
        (last) =>
          new AgentPlatformWaitError(
            'timeout',
            { kind: 'run', last },
            `Run ${runId} was still ${last?.status ?? 'unknown'} after ${options.timeoutMs ?? 300_000} ms`,
          ),
      ),
  };
}
