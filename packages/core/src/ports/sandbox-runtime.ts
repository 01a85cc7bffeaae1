/**
 * The sandbox runtime port: where agents run. Adapters: `@agent-platform/sandbox-process` (the
 * embedded default: a working directory and child processes) and `@agent-platform/sandbox-docker`
 * (containers). Every adapter runs `testSandboxRuntime` from `@agent-platform/testing`.
 * @module
 */
import type { ExposedUrl, SandboxSpec, SandboxStatus } from '../schemas/sandbox-spec.js';

/** Resource limits for a sandbox. Adapters apply what they can and ignore the rest. */
export interface SandboxLimits {
  memoryBytes?: number;
  /** CPUs, fractional allowed (e.g. 0.5). */
  cpus?: number;
  /** Most processes alive at once. */
  pids?: number;
}

export interface StartSandboxInput {
  /** Chosen by the caller (the engine's id); the runtime keys everything it creates by it. */
  sandboxId: string;
  specId: string;
  /** Added to the spec's `initial_env` for everything run in the sandbox. */
  env?: Record<string, string>;
  /** Replaces the runtime's default limits (runtimes that cannot limit ignore them). */
  limits?: SandboxLimits;
  /**
   * Scales the runtime's default limits when `limits` is not given: the owner's
   * `remote_runtime_resource_factor` (1, 2, 4 or 8). Default 1.
   */
  resourceFactor?: number;
  /**
   * The sandbox's own session API key, for what runs inside to authenticate to the platform
   * (`SESSION_API_KEY` in its environment, where the runtime supports it).
   */
  sessionApiKey?: string;
  /**
   * The sandbox lives only as long as this process: when the process ends, however it ends (a
   * SIGKILL included), everything running in the sandbox is killed and the sandbox goes. For
   * work this process owns under a lease (an automation run): a dead worker's attempt never
   * keeps running beside the attempt that replaces it. Default `false` (a conversation's
   * sandbox outlives a restart of its server).
   */
  boundToProcess?: boolean;
  /**
   * The owner's container image (their `sandbox_runtime_container_image`, else
   * `sandbox_base_container_image`): the sandbox runs it in place of the spec's image and keeps
   * the rest of the spec (working directory, command, user, network, ports). Only one of the
   * runtime's {@link SandboxRuntime.allowedImages}: any other, and any image at all on a runtime
   * without `allowedImages` (it cannot change images), is refused with `PlatformError`
   * VALIDATION_FAILED whose message lists what is allowed, before anything is created.
   */
  image?: string;
  /**
   * The owner's credential for the runtime's own service (their `sandbox_api_key`), as OpenHands'
   * remote runtime takes one to start sandboxes on the owner's account. The platform hands it
   * only to a runtime whose {@link SandboxRuntime.takesOwnerCredential} is `true`, opening it
   * from its seal for this call alone; the runtime uses it to reach its service and never puts it
   * inside the sandbox (not in its environment, its files, nor what `inspect` reports). The
   * built-in runtimes take none.
   */
  ownerCredential?: string;
  /**
   * Hosts this sandbox's egress allowlist adds, where the runtime keeps sandboxes off the network
   * behind an allowlisting proxy (the Docker runtime with `egress`): `github.com`,
   * `*.example.com`, an IP address, each with an optional `:port`. The platform names the run's
   * git host, so a clone and a push work. Runtimes without such a proxy ignore it.
   */
  egressAllow?: readonly string[];
}

/** A sandbox as the runtime sees it. */
export interface RuntimeSandbox {
  id: string;
  specId: string;
  status: SandboxStatus;
  /** The sandbox's working directory, as seen from inside it. */
  workingDir: string;
  exposedUrls: ExposedUrl[];
  /** The container image it runs, for runtimes that run images (absent otherwise, and when MISSING). */
  image?: string;
  /** The OCI runtime class it runs under (the Docker runtime's `runsc` for gVisor, `runc`), for runtimes that have classes. */
  runtimeClass?: string;
  /**
   * The host it runs on, for runtimes that place sandboxes on one of several (the Docker
   * runtime's engine name when it has `engines`); absent otherwise.
   */
  engine?: string;
  /**
   * Set when the runtime cannot reach the sandbox because the host it runs on went away (a
   * Docker engine that does not answer): why, in words. The status is then `ERROR`. A run whose
   * sandbox is lost is retried, within its attempt limit.
   */
  lost?: string;
}

export interface SandboxFile {
  /** Relative to the working directory, or absolute inside the sandbox. */
  path: string;
  content: string | Uint8Array;
  /** File mode, e.g. 0o600 for a secret; default 0o644. */
  mode?: number;
}

export interface ExecInput {
  /** A shell command line, run with `sh -c` in the working directory. */
  command: string;
  /** Added to the sandbox's environment for this command only. */
  env?: Record<string, string>;
  /** Written before the command runs. */
  files?: SandboxFile[];
  /** Killed after this long; the result says `timedOut`. */
  timeoutMs?: number;
  /** Output beyond this many bytes per stream is dropped; the result says `truncated`. */
  maxOutputBytes?: number;
  /** Aborting kills the command; the result says `cancelled`. */
  signal?: AbortSignal;
  /**
   * The command's standard input. A string or bytes is written whole and stdin is closed; an
   * async iterable is streamed as it yields (each chunk written as it comes) and stdin is closed
   * when it ends. Absent: stdin is empty (closed at once). A command that exits before reading
   * all of it is not an error; iteration of the input stops.
   */
  stdin?: string | Uint8Array | AsyncIterable<string | Uint8Array>;
}

export interface ExecResult {
  /** `null` when the command was killed. */
  exitCode: number | null;
  timedOut: boolean;
  cancelled: boolean;
  truncated: boolean;
}

/** Output as it comes, then exactly one `exit`, last. */
export type ExecEvent = { type: 'stdout'; data: string } | { type: 'stderr'; data: string } | { type: 'exit'; result: ExecResult };

export interface SandboxRuntime {
  /** Adapter name for logs (`process`, `docker`). */
  readonly name: string;
  /** The specs sandboxes can be started from; the first is the default. */
  listSpecs(): Promise<SandboxSpec[]>;
  /**
   * The container images owners may ask for ({@link StartSandboxInput.image}): exact references
   * (`ghcr.io/acme/sandbox:1.4`), or patterns ending in `*` that match by prefix
   * (`ghcr.io/acme/sandbox:*`: any tag of that repository); see `imageAllowed` in
   * `@agent-platform/core/adapter-kit`. Absent on a runtime that cannot change images (the
   * process runtime): the platform then refuses an owner's image, at save and at start.
   */
  allowedImages?(): Promise<string[]>;
  /**
   * Whether the runtime takes an owner's credential ({@link StartSandboxInput.ownerCredential}).
   * Absent or `false` (the built-in runtimes): the platform never hands it one.
   */
  readonly takesOwnerCredential?: boolean;
  /**
   * Starts a sandbox; resolves once it is RUNNING (or throws). Unknown spec: `PlatformError`
   * NOT_FOUND; an id already in use: CONFLICT; after `close()`: UNAVAILABLE.
   */
  start(input: StartSandboxInput): Promise<RuntimeSandbox>;
  /**
   * The sandbox's current state; status `MISSING` (with empty `specId` and `workingDir`) when the
   * runtime has no such sandbox.
   */
  inspect(sandboxId: string): Promise<RuntimeSandbox>;
  /** Freezes everything running in the sandbox (idempotent). Unknown sandbox: throws `PlatformError` NOT_FOUND. */
  pause(sandboxId: string): Promise<void>;
  /** Thaws a paused sandbox (or restarts a stopped one). Unknown sandbox: NOT_FOUND. */
  resume(sandboxId: string): Promise<void>;
  /** Removes the sandbox and everything it holds. Unknown sandbox: NOT_FOUND. */
  delete(sandboxId: string): Promise<void>;
  /**
   * Runs a command in a RUNNING sandbox, streaming its output. The errors surface when iteration
   * starts: unknown sandbox → `PlatformError` NOT_FOUND; not running → CONFLICT. Stopping the
   * iteration early (`break`) kills the command; an already-aborted `signal` runs nothing and
   * ends with a `cancelled` exit. Files are written with parent directories created, replacing
   * existing ones. Time spent paused counts toward `timeoutMs`.
   */
  exec(sandboxId: string, input: ExecInput): AsyncIterable<ExecEvent>;
  /**
   * Resolves when the runtime can start sandboxes now (readiness: Docker's engine answers its
   * `/_ping`); throws otherwise, and after `close()`. Optional: a runtime without it is not checked.
   */
  ping?(): Promise<void>;
  /** Stops and removes everything this runtime created (idempotent). */
  close(): Promise<void>;
}
