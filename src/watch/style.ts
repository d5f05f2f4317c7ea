import type { Style } from './paint.js';

/**
 * How the terminal is painted: colour on a terminal unless NO_COLOR is set
 * (to anything but '') or TERM is dumb; emoji and block glyphs in a UTF-8
 * locale, ASCII otherwise. Widths from string-width, loaded here only: no
 * other command pays for it.
 */
export async function terminalStyle(env: NodeJS.ProcessEnv, isTerminal: boolean): Promise<Style> {
  const { default: stringWidth } = await import('string-width');
  const noColor = env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '';
  const color = isTerminal && !noColor && env['TERM'] !== 'dumb';
  const glyphs = /utf-?8/i.test(env['LC_ALL'] || env['LC_CTYPE'] || env['LANG'] || '');
  return { color, glyphs, width: (text) => stringWidth(text) };
}

/** Plain text for `status`: no colour, ASCII marks, a character a column (nothing is cut). */
export const PLAIN: Style = { color: false, glyphs: false, width: (text) => text.length };
