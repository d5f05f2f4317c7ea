import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, TestRunner } from 'vitest';
import { cleanAfterEach } from './cleanup.js';

const dirs: string[] = [];
/** Made outside any test (in a beforeAll): the file's, for its tests to share. */
const fileDirs: string[] = [];

cleanAfterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
afterAll(() => {
  for (const d of fileDirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A fresh empty directory, removed after the test (made in a beforeAll: after the file). */
export function scratchDir(prefix = 'mdclaim-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  (TestRunner.getCurrentTest() === undefined ? fileDirs : dirs).push(dir);
  return dir;
}

/** A fresh directory holding a board with this content; removed after the test (made in a beforeAll: after the file). */
export function boardFile(content: string | Buffer, name = 'tasks.md'): string {
  const file = join(scratchDir(), name);
  writeFileSync(file, content);
  return file;
}

export function read(file: string): string {
  return readFileSync(file, 'utf8');
}

export function bytesOf(file: string): Buffer {
  return readFileSync(file);
}
