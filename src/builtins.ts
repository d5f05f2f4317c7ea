import { createRequire } from 'node:module';

/**
 * Node builtins that cost a fresh process milliseconds to load and that most
 * calls never use, loaded at first use instead of at start-up: a CLI call
 * that neither spawns nor makes up a name pays for neither (node:child_process
 * about 5 ms, node:crypto about 6 ms, measured in a fresh process; node:readline
 * loads seven modules more, some 6 million instructions).
 */
const require = createRequire(import.meta.url);

/** node:child_process: for a queue helper, a runner's commands and watchdog, an editor. */
export function childProcess(): typeof import('node:child_process') {
  return require('node:child_process') as typeof import('node:child_process');
}

/** `bytes` random bytes as hex, for names that must not collide (a claimant, a runner). */
export function randomHex(bytes: number): string {
  return (require('node:crypto') as typeof import('node:crypto')).randomBytes(bytes).toString('hex');
}

/** Is descriptor `fd` a terminal? (node:tty loads node:net: a few ms, paid only by what shows progress.) */
export function isTerminal(fd: number): boolean {
  return (require('node:tty') as typeof import('node:tty')).isatty(fd);
}

/** node:readline's emitKeypressEvents: only a terminal view reads keys. */
export function emitKeypressEvents(stream: NodeJS.ReadableStream): void {
  (require('node:readline') as typeof import('node:readline')).emitKeypressEvents(stream);
}
