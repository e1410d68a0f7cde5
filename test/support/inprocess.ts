/**
 * The modes called in process, as main.ts calls them, against loopback fakes: settings built
 * from the inputs a step gives (action.yml's defaults applied, as the runner does), a clock the
 * test controls (a wait moves it on at once), and the run's stop signal.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Clock, Requests } from '../../src/http/client.js'
import { parseSettings, type StatsSettings, type VoteSettings } from '../../src/settings.js'
import { runStats, type StatsOutcome } from '../../src/stats/update.js'
import { runVotes, type VoteOutcome } from '../../src/votes/check.js'
import { onTestFinished } from 'vitest'
import { ROOT } from './action.js'
import { type BotSeed, ServiceEmulator } from './emulator.js'
import { inputEnvironment, inputVariable, parseActionFile } from './runner.js'

const ACTION = parseActionFile('action.yml', readFileSync(join(ROOT, 'action.yml'), 'utf8')).template!

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
export function settingsFor<S extends StatsSettings | VoteSettings>(given: Record<string, string>, env: Record<string, string> = {}): S {
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

function deps(settings: StatsSettings | VoteSettings, options: InProcessOptions) {
  const clock = options.clock ?? new TestClock()
  const requests = new Requests({ attemptTimeoutMs: settings.requestTimeoutMs, totalMs: settings.timeoutMs }, clock, options.signal)
  const log: string[] = []
  return {
    log,
    deps: {
      requests,
      log: (line: string) => {
        log.push(line)
        options.onLog?.(line)
      }
    }
  }
}

/** Runs the stats mode in process. */
export async function statsRun(
  given: Record<string, string>,
  options: InProcessOptions = {}
): Promise<{ outcome: StatsOutcome; log: string[] }> {
  const settings = settingsFor<StatsSettings>(given, options.env)
  const { log, deps: d } = deps(settings, options)
  return { outcome: await runStats(settings, d), log }
}

/** Runs the vote-check mode in process. */
export async function votesRun(
  given: Record<string, string>,
  options: InProcessOptions = {}
): Promise<{ outcome: VoteOutcome; log: string[] }> {
  const settings = settingsFor<VoteSettings>({ mode: 'vote-check', ...given }, options.env)
  const { log, deps: d } = deps(settings, options)
  return { outcome: await runVotes(settings, d), log }
}

/** The bot and key every in-process test of the stats mode uses, unless it needs another. */
export const BOT = '123456789012345678'
export const KEY = 'dpk_test_key_0123456789abcdef'
export const HOUR = 3_600_000

export interface EmulatedBot {
  /** How long before the clock's now the counts were last updated (default 7 h: an update is due). */
  readonly ago?: number
  /** Anything else about the bot (verified, keys, strikes, voters…). */
  readonly seed?: Partial<BotSeed>
  /** Each request is handled this long after it arrived, as over the internet. */
  readonly latencyMs?: number
}

/**
 * The one emulator fixture: the test's bot (BOT, KEY; 12 commands and 1,204 servers listed,
 * 1,250 by Discord's count) on an emulator that runs on the test's clock, closed when the test
 * finishes. Call it inside a test.
 */
export async function emulatedBot(clock: { readonly now: () => number }, bot: EmulatedBot = {}): Promise<ServiceEmulator> {
  const at = new Date(clock.now() - (bot.ago ?? 7 * HOUR))
  const emulator = await ServiceEmulator.start({
    now: clock.now,
    latencyMs: bot.latencyMs,
    bots: [
      { id: BOT, apiKey: KEY, commands: 12, servers: 1204, realServerCount: 1250, commandsUpdatedAt: at, serversUpdatedAt: at, ...bot.seed }
    ]
  })
  onTestFinished(() => emulator.close())
  return emulator
}
