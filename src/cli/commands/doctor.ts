import { has } from '../args.js';
import { boardLocation } from '../board-location.js';
import { EXIT } from '../exit.js';
import { printJson } from '../output.js';
import type { Command } from './types.js';

const MARK = { ok: '✓', warn: '!', fail: '✗', skip: '-' } as const;

/** `mdclaim doctor`: the findings of the library's doctor, one a line with its fix; exit 1 when one would fail. */
export const doctor: Command = async (_board, p, io) => {
  // The location as given (run.ts chose it the same way): a PostgreSQL board's URL with its password, to connect.
  const location = boardLocation(p);
  const { doctor: check, failing } = await import('../../doctor/doctor.js');
  const findings = await check(location);
  const ok = !failing(findings);
  if (has(p, 'json')) printJson(io, { ok, findings });
  else {
    for (const f of findings) {
      io.out(`${MARK[f.verdict]} ${f.check.padEnd(11)} ${f.says}`);
      if (f.fix !== undefined && f.verdict !== 'ok') io.out(`  ${''.padEnd(11)} fix: ${f.fix}`);
    }
  }
  return ok ? EXIT.OK : EXIT.FAILURE;
};
