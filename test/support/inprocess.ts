/**
 * The modes called in process, as main.ts calls them, against loopback fakes: settings built
 * from the inputs a step gives (action.yml's defaults applied, as the runner does), a clock the
 * test controls (a wait moves it on at once), and the run's stop signal. And what every
 * in-process test shares: the test's bot and key, the one emulator fixture (emulatedBot),
 * Discord's fake and a workspace, each closed or removed when its test finishes (afterTest),
 * and the inputs of a step for the test's bot. A step's report read back is in step.ts.
 */
import { readFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isMainThread } from 'node:worker_threads'
import { type Clock, Requests } from '../../src/http/client.js'
import { parseSettings, type StatsSettings, type VoteSettings } from '../../src/settings.js'
import type { StatsOutcome } from '../../src/stats/outcome.js'
import { runStats } from '../../src/stats/update.js'
import { runVotes, type VoteOutcome } from '../../src/votes/check.js'
import { ROOT } from './action.js'
import {
  type BotSeed,
  type EmulatorOptions,
  ServiceEmulator
} from '../../scripts/emulator/service.js'
import { DiscordFake } from './fakes.js'
import { inputEnvironment, inputVariable, parseActionFile } from './runner.js'
import { afterTest } from './teardown.js'

const ACTION = parseActionFile(
  'action.yml',
  readFileSync(join(ROOT, 'action.yml'), 'utf8')
).template!

/** A clock that starts at `start` and moves only when told or when the action waits. */
export class TestClock implements Clock {
  /** Every wait the action asked for, in ms. */
  readonly waits: number[] = []
  constructor(private time = Date.parse('2026-11-24T12:00:00Z')) {}
  now = (): number => this.time
  sleep = async (ms: number, signal?: AbortSignal): Promise<void> => {
    this.waits.push(ms)
    if (!signal?.aborted) this.time += ms
  }
  random = (): number => 0.5
  advance(ms: number): void {
    this.time += ms
  }
}

/** Settings as a step with these inputs gets them (`${{ github.token }}` evaluated to ''). */
export function settingsFor<S extends StatsSettings | VoteSettings>(
  given: Record<string, string>,
  env: Record<string, string> = {}
): S {
  const inputs = inputEnvironment(ACTION, given, { github: { token: '' } })
  return parseSettings(
    name => (inputs[inputVariable(name)] ?? '').trim(),
    () => {},
    env
  ) as S
}

export interface InProcessOptions {
  /** A TestClock by default; realClock for a test of real time limits. */
  clock?: Clock
  signal?: AbortSignal
  env?: Record<string, string>
  /** Called with each log line as it is written (for example to stop the run at a known moment). */
  onLog?: (line: string) => void
}

/**
 * Runs `mode` with `settings`: its requests on the test's clock and stop signal, its log kept (each
 * line also handed to onLog).
 */
async function inProcess<S extends StatsSettings | VoteSettings, O>(
  settings: S,
  mode: (settings: S, deps: { requests: Requests; log: (line: string) => void }) => Promise<O>,
  { clock = new TestClock(), signal, onLog }: InProcessOptions
): Promise<{ outcome: O; log: string[] }> {
  const requests = new Requests(
    { attemptTimeoutMs: settings.requestTimeoutMs, totalMs: settings.timeoutMs },
    clock,
    signal
  )
  const log: string[] = []
  const write = (line: string): void => {
    log.push(line)
    onLog?.(line)
  }
  return { outcome: await mode(settings, { requests, log: write }), log }
}

/** Runs the stats mode in process. */
export function statsRun(
  given: Record<string, string>,
  options: InProcessOptions = {}
): Promise<{ outcome: StatsOutcome; log: string[] }> {
  return inProcess(settingsFor<StatsSettings>(given, options.env), runStats, options)
}

/** Runs the vote-check mode in process. */
export function votesRun(
  given: Record<string, string>,
  options: InProcessOptions = {}
): Promise<{ outcome: VoteOutcome; log: string[] }> {
  return inProcess(
    settingsFor<VoteSettings>({ mode: 'vote-check', ...given }, options.env),
    runVotes,
    options
  )
}

/**
 * The bot and key every in-process test uses, unless it needs another. The key holds the
 * symbols a key may hold ('.', '-', '_'): it must reach the service as it is.
 */
export const BOT = '123456789012345678'
export const KEY = 'dp_live_k3y.with-symbols_9f8e7d6c5b4a'
export const MINUTE = 60_000
export const HOUR = 60 * MINUTE
/** The token Discord's fake answers to (discordFake). */
export const DISCORD_TOKEN = 'MTIzNDU2Nzg5MDEyMzQ1Njc4.GxYzAb.Qm4vR7tW2pK9sL5nX8cJ_0z3'

export interface EmulatedBot {
  /**
   * How long before the clock's now the counts were last updated (default 7 h: an update is due).
   */
  readonly ago?: number
  /** Anything else about the bot (verified, keys, strikes, voters…). */
  readonly seed?: Partial<BotSeed>
  /** Each request is handled this long after it arrived, as over the internet. */
  readonly latencyMs?: number
  /**
   * Anything else about the service: its rate limits, a path prefix, a clock of its own (by default
   * the test's).
   */
  readonly service?: Omit<EmulatorOptions, 'bots' | 'latencyMs'>
}

/**
 * The one emulator fixture: the test's bot (BOT, KEY; 12 commands and 1,204 servers listed,
 * 1,250 by Discord's count) on an emulator that runs on the test's clock, closed when the test
 * finishes. Call it inside a test.
 */
export async function emulatedBot(
  clock: { readonly now: () => number },
  bot: EmulatedBot = {}
): Promise<ServiceEmulator> {
  const at = new Date(clock.now() - (bot.ago ?? 7 * HOUR))
  const emulator = await ServiceEmulator.start({
    now: clock.now,
    latencyMs: bot.latencyMs,
    ...bot.service,
    bots: [
      {
        id: BOT,
        apiKey: KEY,
        commands: 12,
        servers: 1204,
        realServerCount: 1250,
        commandsUpdatedAt: at,
        serversUpdatedAt: at,
        ...bot.seed
      }
    ]
  })
  afterTest(() => emulator.close())
  return emulator
}

/** An address nothing listens on: an emulator's, closed. */
export async function unreachableUrl(clock: { readonly now: () => number }): Promise<string> {
  const emulator = await emulatedBot(clock)
  await emulator.close()
  return emulator.url
}

/**
 * A workspace folder (not a checkout) holding `files` (paths relative to it), removed when the test
 * finishes.
 */
export async function tempWorkspace(files: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'workspace-'))
  afterTest(() => rm(dir, { recursive: true, force: true }))
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true })
    await writeFile(join(dir, path), text)
  }
  return dir
}

/** The user nobody: the least a runner's user may do, and no more. */
const NOBODY = 65_534

/**
 * Whether a file's permissions can stop this process: not on Windows, and as root only where the
 * process may act as another user for a while (a worker thread may not).
 */
export const PERMISSIONS_BIND =
  process.platform !== 'win32' && (process.geteuid?.() !== 0 || isMainThread)

/**
 * Runs `work` with an ordinary user's permissions, as the runner's user has them: as root (this
 * machine's tests), with the effective user nobody for its duration, since root reads any file
 * whatever its mode. The files `work` needs besides the one it must not read must be open to all.
 */
export async function unprivileged<T>(work: () => Promise<T>): Promise<T> {
  if (process.geteuid?.() !== 0) return work()
  process.seteuid!(NOBODY)
  try {
    return await work()
  } finally {
    process.seteuid!(0)
  }
}

/**
 * Discord's fake for the test's bot (DISCORD_TOKEN), with these global commands and server count,
 * closed when the test finishes.
 */
export async function discordFake(
  commands: unknown[] = [],
  guildCount = 1250
): Promise<DiscordFake> {
  const fake = await DiscordFake.start({
    token: DISCORD_TOKEN,
    applicationId: BOT,
    guildCount,
    commands
  })
  afterTest(() => fake.close())
  return fake
}

/** A step's inputs for the test's bot on `emulator` (bot-id, api-key, base-url), with `more`. */
export function botInputs(
  emulator: { readonly url: string },
  more: Record<string, string> = {}
): Record<string, string> {
  return { 'bot-id': BOT, 'api-key': KEY, 'base-url': emulator.url, ...more }
}

/**
 * A stats step's inputs for the test's bot: a command count of 14 (12 are listed) unless `more`
 * says otherwise.
 */
export function statsInputs(
  emulator: { readonly url: string },
  more: Record<string, string> = {}
): Record<string, string> {
  return botInputs(emulator, { 'command-count': '14', ...more })
}

/**
 * The requests the emulator received, as `METHOD path` with the bot's own path left out (`GET ` is
 * its record).
 */
export function routes(emulator: ServiceEmulator): string[] {
  return emulator.requests.map(r => `${r.method} ${r.path.replace(`/bots/${BOT}`, '')}`)
}
