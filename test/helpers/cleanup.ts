import { afterAll, afterEach } from 'vitest';

/**
 * Run `clean` after every test that runs alone, and after the file's last
 * test. A test that runs at once with others (it.concurrent,
 * describe.concurrent) shares the helpers' lists with them: its things are
 * cleaned after the next test that runs alone, or after the file, never
 * while another test may still be using them. (Tests that run at once are
 * grouped: none runs beside a test that runs alone.)
 */
export function cleanAfterEach(clean: () => void | Promise<void>): void {
  afterEach((test) => (test.task.concurrent ? undefined : clean()));
  afterAll(clean);
}
