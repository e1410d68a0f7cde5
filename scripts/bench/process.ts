/**
 * One stats update from inputs, as whole processes on Node 24 against the loopback
 * emulator: the bundled action, side by side with a one-file fetch script doing the same
 * PATCH (the reference) and `node -e 0`, interleaved and paired round by round; the
 * JavaScript the run loads from dist/; the time from process start to its first request.
 */
import { readFile, rm, stat, mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { BUNDLE, parseOutputFile, prepareRun, ROOT } from '../../test/support/action.js'
import { ServiceEmulator } from '../../test/support/emulator.js'
import { measure, type Measured } from './measure.js'
import { median, type Report } from './stats.js'

const HERE = fileURLToPath(new URL('.', import.meta.url))
const KEY = 'bench-key'
const COMMANDS = 42

interface Variant {
  key: 'action' | 'fetch' | 'empty'
  label: string
  argv: (node: string) => string[]
}

const VARIANTS: Variant[] = [
  { key: 'action', label: 'the action: stats from inputs', argv: node => [node, BUNDLE] },
  {
    key: 'fetch',
    label: 'reference: one-file fetch script',
    argv: node => [node, join(HERE, 'fetch-reference.mjs')]
  },
  { key: 'empty', label: 'node -e 0', argv: node => [node, '-e', '0'] }
]

interface Sample extends Measured {
  /** Process start to the first request's arrival at the emulator. */
  firstRequestMs: number | undefined
}

let nextBot = 500000000000000000n

/** Runs a variant once, as the runner would, and checks that it did the update. */
async function runOnce(
  node: string,
  variant: Variant,
  emulator: ServiceEmulator,
  argv = variant.argv(node),
  env = {}
): Promise<Sample> {
  const bot = String(nextBot++)
  emulator.addBot({ id: bot, apiKey: KEY, servers: 1200, realServerCount: 1250 })
  const inputs = {
    'bot-id': bot,
    'api-key': KEY,
    'command-count': String(COMMANDS),
    'server-count': '1250',
    'cooldown-check': 'false'
  }
  const prepared = await prepareRun({ node, inputs: { ...inputs, 'base-url': emulator.url }, env })
  try {
    const run = await measure(argv, prepared.env, prepared.workspace)
    const outputs = parseOutputFile(await readFile(prepared.outputFile, 'utf8'))
    const requests = emulator.requests.filter(r => r.path.includes(`/${bot}`))
    const updated = emulator.bot(bot).commands === COMMANDS && requests.length === 1
    const ok =
      variant.key === 'empty'
        ? run.code === 0
        : run.code === 0 && updated && (variant.key !== 'action' || outputs['result'] === 'updated')
    if (!ok)
      throw new Error(
        `${variant.label}: exit ${run.code}, ${requests.length} requests\n${run.stdout}\n${run.stderr}`
      )
    const first = requests[0]?.receivedNs
    return {
      ...run,
      firstRequestMs: first === undefined ? undefined : Number(first - run.startNs) / 1e6
    }
  } finally {
    await prepared.cleanup()
  }
}

/**
 * Warm-up rounds, then counted rounds; each round runs every variant once, in an order
 * rotated from round to round, so that drift on the machine falls on all alike; the
 * action's ratio to the reference is taken within each round (paired).
 */
export async function processBenchmark(node: string, report: Report): Promise<void> {
  const rounds = Math.max(1, Number(process.env['BENCH_RUNS'] ?? 15))
  const warmup = Number(process.env['BENCH_WARMUP'] ?? 2)
  const unlimited = { limit: 1e9, windowMs: 60_000 }
  const emulator = await ServiceEmulator.start({
    rateLimits: { stats: unlimited, record: unlimited }
  })
  try {
    console.log(
      `\nOne stats update, whole processes on Node 24: ${warmup} warm-up and ${rounds} counted rounds, order rotated`
    )
    const samples = new Map<string, Sample[]>(VARIANTS.map(v => [v.key, []]))
    for (let round = -warmup; round < rounds; round++) {
      const shift = (round + warmup) % VARIANTS.length
      for (const variant of [...VARIANTS.slice(shift), ...VARIANTS.slice(0, shift)]) {
        const sample = await runOnce(node, variant, emulator)
        if (round >= 0) samples.get(variant.key)!.push(sample)
      }
    }
    const of = (key: string, pick: (s: Sample) => number | undefined): number[] =>
      samples
        .get(key)!
        .map(pick)
        .filter((v): v is number => v !== undefined)
    for (const v of VARIANTS) {
      const first = of(v.key, s => s.firstRequestMs)
      console.log(
        `  ${v.label.padEnd(34)} wall ${median(of(v.key, s => s.wallMs)).toFixed(1)} ms, peak RSS ${(median(of(v.key, s => s.maxRssKiB)) / 1024).toFixed(1)} MiB` +
          (first.length > 0 ? `, first request ${median(first).toFixed(1)} ms after start` : '')
      )
    }

    const fetchWall = of('fetch', s => s.wallMs)
    const paired = median(of('action', s => s.wallMs).map((wall, i) => wall / fetchWall[i]!))
    report(
      `stats from inputs: paired median ${paired.toFixed(3)}x the fetch reference's wall time (lower is faster)`
    )
    const rss = median(of('action', s => s.maxRssKiB)) / 1024
    const fetchRss = median(of('fetch', s => s.maxRssKiB)) / 1024
    report(
      `stats from inputs: peak memory ${rss.toFixed(1)} MiB, the fetch reference's ${fetchRss.toFixed(1)} MiB`
    )
    report(
      `stats from inputs loads ${await loadedJavaScript(node, emulator)} bytes of JavaScript from dist/`
    )
  } finally {
    await emulator.close()
  }
}

/** The bytes of dist/ a stats-from-inputs run loads, logged by a module hook (trace-loads.mjs). */
async function loadedJavaScript(node: string, emulator: ServiceEmulator): Promise<number> {
  const scratch = await mkdtemp(join(tmpdir(), 'bench-loads-'))
  try {
    const log = join(scratch, 'loads.log')
    const hook = pathToFileURL(join(HERE, 'trace-loads.mjs')).href
    await runOnce(node, VARIANTS[0]!, emulator, [node, '--import', hook, BUNDLE], {
      BENCH_LOAD_LOG: log
    })
    const dist = `${pathToFileURL(join(ROOT, 'dist')).href}/`
    const files = [...new Set((await readFile(log, 'utf8')).split('\n'))].filter(
      url => url.startsWith(dist) && url.endsWith('.js')
    )
    const sizes = await Promise.all(files.map(async url => (await stat(fileURLToPath(url))).size))
    console.log(
      `  loaded from dist/: ${files.map((url, i) => `${url.slice(dist.length)} (${sizes[i]} bytes)`).join(', ')}`
    )
    return sizes.reduce((sum, size) => sum + size, 0)
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
}
