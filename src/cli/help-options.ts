import { FLAGS, flagLabel } from './flags.js';

// What each option means, in words, as the global help and each command's help
// show it: made from the one table of options (flags.ts). A command may say
// more of an option in its own spec (`options` in help-commands.ts).

export interface OptionHelp {
  /** As the help shows it: `-f, --file PATH|URL`. */
  label: string;
  text: string;
}

export const OPTIONS: Record<string, OptionHelp> = Object.fromEntries(Object.entries(FLAGS).map(([name, f]) => [name, { label: flagLabel(name, f), text: f.text }]));
