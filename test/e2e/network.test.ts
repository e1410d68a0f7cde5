/**
 * End to end: the network as a runner's process meets it: a forward proxy (`HTTPS_PROXY`,
 * `NO_PROXY`, proxy authentication, a proxy that never answers), https with a test CA
 * (`NODE_EXTRA_CA_CERTS`), and the step's time limit cutting off a request that cannot finish.
 *
 * The proxied runs aim at the real host names (the default base-url and discord-api-url):
 * @actions/http-client never proxies a loopback host. The proxy maps those names to the loopback
 * fakes, which serve https with the committed certificate in test/fixtures/tls. With a proxy the
 * client never resolves the names itself, so nothing leaves the machine. A redirect, the deadline
 * arithmetic and Discord's own failures are decisions, tested in process
 * (test/stats/faults.test.ts, test/http/client.test.ts, test/stats/discord.test.ts).
 */
import { describe, expect, it } from 'vitest'
import {
  BOT,
  CA,
  discord,
  DISCORD_TOKEN,
  expectCleanFailure,
  fixture,
  KEY,
  proxy,
  run,
  runWatched,
  service,
  TLS
} from '../support/e2e.js'

const SERVICE = 'api.discord.place:443'
const DISCORD = 'discord.com:443'
/** The test's bot and key at the default base-url. */
const BOT_KEY = { 'bot-id': BOT, 'api-key': KEY }

describe.concurrent('proxies and certificates', () => {
  it("updates through HTTPS_PROXY at the default addresses, with both counts from Discord's, trusting the CA of NODE_EXTRA_CA_CERTS", async () => {
    const api = await service({ service: { tls: TLS } })
    // 5 commands, 12 with their subcommands.
    const commands = JSON.parse(await fixture('discordjs-v1.json')) as unknown[]
    const fake = await discord({ tls: TLS, guildCount: 1262, commands })
    const forward = await proxy({ [SERVICE]: api.port, [DISCORD]: fake.port })
    const result = await run({
      inputs: { ...BOT_KEY, 'discord-token': DISCORD_TOKEN, 'count-subcommands': 'true' },
      env: { HTTPS_PROXY: forward.url, NODE_EXTRA_CA_CERTS: CA }
    })

    expect(result.code, result.stdout + result.stderr).toBe(0)
    expect(result.outputs).toMatchObject({
      result: 'updated',
      status: '200',
      'command-count': '12',
      'server-count': '1262'
    })
    expect(forward.connects).toEqual([SERVICE, DISCORD, DISCORD, SERVICE])
    expect(forward.requests, 'nothing in plain http').toEqual([])
    expect(fake.requests.map(r => [r.path, r.headers.host, r.headers.authorization])).toEqual([
      ['/api/v10/applications/@me', 'discord.com', `Bot ${DISCORD_TOKEN}`],
      [`/api/v10/applications/${BOT}/commands`, 'discord.com', `Bot ${DISCORD_TOKEN}`]
    ])
    expect(
      api.requests.map(r => [`${r.method} ${r.path}`, r.headers.host, r.headers.authorization])
    ).toEqual([
      [`GET /bots/${BOT}`, 'api.discord.place', undefined],
      [`PATCH /bots/${BOT}/stats`, 'api.discord.place', KEY]
    ])
    expect(api.requests[1]!.body).toBe('{"command_count":12,"server_count":1262}')
    expect(api.bot(BOT)).toMatchObject({ commands: 12, servers: 1262 })
    expect(result.log).toEqual(
      expect.arrayContaining([
        'Server count: 1262 (Discord (approximate_guild_count))',
        'Command count: 12 (Discord (global commands))'
      ])
    )
  })

  it('fails with one clear error when the proxy asks for authentication (407), masking its password', async () => {
    const api = await service({ service: { tls: TLS } })
    const forward = await proxy({ [SERVICE]: api.port })
    forward.requireAuthorization = `Basic ${Buffer.from('robot:the-right-Pa55word').toString('base64')}`
    const password = 'wr0ng-Pa55word-Xq7'
    const proxyUrl = forward.url.replace('http://', `http://robot:${password}@`)
    const result = await run({
      inputs: { ...BOT_KEY, 'command-count': '12' },
      env: { HTTPS_PROXY: proxyUrl, NODE_EXTRA_CA_CERTS: CA }
    })

    // The secrets sweep (runAction) also proves the password masked first and never shown.
    expect(expectCleanFailure(result)).toMatch(/proxy .*authentication \(407/)
    expect(forward.connects, 'the record read went to the proxy').not.toHaveLength(0)
    expect(api.requests, 'nothing reached the service').toEqual([])
  })

  it('goes direct to a NO_PROXY host, and fails clearly when that host cannot be reached', async () => {
    const api = await service({ service: { tls: TLS } })
    const fake = await discord({ tls: TLS })
    // A name that never resolves (RFC 2606), so the direct request stays on this machine;
    // mapped in the proxy, so a request wrongly sent through it would be seen there.
    const forward = await proxy({ [SERVICE]: api.port, 'discord.invalid:443': fake.port })
    const inputs = {
      ...BOT_KEY,
      'discord-token': DISCORD_TOKEN,
      'discord-api-url': 'https://discord.invalid/api/v10'
    }
    const result = await run({
      inputs: { ...inputs, 'cooldown-check': 'false', 'request-timeout': '2', timeout: '10' },
      env: { HTTPS_PROXY: forward.url, NO_PROXY: 'discord.invalid', NODE_EXTRA_CA_CERTS: CA },
      timeoutMs: 15_000
    })

    expect(expectCleanFailure(result)).toMatch(
      /^Could not read counts from Discord: could not connect to discord\.invalid/
    )
    expect([forward.connects, fake.requests, api.requests]).toEqual([[], [], []])
    expect(result.durationMs).toBeLessThan(12_000)
  })

  it('refuses a certificate its CA is not trusted for, and sends no update', async () => {
    const api = await service({ service: { tls: TLS } })
    const forward = await proxy({ [SERVICE]: api.port })
    const result = await run({
      inputs: { ...BOT_KEY, 'command-count': '14', 'cooldown-check': 'false' },
      env: { HTTPS_PROXY: forward.url }
    })

    const message = expectCleanFailure(result)
    expect(message).toMatch(/api\.discord\.place/)
    expect(message).toMatch(/certificate was not accepted/)
    expect(new Set(forward.connects)).toEqual(new Set([SERVICE]))
    expect(api.requests).toEqual([])
    expect(result.outputs['result']).toBe('failed')
  })

  it('a proxy that never answers CONNECT: the request is cut off at the timeout (3 s), and the process exits by then', async () => {
    const forward = await proxy({})
    forward.hangConnects = true
    // Timed from the proxy's first CONNECT, which comes after the step's clock started: a loaded
    // machine's slow process start does not count.
    const inputs = { ...BOT_KEY, 'command-count': '14', timeout: '3' }
    const { result, exitMs } = await runWatched(
      { inputs, env: { HTTPS_PROXY: forward.url } },
      () => forward.connects.length > 0
    )

    expect(
      exitMs,
      'the proxy got the CONNECT, and the process exited by the deadline'
    ).toBeLessThan(4_500)
    expectCleanFailure(result)
  })
})
