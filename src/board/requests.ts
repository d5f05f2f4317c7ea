import { usage } from '../errors.js';
import { budget, checkBy, checkCommit, checkHolder, checkId, checkSection, checkTags } from './checks.js';
import { parseDuration, parseLease } from './duration.js';
import type { ClaimOptions, HolderOptions, NextOptions, ReapOptions, RetryOptions } from './types.js';

// Every request, checked and put in normal form once, for both boards: what
// one board refuses the other refuses in the same words, before either
// touches anything. The boards then act on the normal form only.

export interface NextRequest {
  by: string;
  leaseMs: number;
  tags: string[];
  section?: string;
  maxAttempts?: number;
}

/** next: who claims, the lease (the board's default when none is given), the filter, the budget. */
export function nextRequest(options: NextOptions, defaultLeaseMs: number): NextRequest {
  const by = checkBy(options?.by);
  const leaseMs = leaseOf(options.lease, defaultLeaseMs);
  const tags = options.tags ? checkTags(options.tags) : [];
  const section = options.section === undefined ? {} : { section: checkSection(options.section) };
  return { by, leaseMs, tags, ...section, ...budget(options) };
}

export interface ClaimRequest {
  id: string;
  by: string;
  leaseMs: number;
  maxAttempts?: number;
}

export function claimRequest(id: string, options: ClaimOptions, defaultLeaseMs: number): ClaimRequest {
  const by = checkBy(options?.by);
  const leaseMs = leaseOf(options.lease, defaultLeaseMs);
  checkId(id);
  return { id, by, leaseMs, ...budget(options) };
}

export interface HolderRequest {
  id: string;
  by: string;
  claimedAt?: string;
}

/** A holder write (heartbeat, release, path locks): who, and the claim it is fenced to. */
export function holderRequest(id: string, options: HolderOptions): HolderRequest {
  const who = checkHolder(options);
  checkId(id);
  return { id, ...who };
}

export function doneRequest(id: string, options: HolderOptions & { commit?: string }): HolderRequest & { commit?: string } {
  checkCommit(options?.commit);
  const who = holderRequest(id, options);
  return options.commit === undefined ? who : { ...who, commit: options.commit };
}

/** fail: the reason as its line keeps it (folded to one line; none when empty). */
export function failRequest(id: string, options: HolderOptions & { reason?: string }): HolderRequest & { reason?: string } {
  const reason = options?.reason;
  if (reason !== undefined && typeof reason !== 'string') throw usage(`reason must be a string, got ${typeof reason}`);
  const who = holderRequest(id, options);
  const folded = reason === undefined ? '' : foldReason(reason);
  return folded === '' ? who : { ...who, reason: folded };
}

/** A reason stays on its line: line breaks fold into spaces. */
export function foldReason(reason: string): string {
  return reason.replace(/\s*[\r\n\u2028\u2029]+\s*/g, ' ').trim();
}

export function retryRequest(id: string, options: RetryOptions): HolderRequest & { delayMs: number } {
  const who = holderRequest(id, options);
  return { ...who, delayMs: parseDuration(options?.delay, 'delay') };
}

export function reopenRequest(id: string, options: { by?: string } = {}): { id: string; by?: string } {
  checkId(id);
  return options?.by === undefined ? { id } : { id, by: checkBy(options.by) };
}

export interface ReapRequest {
  ttlMs?: number;
  dryRun: boolean;
  includeUntimed: boolean;
  maxAttempts?: number;
}

export function reapRequest(options: ReapOptions = {}): ReapRequest {
  const ttlMs = options.ttl === undefined ? {} : { ttlMs: parseDuration(options.ttl, 'ttl') };
  return { ...ttlMs, dryRun: options.dryRun ?? false, includeUntimed: options.includeUntimed ?? false, ...budget(options) };
}

export function addRequest(text: string, options: { section?: string } = {}): { text: string; section?: string } {
  if (typeof text !== 'string') throw usage(`text must be a string, got ${typeof text}`);
  return options?.section === undefined ? { text } : { text, section: options.section };
}

function leaseOf(lease: string | number | undefined, defaultMs: number): number {
  return lease === undefined ? defaultMs : parseLease(lease, 'lease');
}
