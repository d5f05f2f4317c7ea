/** What a skipped PostgreSQL test's title carries, so the run can count them (test/pg-skips.ts). */
export const PG_SKIPPED = 'PostgreSQL skipped';
