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
/** The margin every 6-hour comparison keeps for the runner's clock against the service's. */
const MARGIN = 60_000

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
    expect(next).toBeGreaterThanOrEqual(before + SIX_HOURS + MARGIN)
    expect(next).toBeLessThanOrEqual(Date.now() + SIX_HOURS + MARGIN)

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
      'next-update-at': new Date(updated.getTime() + SIX_HOURS + MARGIN).toISOString()
    })
    const notice = result.commands.find(c => c.command === 'notice')
    expect(notice?.message).toContain(new Date(updated.getTime() + SIX_HOURS + MARGIN).toISOString())
    expect(result.summary).toContain('not sent')
  })

  it('6-hour 429: cooldown, sent once, one strike, next-update-at from the record plus 6 hours (not RateLimit-Reset)', async () => {
    const updated = new Date(Date.now() - HOUR)
    const service = await start({ commandsUpdatedAt: updated })
    const result = await runAction({
      node,
      inputs: { 'bot-id': BOT, 'api-key': KEY, 'command-count': '14', 'base-url': service.url, 'cooldown-check': 'false' }
    })

    expect(result.code).toBe(0)
    // No record read before the PATCH (cooldown-check: false); one after it, for the time.
    expect(
      service.requests.map(r => `${r.route} ${r.status}`),
      'exactly one PATCH, then the record'
    ).toEqual(['stats 429', 'record 200'])
    expect(service.bot(BOT).strikes).toHaveLength(1)
    expect(result.outputs).toMatchObject({
      result: 'cooldown',
      status: '429',
      'next-update-at': new Date(updated.getTime() + SIX_HOURS + MARGIN).toISOString()
    })
    const warning = result.commands.find(c => c.command === 'warning')
    expect(warning?.message).toContain('You can only update stats once every 6 hours.')
    expect(warning?.message).toContain('strikes')
    expect(errorLines(result)).toEqual([])
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

  it('reports a limiter 429 with retry_after as rate-limited, sets next-update-at from it, and does not retry', async () => {
    const service = await start()
    service.inject('stats', {
      kind: 'answer',
      status: 429,
      // The limiter's window ends in 30 minutes; the wait it names is 2 minutes. next-update-at
      // follows the named wait, never RateLimit-Reset (interface.md).
      headers: {
        'Content-Type': 'application/json',
        'Retry-After': '120',
        'RateLimit-Limit': '2',
        'RateLimit-Remaining': '0',
        'RateLimit-Reset': '1800'
      },
      body: JSON.stringify({ success: false, error: 'Too many requests, please try again later.', status: 429, retry_after: 120 })
    })
    const before = Date.now()
    const result = await runAction({ node, inputs: { 'bot-id': BOT, 'api-key': KEY, 'command-count': '5', 'base-url': service.url } })
    expect(result.code).toBe(0)
    expect(service.received('stats')).toHaveLength(1)
    expect(result.outputs).toMatchObject({ result: 'rate-limited', status: '429' })
    const next = Date.parse(result.outputs['next-update-at']!)
    expect(next).toBeGreaterThanOrEqual(before + 120_000)
    expect(next, 'from Retry-After, not from RateLimit-Reset').toBeLessThanOrEqual(Date.now() + 120_000)
  })

  it('leaves next-update-at empty for a limiter 429 that names no wait, whatever RateLimit-Reset says', async () => {
    const service = await start()
    service.inject('stats', {
      kind: 'answer',
      status: 429,
      headers: { 'Content-Type': 'application/json', 'RateLimit-Limit': '2', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '1500' },
      body: JSON.stringify({ success: false, error: 'Too many requests, please try again later.', status: 429 })
    })
    const result = await runAction({
      node,
      inputs: { 'bot-id': BOT, 'api-key': KEY, 'command-count': '5', 'base-url': service.url, 'cooldown-check': 'false' }
    })
    expect(service.received('stats'), 'exactly one PATCH').toHaveLength(1)
    expect(result.outputs).toMatchObject({ result: 'rate-limited', status: '429' })
    expect(result.outputs['next-update-at'] ?? '', 'never from RateLimit-Reset').toBe('')
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

/**
 * The live service's answers that cost keys (issue 11), each from the bundle against the
 * emulator, which answers as test/fixtures/service/service-behaviour.md says. Each test
 * asserts what was sent (PATCH count), the strikes the service counted, `result`, `status`,
 * `next-update-at` and the annotation. One Node (the action's runtime) keeps them quick.
 */
describe('key safety against the live service answers', () => {
  const node = RUNTIME_NODE
  const inputs = (service: ServiceEmulator, extra: Record<string, string> = {}): Record<string, string> => ({
    'bot-id': BOT,
    'api-key': KEY,
    'command-count': '14',
    'base-url': service.url,
    ...extra
  })
  const warnings = (result: RunResult): string[] => result.commands.filter(c => c.command === 'warning').map(c => c.message)

  it('a record served from a cache (Age > 0) that shows an old update: sends nothing, as it may predate the last update', async () => {
    const service = await start()
    const old = new Date(Date.now() - 7 * HOUR).toISOString()
    service.inject('record', {
      kind: 'answer',
      status: 200,
      headers: { 'Content-Type': 'application/json', Age: '120' },
      body: JSON.stringify({ id: BOT, commands: 12, servers: 1204, commands_updated_at: old, servers_updated_at: old, verified: true })
    })
    const result = await runAction({ node, inputs: inputs(service) })
    expect(result.code).toBe(0)
    expect(service.received('stats'), 'no PATCH').toHaveLength(0)
    expect(result.outputs).toMatchObject({ result: 'skipped' })
    expect(result.outputs['next-update-at'] ?? '').toBe('')
    expect(warnings(result)).toEqual([expect.stringMatching(/^Stats not sent: the bot's public record came from a cache/)])
    expect(
      result.commands.filter(c => c.command === 'notice'),
      'no notice of a recent update: the record could not tell'
    ).toEqual([])
    expect(result.summary).toContain("### Bot stats: skipped, the bot's record could not be checked")
  })

  it('a record that answers 404 (no such bot): fails before any PATCH, naming bot-id', async () => {
    const service = await start()
    const result = await runAction({ node, inputs: { ...inputs(service), 'bot-id': '999999999999999999' } })
    expect(result.code).toBe(1)
    expect(service.received('stats'), 'no PATCH').toHaveLength(0)
    expect(errorLines(result)).toEqual([expect.stringMatching(/^The service lists no bot with ID 999999999999999999 .*Check bot-id/)])
    expect(result.outputs).toMatchObject({ result: 'failed', status: '404' })
  })

  it('read limiter (10/min per IP, 429 + Retry-After): waits it out, reads again, and skips a recent update', async () => {
    const updated = new Date(Date.now() - HOUR)
    // The live limiter asks for 60 s; a 2-second window keeps the test short, same answer.
    const service = await start({ commandsUpdatedAt: updated }, { rateLimits: { record: { limit: 10, windowMs: 2_000 } } })
    service.spendLimit('record', '127.0.0.1', 10)
    const result = await runAction({ node, inputs: inputs(service) })

    expect(result.code, result.stdout).toBe(0)
    expect(service.received('record').map(r => r.status)).toEqual([429, 200])
    expect(service.received('stats'), 'no PATCH: the record, once read, shows a recent update').toHaveLength(0)
    expect(service.bot(BOT).strikes).toHaveLength(0)
    expect(result.outputs).toMatchObject({
      result: 'skipped',
      status: '200',
      'next-update-at': new Date(updated.getTime() + SIX_HOURS + MARGIN).toISOString()
    })
    expect(result.log.join('\n')).toMatch(/read limit answered 429; reading the record again in 2 s/)
  })

  it('read limiter asking for more than the timeout leaves: sends nothing, skipped with a warning', async () => {
    const service = await start({ commandsUpdatedAt: new Date(Date.now() - HOUR) })
    service.spendLimit('record', '127.0.0.1', 10) // the live limiter: Retry-After: 60
    const result = await runAction({ node, inputs: inputs(service, { timeout: '20', 'request-timeout': '5' }) })

    expect(result.code).toBe(0)
    expect(service.received('record')).toHaveLength(1)
    expect(service.received('stats'), 'no blind PATCH').toHaveLength(0)
    expect(service.bot(BOT).strikes).toHaveLength(0)
    expect(result.outputs).toMatchObject({ result: 'skipped', status: '429' })
    expect(result.outputs['next-update-at']).toBeUndefined()
    expect(warnings(result)).toEqual([
      expect.stringMatching(
        /could not be checked \(the service's read limit asks for a wait of 60 s.*nothing was sent; the next run will try again/
      )
    ])
    expect(result.summary).toContain("skipped, the bot's record could not be checked")
  })

  it('a record that stays 5xx: retried within the deadline, then nothing sent (skipped, warning)', async () => {
    const service = await start({ commandsUpdatedAt: new Date(Date.now() - HOUR) })
    for (let i = 0; i < 3; i++) {
      service.inject('record', {
        kind: 'answer',
        status: 503,
        headers: { 'Content-Type': 'application/json' },
        body: '{"success":false,"error":"Service unavailable","status":503}'
      })
    }
    const result = await runAction({ node, inputs: inputs(service) })

    expect(result.code).toBe(0)
    expect(service.received('record')).toHaveLength(3)
    expect(service.received('stats'), 'no blind PATCH').toHaveLength(0)
    expect(service.bot(BOT).strikes).toHaveLength(0)
    expect(result.outputs).toMatchObject({ result: 'skipped', status: '503' })
    expect(result.outputs['next-update-at']).toBeUndefined()
    expect(warnings(result)).toEqual([expect.stringMatching(/could not be checked \(the service answered 503\)/)])
  })

  it('a 5xx on the record read is retried even when it carries RateLimit-Reset', async () => {
    const updated = new Date(Date.now() - HOUR)
    const service = await start({ commandsUpdatedAt: updated })
    service.inject('record', {
      kind: 'answer',
      status: 502,
      headers: { 'Content-Type': 'text/html', 'RateLimit-Limit': '10', 'RateLimit-Remaining': '9', 'RateLimit-Reset': '1800' },
      body: '<html>502</html>'
    })
    const started = Date.now()
    const result = await runAction({ node, inputs: inputs(service) })

    expect(service.received('record').map(r => r.status)).toEqual([502, 200])
    expect(Date.now() - started, 'retried after a backoff, not after RateLimit-Reset').toBeLessThan(10_000)
    expect(service.received('stats')).toHaveLength(0)
    expect(service.bot(BOT).strikes).toHaveLength(0)
    expect(result.outputs).toMatchObject({
      result: 'skipped',
      status: '200',
      'next-update-at': new Date(updated.getTime() + SIX_HOURS + MARGIN).toISOString()
    })
  })

  it('an unverified bot submitted an hour ago (record 403): one warning that the update is not protected, and the summary says so', async () => {
    // The live service stamps a new bot's command count with its creation time (service-behaviour.md).
    const service = await start({ verified: false, createdAt: new Date(Date.now() - HOUR) })
    const result = await runAction({ node, inputs: inputs(service) })

    expect(result.code).toBe(0)
    expect(service.received('record').map(r => r.status)).toEqual([403, 403])
    expect(service.received('stats'), 'exactly one PATCH').toHaveLength(1)
    // What the warning says happens: unprotected, the early update is a strike.
    expect(service.bot(BOT).strikes).toHaveLength(1)
    expect(result.outputs).toMatchObject({ result: 'cooldown', status: '429' })
    expect(result.outputs['next-update-at']).toBeUndefined()
    const unprotected = warnings(result).filter(w => /not public until the bot is verified/.test(w))
    expect(unprotected).toEqual([expect.stringMatching(/\(403\), so this update is not protected against the 6-hour rule/)])
    expect(result.summary).toMatch(/Warning \| The bot's record on discord\.place is not public until the bot is verified/)
  })

  it('an unverified bot whose last update is old: updated, with the same warning', async () => {
    const service = await start({ verified: false })
    const result = await runAction({ node, inputs: inputs(service) })
    expect(result.code).toBe(0)
    expect(service.received('stats')).toHaveLength(1)
    expect(service.bot(BOT).strikes).toHaveLength(0)
    expect(result.outputs).toMatchObject({ result: 'updated', status: '200' })
    expect(warnings(result)).toEqual([expect.stringMatching(/not protected against the 6-hour rule/)])
  })

  it('request limiter 429 on the PATCH (2 per 30 min per bot): rate-limited, no strike, next-update-at from Retry-After', async () => {
    const service = await start()
    service.spendLimit('stats', BOT, 2)
    const before = Date.now()
    const result = await runAction({ node, inputs: inputs(service) })

    expect(result.code).toBe(0)
    expect(service.received('stats'), 'exactly one PATCH').toHaveLength(1)
    expect(service.bot(BOT).strikes).toHaveLength(0)
    expect(service.bot(BOT).commands).toBe(12)
    expect(result.outputs).toMatchObject({ result: 'rate-limited', status: '429' })
    const next = Date.parse(result.outputs['next-update-at']!)
    expect(next).toBeGreaterThanOrEqual(before + 29 * 60_000)
    expect(next).toBeLessThanOrEqual(Date.now() + 30 * 60_000)
    const [warning] = warnings(result)
    expect(warning).toMatch(/request limiter turned the update away .*nothing was stored and no strike was counted\. Try again from /)
    expect(warning).not.toMatch(/strikes \(5/)
    expect(result.summary).toContain('turned away by the request limiter (no strike)')
  })

  it('6-hour rule with a clock margin: an update 6 hours and 30 s old by the runner clock is not sent yet', async () => {
    const updated = new Date(Date.now() - SIX_HOURS - 30_000)
    const service = await start({ serversUpdatedAt: updated })
    const result = await runAction({ node, inputs: inputs(service) })
    expect(service.received('stats'), 'no PATCH inside the margin').toHaveLength(0)
    expect(service.bot(BOT).strikes).toHaveLength(0)
    expect(result.outputs).toMatchObject({
      result: 'skipped',
      status: '200',
      'next-update-at': new Date(updated.getTime() + SIX_HOURS + MARGIN).toISOString()
    })
  })

  it("6-hour rule with the service's clock 5 minutes behind (its Date header): not sent early", async () => {
    const behind = 5 * 60_000
    // By the service's clock the last update is 5 h 57 min old; by the runner's, 6 h 2 min.
    const updated = new Date(Date.now() - SIX_HOURS - 2 * 60_000)
    const service = await start({ commandsUpdatedAt: updated }, { now: () => Date.now() - behind })
    const result = await runAction({ node, inputs: inputs(service) })
    expect(service.received('stats'), 'no PATCH while the service still counts 6 hours').toHaveLength(0)
    expect(service.bot(BOT).strikes).toHaveLength(0)
    expect(result.outputs).toMatchObject({ result: 'skipped', status: '200' })
    const next = Date.parse(result.outputs['next-update-at']!)
    expect(next).toBeGreaterThanOrEqual(updated.getTime() + SIX_HOURS + behind - 2_000)
    expect(next).toBeLessThanOrEqual(updated.getTime() + SIX_HOURS + behind + MARGIN)
  })

  it.each([
    ['the body is cut off after the status line', { kind: 'partial', status: 200, body: '{"success": tr' }, 'updated', 0],
    ['the headers overflow', { kind: 'answer', status: 503, headers: { 'X-Padding': 'p'.repeat(20_000) }, body: '' }, 'failed', 1]
  ] as const)('a received status line is an answer (%s): not sent again, status set', async (_, fault, outcome, code) => {
    const service = await start()
    service.inject('stats', fault)
    const result = await runAction({ node, inputs: inputs(service, { 'cooldown-check': 'false' }) })
    expect(result.code).toBe(code)
    expect(service.received('stats'), 'exactly one PATCH').toHaveLength(1)
    expect(service.received('record'), 'no delivery check: the service answered').toHaveLength(0)
    expect(service.bot(BOT).strikes).toHaveLength(0)
    expect(result.outputs).toMatchObject({ result: outcome, status: String(fault.status) })
    expect(result.log.join('\n')).toMatch(/answer stopped after its status line/)
  })

  it('the delivery check asks for no cache, and a cached record (Age > 0) cannot prove non-delivery', async () => {
    const service = await start()
    service.inject('stats', { kind: 'reset' })
    const old = new Date(Date.now() - 30 * 24 * HOUR).toISOString()
    service.inject('record', {
      kind: 'answer',
      status: 200,
      headers: { 'Content-Type': 'application/json', Age: '30' },
      body: JSON.stringify({ id: BOT, commands: 12, commands_updated_at: old, servers: 1204, servers_updated_at: old })
    })
    const result = await runAction({ node, inputs: inputs(service, { 'cooldown-check': 'false' }) })

    expectCleanFailure(result)
    expect(service.received('stats'), 'exactly one PATCH').toHaveLength(1)
    expect(service.received('record')[0]!.headers['cache-control']).toBe('no-cache')
    expect(service.bot(BOT).strikes).toHaveLength(0)
    expect(result.outputs).toMatchObject({ result: 'failed' })
    expect(result.outputs['status']).toBeUndefined()
    expect(errorLines(result)[0]).toMatch(/may have reached the service, so it was not sent again/)
    expect(result.log.join('\n')).toMatch(/came from a cache \(Age > 0\)/)
  })
})
