import { describe, expect, it } from 'vitest';
import { mdclaim } from './helpers/cli.js';
import { boardUrl, pgReachable, pgTitle, uniqueBoard } from './helpers/pg.js';

// An sslmode node-postgres reads as verify-full is said in no warning of its own: the outcome is one line, as every error.

describe.skipIf(!pgReachable)(pgTitle('sslmode on a board URL'), () => {
  it.each(['require', 'prefer', 'verify-ca', 'verify-full'])('sslmode=%s against a server without TLS: one error line on stderr, nothing else', (mode) => {
    const url = new URL(boardUrl(uniqueBoard('ssl')));
    url.searchParams.set('sslmode', mode);
    const r = mdclaim(['list', '--file', url.toString()]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error\[IO\]: cannot connect to postgres:\/\/[^\n]*\n$/);
  });

  it('keeps libpq semantics when asked (uselibpqcompat=true), with no warning either', () => {
    const url = new URL(boardUrl(uniqueBoard('ssl')));
    url.searchParams.set('sslmode', 'require');
    url.searchParams.set('uselibpqcompat', 'true');
    const r = mdclaim(['list', '--file', url.toString()]);
    expect(r.stderr).toMatch(/^error\[IO\]: cannot connect to postgres:\/\/[^\n]*\n$/);
  });
});
