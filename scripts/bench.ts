/**
 * `npm run bench`: the project's benchmark. Runs the bundled action as the runner does, on
 * Node 24, against the loopback fakes, and prints PASS/FAIL against the budgets the README
 * states:
 * - one stats update from inputs, paired with a one-file fetch script (scripts/bench/process.ts):
 *   wall time, peak memory, bytes of JavaScript loaded, time to the first request;
 * - over a network with latency (scripts/bench/network.ts): connections and network cost
 *   against the round-trip floor;
 * - vote-check pacing: 300 users through a limiter scaled to 100 checks per 2 s. The fastest
 *   the limiter allows is two full windows (the third 100 cannot start before 4 s); the
 *   budget is 1.2x that, with at most one 429 per window.
 * BENCH_RUNS (15), BENCH_WARMUP (2), BENCH_RTT_MS (50), BENCH_NET_RUNS (9) and
 * BENCH_VOTE_RUNS (3) set the rounds.
 */
import { NODES, runAction } from '../test/support/action.js'
import { ServiceEmulator } from '../test/support/emulator.js'
import { networkBenchmark } from './bench/network.js'
import { processBenchmark } from './bench/process.js'
import { median } from './bench/stats.js'

// Node 24 (runs.using) comes last in NODES when it is at hand.
const node24 = NODES.at(-1)!.path
const results: boolean[] = []

function verdict(name: string, pass: boolean): void {
  results.push(pass)
  console.log(`  ${pass ? 'PASS' : 'FAIL'}  ${name}`)
}

async function votePacing(runs: number): Promise<void> {
  const users = Array.from({ length: 300 }, (_, i) => String(300000000000000000n + BigInt(i)))
  const [limit, windowMs] = [100, 2_000]
  const minimumMs = (Math.ceil(users.length / limit) - 1) * windowMs
  console.log(`\nVote-check pacing: ${users.length} users, limiter ${limit} per ${windowMs / 1000} s, ${runs} runs`)
  const times: number[] = []
  let worst429 = 0
  for (let run = 0; run < runs; run++) {
    const voters = Object.fromEntries(users.map((u, i) => [u, { vote: i % 3, lastVote: i % 2 ? new Date() : null }]))
    const emulator = await ServiceEmulator.start({
      bots: [{ id: '123456789012345678', apiKey: 'bench-key', voters }],
      rateLimits: { votes: { limit, windowMs } }
    })
    try {
      const inputs = {
        'bot-id': '123456789012345678',
        'api-key': 'bench-key',
        mode: 'vote-check',
        'user-id': users.join(','),
        'base-url': emulator.url
      }
      const result = await runAction({ node: node24, inputs, timeoutMs: 60_000 })
      if (result.code !== 0) throw new Error(`the action failed:\n${result.stdout}`)
      const per429 = emulator.windowLog.filter(w => w.route === 'votes').map(w => w.refused)
      worst429 = Math.max(worst429, ...per429)
      times.push(result.durationMs)
      console.log(`  run ${run + 1}: ${(result.durationMs / 1000).toFixed(2)} s, 429s per window: ${per429.join(' ')}`)
    } finally {
      await emulator.close()
    }
  }
  const ratio = median(times) / minimumMs
  verdict(
    `vote pacing: median ${(median(times) / 1000).toFixed(2)} s = ${ratio.toFixed(2)}x the limiter's minimum of ${minimumMs / 1000} s (budget <= 1.20x)`,
    ratio <= 1.2
  )
  verdict(`vote pacing: at most ${worst429} 429 in any window (budget <= 1)`, worst429 <= 1)
}

for (const [name, part] of [
  ['one stats update', () => processBenchmark(node24, verdict)],
  ['over a network', () => networkBenchmark(node24, verdict)],
  ['vote pacing', () => votePacing(Number(process.env['BENCH_VOTE_RUNS'] ?? 3))]
] as const) {
  try {
    await part()
  } catch (error) {
    verdict(`${name}: the benchmark could not run: ${error instanceof Error ? error.message : String(error)}`, false)
  }
}
console.log(`\n${results.filter(Boolean).length} of ${results.length} budget lines PASS`)
process.exitCode = results.every(Boolean) ? 0 : 1
