#!/usr/bin/env node
'use strict';
// Each mdclaim call is a fresh process, and compiling the CLI is a fair part
// of what one costs: keep V8's compiled code of the bundle between calls.
// Node 22.1+ does that itself (module.enableCompileCache, NODE_COMPILE_CACHE);
// on older Node the cache is a file beside the bundle, used only while the
// bundle is the one it was made from, and skipped wherever it cannot be read
// or written.
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');

const main = path.join(__dirname, '..', 'dist', 'cli.cjs');

if (typeof Module.enableCompileCache === 'function') {
  Module.enableCompileCache();
  require(main);
} else {
  runCached(main);
}

function runCached(file) {
  let source;
  let stamp;
  try {
    source = fs.readFileSync(file, 'utf8');
    const st = fs.statSync(file);
    // V8 checks a cache against the source's length only: the stamp ties it to this very file.
    stamp = `${st.size} ${st.mtimeMs} ${st.ino}\n`;
  } catch {
    return require(file);
  }
  const cacheFile = path.join(path.dirname(file), `.cli.cjs.${process.versions.v8}.v8cache`);
  let cached;
  try {
    const data = fs.readFileSync(cacheFile);
    if (data.subarray(0, stamp.length).toString('latin1') === stamp) cached = data.subarray(stamp.length);
  } catch {
    // no cache yet
  }
  const vm = require('node:vm');
  const script = new vm.Script(Module.wrap(source.replace(/^#!.*/, '')), { filename: file, cachedData: cached });
  if (cached === undefined || script.cachedDataRejected) {
    // Made at exit, the cache holds every function this call compiled, not only the top level.
    process.once('exit', () => {
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      try {
        fs.writeFileSync(tmp, Buffer.concat([Buffer.from(stamp, 'latin1'), script.createCachedData()]), { mode: 0o644 });
        fs.renameSync(tmp, cacheFile);
      } catch {
        try {
          fs.unlinkSync(tmp);
        } catch {
          // nothing was written
        }
      }
    });
  }
  const module = { exports: {}, filename: file, id: file, loaded: false };
  script.runInThisContext()(module.exports, Module.createRequire(file), module, file, path.dirname(file));
}
