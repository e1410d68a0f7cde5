/**
 * Whole-process benchmark of one stats update, side by side with a fetch reference, a
 * node:http floor and `node -e 0`, all on Node 24 against the loopback service emulator;
 * and the size of what a stats run loads from dist/.
 */

import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import * as net from 'node:net'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { BUNDLE, parseOutputFile, prepareRun, ROOT } from '../../test/support/action.js'
import { ServiceEmulator } from '../../test/support/emulator.js'
import { METHOD, type Measured, measure } from './measure.js'

export type Verdict = (name: string, pass: boolean) => void

const HERE = fileURLToPath(new URL('.', import.meta.url))
const DIST = join(ROOT, 'dist')
const KEY = 'bench-key'
const COMMANDS = 42
const SERVERS = 1250

/**
 * The loopback service: the emulator, behind a TCP relay that notes when the first byte of
 * the first request of each run arrives (on process.hrtime.bigint()'s clock). Every process
 * measured goes through the same relay, so its cost (well under a millisecond) is the same
 * for all.
 */
class Service {
  firstByteNs: bigint | undefined
  connections = 0
  private nextBot = 500000000000000000n
  private readonly sockets = new Set<net.Socket>()

  private constructor(
    readonly emulator: ServiceEmulator,
    private readonly relay: net.Server,
    readonly url: string
  ) {}

  static async start(): Promise<Service> {
    const unlimited = { limit: 1e9, windowMs: 60_000 }
    const emulator = await ServiceEmulator.start({ rateLimits: { stats: unlimited, record: unlimited } })
    const upstream = new URL(emulator.url)
    const relay = net.createServer()
    const service = new Service(emulator, relay, '')
    relay.on('connection', socket => {
      service.connections += 1
      socket.once('data', () => (service.firstByteNs ??= process.hrtime.bigint()))
      const onward = net.connect(Number(upstream.port), upstream.hostname)
      service.sockets.add(socket).add(onward)
      for (const [a, b] of [
        [socket, onward],
        [onward, socket]
      ] as const) {
        a.pipe(b)
        a.on('error', () => b.destroy())
        a.on('close', () => {
          b.destroy()
          service.sockets.delete(a)
        })
      }
    })
    await new Promise<void>(resolve => relay.listen(0, '127.0.0.1', resolve))
    const { port } = relay.address() as net.AddressInfo
    return Object.assign(service, { url: `http://127.0.0.1:${port}` })
  }

  /** A new bot whose counts were last updated long ago (the service allows one update per 6 hours). */
  addBot(): string {
    const id = String(this.nextBot++)
    this.emulator.addBot({ id, apiKey: KEY, servers: 1200, realServerCount: SERVERS })
    return id
  }

  requestsFor(bot: string): { route: string; status: number }[] {
    return this.emulator.requests.filter(r => r.path.includes(`/${bot}`))
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy()
    await new Promise<void>(resolve => this.relay.close(() => resolve()))
    await this.emulator.close()
  }
}

interface Variant {
  key: string
  label: string
  /** The service requests one run sends; 0 for none. */
  requests: number
  cooldownCheck?: 'true' | 'false'
  argv: (node: string) => string[]
  /** Why the run did not do what it should, or undefined. */
  check: (run: Measured, outputs: Record<string, string>, service: Service, bot: string) => string | undefined
}

/** The run exited 0 after these requests (`route status`), and the bot has the new counts. */
function updated(expected: string[], action: boolean): Variant['check'] {
  return (run, outputs, service, bot) => {
    if (run.code !== 0) return `exit code ${run.code}`
    if (action && outputs['result'] !== 'updated') return `output result=${outputs['result']}`
    const seen = service.requestsFor(bot).map(r => `${r.route} ${r.status}`)
    if (seen.join(', ') !== expected.join(', ')) return `requests [${seen.join(', ')}], expected [${expected.join(', ')}]`
    if (service.emulator.bot(bot).commands !== COMMANDS) return 'the bot was not updated'
    return undefined
  }
}

const VARIANTS: Variant[] = [
  {
    key: 'stats',
    label: 'action: stats from inputs, cooldown-check false',
    requests: 1,
    cooldownCheck: 'false',
    argv: node => [node, BUNDLE],
    check: updated(['stats 200'], true)
  },
  {
    key: 'cooldown',
    label: 'action: the same, cooldown-check true',
    requests: 2,
    cooldownCheck: 'true',
    argv: node => [node, BUNDLE],
    check: updated(['record 200', 'stats 200'], true)
  },
  {
    key: 'fetch',
    label: 'reference: one-file script, global fetch',
    requests: 1,
    argv: node => [node, join(HERE, 'fetch-reference.mjs')],
    check: updated(['stats 200'], false)
  },
  {
    key: 'http',
    label: 'floor: one-file script, node:http',
    requests: 1,
    argv: node => [node, join(HERE, 'http-floor.mjs')],
    check: updated(['stats 200'], false)
  },
  {
    key: 'empty',
    label: 'node -e 0',
    requests: 0,
    argv: node => [node, '-e', '0'],
    check: run => (run.code === 0 ? undefined : `exit code ${run.code}`)
  }
]

interface Sample extends Measured {
  firstByteMs: number | undefined
}

function inputs(service: Service, bot: string, cooldownCheck = 'false'): Record<string, string> {
  return {
    'bot-id': bot,
    'api-key': KEY,
    'command-count': String(COMMANDS),
    'server-count': String(SERVERS),
    'base-url': service.url,
    'cooldown-check': cooldownCheck
  }
}

/** One run of a variant, in the environment the runner gives an action. */
async function runOnce(node: string, variant: Variant, service: Service, env: Record<string, string> = {}): Promise<Sample> {
  const bot = service.addBot()
  const prepared = await prepareRun({ node, inputs: inputs(service, bot, variant.cooldownCheck), env })
  try {
    service.firstByteNs = undefined
    const run = await measure(variant.argv(node), prepared.env, prepared.workspace)
    const outputs = parseOutputFile(await readFile(prepared.outputFile, 'utf8'))
    const problem = variant.check(run, outputs, service, bot)
    if (problem !== undefined) {
      throw new Error(`${variant.label}: ${problem}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`)
    }
    const first = service.firstByteNs as bigint | undefined
    const firstByteMs = variant.requests > 0 && first !== undefined ? Number(first - run.startNs) / 1e6 : undefined
    return { ...run, firstByteMs }
  } finally {
    await prepared.cleanup()
  }
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}
const range = (values: number[], digits: number): string => `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`

/** Prints rows as columns: the first left-aligned, the others right-aligned. */
function table(rows: string[][]): void {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map(r => (r[i] ?? '').length)))
  for (const row of rows)
    console.log(`  ${row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')}`.trimEnd())
}

/**
 * Warm-up rounds, then counted rounds; each round runs every variant once, in an order
 * rotated from round to round, so drift on the machine and the position in a round fall on
 * all alike; ratios are taken within a round (paired).
 */
export async function processBenchmark(node: string, nodeName: string, verdict: Verdict): Promise<void> {
  const count = (name: string, fallback: number): number => {
    const value = Math.floor(Number(process.env[name] ?? fallback))
    return Number.isFinite(value) && value >= 0 ? value : fallback
  }
  const rounds = Math.max(1, count('BENCH_RUNS', 15))
  const warmup = count('BENCH_WARMUP', 2)
  const service = await Service.start()
  try {
    console.log(`\nOne stats update, whole processes on ${nodeName}, against the loopback service emulator`)
    console.log(`  ${warmup} warm-up and ${rounds} counted rounds, each running every process once, order rotated per round`)
    console.log(`  wall, CPU (user+sys) and peak RSS from ${METHOD}; first byte: process start to the first request byte at the server`)
    const samples = new Map<string, Sample[]>(VARIANTS.map(v => [v.key, []]))
    for (let round = -warmup; round < rounds; round++) {
      const shift = ((round % VARIANTS.length) + VARIANTS.length) % VARIANTS.length
      const order = [...VARIANTS.slice(shift), ...VARIANTS.slice(0, shift)]
      for (const variant of order) {
        const sample = await runOnce(node, variant, service)
        if (round >= 0) samples.get(variant.key)!.push(sample)
      }
    }

    const of = (key: string): Sample[] => samples.get(key)!
    const column = (key: string, pick: (s: Sample) => number | undefined): number[] =>
      of(key)
        .map(pick)
        .filter((v): v is number => v !== undefined)
    const stats = (values: number[], digits = 1): string[] =>
      values.length === 0 ? ['—', ''] : [median(values).toFixed(digits), range(values, digits)]
    console.log('')
    table([
      ['process: median, min–max', 'wall ms', 'min–max', 'CPU ms', 'min–max', 'peak RSS MiB', 'min–max', 'first byte ms', 'min–max'],
      ...VARIANTS.map(v => [
        v.label,
        ...stats(column(v.key, s => s.wallMs)),
        ...stats(column(v.key, s => s.cpuMs)),
        ...stats(column(v.key, s => s.maxRssKiB / 1024)),
        ...stats(column(v.key, s => s.firstByteMs))
      ])
    ])

    const paired = (key: string, pick: (s: Sample) => number): number[] => of(key).map((s, i) => pick(s) / pick(of('fetch')[i]!))
    const ratios = (key: string, pick: (s: Sample) => number): string[] => {
      const values = paired(key, pick)
      return [`${median(values).toFixed(2)}x`, range(values, 2)]
    }
    console.log('')
    table([
      ['paired ratio to the fetch reference, per round', 'wall', 'min–max', 'CPU', 'min–max', 'peak RSS', 'min–max'],
      ...VARIANTS.filter(v => v.key !== 'fetch').map(v => [
        v.label,
        ...ratios(v.key, s => s.wallMs),
        ...ratios(v.key, s => s.cpuMs),
        ...ratios(v.key, s => s.maxRssKiB)
      ])
    ])

    const loaded = await loadedJavaScript(node, service)

    console.log('\n  Budget')
    const wall = median(column('stats', s => s.wallMs))
    const fetchWall = median(column('fetch', s => s.wallMs))
    const pairedWall = median(paired('stats', s => s.wallMs))
    verdict(
      `stats from inputs: median wall ${wall.toFixed(1)} ms = ${(wall / fetchWall).toFixed(2)}x the fetch reference's ${fetchWall.toFixed(1)} ms, paired ${pairedWall.toFixed(2)}x (budget <= 0.80x)`,
      wall <= 0.8 * fetchWall
    )
    const rss = median(column('stats', s => s.maxRssKiB)) / 1024
    const fetchRss = median(column('fetch', s => s.maxRssKiB)) / 1024
    verdict(
      `stats from inputs: median peak memory ${rss.toFixed(1)} MiB, the fetch reference's ${fetchRss.toFixed(1)} MiB (budget <= the reference's)`,
      rss <= fetchRss
    )
    verdict(
      `stats from inputs loads ${loaded.toLocaleString('en-US')} bytes of JavaScript from dist/ (budget <= 600 KB = 600,000 bytes)`,
      loaded <= 600_000
    )
    const firstByte = median(column('stats', s => s.firstByteMs))
    const empty = median(column('empty', s => s.wallMs))
    const limit = 1.3 * empty + 15
    verdict(
      `stats from inputs: first request byte ${firstByte.toFixed(1)} ms after process start (budget <= 1.3 x node -e 0's ${empty.toFixed(1)} ms + 15 ms = ${limit.toFixed(1)} ms)`,
      firstByte <= limit
    )
  } finally {
    await service.close()
  }
}

/**
 * The bytes of dist/*.js a stats-from-inputs run loads: the run is repeated with a module
 * hook that logs every module Node loads (trace-loads.mjs), and then, to be sure nothing
 * was missed, once more from a copy of dist/ holding only those files.
 */
async function loadedJavaScript(node: string, service: Service): Promise<number> {
  const variant = VARIANTS[0]!
  const scratch = await mkdtemp(join(tmpdir(), 'bench-loads-'))
  try {
    const log = join(scratch, 'loads.log')
    const hook = pathToFileURL(join(HERE, 'trace-loads.mjs')).href
    const traced: Variant = { ...variant, argv: n => [n, '--import', hook, BUNDLE] }
    await runOnce(node, traced, service, { BENCH_LOAD_LOG: log })
    const distUrl = `${pathToFileURL(DIST).href}/`
    const urls = [...new Set((await readFile(log, 'utf8')).split('\n').filter(u => u.startsWith(distUrl)))]
    const files = urls.map(u => fileURLToPath(u)).filter(f => f.endsWith('.js'))
    const sizes = await Promise.all(files.map(async f => ({ name: basename(f), bytes: (await stat(f)).size })))
    const total = sizes.reduce((sum, f) => sum + f.bytes, 0)
    const all = (await readdir(DIST)).filter(f => f.endsWith('.js'))
    const allBytes = (await Promise.all(all.map(f => stat(join(DIST, f))))).reduce((sum, s) => sum + s.size, 0)

    const copy = join(scratch, 'dist')
    await mkdir(copy)
    for (const f of [...files.map(f => basename(f)), 'package.json']) await copyFile(join(DIST, f), join(copy, f))
    const alone: Variant = { ...variant, argv: n => [n, join(copy, 'index.js')] }
    const standalone = await runOnce(node, alone, service).then(
      () => 'succeeds',
      (error: Error) => `FAILS: ${error.message.split('\n')[0]}`
    )

    console.log(
      `\n  What a stats-from-inputs run loads from dist/ (module hook; dist/ holds ${all.length} .js files, ${allBytes.toLocaleString('en-US')} bytes):`
    )
    for (const f of sizes) console.log(`    ${f.name.padEnd(14)} ${f.bytes.toLocaleString('en-US').padStart(10)} bytes`)
    console.log(
      `    ${'in all'.padEnd(14)} ${total.toLocaleString('en-US').padStart(10)} bytes; a run with only these files in dist/ ${standalone}`
    )
    return total
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
}
