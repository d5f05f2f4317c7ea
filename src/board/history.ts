import { usage } from '../errors.js';
import { idForm } from '../format/id.js';
import { checkBy, checkId } from './checks.js';
import type { Journalled } from './history-events.js';
import { isPrefix, noTask, resolvePrefix } from './resolve-id.js';
import type { HistoryEvent, HistoryOptions } from './types.js';

// Which events a history asks for, checked once for both boards; and how a
// file board's journal lines read back as events.

export interface HistoryRequest {
  id?: string;
  since?: number;
  by?: string;
}

/** history's argument: an id, or options (id, since, by), checked. */
export function historyRequest(options: string | HistoryOptions | undefined): HistoryRequest {
  const o: HistoryOptions = typeof options === 'string' ? { id: options } : (options ?? {});
  if (typeof o !== 'object') throw usage(`history takes an id or options, got ${typeof o}`);
  const r: HistoryRequest = {};
  if (o.id !== undefined) r.id = checkId(o.id);
  if (o.since !== undefined) {
    if (typeof o.since !== 'number' || !Number.isFinite(o.since)) throw usage(`since must be epoch milliseconds, got ${typeof o.since}`);
    r.since = o.since;
  }
  if (o.by !== undefined) r.by = checkBy(o.by);
  return r;
}

/** A journal line as an event without its place; null for a line that is not one (a torn last line, a line written by hand). */
function readJournalLine(line: string): Journalled | null {
  let e: unknown;
  try {
    e = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof e !== 'object' || e === null) return null;
  const j = e as Journalled;
  return typeof j.at === 'string' && typeof j.event === 'string' && typeof j.id === 'string' && typeof j.text === 'string' ? j : null;
}

/** The journal's lines as events, numbered in order, those the request names. */
export function journalEvents(lines: readonly string[], r: HistoryRequest): HistoryEvent[] {
  const all: (Journalled & { seq: number })[] = [];
  for (const l of lines) {
    const j = readJournalLine(l);
    if (j !== null) all.push({ seq: all.length + 1, ...j });
  }
  const id = r.id === undefined ? undefined : wholeId(r.id, all);
  const out: HistoryEvent[] = [];
  for (const { hash, ...e } of all) {
    if (id !== undefined && e.id !== id && hash !== id) continue;
    if (r.since !== undefined && Date.parse(e.at) < r.since) continue;
    if (r.by !== undefined && e.by !== r.by) continue;
    out.push(e);
  }
  return out;
}

/** An id as given, or the one id (or hash) of the journal it is the start of. */
function wholeId(id: string, events: readonly Journalled[]): string {
  if (idForm(id) !== null) return id;
  if (!isPrefix(id)) throw noTask(id);
  const ids = events.flatMap((e) => [{ id: e.id, text: e.text }, { id: e.hash, text: e.text }]);
  return resolvePrefix(id, ids);
}
