import { describe, expect, it } from 'vitest';

describe('the public API', () => {
  it('exports exactly what docs/api.md documents', async () => {
    const names = Object.keys(await import('../src/index.js')).sort();
    expect(names).toEqual(['Board', 'DEFAULT_LEASE', 'MdclaimError', 'PgBoard', 'openBoard', 'parseDuration', 'parseTasks', 'runTasks']);
    const { readFileSync } = await import('node:fs');
    const api = readFileSync(new URL('../docs/api.md', import.meta.url), 'utf8');
    for (const name of names) expect(api, name).toMatch(new RegExp(`^#+ .*\`${name}\\b`, 'm'));
  });

  it('the published entry (dist/index.js, as built) exports the same', async () => {
    expect(Object.keys(await import('../dist/index.js')).sort()).toEqual(Object.keys(await import('../src/index.js')).sort());
  });

  it('documents defaults that match the code', async () => {
    const { DEFAULT_LEASE } = await import('../src/index.js');
    const { readFileSync } = await import('node:fs');
    const api = readFileSync(new URL('../docs/api.md', import.meta.url), 'utf8');
    expect(api).toContain(`\`lease\` (\`string | number\`, default \`'${DEFAULT_LEASE}'\`)`);
    expect(api).toContain("default `MDCLAIM_LOCK_TIMEOUT` or `'10s'`");
  });
});
