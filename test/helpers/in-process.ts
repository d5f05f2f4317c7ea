import { errorReport } from '../../src/errors.js';
import { exitCodeFor } from '../../src/cli/exit.js';
import { run } from '../../src/cli/run.js';
import type { CliResult } from './cli.js';

/**
 * A command line run in this process through the CLI's own dispatcher, with
 * the one error map src/cli.ts applies: for what needs no process of its own
 * (help text, usage errors found before any board is opened). What only a
 * process shows (its descriptors, its exit, signals) stays with `mdclaim`.
 */
export async function mdclaimHere(args: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io = { out: (line: string) => void (stdout += `${line}\n`), err: (line: string) => void (stderr += `${line}\n`), raw: (data: Uint8Array) => void (stdout += Buffer.from(data).toString()) };
  try {
    return { status: await run(args, io), stdout, stderr };
  } catch (err) {
    const { code, line } = errorReport(err);
    return { status: exitCodeFor(code), stdout, stderr: `${stderr}${line}\n` };
  }
}
