import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanAfterEach } from './cleanup.js';

const dirs: string[] = [];

cleanAfterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A fresh directory holding a board with this content; removed after the test. */
export function boardFile(content: string | Buffer, name = 'tasks.md'): string {
  const dir = mkdtempSync(join(tmpdir(), 'mdclaim-test-'));
  dirs.push(dir);
  const file = join(dir, name);
  writeFileSync(file, content);
  return file;
}

export function read(file: string): string {
  return readFileSync(file, 'utf8');
}

export function bytesOf(file: string): Buffer {
  return readFileSync(file);
}
