import type { AnyBoard as Board } from '../../open.js';
import type { Parsed } from '../args.js';
import type { Output } from '../output.js';

/** A command: the board it runs on, the parsed command line, where to print; returns the exit status. */
export type Command = (board: Board, p: Parsed, io: Output) => Promise<number>;
