/**
 * What every sandbox container is held to: no privilege escalation, a short list of
 * capabilities, memory (without swap), CPU and pids limits, optionally a size-limited `/tmp`, a
 * disk quota where the engine can enforce one, and the spec's network.
 * @module
 */
import type Dockerode from 'dockerode';
import type { Logger, SandboxLimits } from '@agent-platform/core';
import { dockerMessage } from './docker-errors.js';
import { MANAGED_LABEL } from './labels.js';

/**
 * The Linux capabilities a sandbox keeps; every other one is dropped (`CapDrop: ['ALL']`). They
 * matter to root in the container (a non-root user has none of them anyway) and are what a shell
 * and package tools (apt, dpkg, apk, pip, npm) need. Dropped from Docker's default set: `MKNOD`
 * (device nodes), `NET_RAW` (raw sockets: spoofing on the bridge; `ping` goes), `SETPCAP`,
 * `SETFCAP` (file capabilities), `SYS_CHROOT` and `AUDIT_WRITE`.
 */
export const DEFAULT_CAPABILITIES: readonly string[] = [
  // Set files' owners: dpkg and apk install files owned by system users; `tar -p`, `cp -a`.
  'CHOWN',
  // Root reads and writes whatever the modes say: package databases and 0600 files of other
  // users (adduser editing /etc/shadow), files in the volume written under another uid.
  'DAC_OVERRIDE',
  // chmod, utime and xattrs on files root does not own: `touch`, `chmod` and builds over
  // another user's files; dpkg setting modes after unpacking.
  'FOWNER',
  // Keep set-user/group-id bits when root writes or chowns a file (dpkg installing a setgid
  // tool); harmless here: with no-new-privileges the bits grant nothing.
  'FSETID',
  // Become another user or group: apt runs its downloads as `_apt`, `su`/`runuser`, build
  // scripts that drop root.
  'SETUID',
  'SETGID',
  // Signal processes of another uid in the sandbox: the kill of a timed-out command group whose
  // processes changed user, `kill` from root's shell.
  'KILL',
  // A spec's server on a port below 1024 (nginx on 80) on engines that keep
  // `ip_unprivileged_port_start` at 1024 (Docker 20.10 and later lower it to 0 in containers).
  'NET_BIND_SERVICE',
];

export interface HardeningOptions {
  limits: SandboxLimits;
  capabilities: readonly string[];
  /** `/tmp` as a tmpfs of this size (its pages count toward the memory limit). */
  tmpBytes?: number | undefined;
  /** The network to join (`none`, a network name); undefined: the engine's default bridge. */
  network?: string | undefined;
}

/** The `HostConfig` members every sandbox container gets (mounts and ports aside). */
export function hardenedHostConfig(options: HardeningOptions): Dockerode.HostConfig {
  const { limits } = options;
  const memory = limits.memoryBytes ? Math.floor(limits.memoryBytes) : undefined;
  return {
    SecurityOpt: ['no-new-privileges'],
    CapDrop: ['ALL'],
    CapAdd: [...options.capabilities],
    // Without MemorySwap the engine lets a container use as much swap again as its memory.
    ...(memory ? { Memory: memory, MemorySwap: memory } : {}),
    ...(limits.cpus ? { NanoCpus: Math.floor(limits.cpus * 1e9) } : {}),
    ...(limits.pids ? { PidsLimit: Math.floor(limits.pids) } : {}),
    ...(options.tmpBytes ? { Tmpfs: { '/tmp': `rw,nosuid,nodev,size=${Math.floor(options.tmpBytes)}` } } : {}),
    ...(options.network ? { NetworkMode: options.network } : {}),
  };
}

/** The engine's refusal of a size (vfs or overlay2 not on xfs with `pquota`, a volume not on xfs, …). */
const QUOTA_UNSUPPORTED = /quota|storage[- ]?opt/i;

/**
 * Disk quotas, where the engine can enforce them: the container's writable layer
 * (`StorageOpt: { size }`: overlay2 on xfs mounted with `pquota`, devicemapper, btrfs, zfs, vfs on
 * xfs with project quotas) and the working-directory volume (the local volume driver's `size`:
 * a Docker root on xfs with `pquota`). Each found out once, by trying: the first container created
 * with the quota either starts (then every later one gets it) or is refused for it (then none
 * does, and a debug line says so); volumes by a probe volume created and removed at once.
 */
export class DiskQuota {
  private supported: boolean | undefined;
  private volumes: Promise<boolean> | undefined;

  constructor(
    private readonly bytes: number | undefined,
    private readonly logger: Logger,
  ) {}

  /** Creates the container with the quota when the engine supports one, else without. */
  async create(docker: Dockerode, options: Dockerode.ContainerCreateOptions): Promise<Dockerode.Container> {
    if (!this.bytes || this.supported === false) return docker.createContainer(options);
    const withQuota = { ...options, HostConfig: { ...options.HostConfig, StorageOpt: { size: String(Math.floor(this.bytes)) } } };
    try {
      const container = await docker.createContainer(withQuota);
      this.supported = true;
      return container;
    } catch (error) {
      if (this.supported === true || !QUOTA_UNSUPPORTED.test(dockerMessage(error))) throw error;
      this.supported = false;
      this.logger.debug(
        { engineAnswer: dockerMessage(error) },
        'the Docker engine cannot limit a container’s disk (StorageOpt size): sandboxes run without a disk quota',
      );
      return docker.createContainer(options);
    }
  }

  /** The working-directory volume's driver options: its size, where the volume driver can enforce one. */
  async volumeOptions(docker: Dockerode, probeName: string): Promise<Record<string, string>> {
    if (!this.bytes) return {};
    this.volumes ??= this.probeVolumes(docker, probeName);
    return (await this.volumes) ? { size: String(Math.floor(this.bytes)) } : {};
  }

  private async probeVolumes(docker: Dockerode, name: string): Promise<boolean> {
    try {
      await docker.createVolume({ Name: name, DriverOpts: { size: String(Math.floor(this.bytes ?? 0)) }, Labels: { [MANAGED_LABEL]: 'true' } });
      await docker
        .getVolume(name)
        .remove()
        .catch(() => undefined);
      return true;
    } catch (error) {
      // Not an answer about quotas (the engine hiccuped): without one this time, asked again next time.
      if (!QUOTA_UNSUPPORTED.test(dockerMessage(error))) this.volumes = undefined;
      else {
        this.logger.debug(
          { engineAnswer: dockerMessage(error) },
          'the Docker engine cannot limit a volume’s size: sandboxes’ working directories run without a disk quota',
        );
      }
      return false;
    }
  }
}
