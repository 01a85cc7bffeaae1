/**
 * `@agent-platform/core/adapter-kit`: helpers for **adapter authors** — whoever writes a storage
 * adapter, a sandbox runtime or an agent runner — that an embedder never calls. The ports these
 * implement (`StorageAdapter`, `RunQueue`, `ChangeFeed`, `SandboxRuntime`, `AgentRunner`, …), their
 * errors (`StorageConflictError`, `StorageUnavailableError`) and the records they hold stay in
 * `@agent-platform/core`; this entry holds the code every adapter of a kind shares, so that they
 * all behave alike and pass the conformance suites of `@agent-platform/testing`.
 *
 * - **Storage adapters** (`docs/storage-adapters.md`): the run state machine's rules
 *   ({@link applyTransition}, {@link claimPatch}, {@link recoveryPatch}, {@link leasedRunOps}, …),
 *   the fields a patch may carry, the page tokens every adapter hands out
 *   ({@link encodePageCursor}, {@link encodeSeqPage}, …) and an in-process change feed
 *   ({@link createLocalChangeFeed}).
 * - **Sandbox runtimes** (`docs/agents-and-sandboxes.md`): checking and feeding a command's stdin
 *   ({@link checkStdin}, {@link StdinFeed}), bounded UTF-8 decoding of its output
 *   ({@link BoundedDecoder}), the queue `exec` yields from ({@link ExecEventQueue}), and the
 *   matching and refusal of an owner's image ({@link imageAllowed}, {@link imageNotAllowed}).
 * - **Agent runners**: the owner's secret values and their scrubbing ({@link secretValuesOf},
 *   {@link redact}, {@link scrubSecrets}), the environment and files a command agent gets
 *   ({@link agentLaunch}), and cloning a repository into a sandbox through any runtime
 *   ({@link prepareRepository}).
 * @module
 */

// Storage adapters: the run state machine, written once for every adapter.
export {
  applyTransition,
  claimPatch,
  guardAllows,
  isClaimable,
  isFinalRunStatus,
  leaseLapsed,
  leasedRunOps,
  patchRun,
  recoveryPatch,
} from './runs/run-transitions.js';
export { interruptedReason } from './ports/run-queue.js';
export { OUTBOUND_MESSAGE_PATCH_FIELDS, RUN_PATCH_FIELDS } from './ports/storage.js';
// Storage adapters: the guarded conversation patch.
export { applyConversationPatch, conversationGuardAllows, conversationPatchOf } from './storage/conversation-patch.js';
// Storage adapters: page tokens, the same whichever adapter handed them out.
export {
  checkPageLimit,
  decodePageCursor,
  decodeSeqPage,
  encodePageCursor,
  encodeSeqPage,
  type PageCursor,
} from './storage/paging.js';
// Storage adapters: the change feed of storage that lives in one process.
export { createLocalChangeFeed, type LocalChangeFeed } from './storage/local-change-feed.js';

// Sandbox runtimes: what `exec` is made of.
export { BoundedDecoder } from './sandboxes/runtime-kit/bounded-decoder.js';
export { ExecEventQueue } from './sandboxes/runtime-kit/exec-event-queue.js';
export { checkStdin, StdinFeed, type StdinInput } from './sandboxes/runtime-kit/stdin-feed.js';
// Sandbox runtimes: which owner images a runtime allows, matched and refused alike everywhere.
export { imageAllowed, imageNotAllowed } from './sandboxes/owner-image.js';

// Agent runners: secrets, the command agent's environment, the repository.
export { scrubSecrets, secretValuesOf } from './agents/secret-values.js';
export { redact } from './agents/line-splitter.js';
export { agentLaunch, EVENT_FILE, MCP_CONFIG_FILE, type AgentLaunch } from './agents/agent-environment.js';
export {
  DEFAULT_GIT_USER_EMAIL,
  DEFAULT_GIT_USER_NAME,
  prepareRepository,
  RepositoryError,
  tokenVariable,
  type PreparedRepository,
  type PrepareRepositoryInput,
} from './agents/git-checkout.js';
