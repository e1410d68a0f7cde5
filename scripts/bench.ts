/**
 * `npm run bench`: the project's benchmark. Runs the bundled action as the runner does, on
 * Node 24, against the loopback emulator, and prints figures with PASS/FAIL against the
 * budgets stated in the README.
 *
 * One stats update (scripts/bench/processes.ts): the bundled action with and without the
 * cooldown check, a one-file fetch script (the reference), a node:http script (the floor)
 * and `node -e 0`, timed as whole processes, interleaved; what the run loads from dist/;
 * and the time from process start to the first request byte. BENCH_RUNS (default 15) and
 * BENCH_WARMUP (default 2) set the rounds, BENCH_VOTE_RUNS (default 3) the vote-check runs.
 *
 * Vote-check pacing: 300 users against a limiter scaled to 100 checks per 2-second window.
 * The fastest that limiter allows is two full windows (the third batch of 100 cannot start
 * before 4 s); the budget is 1.2x that, with at most one 429 per window.
 */
import { NODES, runAction } from '../test/support/action.js'
import { ServiceEmulator } from '../test/support/emulator.js'
import { processBenchmark } from './bench/processes.js'

// Node 24 (runs.using) comes last in NODES when it is at hand.
const node24 = NODES.at(-1)!.path
const results: { name: string; pass: boolean }[] = []

async function votePacing(runs: number): Promise<void> {
  const users = Array.from({ length: 300 }, (_, i) => String(300000000000000000n + BigInt(i)))
  const limit = 100
  const windowMs = 2_000
  const minimumMs = (Math.ceil(users.length / limit) - 1) * windowMs
  console.log(`\nVote-check pacing: ${users.length} users, limiter ${limit} per ${windowMs / 1000} s window, ${runs} runs`)
  console.log(`  the limiter allows no less than ${minimumMs / 1000} s; budget ${(1.2 * minimumMs) / 1000} s, at most one 429 per window`)
  const times: number[] = []
  let worst429 = 0
  for (let run = 0; run < runs; run++) {
    const emulator = await ServiceEmulator.start({
      bots: [
        {
          id: '123456789012345678',
          apiKey: 'bench-key',
          voters: Object.fromEntries(users.map((u, i) => [u, { vote: i % 3, lastVote: i % 2 ? new Date() : null }]))
        }
      ],
      rateLimits: { votes: { limit, windowMs } }
    })
    try {
      const result = await runAction({
        node: node24,
        inputs: {
          'bot-id': '123456789012345678',
          'api-key': 'bench-key',
          mode: 'vote-check',
          'user-id': users.join(','),
          'base-url': emulator.url
        },
        timeoutMs: 60_000
      })
      if (result.code !== 0) throw new Error(`the action failed:\n${result.stdout}`)
      const windows = emulator.windowLog.filter(w => w.route === 'votes')
      const per429 = windows.map(w => w.refused)
      worst429 = Math.max(worst429, ...per429)
      times.push(result.durationMs)
      console.log(
        `  run ${run + 1}: ${(result.durationMs / 1000).toFixed(2)} s, ${windows.length} windows, 429s per window: ${per429.join(' ')}`
      )
    } finally {
      await emulator.close()
    }
  }
  const median = times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!
  const ratio = median / minimumMs
  verdict(`vote pacing: median ${(median / 1000).toFixed(2)} s = ${ratio.toFixed(2)}x the minimum (budget <= 1.20x)`, ratio <= 1.2)
  verdict(`vote pacing: at most ${worst429} 429 in any window (budget <= 1)`, worst429 <= 1)
}

function verdict(name: string, pass: boolean): void {
  results.push({ name, pass })
  console.log(`  ${pass ? 'PASS' : 'FAIL'}  ${name}`)
}

try {
  await processBenchmark(node24, NODES.at(-1)!.name, verdict)
} catch (error) {
  verdict(`one stats update: the benchmark could not run: ${error instanceof Error ? error.message : String(error)}`, false)
}
await votePacing(Number(process.env['BENCH_VOTE_RUNS'] ?? 3))

console.log(`\n${results.filter(r => r.pass).length} of ${results.length} budget lines PASS`)
process.exitCode = results.every(r => r.pass) ? 0 : 1
