import { describe, expect, it } from 'vitest';
import { COMMANDS, labelFor, WIDTH } from '../src/cli/help.js';
import { OPTIONS } from '../src/cli/help-options.js';
import { mdclaim } from './helpers/cli.js';
import { mdclaimHere } from './helpers/in-process.js';
import { boardFile, bytesOf } from './helpers/tmp.js';

// Help that teaches: every command says what it does, each of its options in
// words, and an example; every line fits 80 columns. Help text is pure: it is
// read through the CLI's dispatcher in this process; the built CLI is started
// only to show the same text comes out of it, and for a bare `mdclaim`.

const NAMES = Object.keys(COMMANDS);

describe('the help', () => {
  it('fits every line of the global help and of each command help in 80 columns', async () => {
    const helps = [(await mdclaimHere(['--help'])).stdout, ...(await Promise.all(NAMES.map(async (n) => (await mdclaimHere([...n.split(' '), '--help'])).stdout)))];
    for (const text of helps) {
      const long = text.split('\n').filter((l) => [...l].length > WIDTH);
      expect(long).toEqual([]);
    }
  });

  it('lists every command in the global help, with the options every command takes described', async () => {
    const help = (await mdclaimHere(['--help'])).stdout;
    for (const n of NAMES) expect(help).toContain(`\n  ${n}`);
    for (const f of ['file', 'json', 'write', 'durable', 'lock-timeout']) expect(help).toContain(`${OPTIONS[f]!.label}  `);
  });

  it('is the same text from the built CLI, global and per command, as help <command> too', async () => {
    expect(mdclaim(['--help'])).toEqual({ status: 0, stdout: (await mdclaimHere(['--help'])).stdout, stderr: '' });
    expect(mdclaim(['paths', 'lock', '--help'])).toEqual({ status: 0, stdout: (await mdclaimHere(['help', 'paths', 'lock'])).stdout, stderr: '' });
  });

  it.each(NAMES)('%s --help says what it does, describes each of its options, and shows an example', async (name) => {
    const r = await mdclaimHere([...name.split(' '), '--help']);
    expect(r.status).toBe(0);
    const spec = COMMANDS[name]!;
    expect(r.stdout).toMatch(new RegExp(`^Usage: mdclaim ${name} `));
    const options = r.stdout.slice(r.stdout.indexOf('\nOptions:\n'), r.stdout.indexOf('\nExample'));
    for (const f of [...spec.flags, 'file']) {
      // The option's label, then words beside or under it.
      const label = labelFor(f, name).replace(/[|.]/g, '\\$&');
      expect(options).toMatch(new RegExp(`\\n  ${label} +\\S|\\n  ${label}\\n +\\S`));
    }
    // As a project that ran npm install mdclaim runs them: through npx (or its node_modules/.bin, from cron).
    expect(r.stdout).toMatch(/\nExamples?:\n {2}(npx mdclaim |\S+=|id=|\* )/);
    for (const example of r.stdout.slice(r.stdout.indexOf('\nExample')).split('\n')) expect(example).not.toMatch(/(?<![\w./-]|npx |npx --no-install |mcp add )mdclaim (?!mcp --file)/);
  });

  it('prints the global help on stderr for a bare mdclaim, exit 2 with one error line', async () => {
    const r = mdclaim([]);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.startsWith((await mdclaimHere(['--help'])).stdout)).toBe(true);
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe('error[USAGE]: no command given: mdclaim <command> [options] (mdclaim <command> --help for one)');
    expect(mdclaim(['--json'])).toMatchObject({ status: 2, stdout: expect.stringContaining('"code":"USAGE"') });
  });

  it.each([
    [['run', 'sh', '-c', 'true'], 'error[USAGE]: run: put -- before the command to run: mdclaim run [options] -- sh -c true\n'],
    [['run', '--by', 'r1', 'make', 'test'], 'error[USAGE]: run: put -- before the command to run: mdclaim run [options] -- make test\n'],
    [['lock', '--shared', 'cp', '-r', 'a', 'b'], 'error[USAGE]: lock: put -- before the command to run: mdclaim lock [options] -- cp -r a b\n'],
    [['lock', '-x'], 'error[USAGE]: lock: put -- before the command to run: mdclaim lock [options] -- -x\n'],
  ])('names a forgotten -- before the command of %j, the board untouched', async (args, stderr) => {
    const file = boardFile('- [ ] one\n');
    const before = bytesOf(file);
    expect(await mdclaimHere([...args, '--file', file])).toMatchObject({ status: 2, stderr: stderr.replace('\n', ` --file ${file}\n`) });
    expect(bytesOf(file)).toEqual(before);
  });

  it('names a forgotten -- from the built CLI too', () => {
    const file = boardFile('- [ ] one\n');
    expect(mdclaim(['run', 'sh', '-c', 'true', '--file', file])).toMatchObject({ status: 2, stderr: `error[USAGE]: run: put -- before the command to run: mdclaim run [options] -- sh -c true --file ${file}\n` });
  });
});
