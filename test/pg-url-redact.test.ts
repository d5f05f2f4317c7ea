import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MdclaimError, openBoard, type PgBoard } from '../src/index.js';
import { hasStrayAt, redactUrl, withoutPassword } from '../src/pg/redact.js';

// A board URL's password is never shown, whatever shape the URL has: random
// passwords, written raw or %-escaped into random URL shapes, well formed or
// not, never appear in what mdclaim makes of the URL (a message, its JSON,
// the board's location, the URL a runner hands its commands).

/** The part of each password that must never be seen: letters no URL shape here holds by chance. */
const core = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789'), minLength: 10, maxLength: 10 }).map((s) => `Zq${s}`);
const SPECIAL = [...'abcXYZ019:/@?#&%=+ !$\'()*,;[]~.-_', 'é', '\u0000', '%zz', '%41', '%C3'];
const around = fc.string({ unit: fc.constantFrom(...SPECIAL), maxLength: 6 });
const password = fc.record({ before: around, core, after: around });

const user = fc.constantFrom('', 'agent', 'a.b-c', 'ag%zzent', 'p%40q');
const host = fc.constantFrom('127.0.0.1', 'db.example', '[::1]', '', 'bad host');
const port = fc.constantFrom('', ':5432', ':70000', ':abc', ':0');
const db = fc.constantFrom('', '/test', '/d%zzb', '/a/b', '/t%C3');
const params = fc.subarray(['board=x', 'board=bad name', 'board=a&board=b', 'sslmode=require', 'options=-c%20search_path%3Dx', 'connect_timeout=3', 'connect_timeout=x', 'application_name=w', 'host=/var/run/postgresql', 'user=other'], { maxLength: 3 });
const scheme = fc.constantFrom('postgres://', 'postgresql://', 'POSTGRES://', 'postgres:/', 'postgres:', 'mysql://');

type Spelling = 'raw' | 'escaped' | 'half';
function spell(p: string, how: Spelling): string {
  if (how === 'raw') return p;
  if (how === 'escaped') return encodeURIComponent(p);
  return p.replace(/[@/?#]/g, encodeURIComponent);
}

/** A URL with the password in its user part, in a password= or sslpassword= parameter, or both. */
const shaped = fc
  .record({ scheme, user, host, port, db, params, pw: password, how: fc.constantFrom<Spelling>('raw', 'escaped', 'half'), where: fc.constantFrom('userinfo', 'param', 'sslparam', 'both') })
  .map((r) => {
    const pw = r.pw.before + r.pw.core + r.pw.after;
    const inUser = r.where === 'userinfo' || r.where === 'both';
    const query = [...r.params];
    // In a parameter the password is %-escaped (a raw `&` or `#` would end the value there, whatever was meant).
    if (r.where !== 'userinfo') query.splice(query.length === 0 ? 0 : 1, 0, `${r.where === 'sslparam' ? 'sslpassword' : 'password'}=${encodeURIComponent(pw)}`);
    const auth = inUser ? `${r.user}:${spell(pw, r.how)}@` : r.user === '' ? '' : `${r.user}@`;
    return { url: `${r.scheme}${auth}${r.host}${r.port}${r.db}${query.length > 0 ? `?${query.join('&')}` : ''}`, core: r.pw.core };
  });

/** Everything mdclaim makes of a URL without connecting: the error (its message and JSON), or the board's location and hand-off. */
function whatIsShown(url: string): string[] {
  const shown = [redactUrl(url)];
  try {
    const board = openBoard(url) as PgBoard;
    shown.push(board.location, board.handOff);
  } catch (err) {
    expect(err).toBeInstanceOf(MdclaimError);
    expect((err as MdclaimError).code).toBe('USAGE');
    shown.push((err as Error).message, JSON.stringify({ error: { code: (err as MdclaimError).code, message: (err as Error).message } }));
  }
  return shown;
}

describe('the one rule for showing a board URL', () => {
  it('never shows a password, whatever the shape of the URL around it', () => {
    fc.assert(
      fc.property(shaped, ({ url, core }) => {
        for (const text of whatIsShown(url)) expect(text).not.toContain(core);
      }),
      { numRuns: 6000 },
    );
  });

  it('hands a command the URL as given, less its password only', () => {
    fc.assert(
      fc.property(shaped, ({ url }) => {
        let board: PgBoard;
        try {
          board = openBoard(url) as PgBoard;
        } catch {
          return;
        }
        const given = new URL(url);
        const handed = new URL(board.handOff);
        expect([handed.protocol, handed.username, handed.password, handed.host, handed.pathname]).toEqual([given.protocol, given.username, '', given.host, given.pathname]);
        const kept = [...given.searchParams].filter(([k]) => !/password/i.test(k));
        expect([...handed.searchParams]).toEqual(kept);
      }),
      { numRuns: 6000 },
    );
  });

  it('shows the cases that leaked before without their passwords', () => {
    const cases: Array<[string, string]> = [
      ['postgres://agent:top/secret@db.example/app', 'postgres://agent:***@db.example/app'],
      ['postgres://agent:p@ssword@db.example:70000/app', 'postgres://agent:***@db.example:70000/app'],
      ['postgres://agent@db.example:70000/app?password=s3cret', 'postgres://agent@db.example:70000/app?password=***'],
      ['postgres:/agent:pw@db.example/app', 'postgres:/agent:***@db.example/app'],
      ['mysql://agent:pw@db.example/app', 'mysql://agent:***@db.example/app'],
      ['postgres://agent@db.example/app?sslmode=require&PassWord=s3&cret', 'postgres://agent@db.example/app?sslmode=require&PassWord=***'],
      ['/home/a:b@c/tasks.md', '/home/a:b@c/tasks.md'],
    ];
    for (const [url, shown] of cases) expect(redactUrl(url)).toBe(shown);
    for (const [url] of cases.slice(0, 5)) {
      const err = (() => {
        try {
          openBoard(url);
        } catch (e) {
          return e as MdclaimError;
        }
        throw new Error(`${url} was accepted`);
      })();
      expect([err.code, err.message.includes(redactUrl(url))]).toEqual(['USAGE', true]);
    }
  });

  it('refuses a password whose /, ? or # a URL parser would take for the end of the host, as USAGE without the password', () => {
    for (const url of ['postgres://agent:5432/secret@db.example/app', 'postgres://agent:12#secret@db.example/app', 'postgres://u:1/x?secret@h']) {
      expect(hasStrayAt(url)).toBe(true);
      expect(() => openBoard(url)).toThrow(/has an @ after its host/);
    }
    // An @ after the host with no password before it is the parameter's own.
    expect(hasStrayAt('postgres://db.example/app?application_name=a@b')).toBe(false);
  });

  it('refuses a bad %-escape in the user, password or database as USAGE naming the part', () => {
    for (const [url, part] of [['postgres://ag%zzent@h/db', 'user name'], ['postgres://u:p%zzw@h/db', 'password'], ['postgres://u@h/d%zzb', 'database name'], ['postgres://u@h/d%C3b', 'database name']]) {
      expect(() => openBoard(url!)).toThrow(expect.objectContaining({ code: 'USAGE', message: expect.stringContaining(`the ${part} has a bad %-escape`) }));
    }
  });

  it('keeps sslmode, options, connect_timeout, application_name and a socket host= in the hand-off, in their order and spelling', () => {
    const url = 'postgres://agent:pw@/app?host=%2Fvar%2Frun%2Fpostgresql&sslmode=require&password=x&options=-c%20search_path%3Dx&connect_timeout=3&application_name=w&board=b';
    expect(withoutPassword(url)).toBe('postgres://agent@/app?host=%2Fvar%2Frun%2Fpostgresql&sslmode=require&options=-c%20search_path%3Dx&connect_timeout=3&application_name=w&board=b');
    expect(withoutPassword('postgres://u@h/db?password=x')).toBe('postgres://u@h/db');
  });
});
