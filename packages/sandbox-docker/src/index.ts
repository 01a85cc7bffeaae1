/**
 * `@agent-platform/sandbox-docker`: the Docker `SandboxRuntime`. A sandbox is a container of a
 * configured image, labelled, limited and hardened, with a volume and a session API key of its
 * own, managed over the Docker Engine API (`DOCKER_HOST` or the local socket). See {@link createDockerRuntime}.
 * @module
 */
export { DEFAULT_LIMITS, DEFAULT_MAX_OUTPUT_BYTES, RUNTIME_NAME, createDockerRuntime } from './docker-runtime.js';
export { statusOf } from './container-state.js';
export type { DockerRuntimeOptions } from './docker-runtime.js';
export type { DockerSandboxSpec } from './docker-specs.js';
export { DEFAULT_WORKING_DIR } from './docker-specs.js';
export { BOUND_LABEL, INSTANCE_LABEL, MANAGED_LABEL, SANDBOX_ID_LABEL, SPEC_ID_LABEL } from './labels.js';
export { DEFAULT_CAPABILITIES } from './hardening.js';
export type { DockerEngine } from './engine-hosts.js';
export { DEFAULT_PLACEMENT_TIMEOUT_MS } from './engines.js';
export type { ContainmentOptions } from './runtime-class.js';
export type { EgressEvent, EgressOptions } from './egress/sandbox-egress.js';
export { parseAllowlist as parseEgressAllowlist } from './egress/allowlist.js';
export type { AllowEntry as EgressAllowEntry } from './egress/allowlist.js';
export { resolveEngines } from './engine-hosts.js';
