/**
 * End to end: the committed dist/index.js, run as the Actions runner runs it, against the
 * service emulator on loopback. Every case runs on this machine's Node and on Node 24.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { findLeaks, NODES, RUNTIME_NODE, type RunResult, runAction } from '../support/action.js'
import { type BotSeed, type EmulatorOptions, ServiceEmulator, SIX_HOURS } from '../support/emulator.js'

const BOT = '123456789012345678'
const KEY = 'dp_live_k3y.with-symbols_9f8e7d6c5b4a'
const HOUR = 60 * 60 * 1000

let emulator: ServiceEmulator | undefined
afterEach(async () => {
  await emulator?.close()
  emulator = undefined
})

async function start(bot: Partial<BotSeed> = {}, options: EmulatorOptions = {}): Promise<ServiceEmulator> {
  emulator = await ServiceEmulator.start({
    bots: [{ id: BOT, apiKey: KEY, commands: 12, servers: 1204, realServerCount: 1250, ...bot }],
    ...options
  })
  return emulator
}

function errorLines(result: RunResult): string[] {
  return result.commands.filter(c => c.command === 'error').map(c => c.message)
}

function expectCleanFailure(result: RunResult): void {
  expect(result.code).toBe(1)
  expect(errorLines(result)).toHaveLength(1)
  expect(result.stdout + result.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/)
  expect(findLeaks(result, [KEY])).toEqual([])
}

describe.each(NODES)('stats update on $name', ({ path: node }) => {
  it('updates both counts after reading the public record, and reports it', async () => {
    const service = await start({ commandsUpdatedAt: new Date(Date.now() - 7 * HOUR), serversUpdatedAt: new Date(Date.now() - 7 * HOUR) })
    const before = Date.now()
    const result = await runAction({
      node,
      inputs: { 'bot-id': BOT, 'api-key': KEY, 'command-count': '14', 'server-count': '1260', 'base-url': service.url }
    })

    expect(result.code).toBe(0)
    const [record, ...rest] = service.requests
    expect(record).toMatchObject({ method: 'GET', route: 'record', path: `/bots/${BOT}` })
    expect(record!.headers.authorization).toBeUndefined()
    expect(rest).toHaveLength(1)
    const patch = rest[0]!
    expect(patch).toMatchObject({ method: 'PATCH', route: 'stats', path: `/bots/${BOT}/stats`, status: 200 })
    expect(patch.headers.authorization).toBe(KEY)
    expect(patch.headers['content-type']).toBe('application/json')
    expect(patch.headers['user-agent']).toMatch(/^discord-place-bot-stats\/\d+\.\d+\.\d+/)
    expect(patch.body).toBe('{"command_count":14,"server_count":1260}')
    expect(service.bot(BOT)).toMatchObject({ commands: 14, servers: 1260 })

    expect(result.outputs).toMatchObject({ result: 'updated', 'command-count': '14', 'server-count': '1260', status: '200' })
    const next = Date.parse(result.outputs['next-update-at']!)
    expect(next).toBeGreaterThanOrEqual(before + SIX_HOURS)
    expect(next).toBeLessThanOrEqual(Date.now() + SIX_HOURS)

    expect(result.summary).not.toContain('](https://discord.place') // no link: base-url is not the live service
    expect(result.summary).toContain('1,204 → 1,260 (+56)')
    expect(result.summary).toContain('12 → 14 (+2)')
    expect(result.summary).toContain('**updated**')
    expect(findLeaks(result, [KEY])).toEqual([])
  })

  it('sends only the count that was given', async () => {
    const service = await start()
    const result = await runAction({ node, inputs: { 'bot-id': BOT, 'api-key': KEY, 'command-count': '0', 'base-url': service.url } })
    expect(result.code).toBe(0)
    expect(service.received('stats').map(r => r.body)).toEqual(['{"command_count":0}'])
    expect(result.outputs).toMatchObject({ result: 'updated', 'command-count': '0' })
    expect(result.outputs['server-count']).toBeUndefined()
    expect(service.bot(BOT)).toMatchObject({ commands: 0, servers: 1204 })
  })

  it('skips the update when the record shows one within 6 hours, spending no strike', async () => {
    const updated = new Date(Date.now() - 2 * HOUR)
    const service = await start({ serversUpdatedAt: updated })
    const result = await runAction({ node, inputs: { 'bot-id': BOT, 'api-key': KEY, 'server-count': '1260', 'base-url': service.url } })

    expect(result.code).toBe(0)
    expect(service.received('stats')).toHaveLength(0)
    expect(service.bot(BOT).strikes).toHaveLength(0)
    expect(result.outputs).toMatchObject({
      result: 'skipped',
      status: '200',
      'server-count': '1260',
      'next-update-at': new Date(updated.getTime() + SIX_HOURS).toISOString()
    })
    const notice = result.commands.find(c => c.command === 'notice')
    expect(notice?.message).toContain(new Date(updated.getTime() + SIX_HOURS).toISOString())
    expect(result.summary).toContain('not sent')
  })

  it('reports a 429 from the service as cooldown, sends once, and succeeds', async () => {
    const service = await start({ commandsUpdatedAt: new Date(Date.now() - HOUR) })
    const result = await runAction({
      node,
      inputs: { 'bot-id': BOT, 'api-key': KEY, 'command-count': '14', 'base-url': service.url, 'cooldown-check': 'false' }
    })

    expect(result.code).toBe(0)
    expect(service.received('record')).toHaveLength(0)
    expect(service.received('stats')).toHaveLength(1)
    expect(service.bot(BOT).strikes).toHaveLength(1)
    expect(result.outputs).toMatchObject({ result: 'cooldown', status: '429' })
    const warning = result.commands.find(c => c.command === 'warning')
    expect(warning?.message).toContain('You can only update stats once every 6 hours.')
    expect(errorLines(result)).toEqual([])
  })

  it.each([
    ['unverified (403)', { verified: false }, undefined],
    ['rate limited (429)', {}, { record: { limit: 0, windowMs: 60_000 } }]
  ] as const)('goes on with the update when the record is unreadable: %s', async (_, bot, limits) => {
    const service = await start(bot, { rateLimits: limits })
    const result = await runAction({ node, inputs: { 'bot-id': BOT, 'api-key': KEY, 'command-count': '3', 'base-url': service.url } })
    expect(result.code).toBe(0)
    expect(service.received('record')).toHaveLength(1)
    expect(service.received('stats')).toHaveLength(1)
    expect(result.outputs).toMatchObject({ result: 'updated', status: '200' })
    expect(result.log.join('\n')).toMatch(/Could not read the public record/)
  })

  it('works with a base-url that has a path prefix and a trailing slash', async () => {
    const service = await start({}, { prefix: '/api/v1' })
    const result = await runAction({ node, inputs: { 'bot-id': BOT, 'api-key': KEY, 'command-count': '5', 'base-url': `${service.url}/` } })
    expect(result.code).toBe(0)
    expect(service.requests.map(r => `${r.method} ${r.path}`)).toEqual([`GET /api/v1/bots/${BOT}`, `PATCH /api/v1/bots/${BOT}/stats`])
  })

  it('in a dry run reads the record, sends nothing and needs no key', async () => {
    const service = await start()
    const result = await runAction({
      node,
      inputs: { 'bot-id': BOT, 'command-count': '14', 'server-count': '1260', 'base-url': service.url, 'dry-run': 'true' }
    })
    expect(result.code).toBe(0)
    expect(service.requests.map(r => r.route)).toEqual(['record'])
    expect(result.outputs).toMatchObject({ result: 'dry-run', 'command-count': '14', 'server-count': '1260', status: '200' })
    expect(result.summary).toContain('1,204 → 1,260 (+56)')
  })

  it.each([
    {
      name: 'a wrong key (401)',
      seed: { apiKey: 'another-key' },
      status: '401',
      expected: [/"Invalid API key\."/, /api-key secret is wrong or outdated/]
    },
    {
      name: 'an unknown bot (404)',
      seed: { id: '999999999999999999' },
      status: '404',
      expected: [/"Bot not found\."/, /Check bot-id/]
    },
    {
      name: 'a server count outside the tolerance (400)',
      seed: { realServerCount: 5000 },
      status: '400',
      expected: [/max\(50, 10%\)/]
    }
  ])('fails clearly on $name, writing the known outputs', async ({ seed, status, expected }) => {
    const service = await start(seed, {})
    const result = await runAction({
      node,
      inputs: { 'bot-id': BOT, 'api-key': KEY, 'server-count': '1260', 'base-url': service.url, 'cooldown-check': 'false' }
    })
    expectCleanFailure(result)
    expect(service.received('stats')).toHaveLength(1)
    for (const pattern of expected) expect(errorLines(result)[0]).toMatch(pattern)
    expect(result.outputs).toMatchObject({ result: 'failed', status, 'server-count': '1260' })
    expect(result.summary).toContain('**failed**')
    expect(result.summary).toContain(`| Answer | ${status}`)
  })

  it('fails with the revocation advice when the 5th early update revokes the key (410)', async () => {
    const now = Date.now()
    const service = await start({
      serversUpdatedAt: new Date(now - HOUR),
      strikes: [1, 2, 3, 4].map(n => new Date(now - n * 10 * 60 * 1000))
    })
    const result = await runAction({
      node,
      inputs: { 'bot-id': BOT, 'api-key': KEY, 'server-count': '1260', 'base-url': service.url, 'cooldown-check': 'false' }
    })
    expectCleanFailure(result)
    expect(service.received('stats')).toHaveLength(1)
    expect(errorLines(result)[0]).toMatch(/revoked.*Generate a new key.*6 hours/)
    expect(result.outputs).toMatchObject({ result: 'failed', status: '410' })
  })

  it('turns an HTML error page into a short message', async () => {
    const service = await start()
    const page = `<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>${'<p>upstream</p>'.repeat(400)}</body></html>`
    service.inject('stats', { kind: 'answer', status: 502, headers: { 'Content-Type': 'text/html' }, body: page })
    const result = await runAction({ node, inputs: { 'bot-id': BOT, 'api-key': KEY, 'command-count': '5', 'base-url': service.url } })
    expectCleanFailure(result)
    const [message] = errorLines(result)
    expect(message).toContain('502')
    expect(message).toContain('non-JSON answer (text/html')
    expect(message).not.toContain('<')
    expect(result.summary).not.toContain('<p>')
    expect(service.received('stats')).toHaveLength(1)
  })

  it('fails clearly, without a stack trace, when the service cannot be reached', async () => {
    const service = await start()
    const url = service.url
    await service.close()
    emulator = undefined
    const result = await runAction({ node, inputs: { 'bot-id': BOT, 'api-key': KEY, 'command-count': '5', 'base-url': url } })
    expectCleanFailure(result)
    expect(errorLines(result)[0]).toMatch(/could not connect to 127\.0\.0\.1:\d+: the connection was refused/)
    expect(result.outputs['status']).toBeUndefined()
  })

  it('sends the update once more when the connection dropped and the record shows it did not arrive', async () => {
    const service = await start()
    service.inject('stats', { kind: 'reset' })
    const result = await runAction({
      node,
      inputs: { 'bot-id': BOT, 'api-key': KEY, 'command-count': '5', 'base-url': service.url, 'cooldown-check': 'false' }
    })
    expect(result.code, result.stdout).toBe(0)
    expect(service.requests.map(r => `${r.route} ${r.status}`)).toEqual(['stats 0', 'record 200', 'stats 200'])
    expect(service.bot(BOT).strikes).toHaveLength(0)
    expect(result.outputs).toMatchObject({ result: 'updated', status: '200' })
  })

  it('does not send the update again when the record shows it arrived before the connection dropped', async () => {
    const service = await start()
    service.inject('stats', { kind: 'reset-after-handling' })
    const result = await runAction({
      node,
      inputs: { 'bot-id': BOT, 'api-key': KEY, 'command-count': '5', 'base-url': service.url, 'cooldown-check': 'false' }
    })
    expect(result.code, result.stdout).toBe(0)
    expect(service.requests.map(r => r.route)).toEqual(['stats', 'record'])
    expect(service.bot(BOT).commands).toBe(5)
    expect(result.outputs['result']).toBe('updated')
    expect(result.outputs['status']).toBeUndefined()
  })

  it('does not send the update again when the record cannot tell whether it arrived', async () => {
    const service = await start({ verified: false })
    service.inject('stats', { kind: 'reset' })
    const result = await runAction({
      node,
      inputs: { 'bot-id': BOT, 'api-key': KEY, 'command-count': '5', 'base-url': service.url, 'cooldown-check': 'false' }
    })
    expectCleanFailure(result)
    expect(service.received('stats')).toHaveLength(1)
    expect(errorLines(result)[0]).toMatch(/may have reached the service, so it was not sent again/)
  })
})

describe('answers the live service and the original description leave open', () => {
  const node = RUNTIME_NODE

  it.each([
    ['204 No Content', { kind: 'answer', status: 204, body: '' }],
    ['201 with a text body', { kind: 'answer', status: 201, headers: { 'Content-Type': 'text/plain' }, body: 'ok' }]
  ] as const)('takes any 2xx as success: %s', async (_, fault) => {
    const service = await start()
    service.inject('stats', fault)
    const result = await runAction({ node, inputs: { 'bot-id': BOT, 'api-key': KEY, 'command-count': '5', 'base-url': service.url } })
    expect(result.code).toBe(0)
    expect(result.outputs).toMatchObject({ result: 'updated', status: String(fault.status) })
  })

  it('sets next-update-at from a rate-limit 429 with retry_after, and does not retry', async () => {
    const service = await start()
    service.inject('stats', {
      kind: 'answer',
      status: 429,
      headers: { 'Content-Type': 'application/json', 'RateLimit-Limit': '2', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '120' },
      body: JSON.stringify({ success: false, error: 'Too many requests, please try again later.', status: 429, retry_after: 120 })
    })
    const before = Date.now()
    const result = await runAction({ node, inputs: { 'bot-id': BOT, 'api-key': KEY, 'command-count': '5', 'base-url': service.url } })
    expect(result.code).toBe(0)
    expect(service.received('stats')).toHaveLength(1)
    expect(result.outputs).toMatchObject({ result: 'cooldown', status: '429' })
    const next = Date.parse(result.outputs['next-update-at']!)
    expect(next).toBeGreaterThanOrEqual(before + 120_000)
    expect(next).toBeLessThanOrEqual(Date.now() + 120_000)
  })

  it('quotes the service on a 500 and says the problem is on its side', async () => {
    const service = await start()
    service.inject('stats', {
      kind: 'answer',
      status: 500,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ success: false, error: 'Could not fetch server count.', status: 500 })
    })
    const result = await runAction({ node, inputs: { 'bot-id': BOT, 'api-key': KEY, 'server-count': '1204', 'base-url': service.url } })
    expectCleanFailure(result)
    expect(errorLines(result)[0]).toMatch(/500 with "Could not fetch server count\.".*on its side/)
    expect(service.received('stats')).toHaveLength(1)
    expect(result.outputs).toMatchObject({ result: 'failed', status: '500' })
  })

  it('escapes HTML in the service error text in the summary', async () => {
    const service = await start()
    service.inject('stats', {
      kind: 'answer',
      status: 400,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ success: false, error: '<img src=x onerror=alert(1)> | *bold*', status: 400 })
    })
    const result = await runAction({ node, inputs: { 'bot-id': BOT, 'api-key': KEY, 'command-count': '5', 'base-url': service.url } })
    expectCleanFailure(result)
    expect(result.summary).not.toContain('<img')
    expect(result.summary).toContain('&lt;img src=x onerror=alert\\(1\\)&gt; \\| \\*bold\\*')
  })
})
