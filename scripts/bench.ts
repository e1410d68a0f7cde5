/**
 * `npm run bench`: one stats update from inputs, made by the bundled action and by a one-file fetch
 * script doing the same PATCH (bench-fetch.mjs), each a whole process on Node 24 against the
 * loopback emulator, as the runner starts a step. Each round runs both, in an order that alternates
 * from round to round so that drift on the machine falls on both alike; the figure is the median of
 * the rounds' ratios of wall time (paired). A timing is a measurement, not a test: no budget here.
 * BENCH_RUNS (15) and BENCH_WARMUP (2) set the rounds. BENCH_EVENT=schedule starts each of the
 * action's runs as the schedule does, in a public repository pushed to a day before: its schedule
 * check then runs, and reads nothing over the network.
 */
import { writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ServiceEmulator } from './emulator/service.js'
import { ready } from './node24.mjs'
import { BUNDLE, runStep } from './step.js'

const FETCH = fileURLToPath(new URL('bench-fetch.mjs', import.meta.url))
const KEY = 'bench-key'
const COMMANDS = 42
const rounds = Math.max(1, Number(process.env['BENCH_RUNS'] ?? 15))
const warmup = Number(process.env['BENCH_WARMUP'] ?? 2)

const node = ready()
if (node === undefined)
  throw new Error('npm run bench runs on Node 24, which NODE24=skip turns away')
const unlimited = { limit: 1e9, windowMs: 60_000 }
const emulator = await ServiceEmulator.start({
  rateLimits: { stats: unlimited, record: unlimited }
})
let nextBot = 500000000000000000n

/** The runner's environment of a run started by the schedule, or none for the default event. */
async function eventEnvironment(): Promise<Record<string, string>> {
  if (process.env['BENCH_EVENT'] !== 'schedule') return {}
  const path = join(tmpdir(), `bench-schedule-${process.pid}.json`)
  const pushedAt = new Date(Date.now() - 24 * 60 * 60 * 1000).toISOString()
  await writeFile(path, JSON.stringify({ repository: { private: false, pushed_at: pushedAt } }))
  return { GITHUB_EVENT_NAME: 'schedule', GITHUB_EVENT_PATH: path }
}
const env = await eventEnvironment()

/** Runs `script` once as the step of a bot of its own; its wall time, once it made the update. */
async function wallTime(script: string): Promise<number> {
  const bot = String(nextBot++)
  emulator.addBot({ id: bot, apiKey: KEY, servers: 1200, realServerCount: 1250 })
  const inputs = {
    'bot-id': bot,
    'api-key': KEY,
    'base-url': emulator.url,
    'command-count': String(COMMANDS),
    'server-count': '1250',
    'cooldown-check': 'false'
  }
  const run = await runStep(node!, { inputs, env }, 60_000, script)
  const updates = emulator.requests.filter(r => r.path === `/bots/${bot}/stats`).length
  // The fetch script writes no outputs: its one PATCH, answered 200, is its whole update.
  const result = script === BUNDLE ? run?.outputs['result'] : 'updated'
  if (run?.code !== 0 || updates !== 1 || result !== 'updated')
    throw new Error(`${script}: exit code ${run?.code}, ${updates} updates, result ${result}`)
  return run.durationMs
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const walls: { action: number; fetch: number }[] = []
try {
  for (let round = -warmup; round < rounds; round++) {
    const wall: Record<string, number> = {}
    for (const script of round % 2 === 0 ? [BUNDLE, FETCH] : [FETCH, BUNDLE])
      wall[script] = await wallTime(script)
    if (round >= 0) walls.push({ action: wall[BUNDLE]!, fetch: wall[FETCH]! })
  }
} finally {
  await emulator.close()
}
const ms = (pick: (w: (typeof walls)[number]) => number): string =>
  `${median(walls.map(pick)).toFixed(1)} ms`
console.log(`One stats update on Node 24, ${rounds} rounds after ${warmup} to warm up:`)
console.log(`  the action ${ms(w => w.action)}, the fetch script ${ms(w => w.fetch)} (median wall)`)
const ratio = median(walls.map(w => w.action / w.fetch))
console.log(
  `  => paired median ${ratio.toFixed(3)}x the fetch script's wall time (lower is faster)`
)
