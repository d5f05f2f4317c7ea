import type { Reporter, TestModule } from 'vitest/node';
import { PG_SKIPPED } from './helpers/pg-skipped.js';

/**
 * A line at the end of the run saying how many PostgreSQL tests it skipped,
 * and why: without a server, the PostgreSQL variant of each contract test
 * and every PostgreSQL-only test is skipped with its reason in its title
 * (pgTitle, describeKinds), not dropped unseen.
 */
export default class PgSkips implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let count = 0;
    const files = new Set<string>();
    const why = new Set<string>();
    for (const m of modules) {
      for (const t of m.children.allTests('skipped')) {
        const at = t.fullName.indexOf(`[${PG_SKIPPED}: `);
        if (at < 0) continue;
        count++;
        files.add(m.moduleId);
        why.add(t.fullName.slice(at + PG_SKIPPED.length + 3, t.fullName.indexOf(']', at)));
      }
    }
    if (count === 0) return;
    process.stderr.write(`\n${count} PostgreSQL test(s) skipped in ${files.size} file(s): ${[...why].join('; ')}. Set MDCLAIM_PG_URL or start the server to run them.\n`);
  }
}
