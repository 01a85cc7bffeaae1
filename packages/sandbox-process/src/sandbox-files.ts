/**
 * Writing `ExecInput.files` into a sandbox directory, refusing anything that would land outside.
 * @module
 */
import { constants } from 'node:fs';
import { type FileHandle, mkdir, open, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { validationError } from '@agent-platform/core';
import type { SandboxFile } from '@agent-platform/core';

/** The mode of a file written without one. */
export const DEFAULT_FILE_MODE = 0o644;

/** Whether `target` is `root` itself or below it (both absolute and normalised). */
export function isInside(root: string, target: string, allowRoot = false): boolean {
  const rel = relative(root, target);
  if (rel === '') return allowRoot;
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

interface PlannedFile {
  index: number;
  target: string;
  content: string | Uint8Array;
  mode: number;
}

/**
 * Checks every file first (type, mode, and that its path stays inside `sandboxDir`), then writes
 * them in order: parent directories are created, an existing file is replaced, the mode is set
 * exactly (the umask does not apply). Relative paths are taken from `workingDir`; absolute paths
 * must already point inside `sandboxDir`. A parent directory that resolves outside through a
 * symlink, or a final path component that is a symlink, is refused as well.
 *
 * @throws PlatformError VALIDATION_FAILED, with the offending file's index in `loc`.
 */
export async function writeSandboxFiles(sandboxDir: string, workingDir: string, files: readonly SandboxFile[]): Promise<void> {
  const planned = files.map((file, index) => planFile(sandboxDir, workingDir, file, index));
  for (const file of planned) await writePlanned(sandboxDir, file);
}

function planFile(sandboxDir: string, workingDir: string, file: SandboxFile, index: number): PlannedFile {
  const loc = ['files', index];
  if (typeof file?.path !== 'string' || file.path === '' || file.path.includes('\0')) {
    throw validationError([...loc, 'path'], 'File path must be a non-empty string without NUL characters');
  }
  if (typeof file.content !== 'string' && !(file.content instanceof Uint8Array)) {
    throw validationError([...loc, 'content'], 'File content must be a string or a Uint8Array');
  }
  const mode = file.mode ?? DEFAULT_FILE_MODE;
  if (!Number.isInteger(mode) || mode < 0 || mode > 0o7777) {
    throw validationError([...loc, 'mode'], 'File mode must be an integer between 0 and 0o7777');
  }
  const target = isAbsolute(file.path) ? resolve(file.path) : resolve(workingDir, file.path);
  if (!isInside(sandboxDir, target)) {
    throw validationError([...loc, 'path'], `File path "${file.path}" is outside the sandbox`);
  }
  return { index, target, content: file.content, mode };
}

async function writePlanned(sandboxDir: string, file: PlannedFile): Promise<void> {
  const pathLoc = ['files', file.index, 'path'];
  const parent = dirname(file.target);
  await mkdir(parent, { recursive: true });
  const realParent = await realpath(parent);
  if (!isInside(sandboxDir, realParent, true)) {
    throw validationError(pathLoc, 'File path leads outside the sandbox through a symbolic link');
  }
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;
  let handle: FileHandle;
  try {
    handle = await open(file.target, flags, file.mode);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw validationError(pathLoc, 'File path is a symbolic link');
    if (code === 'EISDIR') throw validationError(pathLoc, 'File path is a directory');
    throw error;
  }
  try {
    await handle.writeFile(file.content);
    await handle.chmod(file.mode);
  } finally {
    await handle.close();
  }
}
