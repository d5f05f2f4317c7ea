/**
 * What a message may print as it is: no C0 control, DEL or C1 control. A
 * terminal acts on those (ESC and U+009B start a control sequence, U+0085
 * ends a line), so text read from a board or an argument could recolour,
 * move or hide what a person reads. The one rule: paths refuse them, and
 * every message, result and JSON document shows them escaped (the CLI's
 * stdout and stderr, `watch`'s screen).
 */
export const CONTROL = /[\x00-\x1f\x7f-\x9f]/;
const CONTROLS = /[\x00-\x1f\x7f-\x9f]/g;

/** `\uXXXX` for a control character, as JSON writes one. */
function escaped(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** `text` with every control character escaped (`\u001b`), the rest as it is. */
export function printable(text: string): string {
  return CONTROL.test(text) ? text.replace(CONTROLS, escaped) : text;
}

const CONTROLS_BUT_LF = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/g;

/** `printable`, line by line: a result of several lines (help, a starter board) keeps its line feeds. */
export function printableLines(text: string): string {
  return CONTROL.test(text) ? text.replace(CONTROLS_BUT_LF, escaped) : text;
}

/** JSON text that holds no control character raw: JSON.stringify escapes C0, not DEL or C1 (still valid JSON). */
export function jsonText(doc: unknown): string {
  return printable(JSON.stringify(doc));
}
