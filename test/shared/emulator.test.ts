/**
 * The emulator is the test double of a real system: one table holds it to each answer of the
 * live service as test/fixtures/service/service-behaviour.md writes them down (each row names
 * its fact: the numbered checks of `PATCH /bots/{id}/stats`, then the record and the vote
 * route), not to the action's assumptions. Every answer is also held to what that document
 * says of every answer, and each JSON answer to the service's OpenAPI document
 * (test/fixtures/service/discord-place-openapi.json).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { ROOT } from '../support/action.js'
import { type BotSeed, LIVE_LIMITS, ServiceEmulator } from '../../scripts/emulator/service.js'
import { BOT, HOUR, KEY, MINUTE } from '../support/inprocess.js'
import { afterTest } from '../support/teardown.js'

const [OTHER, THIRD] = ['223456789012345678', '323456789012345678']
const T0 = Date.parse('2026-11-24T12:00:00Z')
const DAY = 24 * HOUR
const ago = (ms: number): Date => new Date(T0 - ms)

const NEITHER = 'One of the following fields is required: command_count, server_count.'
const COMMANDS = 'Commands count must be between 0 and 1,000.'
const SERVERS = 'Server count must be between 0 and 10 Million.'
const NO_KEY = 'Authorization header is required.'
const INVALID = 'Invalid API key.'
const REVOKED = 'This API key has been revoked.'
const EARLY = 'You can only update stats once every 6 hours.'
const FIFTH =
  'Your API key has been revoked due to spamming the stats API. Please generate a new key from your dashboard.'
const FAR =
  'The server count provided (1101) is too far off from the actual server count. ' +
  'It cannot differ by more than 100 from the actual server count, which is 1000.'
const limiter = (s: number) => ({
  success: false,
  error: 'Too many requests, please try again later.',
  status: 429,
  retry_after: s
})

async function call(url: string, init: RequestInit = {}) {
  const res = await fetch(url, init)
  const text = await res.text()
  const json: any = text.startsWith('{') ? JSON.parse(text) : undefined
  return { status: res.status, json, text, headers: res.headers }
}
type Reply = Awaited<ReturnType<typeof call>>
type Send = (url: string) => Promise<Reply>

/**
 * `PATCH /bots/{bot}/stats` with this body (a string as it is), this key (null: none), and a JSON
 * content type unless told.
 */
const patch =
  (body: unknown, key: string | null = KEY, bot = BOT, json = true): Send =>
  url =>
    call(`${url}/bots/${bot}/stats`, {
      method: 'PATCH',
      headers: {
        ...(json ? { 'Content-Type': 'application/json' } : {}),
        ...(key === null ? {} : { Authorization: key })
      },
      body: typeof body === 'string' ? body : JSON.stringify(body)
    })
const vote =
  (key: string | null = KEY, user = OTHER, bot = BOT): Send =>
  url =>
    call(`${url}/bots/${bot}/voters/${user}`, {
      headers: key === null ? {} : { Authorization: key }
    })
const record =
  (bot = BOT): Send =>
  url =>
    call(`${url}/bots/${bot}`)
const times = async (n: number, send: Send, url: string): Promise<void> => {
  for (let i = 0; i < n; i++) await send(url)
}
const c1 = { command_count: 1 }

interface Setup {
  /**
   * Changes to the test's bot (BOT, KEY, both counts updated 7 hours ago; OTHER beside it, the
   * same).
   */
  bot?: Partial<BotSeed>
  /**
   * Requests already counted in a limiter's window (the bot's; the client's for the record), as by
   * other clients.
   */
  spent?: ['stats' | 'record' | 'votes', number]
  /** What happened before: requests sent, keys changed. */
  before?: (service: ServiceEmulator, url: string) => unknown
  /** How long after all that the request is sent, by the service's clock. */
  later?: number
  /** Headers the answer carries; null: none. */
  headers?: Record<string, string | null>
  text?: RegExp
  /** What the service stored of the bot. */
  stored?: Partial<ReturnType<ServiceEmulator['bot']>>
}

const OK = { success: true }
const NO_VOTE = { voted: false, vote: 0, lastVote: null }
const voter = (at: Date): Partial<BotSeed> => ({ voters: { [OTHER]: { vote: 3, lastVote: at } } })
const remaining = (n: number) => ({ 'ratelimit-remaining': String(n) })
const retryAfter = (n: number) => ({
  'retry-after': String(n),
  'ratelimit-reset': String(n),
  ...remaining(0)
})
/** Nothing stored, no strike. */
const UNTOUCHED = { commands: 0, servers: 0, strikes: [] }
const DISCORD_DOWN: Setup = { bot: { discordDown: true }, stored: UNTOUCHED }
const NO_COUNT: Setup = { bot: { serverCountUnknown: true }, stored: { servers: 9e3 } }
const STRUCK = { ...UNTOUCHED, strikes: [new Date(T0)] }
const FIFTH_DUE = {
  commandsUpdatedAt: ago(MINUTE),
  strikes: [1, 2, 3, 4].map(n => ago(n * MINUTE))
}
const REPLACED: Setup = { bot: { apiKey: 'fresh-key', revokedKeys: [KEY] } }
const REGENERATED: Setup = { before: s => s.regenerateKey(BOT, 'fresh-key') }
const DELETED: Setup = { before: s => s.deleteKey(BOT) }
const LIMITED: Setup = {
  bot: { commandsUpdatedAt: ago(HOUR) },
  spent: ['stats', 2],
  headers: retryAfter(1800),
  stored: UNTOUCHED
}
const UNCOUNTED: Setup = {
  before: (_, url) => times(2, patch(c1, 'nope'), url),
  headers: remaining(2)
}
const HTML_PAGE: Setup = {
  headers: { 'content-type': 'text/html; charset=utf-8' },
  text: /^<!DOCTYPE html>/
}
const EARLY_STRUCK: Setup = {
  bot: { commandsUpdatedAt: ago(HOUR) },
  headers: { 'retry-after': null, ...remaining(2) },
  stored: STRUCK
}
const OLD_STRIKES: Setup = {
  bot: { serversUpdatedAt: ago(HOUR), strikes: [ago(7 * HOUR), ago(MINUTE)] },
  stored: { ...UNTOUCHED, strikes: [ago(MINUTE), new Date(T0)] }
}
const NEW_BOT: Setup = {
  bot: { createdAt: ago(HOUR), commandsUpdatedAt: undefined },
  stored: STRUCK
}
const REVOKED_THEN_NEW: Setup = {
  bot: FIFTH_DUE,
  before: async (service, url) => {
    await patch(c1)(url)
    service.regenerateKey(BOT, 'fresh-key')
  }
}
const UPDATED: Setup = {
  stored: { commands: 7, commandsUpdatedAt: new Date(T0), serversUpdatedAt: ago(7 * HOUR) }
}
const LISTED: Setup = {
  bot: { commands: 12, servers: 1204, commandsUpdatedAt: ago(HOUR), ...voter(ago(HOUR)) }
}
const RECORD = {
  commands: 12,
  servers: 1204,
  commands_updated_at: ago(HOUR).toISOString(),
  servers_updated_at: ago(7 * HOUR).toISOString()
}
const TEN_READS: Setup = {
  before: (_, url) => Promise.all([times(5, record(OTHER), url), times(5, record(), url)]),
  later: 45_000,
  headers: retryAfter(15)
}
const COUNTED_VOTES: Setup = {
  bot: { revokedKeys: ['old'], ...voter(ago(HOUR)) },
  spent: ['votes', 98],
  before: (_, url) => Promise.all([vote('nope'), vote('old'), vote()].map(send => send(url))),
  headers: remaining(0)
}

/**
 * Each answer: the fact, the request, its status, its whole JSON body (a string: the error's text;
 * a RegExp matches it), the setup.
 */
const CASES: [string, Send, number, unknown?, Setup?][] = [
  [
    '1: the limiter first (no key, a bad body, a recent update)',
    patch({ command_count: 5e3 }, null),
    429,
    limiter(1800),
    LIMITED
  ],
  ["1: another bot's window is its own", patch(c1, KEY, OTHER), 200, OK, { spent: ['stats', 2] }],
  ['1: answers of 400 or more not counted', patch(c1, 'nope'), 401, INVALID, UNCOUNTED],
  [
    '1: a 200 counted, a 6-hour refusal not',
    patch(c1),
    429,
    EARLY,
    { before: (_, url) => patch(c1)(url), headers: remaining(1) }
  ],
  ['2: neither count', patch({}), 400, NEITHER],
  ['2: an array has no fields', patch([1]), 400, NEITHER],
  [
    '2: JSON without a JSON content type has no fields',
    patch('{"command_count":1}', KEY, BOT, false),
    400,
    NEITHER
  ],
  ['2: a fractional command count', patch({ command_count: 12.5 }), 400, COMMANDS],
  ['2: 1001 commands', patch({ command_count: 1001 }), 400, COMMANDS],
  ['2: -1 servers', patch({ server_count: -1 }), 400, SERVERS],
  ['2: 10,000,001 servers', patch({ server_count: 10_000_001 }), 400, SERVERS],
  [
    '2: a count as digits is taken, other fields ignored',
    patch({ command_count: '12', x: 1 }),
    200,
    OK,
    { stored: { commands: 12 } }
  ],
  ['2: malformed JSON: an HTML page', patch('{"command_count": 1'), 400, undefined, HTML_PAGE],
  ['2 before 3: a bad body without a key', patch({ command_count: 5000 }, null), 400, COMMANDS],
  ['3: no Authorization', patch(c1, null), 401, NO_KEY],
  ['4: an unknown bot', patch(c1, KEY, THIRD), 404, 'Bot not found.'],
  ['6: a wrong key', patch(c1, 'nope'), 401, INVALID],
  ['6: Bearer and the key', patch(c1, `Bearer ${KEY}`), 401, INVALID],
  [
    '6: a key regenerated on the manage page: 401, not revoked',
    patch(c1),
    401,
    INVALID,
    REGENERATED
  ],
  ['6: the regenerated key', patch(c1, 'fresh-key'), 200, OK, REGENERATED],
  ['6: a key deleted on the manage page', patch(c1), 401, INVALID, DELETED],
  [
    '7: within 6 hours: no Retry-After, a strike, nothing stored',
    patch(c1),
    429,
    EARLY,
    EARLY_STRUCK
  ],
  [
    '7: either count within 6 hours refuses all; older strikes dropped',
    patch(c1),
    429,
    EARLY,
    OLD_STRIKES
  ],
  [
    "7: a new bot's creation is its command count's update time",
    patch({ server_count: 0 }),
    429,
    EARLY,
    NEW_BOT
  ],
  [
    '7: the fifth strike revokes the key: the bot has none',
    patch(c1),
    410,
    FIFTH,
    { bot: FIFTH_DUE, stored: { apiKey: undefined } }
  ],
  [
    '5: a revoked key, even after a new one was generated',
    patch(c1),
    410,
    REVOKED,
    REVOKED_THEN_NEW
  ],
  [
    '8: past max(50, 10%): nothing stored',
    patch({ server_count: 1101 }),
    400,
    FAR,
    { bot: { realServerCount: 1e3 }, stored: UNTOUCHED }
  ],
  ['8: 10% off', patch({ server_count: 1100 }), 200, OK, { bot: { realServerCount: 1000 } }],
  [
    '8: 51 off a small count',
    patch({ server_count: 151 }),
    400,
    /more than 50 from .* which is 100\.$/,
    { bot: { realServerCount: 100 } }
  ],
  [
    '8: 50 off a small count',
    patch({ server_count: 150 }),
    200,
    OK,
    { bot: { realServerCount: 100 } }
  ],
  [
    '8: no count from Discord',
    patch({ server_count: 5 }),
    500,
    'Could not fetch server count.',
    DISCORD_DOWN
  ],
  [
    '8: no count in the internal answer: any passes',
    patch({ server_count: 9e3 }),
    200,
    OK,
    NO_COUNT
  ],
  ['9: each count sent gets its own update time', patch({ command_count: 7 }), 200, OK, UPDATED],
  [
    'record: without a key',
    record(),
    200,
    expect.objectContaining({ ...RECORD, votes: 3, verified: true }),
    LISTED
  ],
  [
    'record: not verified yet',
    record(),
    403,
    'This bot is not verified yet.',
    { bot: { verified: false } }
  ],
  ['record: an unknown bot', record(THIRD), 404, 'Bot not found.'],
  [
    'record: 10 per minute per client IP, across bots; Retry-After: the seconds left',
    record(),
    429,
    limiter(15),
    TEN_READS
  ],
  [
    'votes: a vote less than 24 hours old',
    vote(),
    200,
    { voted: true, vote: 3, lastVote: T0 - DAY + 1 },
    { bot: voter(ago(DAY - 1)) }
  ],
  [
    'votes: a vote 24 hours old',
    vote(),
    200,
    { voted: false, vote: 3, lastVote: T0 - DAY },
    { bot: voter(ago(DAY)) }
  ],
  ['votes: never voted', vote(KEY, THIRD), 200, NO_VOTE],
  ['votes: not a user ID', vote(KEY, 'not-an-id'), 200, NO_VOTE],
  ['votes: no Authorization', vote(null), 401, NO_KEY],
  ['votes: a wrong key', vote('nope'), 401, INVALID],
  ['votes: an unknown bot', vote(KEY, OTHER, THIRD), 404, 'Bot not found.'],
  ['votes: a key revoked for strikes', vote(), 410, REVOKED, REPLACED],
  ['votes: the new key after a revoked one', vote('fresh-key'), 200, NO_VOTE, REPLACED],
  ['votes: a deleted key', vote(), 401, INVALID, DELETED],
  [
    'votes: 100 per 5 minutes per bot; Retry-After: the seconds left',
    vote(),
    429,
    limiter(255),
    { spent: ['votes', 100], later: 45_000 }
  ],
  [
    'votes: every 200 counted, voted or not; no 401 or 410',
    vote(KEY, THIRD),
    200,
    NO_VOTE,
    COUNTED_VOTES
  ]
]

const spec = JSON.parse(
  readFileSync(join(ROOT, 'test/fixtures/service/discord-place-openapi.json'), 'utf8')
)
const resolve = (node: any, kind: string): any =>
  node?.$ref ? spec.components[kind][node.$ref.split('/').pop()] : node

/** Holds a JSON answer to its schema in the OpenAPI document, when the document has one. */
function conforms(path: string, method: string, reply: Reply): void {
  const response = resolve(spec.paths[path]?.[method]?.responses[String(reply.status)], 'responses')
  const schema = resolve(response?.content?.['application/json']?.schema, 'schemas')
  if (schema === undefined) return
  for (const header of Object.keys(response.headers ?? {}))
    expect(reply.headers.get(header), header).not.toBeNull()
  for (const field of schema.required ?? []) expect(reply.json, field).toHaveProperty(field)
  for (const [field, { type }] of Object.entries<{ type?: string | string[] }>(
    schema.properties ?? {}
  )) {
    if (!(field in reply.json)) continue
    const value = reply.json[field]
    let actual: string = typeof value
    if (value === null) actual = 'null'
    else if (Number.isInteger(value)) actual = 'integer'
    const types = ([] as string[]).concat(type ?? [])
    expect(
      types.includes(actual) || (actual === 'integer' && types.includes('number')),
      `${field}: ${actual}`
    ).toBe(true)
  }
}

it.each(CASES)('%s', async (_, send, status, json, setup = {}) => {
  let now = T0
  const seed = { apiKey: KEY, commandsUpdatedAt: ago(7 * HOUR), serversUpdatedAt: ago(7 * HOUR) }
  const bots = [
    { ...seed, id: BOT, ...setup.bot },
    { ...seed, id: OTHER }
  ]
  const service = await ServiceEmulator.start({ now: () => now, bots })
  afterTest(() => service.close())
  if (setup.spent)
    service.spendLimit(
      setup.spent[0],
      setup.spent[0] === 'record' ? '127.0.0.1' : BOT,
      setup.spent[1]
    )
  await setup.before?.(service, service.url)
  now += setup.later ?? 0
  const reply = await send(service.url)

  expect(reply.status).toBe(status)
  if (typeof json === 'string') expect(reply.json).toEqual({ success: false, error: json, status })
  else if (json instanceof RegExp) expect(reply.json.error).toMatch(json)
  else if (json !== undefined) expect(reply.json).toEqual(json)
  for (const [name, value] of Object.entries(setup.headers ?? {}))
    expect(reply.headers.get(name), name).toBe(value)
  if (setup.text) expect(reply.text).toMatch(setup.text)
  if (setup.stored) expect(service.bot(BOT)).toMatchObject(setup.stored)

  // Every answer: the request limiter's RateLimit-* set, the service's own clock, and keep-alive.
  const route = service.requests.at(-1)!.route as keyof typeof LIVE_LIMITS
  const { limit, windowMs } = LIVE_LIMITS[route]
  expect(reply.headers.get('ratelimit-limit')).toBe(String(limit))
  expect(reply.headers.get('ratelimit-policy')).toBe(`${limit};w=${windowMs / 1000}`)
  for (const name of ['ratelimit-remaining', 'ratelimit-reset'])
    expect(reply.headers.get(name), name).toMatch(/^\d+$/)
  const { date, connection, 'keep-alive': keepAlive } = Object.fromEntries(reply.headers)
  expect({ date, connection, keepAlive }).toEqual({
    date: new Date(now).toUTCString(),
    connection: 'keep-alive',
    keepAlive: 'timeout=5'
  })
  const path = {
    stats: '/bots/{id}/stats',
    votes: '/bots/{id}/voters/{user_id}',
    record: '/bots/{id}'
  }[route]
  if (reply.json !== undefined) conforms(path, route === 'stats' ? 'patch' : 'get', reply)
})
