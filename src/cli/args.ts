import { usage } from '../errors.js';
import { FLAGS } from './flags.js';

export interface Parsed {
  command: string | undefined;
  positionals: string[];
  /** The words after `--`, taken as they are (`mdclaim lock -- cmd args…`); undefined without `--`. */
  rest?: string[];
  flags: Map<string, string[]>;
}

export { FLAGS } from './flags.js';

const SHORT = new Map(Object.entries(FLAGS).flatMap(([name, spec]) => (spec.short ? [[spec.short, name] as const] : [])));

/**
 * Split argv into the command, its positionals and its flags (`--name value`,
 * `--name=value`, `-f value`). `takesCommand` names the commands whose
 * arguments are a command line after `--` (run, lock): a word or an unknown
 * option before the `--` is that command line, and the error says so.
 */
export function parseArgs(argv: readonly string[], takesCommand: (command: string) => boolean = () => false): Parsed {
  const flags = new Map<string, string[]>();
  const positionals: string[] = [];
  let rest: string[] | undefined;
  const forgotten = (i: number) => {
    const cmd = positionals[0]!;
    return usage(`${cmd}: put -- before the command to run: mdclaim ${cmd} [options] -- ${argv.slice(i).join(' ')}`);
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      rest = argv.slice(i + 1);
      positionals.push(...rest);
      break;
    }
    const inCommandLine = positionals.length === 1 && takesCommand(positionals[0]!);
    let name: string | undefined;
    let inline: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      if (eq >= 0) inline = arg.slice(eq + 1);
    } else if (/^-[A-Za-z]$/.test(arg)) {
      name = SHORT.get(arg.slice(1));
      if (name === undefined) throw inCommandLine ? forgotten(i) : usage(`unknown option ${arg} (see mdclaim --help)`);
    } else {
      if (inCommandLine) throw forgotten(i);
      positionals.push(arg);
      continue;
    }
    // Own keys only: `--constructor` is no flag of ours.
    const spec = Object.hasOwn(FLAGS, name) ? FLAGS[name] : undefined;
    if (!spec) throw inCommandLine ? forgotten(i) : usage(`unknown option --${name} (see mdclaim --help)`);
    let value = 'true';
    if (spec.value !== undefined && !(positionals.length > 0 && spec.switchIn?.includes(positionals[0]!))) {
      if (inline !== undefined) value = inline;
      else if (i + 1 < argv.length && !isFlag(argv[i + 1]!)) value = argv[++i]!;
      else throw usage(`--${name} needs a value`);
    } else if (inline !== undefined) {
      throw usage(`--${name} takes no value`);
    }
    flags.set(name, [...(flags.get(name) ?? []), value]);
  }
  return { command: positionals.shift(), positionals, flags, ...(rest ? { rest } : {}) };
}

/**
 * Is this argv element one of mdclaim's flags, spelled as a flag (`--json`,
 * `--by=x`, `-q`), or the `--` that ends them? A value flag takes the next
 * element as its value unless it is: `--tag json` tags "json", `--reason -x`
 * is the reason "-x", and `--by --json` lacks a value.
 */
function isFlag(arg: string): boolean {
  if (arg === '--') return true;
  if (arg.startsWith('--')) {
    const eq = arg.indexOf('=');
    return Object.hasOwn(FLAGS, eq < 0 ? arg.slice(2) : arg.slice(2, eq));
  }
  return /^-[A-Za-z]$/.test(arg) && SHORT.has(arg.slice(1));
}

/** The single value of a flag; giving it twice is a usage error (only --tag, --writes and --reads repeat). */
export function one(p: Parsed, name: string): string | undefined {
  const values = p.flags.get(name);
  if (!values) return undefined;
  if (values.length > 1) throw usage(`--${name} given more than once`);
  return values[0];
}

/** A whole-number flag (`--max 3`): undefined when absent, USAGE naming it when not a number of at least `least`. */
export function wholeNumber(p: Parsed, name: string, least = 1): number | undefined {
  const value = one(p, name);
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value) || Number(value) < least) throw usage(`--${name} must be a whole number of at least ${least}, got "${value}"`);
  return Number(value);
}

export function has(p: Parsed, name: string): boolean {
  return p.flags.has(name);
}
