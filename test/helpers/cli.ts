import { spawnSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Run the built CLI as a user would, with a clean MDCLAIM_* environment. */
export function mdclaim(args: string[], env: Record<string, string> = {}): CliResult {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: cleanEnv(env) });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** The same in `cwd`, with `input` on stdin: for commands that find their board or repository from where they run. */
export function mdclaimIn(cwd: string, args: string[], o: { env?: Record<string, string>; input?: string } = {}): CliResult {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: cleanEnv(o.env ?? {}), ...(o.input === undefined ? {} : { input: o.input }) });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** The same, without blocking the test process (for several at once). */
export function mdclaimAsync(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: cleanEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status: status ?? -1, stdout, stderr }));
  });
}

/** This environment less every MDCLAIM_ setting, plus `extra`. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('MDCLAIM_')) env[k] = v;
  return { ...env, ...extra };
}
