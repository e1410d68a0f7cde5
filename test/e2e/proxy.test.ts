/**
 * End to end: requests through a forward proxy (`HTTPS_PROXY`, `NO_PROXY`), to https
 * services whose certificate comes from a test CA (`NODE_EXTRA_CA_CERTS`), and redirects,
 * which are never followed with the key.
 *
 * The runs aim at the real host names (the default base-url https://api.discord.place and
 * discord-api-url https://discord.com/api/v10): @actions/http-client never proxies a
 * loopback host. The test proxy maps those names to the loopback fakes, which serve https
 * with the committed certificate in test/fixtures/tls (valid for those names). With a
 * proxy the client never resolves the names itself, so nothing leaves the machine.
 */
import { readFileSync } from 'node:fs'
import * as http from 'node:http'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { NODES, ROOT, type RunOptions, type RunResult, errorsOf, runSwept } from '../support/action.js'
import { ServiceEmulator } from '../support/emulator.js'
import { DiscordFake } from '../support/fakes.js'
import { ForwardProxy } from '../support/proxy.js'
import { listenForTest } from '../support/server.js'
import { afterTest } from '../support/teardown.js'

const BOT = '123456789012345678'
const KEY = 'dp_proxy-test-key_5e6f7a8b9c'
const DISCORD_TOKEN = 'MTIzNDU2Nzg5MDEyMzQ1Njc4.GpRxYz.Wd3kV9qB6mT1xH4zN7sF_42'

const TLS_DIR = join(ROOT, 'test/fixtures/tls')
const CA = join(TLS_DIR, 'ca.pem')
const TLS = { key: readFileSync(join(TLS_DIR, 'server-key.pem'), 'utf8'), cert: readFileSync(join(TLS_DIR, 'server.pem'), 'utf8') }

const SERVICE = 'api.discord.place:443'
const DISCORD = 'discord.com:443'

async function service(options: { tls?: boolean } = {}): Promise<ServiceEmulator> {
  const emulator = await ServiceEmulator.start({
    bots: [{ id: BOT, apiKey: KEY, commands: 12, servers: 1204, realServerCount: 1250 }],
    tls: options.tls === false ? undefined : TLS
  })
  afterTest(() => emulator.close())
  return emulator
}

async function discord(): Promise<DiscordFake> {
  const fake = await DiscordFake.start({
    token: DISCORD_TOKEN,
    applicationId: BOT,
    guildCount: 1262,
    commands: [{ name: 'ping' }, { name: 'help' }, { name: 'stats' }],
    tls: TLS
  })
  afterTest(() => fake.close())
  return fake
}

async function proxy(map: Record<string, number>): Promise<ForwardProxy> {
  const started = await ForwardProxy.start(map)
  afterTest(() => started.close())
  return started
}

async function run(node: string, inputs: Record<string, string>, extra: Partial<RunOptions> = {}): Promise<RunResult> {
  const all: Record<string, string> = { 'bot-id': BOT, 'api-key': KEY, ...inputs }
  return runSwept({ node, inputs: all, ...extra }, [KEY, ...(all['discord-token'] === undefined ? [] : [DISCORD_TOKEN])])
}

function expectCleanFailure(result: RunResult): string {
  expect(result.code, result.stdout + result.stderr).toBe(1)
  expect(errorsOf(result)).toHaveLength(1)
  expect(errorsOf(result)[0]).not.toContain('\n')
  expect(result.stdout + result.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/)
  return errorsOf(result)[0]!
}

describe.concurrent.each(NODES)('proxies and redirects on $name', ({ path: node }) => {
  it('updates the stats through HTTPS_PROXY at the default base-url, trusting the CA of NODE_EXTRA_CA_CERTS', async () => {
    const api = await service()
    const forward = await proxy({ [SERVICE]: api.port })
    const result = await run(
      node,
      { 'command-count': '14', 'server-count': '1260' },
      { env: { HTTPS_PROXY: forward.url, NODE_EXTRA_CA_CERTS: CA } }
    )

    expect(result.code, result.stdout + result.stderr).toBe(0)
    expect(result.outputs).toMatchObject({ result: 'updated', status: '200' })
    expect(forward.connects).toEqual([SERVICE, SERVICE])
    expect(forward.requests).toEqual([])
    expect(api.requests.map(r => `${r.method} ${r.path}`)).toEqual([`GET /bots/${BOT}`, `PATCH /bots/${BOT}/stats`])
    const [record, patch] = api.requests
    expect(record!.headers.host).toBe('api.discord.place')
    expect(record!.headers.authorization).toBeUndefined()
    expect(patch!.headers.host).toBe('api.discord.place')
    expect(patch!.headers.authorization).toBe(KEY)
    expect(patch!.body).toBe('{"command_count":14,"server_count":1260}')
    expect(api.bot(BOT)).toMatchObject({ commands: 14, servers: 1260 })
  })

  it("reads Discord's API at the default discord-api-url through the proxy too", async () => {
    const api = await service()
    const fake = await discord()
    const forward = await proxy({ [SERVICE]: api.port, [DISCORD]: fake.port })
    const result = await run(node, { 'discord-token': DISCORD_TOKEN }, { env: { HTTPS_PROXY: forward.url, NODE_EXTRA_CA_CERTS: CA } })

    expect(result.code, result.stdout + result.stderr).toBe(0)
    expect(result.outputs).toMatchObject({ result: 'updated', 'command-count': '3', 'server-count': '1262' })
    expect(forward.connects).toEqual([SERVICE, DISCORD, DISCORD, SERVICE])
    expect(fake.requests.map(r => r.path)).toEqual(['/api/v10/applications/@me', `/api/v10/applications/${BOT}/commands`])
    for (const request of fake.requests) {
      expect(request.headers.host).toBe('discord.com')
      expect(request.headers.authorization).toBe(`Bot ${DISCORD_TOKEN}`)
    }
    expect(api.received('stats').map(r => r.body)).toEqual(['{"command_count":3,"server_count":1262}'])
    expect(api.received('stats')[0]!.headers.authorization).toBe(KEY)
  })

  it('fails with one clear error about proxy authentication when the proxy answers 407, without its credentials', async () => {
    const api = await service()
    const forward = await proxy({ [SERVICE]: api.port })
    forward.requireAuthorization = `Basic ${Buffer.from('robot:the-right-Pa55word').toString('base64')}`
    const password = 'wr0ng-Pa55word-Xq7'
    const proxyUrl = forward.url.replace('http://', `http://robot:${password}@`)
    const result = await run(node, { 'command-count': '12' }, { env: { HTTPS_PROXY: proxyUrl, NODE_EXTRA_CA_CERTS: CA } })

    const message = expectCleanFailure(result)
    expect(message).toMatch(/proxy .*407|407.*proxy/i)
    expect(message).toMatch(/authenticat/i)
    expect(message).not.toContain(password)
    expect(forward.connects, 'the record read, not retried against a refusing proxy more than its policy allows').not.toHaveLength(0)
    expect(api.requests, 'nothing reached the service').toEqual([])
  })

  it('goes direct to a NO_PROXY host, and fails clearly when that host cannot be reached', async () => {
    const api = await service()
    const fake = await discord()
    // A name that never resolves (RFC 2606), so the direct request stays on this machine;
    // mapped in the proxy, so a request wrongly sent through it would be seen there.
    const unresolvable = 'discord.invalid:443'
    const forward = await proxy({ [SERVICE]: api.port, [unresolvable]: fake.port })
    const result = await run(
      node,
      {
        'discord-token': DISCORD_TOKEN,
        'discord-api-url': 'https://discord.invalid/api/v10',
        'cooldown-check': 'false',
        'request-timeout': '2',
        timeout: '10'
      },
      { env: { HTTPS_PROXY: forward.url, NO_PROXY: 'discord.invalid', NODE_EXTRA_CA_CERTS: CA } }
    )

    const message = expectCleanFailure(result)
    expect(forward.connects).toEqual([])
    expect(fake.requests).toEqual([])
    expect(api.requests).toEqual([])
    expect(message).toMatch(/^Could not read counts from Discord: could not connect to discord\.invalid/)
    expect(result.durationMs).toBeLessThan(12_000)
  })

  it('refuses a certificate its CA is not trusted for, and sends no update', async () => {
    const api = await service()
    const forward = await proxy({ [SERVICE]: api.port })
    const result = await run(node, { 'command-count': '14', 'cooldown-check': 'false' }, { env: { HTTPS_PROXY: forward.url } })

    const message = expectCleanFailure(result)
    expect(message).toMatch(/api\.discord\.place/)
    expect(message).toMatch(/certificate was not accepted/)
    expect(forward.connects.length).toBeGreaterThanOrEqual(1)
    expect(forward.connects.every(target => target === SERVICE)).toBe(true)
    expect(api.requests).toEqual([])
    expect(api.bot(BOT)).toMatchObject({ commands: 12, servers: 1204 })
    expect(result.outputs['result']).not.toBe('updated')
  })

  it('never follows a redirect with the key', async () => {
    const api = await service({ tls: false })
    const elsewhere = await plainServer()
    api.inject('stats', {
      kind: 'answer',
      status: 307,
      headers: { Location: `${elsewhere.url}/bots/${BOT}/stats` },
      body: ''
    })
    const result = await run(node, { 'command-count': '14', 'cooldown-check': 'false', 'base-url': api.url })

    const message = expectCleanFailure(result)
    expect(message).toMatch(/\b307\b/)
    expect(elsewhere.requests).toEqual([])
    expect(api.received('stats')).toHaveLength(1)
    expect(api.received('stats')[0]!.headers.authorization).toBe(KEY)
    expect(result.outputs['status']).toBe('307')
  })
})

/** A plain node:http server on 127.0.0.1 that records every request and answers 200. */
async function plainServer(): Promise<{ url: string; requests: string[] }> {
  const requests: string[] = []
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url} authorization=${req.headers.authorization === undefined ? 'none' : 'present'}`)
    req.resume()
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"success":true}')
  })
  return { url: `http://127.0.0.1:${await listenForTest(server)}`, requests }
}
