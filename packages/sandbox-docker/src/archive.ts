/**
 * `ExecInput.files` as a tar archive for the Engine's `PUT /containers/{id}/archive`, which
 * writes them in one request, creating parent directories, whatever the image has installed.
 * @module
 */
import { posix } from 'node:path';
import { validationError, type SandboxFile } from '@agent-platform/core';
import { pack } from 'tar-stream';
import type { Ownership } from './container-user.js';

/** Absolute path inside the container: relative paths are taken from the working directory. */
export function containerPath(workingDir: string, path: string, index: number): string {
  if (path === '' || path.includes('\0')) throw validationError(['files', index, 'path'], 'a file path must be non-empty');
  const resolved = posix.resolve(workingDir, path);
  if (resolved === '/') throw validationError(['files', index, 'path'], 'a file path must name a file');
  return resolved;
}

/**
 * A tar of the files, entries relative to `/`. With an `owner` (a non-root sandbox user) the
 * files are its, and so are the directories the files need inside the working directory (the
 * engine would create missing ones as root's): they come as entries of their own, mode 0755.
 */
export async function filesArchive(workingDir: string, files: readonly SandboxFile[], owner: Ownership | null = null): Promise<Buffer> {
  const archive = pack();
  const chunks: Buffer[] = [];
  archive.on('data', (chunk: unknown) => void chunks.push(chunk as Buffer));
  const ended = new Promise<void>((resolve, reject) => {
    archive.on('end', resolve);
    archive.on('error', reject);
  });
  const ids = owner ? { uid: owner.uid, gid: owner.gid } : {};
  const directories = new Set<string>();
  files.forEach((file, index) => {
    const path = containerPath(workingDir, file.path, index);
    if (owner) {
      for (const directory of directoriesUnder(workingDir, path)) {
        if (directories.has(directory)) continue;
        directories.add(directory);
        archive.entry({ name: `${directory.slice(1)}/`, mode: 0o755, mtime: new Date(), type: 'directory', ...ids });
      }
    }
    const content = typeof file.content === 'string' ? Buffer.from(file.content, 'utf8') : Buffer.from(file.content);
    archive.entry({ name: path.slice(1), mode: file.mode ?? 0o644, mtime: new Date(), type: 'file', ...ids }, content);
  });
  archive.finalize();
  await ended;
  return Buffer.concat(chunks);
}

/** The directories between the working directory (excluded) and `path`'s own, outermost first. */
function directoriesUnder(workingDir: string, path: string): string[] {
  const relative = posix.relative(workingDir, posix.dirname(path));
  if (relative === '' || relative.startsWith('..')) return [];
  const parts = relative.split('/');
  return parts.map((_, index) => posix.join(workingDir, ...parts.slice(0, index + 1)));
}

/** A tar of the working directory alone, owned by `owner`: written, it gives them the directory. */
export async function ownedDirectoryArchive(workingDir: string, owner: Ownership): Promise<Buffer> {
  const archive = pack();
  const chunks: Buffer[] = [];
  archive.on('data', (chunk: unknown) => void chunks.push(chunk as Buffer));
  const ended = new Promise<void>((resolve, reject) => {
    archive.on('end', resolve);
    archive.on('error', reject);
  });
  archive.entry({ name: `${workingDir.slice(1)}/`, mode: 0o755, mtime: new Date(), type: 'directory', uid: owner.uid, gid: owner.gid });
  archive.finalize();
  await ended;
  return Buffer.concat(chunks);
}
