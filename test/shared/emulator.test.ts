/**
 * The emulator is the test double of a real system: these tests hold it to the live
 * service's answers as test/fixtures/service/service-behaviour.md writes them down (from the
 * service's route code), and to its OpenAPI document
 * (test/fixtures/service/discord-place-openapi.json), not to the action's assumptions.
 * Each test names the fact of service-behaviour.md it checks.
 */
import { readFile } from 'node:fs/promises'
import * as http from 'node:http'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from '../support/action.js'
import { type BotSeed, type EmulatorOptions, LIVE_LIMITS, ServiceEmulator, SIX_HOURS } from '../support/emulator.js'
import { BOT, HOUR, KEY } from '../support/inprocess.js'
import { afterTest } from '../support/teardown.js'

const OTHER = '223456789012345678'
const LONG_AGO = new Date(Date.now() - 7 * HOUR)

interface Schema {
  required?: string[]
  properties?: Record<string, { type?: string | string[] }>
}
let spec: { paths: Record<string, Record<string, { responses: Record<string, unknown> }>>; components: any }
beforeAll(async () => {
  spec = JSON.parse(await readFile(join(ROOT, 'test/fixtures/service/discord-place-openapi.json'), 'utf8'))
})

function responseSchema(path: string, method: string, status: number): { schema: Schema; headers: string[] } {
  let response = spec.paths[path]![method]!.responses[String(status)] as any
  if (response.$ref) response = spec.components.responses[response.$ref.split('/').pop()]
  let schema = response.content['application/json'].schema
  if (schema.$ref) schema = spec.components.schemas[schema.$ref.split('/').pop()]
  return { schema, headers: Object.keys(response.headers ?? {}) }
}

function conforms(body: Record<string, unknown>, schema: Schema): void {
  for (const field of schema.required ?? []) expect(body, field).toHaveProperty(field)
  for (const [field, { type }] of Object.entries(schema.properties ?? {})) {
    if (!(field in body)) continue
    const types = ([] as string[]).concat(type ?? [])
    const actual = body[field] === null ? 'null' : Number.isInteger(body[field]) ? 'integer' : typeof body[field]
    expect(types.includes(actual) || (actual === 'integer' && types.includes('number')), `${field}: ${actual}`).toBe(true)
  }
}

/** The emulator the test started, which call() asks. */
let emulator: ServiceEmulator | undefined

/**
 * The emulator under test, with these bots seeded as little as they need (the emulator's own
 * defaults are under test too): each the test's bot, last updated 7 hours ago, unless told
 * otherwise. Closed when the test finishes.
 */
async function start(bots: Partial<BotSeed>[] = [{}], options: Omit<EmulatorOptions, 'bots'> = {}): Promise<ServiceEmulator> {
  const started = await ServiceEmulator.start({
    ...options,
    bots: bots.map(bot => ({ id: BOT, apiKey: KEY, commandsUpdatedAt: LONG_AGO, serversUpdatedAt: LONG_AGO, ...bot }))
  })
  afterTest(() => started.close())
  emulator = started
  return started
}

interface Reply {
  status: number
  json: any
  text: string
  headers: Headers
}

async function call(path: string, init: RequestInit = {}): Promise<Reply> {
  const res = await fetch(`${emulator!.url}${path}`, init)
  const text = await res.text()
  let json: any
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: res.status, json, text, headers: res.headers }
}

function patch(body: unknown, headers: Record<string, string> = { Authorization: KEY }, bot = BOT): Promise<Reply> {
  return call(`/bots/${bot}/stats`, {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body)
  })
}

function expectLimiterHeaders(reply: Reply, limit: number): void {
  for (const name of ['ratelimit-policy', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) {
    expect(reply.headers.get(name), name).not.toBeNull()
  }
  expect(reply.headers.get('ratelimit-limit')).toBe(String(limit))
}

describe('service emulator: PATCH /bots/{id}/stats', () => {
  it.each([
    ['neither count', {}, 400, 'One of the following fields is required: command_count, server_count.'],
    ['an array', [1], 400, 'One of the following fields is required: command_count, server_count.'],
    ['a fractional command count', { command_count: 12.5 }, 400, 'Commands count must be between 0 and 1,000.'],
    ['1001 commands', { command_count: 1001 }, 400, 'Commands count must be between 0 and 1,000.'],
    ['-1 servers', { server_count: -1 }, 400, 'Server count must be between 0 and 10 Million.'],
    ['10,000,001 servers', { server_count: 10_000_001 }, 400, 'Server count must be between 0 and 10 Million.'],
    ['"12" as a string (accepted)', { command_count: '12' }, 200, undefined],
    ['an unknown field beside a count (ignored)', { command_count: 1, extra: true }, 200, undefined]
  ])('body validation: %s', async (_, body, status, text) => {
    await start()
    const res = await patch(body)
    expect(res.status).toBe(status)
    if (text !== undefined) expect(res.json).toEqual({ success: false, error: text, status })
    conforms(res.json, responseSchema('/bots/{id}/stats', 'patch', status).schema)
  })

  it('body validation: a JSON body without a JSON content type has no fields; malformed JSON gets an HTML page', async () => {
    await start()
    const untyped = await call(`/bots/${BOT}/stats`, { method: 'PATCH', headers: { Authorization: KEY }, body: '{"command_count":1}' })
    expect(untyped.json.error).toBe('One of the following fields is required: command_count, server_count.')
    const malformed = await patch('{"command_count": 1')
    expect(malformed.status).toBe(400)
    expect(malformed.headers.get('content-type')).toMatch(/^text\/html/)
    expect(malformed.text).toMatch(/^<!DOCTYPE html>/)
  })

  it('checks the key after the body: 401 without one, 404 for an unknown bot, 401 for a wrong or Bearer key', async () => {
    await start()
    expect((await patch({ command_count: 1 }, {})).json.error).toBe('Authorization header is required.')
    expect((await patch({ command_count: 1 }, { Authorization: KEY }, OTHER)).json).toEqual({
      success: false,
      error: 'Bot not found.',
      status: 404
    })
    expect((await patch({ command_count: 1 }, { Authorization: 'nope' })).json.error).toBe('Invalid API key.')
    const bearer = await patch({ command_count: 1 }, { Authorization: `Bearer ${KEY}` })
    expect(bearer).toMatchObject({ status: 401, json: { error: 'Invalid API key.' } })
    conforms(bearer.json, responseSchema('/bots/{id}/stats', 'patch', 401).schema)
    // Validation comes first: a bad body is a 400 even without a key.
    expect((await patch({ command_count: 5000 }, {})).status).toBe(400)
  })

  it('the 6-hour rule: 429 without Retry-After or retry_after, a strike each; the 5th revokes the key (410)', async () => {
    const service = await start()
    const first = await patch({ command_count: 3 })
    expect(first).toMatchObject({ status: 200, json: { success: true } })
    const early = await patch({ command_count: 4 })
    expect(early.status).toBe(429)
    expect(early.json).toEqual({ success: false, error: 'You can only update stats once every 6 hours.', status: 429 })
    expect(early.headers.get('retry-after')).toBeNull()
    expectLimiterHeaders(early, LIVE_LIMITS.stats.limit)
    expect(service.bot(BOT).strikes).toHaveLength(1)
    const statuses = []
    for (let i = 0; i < 4; i++) statuses.push((await patch({ command_count: 4 })).status)
    expect(statuses).toEqual([429, 429, 429, 410])
    const after = await patch({ command_count: 4 })
    expect(after).toMatchObject({ status: 410, json: { error: 'This API key has been revoked.' } })
    expect(service.bot(BOT).commands).toBe(3)
  })

  it("a bot submitted an hour ago: its creation time is its command count's update time, so a first update is a strike", async () => {
    const created = new Date(Date.now() - HOUR)
    const service = await start([{ createdAt: created, verified: false, commandsUpdatedAt: undefined }])
    expect(service.bot(BOT).commandsUpdatedAt).toEqual(created)
    const first = await patch({ server_count: 0 })
    expect(first.status).toBe(429)
    expect(service.bot(BOT).strikes).toHaveLength(1)
  })

  it('the 6-hour rule: strikes older than 6 hours are dropped; a count updated within 6 hours refuses the whole update', async () => {
    const now = Date.now()
    const service = await start([
      { serversUpdatedAt: new Date(now - HOUR), strikes: [new Date(now - 7 * HOUR), new Date(now - 10 * 60_000)] }
    ])
    const early = await patch({ command_count: 9 })
    expect(early.status).toBe(429)
    expect(service.bot(BOT).strikes.map(t => t.getTime() > now - SIX_HOURS)).toEqual([true, true])
    expect(service.bot(BOT).commands).toBe(0)
  })

  it('the request limiter comes first: 2 counted requests per 30 minutes per bot, 429 with Retry-After and retry_after, no strike', async () => {
    const service = await start([{ commandsUpdatedAt: new Date(Date.now() - HOUR) }, { id: OTHER }])
    service.spendLimit('stats', BOT, 2)
    // No key, a bad body and a recent update: the limiter answers before looking at any of it.
    const limited = await patch({ command_count: 5000 }, {})
    expect(limited.status).toBe(429)
    expect(limited.json).toEqual({
      success: false,
      error: 'Too many requests, please try again later.',
      status: 429,
      retry_after: expect.any(Number)
    })
    const wait = Number(limited.headers.get('retry-after'))
    expect(wait).toBe(limited.json.retry_after)
    expect(wait).toBeGreaterThan(29 * 60)
    expect(wait).toBeLessThanOrEqual(30 * 60)
    expect(limited.headers.get('ratelimit-remaining')).toBe('0')
    expect(limited.headers.get('ratelimit-policy')).toBe('2;w=1800')
    expectLimiterHeaders(limited, 2)
    expect(service.bot(BOT).strikes).toHaveLength(0)
    conforms(limited.json, responseSchema('/bots/{id}/stats', 'patch', 429).schema)
    // Per bot: another bot's window is its own.
    expect((await patch({ command_count: 1 }, { Authorization: KEY }, OTHER)).status).toBe(200)
  })

  it('the request limiter counts only answers below 400', async () => {
    await start()
    for (let i = 0; i < 3; i++) {
      const refused = await patch({ command_count: 1 }, { Authorization: 'wrong' })
      expect(refused.status).toBe(401)
      expect(refused.headers.get('ratelimit-remaining')).toBe('2')
    }
    const ok = await patch({ command_count: 1 })
    expect(ok.status).toBe(200)
    expect(ok.headers.get('ratelimit-remaining')).toBe('1')
    const early = await patch({ command_count: 1 })
    expect(early.status).toBe(429)
    expect(early.json.error).toBe('You can only update stats once every 6 hours.')
    expect(early.headers.get('ratelimit-remaining')).toBe('1')
  })

  it('server count: 500 when Discord fails; 400 past max(50, 10%) with the exact text; nothing stored, no strike', async () => {
    const service = await start([
      { realServerCount: 1000 },
      { id: OTHER, realServerCount: 100 },
      { id: '323456789012345678', discordDown: true }
    ])
    const far = await patch({ server_count: 1101 })
    expect(far.json.error).toBe(
      'The server count provided (1101) is too far off from the actual server count. It cannot differ by more than 100 from the actual server count, which is 1000.'
    )
    expect((await patch({ server_count: 1100 })).status).toBe(200)
    expect((await patch({ server_count: 151 }, { Authorization: KEY }, OTHER)).json.error).toMatch(/more than 50 from .* which is 100\.$/)
    expect((await patch({ server_count: 150 }, { Authorization: KEY }, OTHER)).status).toBe(200)
    const down = await patch({ server_count: 5 }, { Authorization: KEY }, '323456789012345678')
    expect(down.json).toEqual({ success: false, error: 'Could not fetch server count.', status: 500 })
    expect(service.bot('323456789012345678').strikes).toHaveLength(0)
    expect(service.bot(OTHER).strikes).toHaveLength(0)
  })

  it('success: each count sent gets its own update time', async () => {
    const service = await start()
    await patch({ command_count: 7 })
    expect(service.bot(BOT).commandsUpdatedAt.getTime()).toBeGreaterThan(Date.now() - 60_000)
    expect(service.bot(BOT).serversUpdatedAt).toEqual(LONG_AGO)
  })
})

describe('service emulator: GET /bots/{id}', () => {
  it('serves the record without a key; 403 for an unverified bot, 404 for an unknown one', async () => {
    const updated = new Date(Date.now() - 2 * HOUR)
    await start([
      { commands: 12, servers: 1204, serversUpdatedAt: updated },
      { id: OTHER, verified: false }
    ])
    const record = await call(`/bots/${BOT}`)
    expect(record.json).toMatchObject({ commands: 12, servers: 1204, servers_updated_at: updated.toISOString(), verified: true })
    expectLimiterHeaders(record, 10)
    const unverified = await call(`/bots/${OTHER}`)
    expect(unverified.json).toEqual({ success: false, error: 'This bot is not verified yet.', status: 403 })
    expectLimiterHeaders(unverified, 10)
    expect((await call('/bots/323456789012345678')).json).toEqual({ success: false, error: 'Bot not found.', status: 404 })
  })

  it('limits reads to 10 per minute per client IP, across bots: 429 with Retry-After: 60 and retry_after: 60', async () => {
    await start([{}, { id: OTHER }])
    for (let i = 0; i < 10; i++) expect((await call(`/bots/${i % 2 === 0 ? BOT : OTHER}`)).status).toBe(200)
    const limited = await call(`/bots/${BOT}`)
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('60')
    expect(limited.json).toEqual({ success: false, error: 'Too many requests, please try again later.', status: 429, retry_after: 60 })
    expect(limited.headers.get('ratelimit-policy')).toBe('10;w=60')
  })
})

describe('service emulator: GET /bots/{id}/voters/{user_id}', () => {
  it('answers 200 {voted, vote, lastVote}; a user who never voted gets voted: false, vote 0, lastVote null', async () => {
    const last = new Date(Date.now() - HOUR)
    await start([{ voters: { [OTHER]: { vote: 3, lastVote: last } } }])
    const voted = await call(`/bots/${BOT}/voters/${OTHER}`, { headers: { Authorization: KEY } })
    expect(voted.json).toEqual({ voted: true, vote: 3, lastVote: last.getTime() })
    conforms(voted.json, responseSchema('/bots/{id}/voters/{user_id}', 'get', 200).schema)
    for (const user of ['323456789012345678', 'not-an-id']) {
      expect((await call(`/bots/${BOT}/voters/${user}`, { headers: { Authorization: KEY } })).json).toEqual({
        voted: false,
        vote: 0,
        lastVote: null
      })
    }
  })

  it('limits checks to 100 per 5 minutes per bot: 429 with Retry-After: 300 and retry_after: 300', async () => {
    const service = await start()
    service.spendLimit('votes', BOT, 99)
    const last = await call(`/bots/${BOT}/voters/${OTHER}`, { headers: { Authorization: KEY } })
    expect(last.status).toBe(200)
    expect(last.headers.get('ratelimit-remaining')).toBe('0')
    const limited = await call(`/bots/${BOT}/voters/${OTHER}`, { headers: { Authorization: KEY } })
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('300')
    expect(limited.json).toEqual({ success: false, error: 'Too many requests, please try again later.', status: 429, retry_after: 300 })
    const { schema, headers } = responseSchema('/bots/{id}/voters/{user_id}', 'get', 429)
    for (const header of headers) expect(limited.headers.get(header), header).not.toBeNull()
    conforms(limited.json, schema)
  })

  it('answers 410 for a revoked key, 401 for a wrong one', async () => {
    const service = await start([{ commandsUpdatedAt: new Date(), strikes: [1, 2, 3, 4].map(n => new Date(Date.now() - n * 60_000)) }])
    expect((await patch({ command_count: 1 })).status).toBe(410)
    expect(service.bot(BOT).strikes).toHaveLength(5)
    expect((await call(`/bots/${BOT}/voters/${OTHER}`, { headers: { Authorization: KEY } })).json).toEqual({
      success: false,
      error: 'This API key has been revoked.',
      status: 410
    })
    expect((await call(`/bots/${BOT}/voters/${OTHER}`, { headers: { Authorization: 'nope' } })).json.error).toBe('Invalid API key.')
  })
})

describe('service emulator: the keys, the limiters and the server count (service-behaviour.md, 2026-11-25)', () => {
  it('5 and 7: the fifth strike unsets the key; the revoked key gets 410 on both routes, even after a new key is generated', async () => {
    const service = await start([{ commandsUpdatedAt: new Date(), strikes: [1, 2, 3, 4].map(n => new Date(Date.now() - n * 60_000)) }])
    expect((await patch({ command_count: 1 })).json.error).toMatch(/^Your API key has been revoked due to spamming/)
    expect(service.bot(BOT).apiKey, 'the bot has no key at all').toBeUndefined()
    service.regenerateKey(BOT, 'fresh-key')
    expect((await patch({ command_count: 1 })).json).toEqual({ success: false, error: 'This API key has been revoked.', status: 410 })
    expect((await call(`/bots/${BOT}/voters/${OTHER}`, { headers: { Authorization: KEY } })).status).toBe(410)
    expect((await call(`/bots/${BOT}/voters/${OTHER}`, { headers: { Authorization: 'fresh-key' } })).status).toBe(200)
  })

  it('6: a key regenerated or deleted on the manage page is not revoked: the old key gets 401 "Invalid API key."', async () => {
    const service = await start()
    service.regenerateKey(BOT, 'fresh-key')
    const old = await patch({ command_count: 1 })
    expect(old.json).toEqual({ success: false, error: 'Invalid API key.', status: 401 })
    expect((await patch({ command_count: 1 }, { Authorization: 'fresh-key' })).status).toBe(200)
    service.deleteKey(BOT)
    expect((await patch({ command_count: 1 }, { Authorization: 'fresh-key' })).status).toBe(401)
    expect((await call(`/bots/${BOT}/voters/${OTHER}`, { headers: { Authorization: 'fresh-key' } })).status).toBe(401)
  })

  it('8: an internal answer without a count makes the comparison NaN, and any server count in range is accepted', async () => {
    const service = await start([{ servers: 100, realServerCount: 100, serverCountUnknown: true }])
    expect((await patch({ server_count: 9_000 })).status).toBe(200)
    expect(service.bot(BOT).servers).toBe(9_000)
  })

  it("the limiters' Retry-After is the seconds left in the window, not a constant", async () => {
    let now = Date.now()
    const service = await start([{}], { now: () => now })
    service.spendLimit('record', '127.0.0.1', 10)
    service.spendLimit('votes', BOT, 100)
    now += 45_000
    const record = await call(`/bots/${BOT}`)
    expect([record.status, record.headers.get('retry-after'), record.json.retry_after]).toEqual([429, '15', 15])
    const vote = await call(`/bots/${BOT}/voters/${OTHER}`, { headers: { Authorization: KEY } })
    expect([vote.status, vote.headers.get('retry-after'), vote.json.retry_after]).toEqual([429, '255', 255])
  })

  it('the vote limiter counts every 200, voted or not, and no 401, 404 or 410', async () => {
    const service = await start()
    service.spendLimit('votes', BOT, 98)
    for (let i = 0; i < 3; i++)
      expect((await call(`/bots/${BOT}/voters/${OTHER}`, { headers: { Authorization: 'nope' } })).status).toBe(401)
    expect((await call(`/bots/${BOT}/voters/${OTHER}`, { headers: { Authorization: KEY } })).json.voted).toBe(false)
    expect((await call(`/bots/${BOT}/voters/${OTHER}`, { headers: { Authorization: KEY } })).status).toBe(200)
    expect((await call(`/bots/${BOT}/voters/${OTHER}`, { headers: { Authorization: KEY } })).status).toBe(429)
  })
})

describe('service emulator: every answer', () => {
  it('keeps connections alive (Connection: keep-alive, Keep-Alive: timeout=5)', async () => {
    await start()
    const agent = new http.Agent({ keepAlive: true })
    try {
      const headers = await new Promise<http.IncomingHttpHeaders>((resolve, reject) => {
        http
          .get(`${emulator!.url}/bots/${BOT}`, { agent }, res => {
            res.resume()
            resolve(res.headers)
          })
          .on('error', reject)
      })
      expect(headers.connection).toBe('keep-alive')
      expect(headers['keep-alive']).toBe('timeout=5')
    } finally {
      agent.destroy()
    }
  })
})
