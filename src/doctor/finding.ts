/** How a finding stands: all is well, worth knowing, something would fail, or nothing to check. */
export type Verdict = 'ok' | 'warn' | 'fail' | 'skip';

/** One thing `doctor` checked: what it is about, what it found, and the fix when there is one. */
export interface Finding {
  check: 'lock' | 'board' | 'file system' | 'permissions' | 'reading' | 'connection' | 'schema' | 'pooler' | 'hooks';
  verdict: Verdict;
  says: string;
  fix?: string;
}

export const finding = (check: Finding['check'], verdict: Verdict, says: string, fix?: string): Finding => ({ check, verdict, says, ...(fix === undefined ? {} : { fix }) });

/** A line whose `{after: …}` names no task, or closes a cycle: no claim takes it until it is fixed. */
export const afterFinding = (where: string, reason: string): Finding =>
  finding('reading', 'fail', `${where}: ${reason}`, 'fix its {after: …}: name a task on the board by its id, or break the cycle; no claimer will run it until then');
