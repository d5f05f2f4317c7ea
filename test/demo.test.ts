import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const demo = fileURLToPath(new URL('../examples/demo.js', import.meta.url));
const runnerAct = fileURLToPath(new URL('../examples/demo-runner.js', import.meta.url));

describe('npm run demo', () => {
  it('passes every check it prints, each read from the board', () => {
    const r = spawnSync(process.execPath, [demo], { encoding: 'utf8', timeout: 120_000 });
    const checks = r.stdout.split('\nchecks:\n')[1]?.split('\n\n')[0]?.split('\n') ?? [];
    expect(checks, r.stdout + r.stderr).toHaveLength(3);
    for (const line of checks) expect(line).toMatch(/: yes$/);
    expect(r.status).toBe(0);
  });

  it("passes every check of the runner act, each read from the board or the runners' events", () => {
    const r = spawnSync(process.execPath, [runnerAct], { encoding: 'utf8', timeout: 120_000 });
    const checks = r.stdout.split('\nchecks:\n')[1]?.trimEnd().split('\n') ?? [];
    expect(checks, r.stdout + r.stderr).toHaveLength(4);
    for (const line of checks) expect(line).toMatch(/: yes$/);
    expect(r.status).toBe(0);
  });
});
