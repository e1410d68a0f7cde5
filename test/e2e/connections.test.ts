/**
 * End to end: the bundled action keeps one connection per host within a run, vote checks
 * included (they go one at a time), and ends as soon as its work is done
 * although the servers keep idle connections open for 5 s, as the live service does.
 */
import { readFileSync } from 'node:fs'
import * as http from 'node:http'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { findLeaks, JOB_TOKEN, NODES, ROOT, type RunOptions, type RunResult, runAction } from '../support/action.js'
import { type EmulatorOptions, ServiceEmulator } from '../support/emulator.js'
import { DiscordFake, GitHubFake } from '../support/fakes.js'
import type { RecordedRequest } from '../support/server.js'
import { afterTest } from '../support/teardown.js'

/**
 * The servers keep an idle connection open for 5 s: a process that waited for it would exit 5 s
 * after its last answer. Well under that, with room for a loaded machine's start-up and exit.
 */
const EXIT_BOUND_MS = 3_000

const BOT = '123456789012345678'
const KEY = 'dp_connections-key_4d5e6f'
const DISCORD_TOKEN = 'MTIzNDU2Nzg5MDEyMzQ1Njc4.GxYzAb.discord-token-for-tests_4567'

const TLS_DIR = join(ROOT, 'test/fixtures/tls')
const TLS = { key: readFileSync(join(TLS_DIR, 'server-key.pem'), 'utf8'), cert: readFileSync(join(TLS_DIR, 'server.pem'), 'utf8') }

async function service(options: EmulatorOptions = {}): Promise<ServiceEmulator> {
  const emulator = await ServiceEmulator.start({ bots: [{ id: BOT, apiKey: KEY, servers: 1204, realServerCount: 1250 }], ...options })
  afterTest(() => emulator.close())
  return emulator
}

/** Runs the bundle; `exitedNs` is taken after the process has exited, so it is never early. */
async function run(node: string, inputs: Record<string, string>, env: RunOptions['env'] = {}): Promise<RunResult & { exitedNs: bigint }> {
  const result = await runAction({ node, inputs: { 'bot-id': BOT, 'api-key': KEY, ...inputs }, env })
  const exitedNs = process.hrtime.bigint()
  expect(findLeaks(result, [KEY, ...(inputs['discord-token'] === undefined ? [] : [DISCORD_TOKEN])])).toEqual([])
  return { ...result, exitedNs }
}

/** The TCP connections a fresh server accepted, up to its last request (they are numbered from 1). */
const connections = (requests: RecordedRequest[]): number => Math.max(0, ...requests.map(r => r.connection))

/** Milliseconds from the last answer any of these requests got to the process's exit. */
function exitDelayMs(exitedNs: bigint, ...requests: RecordedRequest[][]): number {
  const last = requests.flat().reduce((latest, r) => (r.answeredNs > latest ? r.answeredNs : latest), 0n)
  return Number(exitedNs - last) / 1e6
}

/** The headers the server answers with, read on a connection of the test's own. */
function answerHeaders(url: string): Promise<http.IncomingHttpHeaders> {
  return new Promise((resolve, reject) => {
    const agent = new http.Agent({ keepAlive: true })
    http
      .get(`${url}/bots/${BOT}`, { agent }, res => {
        res.resume().on('end', () => {
          agent.destroy()
          resolve(res.headers)
        })
      })
      .on('error', reject)
  })
}

describe.concurrent.each(NODES)('connections on $name', ({ path: node }) => {
  it('reads the record and sends the PATCH on one connection, and exits without waiting for the idle connection', async () => {
    const api = await service()
    const result = await run(node, { 'command-count': '42', 'server-count': '1250', 'base-url': api.url })
    expect(result.code, result.stdout).toBe(0)
    expect(api.requests.map(r => `${r.route} ${r.status}`)).toEqual(['record 200', 'stats 200'])
    expect(connections(api.requests), 'exactly one connection for the record read and the PATCH').toBe(1)
    expect(api.requests.map(r => r.headers.connection)).toEqual(['keep-alive', 'keep-alive'])
    expect(exitDelayMs(result.exitedNs, api.requests), 'the process exits without waiting for the idle connection').toBeLessThan(
      EXIT_BOUND_MS
    )
    // It did not wait for the connection, which the server keeps open when idle, as the live
    // service does (asked on a connection of the test's own, after the run).
    expect(await answerHeaders(api.url)).toMatchObject({ connection: 'keep-alive', 'keep-alive': 'timeout=5' })
  })

  it('keeps one TLS connection for the record read and the PATCH over https', async () => {
    const api = await service({ tls: TLS })
    const inputs = { 'command-count': '42', 'server-count': '1250', 'base-url': api.url }
    const result = await run(node, inputs, { NODE_EXTRA_CA_CERTS: join(TLS_DIR, 'ca.pem') })
    expect(result.code, result.stdout).toBe(0)
    expect(api.requests.map(r => `${r.route} ${r.status}`)).toEqual(['record 200', 'stats 200'])
    expect(connections(api.requests), 'exactly one TLS connection for the record read and the PATCH').toBe(1)
    expect(exitDelayMs(result.exitedNs, api.requests), 'the process exits without waiting for the idle connection').toBeLessThan(
      EXIT_BOUND_MS
    )
  })

  it('reads Discord on one connection and the service on another, and exits without waiting for the idle connection', async () => {
    const api = await service()
    const discord = await DiscordFake.start({ token: DISCORD_TOKEN, applicationId: BOT, guildCount: 1262, commands: [{ name: 'ping' }] })
    afterTest(() => discord.close())
    const result = await run(node, { 'discord-token': DISCORD_TOKEN, 'discord-api-url': discord.url, 'base-url': api.url })
    expect(result.code, result.stdout).toBe(0)
    expect(discord.requests.map(r => r.status)).toEqual([200, 200])
    expect(connections(discord.requests), "exactly one connection for Discord's two calls").toBe(1)
    expect(api.requests.map(r => `${r.route} ${r.status}`)).toEqual(['record 200', 'stats 200'])
    expect(connections(api.requests), 'exactly one connection for the record read and the PATCH').toBe(1)
    expect(
      exitDelayMs(result.exitedNs, api.requests, discord.requests),
      'the process exits without waiting for the idle connection'
    ).toBeLessThan(EXIT_BOUND_MS)
  })

  it('reads GitHub, Discord and the service on one connection each', async () => {
    const api = await service()
    const discord = await DiscordFake.start({ token: DISCORD_TOKEN, applicationId: BOT, guildCount: 1262, commands: [] })
    afterTest(() => discord.close())
    const manifest = JSON.stringify([{ name: 'ping' }, { name: 'help' }])
    const sha = '0123456789abcdef0123456789abcdef01234567'
    const github = await GitHubFake.start({ repository: 'example/bot', sha, token: JOB_TOKEN, files: { 'commands.json': manifest } })
    afterTest(() => github.close())
    const inputs = { 'discord-token': DISCORD_TOKEN, 'discord-api-url': discord.url, 'commands-file': 'commands.json', 'base-url': api.url }
    const result = await run(node, inputs, { GITHUB_API_URL: github.url })
    expect(result.code, result.stdout).toBe(0)
    expect(api.received('stats').map(r => JSON.parse(r.body))).toEqual([{ command_count: 2, server_count: 1262 }])
    expect(github.requests.map(r => r.status)).toEqual([200])
    expect(connections(github.requests), "one connection for GitHub's API").toBe(1)
    expect(connections(discord.requests), "one connection for Discord's API").toBe(1)
    expect(connections(api.requests), 'one connection for the service').toBe(1)
    const all = [api.requests, discord.requests, github.requests]
    expect(exitDelayMs(result.exitedNs, ...all), 'the process exits without waiting for the idle connection').toBeLessThan(EXIT_BOUND_MS)
  })

  it('checks 25 votes one at a time on one connection, and exits without waiting for the idle connection', async () => {
    const users = Array.from({ length: 25 }, (_, i) => String(600000000000000000n + BigInt(i)))
    const api = await service()
    const result = await run(node, { mode: 'vote-check', 'user-id': users.join(','), 'base-url': api.url })
    expect(result.code, result.stdout).toBe(0)
    expect(api.received('votes').map(r => r.status)).toEqual(users.map(() => 200))
    expect(connections(api.requests), 'exactly one connection for 25 checks').toBe(1)
    expect(api.requests.map(r => r.headers.connection)).toEqual(users.map(() => 'keep-alive'))
    expect(exitDelayMs(result.exitedNs, api.requests), 'the process exits without waiting for the idle connection').toBeLessThan(
      EXIT_BOUND_MS
    )
  })

  it('paces 15 vote checks through a limiter of 10 per second, with at most one 429 per window, on one connection', async () => {
    const users = Array.from({ length: 15 }, (_, i) => String(700000000000000000n + BigInt(i)))
    const api = await service({ rateLimits: { votes: { limit: 10, windowMs: 1_000 } } })
    const result = await run(node, { mode: 'vote-check', 'user-id': users.join(','), 'base-url': api.url })
    expect(result.code, result.stdout).toBe(0)
    const statuses = api.received('votes').map(r => r.status)
    expect(statuses.filter(s => s === 200)).toHaveLength(15)
    const windows = api.windowLog.filter(w => w.route === 'votes')
    expect(windows.length, 'two windows are needed').toBeGreaterThanOrEqual(2)
    expect(
      windows.map(w => w.refused).filter(n => n > 1),
      'at most one 429 per window'
    ).toEqual([])
    expect(result.durationMs, 'the second window was waited for').toBeGreaterThanOrEqual(1_000)
    expect(Object.keys(JSON.parse(result.outputs['votes'] ?? '{}') as object), 'every user, in order').toEqual(users)
    expect(connections(api.requests), 'exactly one connection over both windows').toBe(1)
  })
})
