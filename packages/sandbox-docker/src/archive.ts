/**
 * `ExecInput.files` as a tar archive for the Engine's `PUT /containers/{id}/archive`, which
 * writes them in one request, creating parent directories, whatever the image has installed.
 * @module
 */
import { posix } from 'node:path';
import { validationError, type SandboxFile } from '@agent-platform/core';
import { pack } from 'tar-stream';

/** Absolute path inside the container: relative paths are taken from the working directory. */
export function containerPath(workingDir: string, path: string, index: number): string {
  if (path === '' || path.includes('\0')) throw validationError(['files', index, 'path'], 'a file path must be non-empty');
  const resolved = posix.resolve(workingDir, path);
  if (resolved === '/') throw validationError(['files', index, 'path'], 'a file path must name a file');
  return resolved;
}

/** A tar of the files, entries relative to `/`. */
export async function filesArchive(workingDir: string, files: readonly SandboxFile[]): Promise<Buffer> {
  const archive = pack();
  const chunks: Buffer[] = [];
  archive.on('data', (chunk: unknown) => void chunks.push(chunk as Buffer));
  const ended = new Promise<void>((resolve, reject) => {
    archive.on('end', resolve);
    archive.on('error', reject);
  });
  files.forEach((file, index) => {
    const name = containerPath(workingDir, file.path, index).slice(1);
    const content = typeof file.content === 'string' ? Buffer.from(file.content, 'utf8') : Buffer.from(file.content);
    archive.entry({ name, mode: file.mode ?? 0o644, mtime: new Date(), type: 'file' }, content);
  });
  archive.finalize();
  await ended;
  return Buffer.concat(chunks);
}
