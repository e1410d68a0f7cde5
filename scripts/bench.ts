/**
 * `npm run bench`: the project's benchmark. Runs the bundled action as the runner does, on
 * Node 24, against the loopback fakes, and prints figures (no budgets: a timing is a
 * measurement, not a test):
 * - one stats update from inputs, paired round by round with a one-file fetch script doing the
 *   same PATCH (scripts/bench/process.ts): the wall-time ratio, peak memory, JavaScript loaded;
 * - over a network with latency (scripts/bench/network.ts): connections, and the network cost
 *   against the round-trip floor.
 * BENCH_RUNS (15), BENCH_WARMUP (2), BENCH_RTT_MS (50) and BENCH_NET_RUNS (9) set the rounds.
 */
import { NODE24 } from '../test/support/action.js'
import { networkBenchmark } from './bench/network.js'
import { processBenchmark } from './bench/process.js'

if (NODE24 === undefined) throw new Error('no Node 24 at hand: run `node scripts/node24.mjs` first')
const report = (line: string): void => console.log(`  => ${line}`)
await processBenchmark(NODE24, report)
await networkBenchmark(NODE24, report)
