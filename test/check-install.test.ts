import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { boardFile } from './helpers/tmp.js';

const script = join(dirname(fileURLToPath(import.meta.url)), '..', 'scripts', 'check-install.cjs');

describe('the build in a checkout without npm ci', () => {
  it('says in one line to run npm ci, and exits 1 before any tool runs', () => {
    const root = dirname(boardFile(''));
    mkdirSync(join(root, 'scripts'));
    copyFileSync(script, join(root, 'scripts', 'check-install.cjs'));
    const r = spawnSync(process.execPath, [join(root, 'scripts', 'check-install.cjs')], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('error[SETUP]: tsc and rolldown not installed in this checkout: run npm ci first, then run this again\n');
  });

  it('lets the build go on in this checkout, where they are installed', () => {
    const r = spawnSync(process.execPath, [script], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
  });
});
