import { describe, expect, it } from 'vitest';

describe('the public API', () => {
  it('exports exactly what the README documents', async () => {
    expect(Object.keys(await import('../src/index.js')).sort()).toEqual(['Board', 'DEFAULT_LEASE', 'MdclaimError', 'openBoard', 'parseDuration', 'parseTasks', 'runTasks']);
  });

  it('the published entry (dist/index.js, as built) exports the same', async () => {
    expect(Object.keys(await import('../dist/index.js')).sort()).toEqual(Object.keys(await import('../src/index.js')).sort());
  });

  it('documents defaults that match the code', async () => {
    const { DEFAULT_LEASE } = await import('../src/index.js');
    const { readFileSync } = await import('node:fs');
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    expect(readme).toContain(`\`lease\` (\`string | number\`, default \`'${DEFAULT_LEASE}'\`)`);
    expect(readme).toContain("default `MDCLAIM_LOCK_TIMEOUT` or `'10s'`");
  });
});
