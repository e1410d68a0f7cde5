/**
 * What the end-to-end files share: the test's bot, key and Discord token (inprocess.ts's), the one
 * emulator fixture on the real clock, Discord's and GitHub's fakes and a forward proxy (each closed
 * when its test finishes), and a run of dist/index.js on Node 24 as the runner runs it.
 */
import type { ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect } from 'vitest'
import {
  errorsOf,
  GITHUB_SHA,
  JOB_TOKEN,
  NODE24,
  ROOT,
  type RunOptions,
  type RunResult,
  runAction
} from './action.js'
import type { ServiceEmulator } from '../../scripts/emulator/service.js'
import { DiscordFake, type DiscordFakeOptions, GitHubFake } from './fakes.js'
import { BOT, DISCORD_TOKEN, type EmulatedBot, emulatedBot } from './inprocess.js'
import { ForwardProxy } from './proxy.js'
import type { RecordedRequest } from '../../scripts/emulator/server.js'
import { afterTest } from './teardown.js'

export { BOT, botInputs, DISCORD_TOKEN, HOUR, KEY, statsInputs } from './inprocess.js'

/**
 * Named pipes, /dev/zero and symbolic links (which need privileges there) are tried off Windows
 * only.
 */
export const WINDOWS = process.platform === 'win32'

const TLS_DIR = join(ROOT, 'test/fixtures/tls')
/**
 * The test CA, for NODE_EXTRA_CA_CERTS, and a certificate it signed for 127.0.0.1,
 * api.discord.place and discord.com.
 */
export const CA = join(TLS_DIR, 'ca.pem')
export const TLS = {
  key: readFileSync(join(TLS_DIR, 'server-key.pem'), 'utf8'),
  cert: readFileSync(join(TLS_DIR, 'server.pem'), 'utf8')
}

export const fixture = (name: string): Promise<string> =>
  readFile(join(ROOT, 'test/fixtures/manifests', name), 'utf8')

/**
 * Runs dist/index.js on Node 24; runAction fails the test if a secret it was given shows anywhere.
 */
export const run = (options: RunOptions): Promise<RunResult> =>
  runAction({ node: NODE24 ?? process.execPath, ...options })

/**
 * Runs the step, watching for a moment (`ready`, polled every 5 ms), and then calling `act` with
 * the process (e.g. to signal it). `exitMs`: how long it took to exit after that moment (NaN if
 * never).
 */
export async function runWatched(
  options: RunOptions,
  ready: () => boolean,
  act?: (child: ChildProcess) => void
) {
  let [readyAt, exitedAt] = [0, 0]
  const control = (child: ChildProcess): void => {
    const poll = setInterval(() => {
      if (!ready()) return
      clearInterval(poll)
      readyAt = performance.now()
      act?.(child)
    }, 5)
    child.on('exit', () => {
      clearInterval(poll)
      exitedAt = performance.now()
    })
  }
  const result = await run({ ...options, control })
  return { result, exitMs: readyAt === 0 ? Number.NaN : exitedAt - readyAt }
}

/**
 * The one emulator fixture (inprocess.ts) on the real clock: the test's bot, last updated 7 hours
 * ago.
 */
export const service = (bot: EmulatedBot = {}): Promise<ServiceEmulator> =>
  emulatedBot({ now: Date.now }, bot)

/** Discord's fake for the test's bot (DISCORD_TOKEN): 1,250 servers and no commands unless told. */
export async function discord(options: Partial<DiscordFakeOptions> = {}): Promise<DiscordFake> {
  const fake = await DiscordFake.start({
    token: DISCORD_TOKEN,
    applicationId: BOT,
    guildCount: 1250,
    commands: [],
    ...options
  })
  afterTest(() => fake.close())
  return fake
}

/** GitHub's fake of example/bot at the run's commit (GITHUB_SHA), answering the job's token. */
export async function github(files: Record<string, string> = {}): Promise<GitHubFake> {
  const fake = await GitHubFake.start({
    repository: 'example/bot',
    sha: GITHUB_SHA,
    token: JOB_TOKEN,
    files
  })
  afterTest(() => fake.close())
  return fake
}

export async function proxy(map: Record<string, number>): Promise<ForwardProxy> {
  const started = await ForwardProxy.start(map)
  afterTest(() => started.close())
  return started
}

/**
 * A failure as the runner shows it: exit code 1, one error on one line, no stack trace. Returns the
 * error.
 */
export function expectCleanFailure(result: RunResult): string {
  expect(result.code, result.stdout + result.stderr).toBe(1)
  expect(errorsOf(result)).toEqual([expect.not.stringContaining('\n')])
  expect(result.stdout + result.stderr, 'no stack trace').not.toMatch(/\n\s+at .+:\d+:\d+/)
  return errorsOf(result)[0]!
}

/**
 * The TCP connections a fresh server accepted, up to its last request (they are numbered from 1).
 */
export const connections = (requests: RecordedRequest[]): number =>
  Math.max(0, ...requests.map(r => r.connection))

/**
 * The servers keep an idle connection open for 5 s (test/shared/emulator.test.ts), as the live
 * service does: a process that waited for it would exit 5 s after its last answer. Well under
 * that, with room for a loaded machine's exit.
 */
export const EXIT_BOUND_MS = 3_000

/**
 * Milliseconds from the last answer any of these requests got to `exitedNs` (taken once the run
 * returned).
 */
export function exitDelayMs(exitedNs: bigint, ...requests: RecordedRequest[][]): number {
  return (
    Number(
      exitedNs -
        requests.flat().reduce((last, r) => (r.answeredNs > last ? r.answeredNs : last), 0n)
    ) / 1e6
  )
}
