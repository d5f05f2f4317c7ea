// npm run docs: write the command and option reference of docs/cli.md, the
// part between its reference markers, from the CLI's one table of commands
// (src/cli/help-commands.ts) and of options (src/cli/flags.ts), so the page
// and `mdclaim --help` cannot drift apart. The prose around the markers is
// written by hand. A test (test/docs.test.ts) renders again and compares.
//
// Reads the built CLI modules: run after npm run build (npm run docs does).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CLI_DOC = fileURLToPath(new URL('../docs/cli.md', import.meta.url));
export const START = '<!-- reference:start: made by npm run docs from src/cli/help-commands.ts and src/cli/flags.ts; edit those -->';
export const END = '<!-- reference:end -->';

const ARG = { none: '', task: ' <task>', text: ' <text>', command: ' -- <cmd> [args…]', paths: ' <task> [P…]', path: ' <file>', name: ' <name>', 'task?': ' [task]' };

/** A table cell: a `|` would end it. */
const cell = (s) => s.replace(/\|/g, '\\|');

/** An option as a command's synopsis shows it: `[--tag T]…`, `[--commit]` where it is a switch. */
function synopsisFlag(name, flag, command) {
  const value = flag.value === undefined || flag.switchIn?.includes(command) ? '' : ` ${flag.value}`;
  return `[--${name}${value}]${/\(repeat\b/.test(flag.text) ? '…' : ''}`;
}

/** The reference: every command with its own options and exit statuses, then every option with the commands that take it. */
export async function renderReference() {
  const { COMMANDS, allowedFlags } = await import('../dist/cli/help.js');
  const { FLAGS } = await import('../dist/cli/flags.js');
  const names = Object.keys(COMMANDS);
  const commandRows = names.map((name) => {
    const c = COMMANDS[name];
    const own = c.flags.filter((f) => f !== 'json' && f !== 'file').map((f) => synopsisFlag(f, FLAGS[f], name));
    const args = c.args === 'command' ? '' : ARG[c.args];
    if (args === undefined) throw new Error(`scripts/docs.mjs: no way to write ${name}'s argument kind ${c.args}: add it to ARG`);
    const usage = `${name}${args}${own.length > 0 ? ` ${own.join(' ')}` : ''}${c.args === 'command' ? ARG.command : ''}`;
    return `| \`${cell(usage)}\` | ${cell(c.summary)} | ${cell(c.exits === undefined ? '2 usage' : `${c.exits}; 2 usage`)} |`;
  });
  const optionRows = Object.entries(FLAGS).map(([name, f]) => {
    const label = `${f.short === undefined ? '' : `\`-${f.short}\`, `}\`--${name}${f.value === undefined ? '' : ` ${f.value}`}\``;
    const takers = names.filter((c) => allowedFlags(c).has(name));
    const others = names.filter((c) => !takers.includes(c));
    const list = (cs) => cs.map((c) => `\`${c}\`${FLAGS[name].switchIn?.includes(c) ? ' (a switch)' : ''}`).join(', ');
    const where = takers.length === 0 ? '— (`mdclaim --version`)' : others.length === 0 ? 'all' : others.length < takers.length ? `all but ${list(others)}` : list(takers);
    return `| ${cell(label)} | ${where} | ${cell(f.text)} |`;
  });
  const ownOnly = names.filter((c) => COMMANDS[c].ownFlagsOnly).map((c) => `\`${c}\``);
  return [
    START,
    '',
    '### Every command',
    '',
    `Each with its own options; every command${ownOnly.length > 0 ? ` but ${ownOnly.join(', ')}` : ''} also takes the common`,
    'ones ([options](#options)). `mdclaim <command> --help` says the same, with examples.',
    '',
    '| command | does | exit status |',
    '|---|---|---|',
    ...commandRows,
    '',
    '### Every option',
    '',
    '| option | commands | meaning |',
    '|---|---|---|',
    ...optionRows,
    '',
    END,
  ].join('\n');
}

/** docs/cli.md with its reference made anew (the text between the markers replaced). */
export async function withReference(doc = readFileSync(CLI_DOC, 'utf8')) {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/cli.md has no reference markers: put ${START} and ${END} where the reference goes`);
  return doc.slice(0, start) + (await renderReference()) + doc.slice(end + END.length);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(CLI_DOC, await withReference());
  process.stdout.write(`wrote the reference of ${CLI_DOC}\n`);
}
