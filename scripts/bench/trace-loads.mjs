// Preloaded with `node --import` by `npm run bench`: appends the URL of every module Node
// loads (ESM imports, dynamic imports and require alike) to the file BENCH_LOAD_LOG names.
import { appendFileSync } from 'node:fs'
import { registerHooks } from 'node:module'

const log = process.env['BENCH_LOAD_LOG']
registerHooks({
  load(url, context, nextLoad) {
    if (log) appendFileSync(log, `${url}\n`)
    return nextLoad(url, context)
  }
})
