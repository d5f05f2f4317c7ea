// Preloaded with --require: at exit, write this process's CPU time (µs, user and system) and minor page faults to
// stderr, so a fresh CLI call and a bare `node -e 0` are compared by what they cost the machine, not only by wall time.
'use strict';
process.on('exit', () => {
  const u = process.resourceUsage();
  process.stderr.write(`\ncpu-at-exit=${u.userCPUTime} ${u.systemCPUTime} ${u.minorPageFault}\n`);
});
