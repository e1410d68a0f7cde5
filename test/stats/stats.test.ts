import type { IncomingHttpHeaders } from 'node:http'
import { describe, expect, it } from 'vitest'
import { type HttpAnswer, NetworkError, retryAfterMs } from '../../src/http/transport.js'
import { serviceMessage } from '../../src/service.js'
import { answerFromStatusLine, explainFailure, failureHeadline, kindOf429, strikeMessage } from '../../src/stats/answers.js'
import { interpretRecord } from '../../src/stats/record.js'
import { cooldownEnds, type PublicRecord } from '../../src/stats/window.js'
import type { StatsBody } from '../../src/stats/update.js'

const HOUR = 60 * 60 * 1000
const BOT_ID = '123456789012345678'

/** An answer as the HTTP helper returns it, with `json` parsed the way it does. */
function answer(status: number, text: string, headers: IncomingHttpHeaders = {}): HttpAnswer {
  let json: unknown
  try {
    json = /^\s*[[{]/.test(text) ? JSON.parse(text) : undefined
  } catch {
    json = undefined
  }
  return { status, headers, text, truncated: false, json }
}

function jsonAnswer(status: number, body: unknown, headers: IncomingHttpHeaders = {}): HttpAnswer {
  return answer(status, JSON.stringify(body), { 'content-type': 'application/json; charset=utf-8', ...headers })
}

/** The live service's error shape (OpenAPI `ErrorResponse`). */
function serviceError(status: number, error: string): HttpAnswer {
  return jsonAnswer(status, { success: false, error, status })
}

const HTML_PAGE =
  '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head>' +
  '<body><center><h1>502 Bad Gateway</h1></center><hr><center>cloudflare</center></body></html>'

describe('interpretRecord', () => {
  it('reads a 200 record with ISO 8601 dates', () => {
    const read = interpretRecord(
      jsonAnswer(200, {
        id: BOT_ID,
        commands: 12,
        servers: 1204,
        commands_updated_at: '2025-03-01T10:00:00.000Z',
        servers_updated_at: '2025-03-01T12:30:00Z'
      })
    )
    expect(read).toEqual({
      ok: true,
      status: 200,
      record: {
        commands: 12,
        servers: 1204,
        commandsUpdatedAt: new Date(Date.UTC(2025, 2, 1, 10, 0)),
        serversUpdatedAt: new Date(Date.UTC(2025, 2, 1, 12, 30))
      }
    })
  })

  it('reads dates given as epoch milliseconds', () => {
    const read = interpretRecord(
      jsonAnswer(200, { commands: 0, servers: 5, commands_updated_at: 1740823200000, servers_updated_at: 1740832200000 })
    )
    expect(read.ok).toBe(true)
    if (!read.ok) return
    expect(read.record.commandsUpdatedAt?.toISOString()).toBe('2025-03-01T10:00:00.000Z')
    expect(read.record.serversUpdatedAt?.toISOString()).toBe('2025-03-01T12:30:00.000Z')
    expect(read.record.commands).toBe(0)
  })

  it('reads a record where only one count was ever updated', () => {
    const read = interpretRecord(jsonAnswer(200, { servers: 1204, servers_updated_at: '2025-03-01T12:30:00Z' }))
    expect(read.ok).toBe(true)
    if (!read.ok) return
    expect(read.record.commandsUpdatedAt).toBeUndefined()
    expect(read.record.serversUpdatedAt?.toISOString()).toBe('2025-03-01T12:30:00.000Z')
  })

  it.each([
    ['no date fields', { commands: 12, servers: 1204 }],
    ['null dates', { commands: 12, servers: 1204, commands_updated_at: null, servers_updated_at: null }],
    ['unreadable dates', { commands_updated_at: 'yesterday', servers_updated_at: 'soon' }],
    ['dates of the wrong type', { commands_updated_at: true, servers_updated_at: {} }]
  ])('is not ok with %s', (_label, body) => {
    const read = interpretRecord(jsonAnswer(200, body))
    expect(read.ok).toBe(false)
    if (read.ok) return
    expect(read.status).toBe(200)
    expect(read.reason.length).toBeGreaterThan(0)
  })

  it.each([
    ['the year 2100', '2100-01-01T00:00:00Z'],
    ['the largest date there is', '+275760-09-13T00:00:00.000Z'],
    ['two hours ahead of the runner', new Date(Date.parse('2026-11-23T12:00:00Z') + 2 * 3_600_000).toISOString()]
  ])('is not ok with an update time in the future (%s): it would hold every update back until then', (_label, time) => {
    const now = Date.parse('2026-11-23T12:00:00Z')
    const read = interpretRecord(
      jsonAnswer(200, { commands: 1, commands_updated_at: '2026-11-23T05:00:00Z', servers_updated_at: time }),
      now
    )
    expect(read.ok).toBe(false)
    if (read.ok) return
    expect(read.reason).toMatch(/later than the runner's clock/)
  })

  it('accepts an update time a little ahead of the runner, as clocks differ', () => {
    const now = Date.parse('2026-11-23T12:00:00Z')
    expect(interpretRecord(jsonAnswer(200, { servers_updated_at: '2026-11-23T12:05:00Z' }), now).ok).toBe(true)
  })

  it.each([
    [403, /verif/i],
    [404, /404/],
    [429, /429/],
    [500, /500/],
    [503, /503/]
  ])('is not ok for %d, with a reason', (status, reason) => {
    const read = interpretRecord(serviceError(status, 'whatever the service says'))
    expect(read.ok).toBe(false)
    if (read.ok) return
    expect(read.status).toBe(status)
    expect(read.reason).toMatch(reason)
  })

  it.each([
    ['an array', answer(200, '[1,2,3]')],
    ['a number', { ...answer(200, '42'), json: 42 }],
    ['a string', { ...answer(200, '"bot"'), json: 'bot' }],
    ['null', { ...answer(200, 'null'), json: null }],
    ['an HTML page', answer(200, HTML_PAGE, { 'content-type': 'text/html' })],
    ['an empty body', answer(200, '')]
  ])('is not ok when the 200 body is %s', (_label, got) => {
    const read = interpretRecord(got)
    expect(read.ok).toBe(false)
    if (read.ok) return
    expect(read.status).toBe(200)
    expect(read.reason.length).toBeGreaterThan(0)
  })
})

describe('cooldownEnds', () => {
  const record = (commandsAt?: string, serversAt?: string): PublicRecord => ({
    username: undefined,
    commands: 12,
    servers: 1204,
    commandsUpdatedAt: commandsAt === undefined ? undefined : new Date(commandsAt),
    serversUpdatedAt: serversAt === undefined ? undefined : new Date(serversAt)
  })

  it.each([
    ['servers updated last', '2025-03-01T10:00:00Z', '2025-03-01T12:30:00Z', '2025-03-01T18:30:00.000Z'],
    ['commands updated last', '2025-03-01T23:15:00Z', '2025-03-01T12:30:00Z', '2025-03-02T05:15:00.000Z'],
    ['both at once', '2025-03-01T10:00:00Z', '2025-03-01T10:00:00Z', '2025-03-01T16:00:00.000Z'],
    ['only commands', '2025-03-01T10:00:00Z', undefined, '2025-03-01T16:00:00.000Z'],
    ['only servers', undefined, '2025-03-01T12:30:00Z', '2025-03-01T18:30:00.000Z']
  ])('is 6 hours after the latest update (%s)', (_label, commandsAt, serversAt, expected) => {
    expect(cooldownEnds(record(commandsAt, serversAt))?.toISOString()).toBe(expected)
  })

  it('is exactly 6 hours after the update', () => {
    const at = new Date('2025-03-01T10:00:00Z')
    expect(cooldownEnds(record(at.toISOString()))?.getTime()).toBe(at.getTime() + 6 * HOUR)
  })

  it('is unknown without update times', () => {
    expect(cooldownEnds(record())).toBeUndefined()
  })
})

describe('retryAfterMs', () => {
  const tooMany = (body: Record<string, unknown>, headers: IncomingHttpHeaders = {}): HttpAnswer =>
    jsonAnswer(429, { success: false, error: 'Too many requests, please try again later.', status: 429, ...body }, headers)

  it.each([
    ['retry_after in the body', tooMany({ retry_after: 60 }), 60_000],
    ['a fractional retry_after', tooMany({ retry_after: 1.5 }), 1_500],
    ['retry_after 0', tooMany({ retry_after: 0 }), 0],
    ['a Retry-After header', tooMany({}, { 'retry-after': '120' }), 120_000],
    ['a RateLimit-Reset header', tooMany({}, { 'ratelimit-reset': '30' }), 30_000],
    ['an absurd retry_after: capped at a day', tooMany({ retry_after: 1e20 }), 86_400_000],
    ['all three: the body wins', tooMany({ retry_after: 60 }, { 'retry-after': '120', 'ratelimit-reset': '30' }), 60_000],
    ['both headers: Retry-After wins', tooMany({}, { 'retry-after': '120', 'ratelimit-reset': '30' }), 120_000],
    ['an unusable retry_after: the headers are used', tooMany({ retry_after: 'soon' }, { 'retry-after': '120' }), 120_000],
    ['a negative retry_after: the headers are used', tooMany({ retry_after: -5 }, { 'ratelimit-reset': '30' }), 30_000],
    ['an unusable Retry-After: RateLimit-Reset is used', tooMany({}, { 'retry-after': 'later', 'ratelimit-reset': '30' }), 30_000],
    ['a non-JSON 429 with Retry-After', answer(429, 'Too Many Requests', { 'retry-after': '7' }), 7_000]
  ])('takes %s', (_label, got, ms) => {
    expect(retryAfterMs(got)).toBe(ms)
  })

  it.each([
    ['no hint at all', tooMany({})],
    ['a non-JSON 429 without headers', answer(429, 'Too Many Requests')],
    ['only unusable hints', tooMany({ retry_after: null }, { 'retry-after': 'later', 'ratelimit-reset': '-1' })]
  ])('is unknown with %s', (_label, got) => {
    expect(retryAfterMs(got)).toBeUndefined()
  })

  it.each([
    [
      'a 503 with only RateLimit-Reset: a backoff, not the window',
      answer(503, '', { 'ratelimit-remaining': '9', 'ratelimit-reset': '1800' }),
      undefined
    ],
    ['a 503 with Retry-After', answer(503, '', { 'retry-after': '5', 'ratelimit-reset': '1800' }), 5_000],
    [
      'a 200 with RateLimit-Remaining: 0: the limiter is spent',
      answer(200, '', { 'ratelimit-remaining': '0', 'ratelimit-reset': '30' }),
      30_000
    ]
  ])('reads RateLimit-Reset only when the limiter is spent: %s', (_label, got, ms) => {
    expect(retryAfterMs(got)).toBe(ms)
  })
})

describe('kindOf429 (service-behaviour.md: the two 429s of PATCH /bots/{id}/stats)', () => {
  const limiterHeaders = { 'ratelimit-limit': '2', 'ratelimit-remaining': '0', 'ratelimit-reset': '1500' }

  it('the request limiter: Retry-After, retry_after and "Too many requests"', () => {
    const body = { success: false, error: 'Too many requests, please try again later.', status: 429, retry_after: 1500 }
    expect(kindOf429(jsonAnswer(429, body, { ...limiterHeaders, 'retry-after': '1500' }))).toBe('limiter')
    expect(kindOf429(answer(429, '', { 'retry-after': '1500' }))).toBe('limiter')
    expect(kindOf429(serviceError(429, 'Too many requests, please try again later.'))).toBe('limiter')
  })

  it('the 6-hour rule: no Retry-After, no retry_after, only the limiter RateLimit-* headers', () => {
    expect(
      kindOf429(jsonAnswer(429, { success: false, error: 'You can only update stats once every 6 hours.', status: 429 }, limiterHeaders))
    ).toBe('six-hours')
    // A cut-off answer without Retry-After: taken as the rule that costs a strike.
    expect(kindOf429(answer(429, ''))).toBe('six-hours')
  })

  it('the request limiter by its retry_after alone (no Retry-After header, another text)', () => {
    expect(kindOf429(jsonAnswer(429, { success: false, error: 'Slow down.', status: 429, retry_after: 60 }))).toBe('limiter')
  })
})

describe('answerFromStatusLine (a received status line is an answer, interface.md)', () => {
  it('is the status and headers that arrived, with no body to read', () => {
    const headers = { 'content-type': 'application/json' }
    const cut = new NetworkError('the connection failed (ECONNRESET)', 'ECONNRESET', true, { status: 200, headers })
    expect(answerFromStatusLine(cut)).toEqual({ status: 200, headers, text: '', truncated: true, json: undefined })
    // Nothing to describe: the service's words were cut off with the body.
    expect(serviceMessage(answerFromStatusLine(cut)!)).toBeUndefined()
  })

  it('is no answer when no status line came back', () => {
    expect(answerFromStatusLine(new NetworkError('the connection failed (ECONNRESET)', 'ECONNRESET', true))).toBeUndefined()
  })
})

describe('serviceMessage', () => {
  it.each([
    ['Invalid API key.', 401],
    ['Bot not found.', 404],
    ['Your API key has been revoked due to spamming the stats API. Please generate a new key from your dashboard.', 410],
    ['You can only update stats once every 6 hours.', 429]
  ])('is the service\'s error text "%s"', (text, status) => {
    expect(serviceMessage(serviceError(status, text))).toBe(text)
  })

  it('keeps a multi-line error text on one line', () => {
    const got = serviceMessage(serviceError(400, 'Server count is off.\nExpected about 1204.'))
    expect(got).toContain('Server count is off.')
    expect(got).toContain('Expected about 1204.')
    expect(got).not.toMatch(/[\r\n]/)
  })

  it('clips a long error text to about 300 characters', () => {
    const long = `${'The service rambles on. '.repeat(60)}END`
    const got = serviceMessage(serviceError(500, long))
    expect(got).toBeDefined()
    expect(got?.startsWith('The service rambles on.')).toBe(true)
    expect(got?.length).toBeGreaterThanOrEqual(280)
    expect(got?.length).toBeLessThanOrEqual(310)
    expect(got).not.toContain('END')
  })

  it('describes an HTML page in a few words, without the page', () => {
    const got = serviceMessage(answer(502, HTML_PAGE, { 'content-type': 'text/html; charset=utf-8' }))
    expect(got).toBe(`a non-JSON answer (text/html, ${Buffer.byteLength(HTML_PAGE)} bytes)`)
    expect(got).not.toMatch(/[<>]/)
    expect(got).not.toContain('Bad Gateway')
  })

  it('counts bytes, not characters, of a non-JSON answer', () => {
    const text = 'Fehler: Überlastung'
    expect(serviceMessage(answer(503, text, { 'content-type': 'text/plain' }))).toBe(
      `a non-JSON answer (text/plain, ${Buffer.byteLength(text)} bytes)`
    )
  })

  it('does not dump a truncated HTML page either', () => {
    const got = serviceMessage({ ...answer(502, HTML_PAGE, { 'content-type': 'text/html' }), truncated: true })
    expect(got).toMatch(/non-JSON answer \(text\/html/)
    expect(got).not.toMatch(/[<>]/)
  })

  it.each([
    ['the success answer', jsonAnswer(200, { success: true })],
    ['an empty body', answer(500, '')],
    ['JSON with an empty error', jsonAnswer(500, { success: false, error: '  ', status: 500 })],
    ['JSON with a non-string error', jsonAnswer(500, { success: false, error: { code: 1 }, status: 500 })]
  ])('is undefined for %s', (_label, got) => {
    expect(serviceMessage(got)).toBeUndefined()
  })
})

describe('explainFailure', () => {
  const plan = (body: StatsBody): { botId: string; body: StatsBody } => ({ botId: BOT_ID, body })
  const explain = (got: HttpAnswer, body: StatsBody): string => explainFailure(got, serviceMessage(got), plan(body))

  const TOLERANCE = 'max(50, 10%)'

  describe.each([
    [400, 'Server count is too far from the actual server count.', { server_count: 99999 }],
    [400, 'Commands count must be between 0 and 1,000.', { command_count: 12 }],
    [401, 'Invalid API key.', { command_count: 12 }],
    [404, 'Bot not found.', { command_count: 12 }],
    [
      410,
      'Your API key has been revoked due to spamming the stats API. Please generate a new key from your dashboard.',
      { command_count: 12 }
    ],
    [500, 'Could not fetch server count.', { server_count: 1260 }]
  ])('for %d', (status, text, body) => {
    const message = explain(serviceError(status, text), body)

    it('names the status and quotes the service', () => {
      expect(message).toContain(String(status))
      expect(message).toContain(`"${text}"`)
    })

    it('is one line', () => {
      expect(message).not.toMatch(/[\r\n]/)
    })
  })

  it('400 on the server count explains the tolerance', () => {
    const message = explain(serviceError(400, 'Server count is too far from the actual server count.'), { server_count: 99999 })
    expect(message).toContain(TOLERANCE)
  })

  it('400 on the server count explains the tolerance even without a JSON body', () => {
    const message = explain(answer(400, 'Bad Request', { 'content-type': 'text/plain' }), { server_count: 99999 })
    expect(message).toContain(TOLERANCE)
  })

  it.each([
    ['only a command count was sent', { command_count: 1001 }],
    ['both counts were sent', { command_count: 1001, server_count: 1260 }]
  ])('400 on the command count does not talk about the server tolerance (%s)', (_label, body) => {
    const message = explain(serviceError(400, 'Commands count must be between 0 and 1,000.'), body)
    expect(message).not.toContain(TOLERANCE)
    expect(message).not.toMatch(/tolerance|within max/i)
    expect(message).toMatch(/command-count/)
  })

  it('401 points at the api-key secret', () => {
    const message = explain(serviceError(401, 'Invalid API key.'), { command_count: 12 })
    expect(message).toMatch(/api-key/)
    expect(message).toMatch(/secret/)
  })

  it('404 points at bot-id', () => {
    const message = explain(serviceError(404, 'Bot not found.'), { command_count: 12 })
    expect(message).toMatch(/bot-id/)
    expect(message).toContain(BOT_ID)
  })

  it('410 says to generate a new key and respect the 6 hours', () => {
    const message = explain(
      serviceError(410, 'Your API key has been revoked due to spamming the stats API. Please generate a new key from your dashboard.'),
      { command_count: 12 }
    )
    expect(message).toMatch(/revoked/i)
    expect(message).toMatch(/generate a new (API )?key on the bot's manage page/i)
    expect(message).toMatch(/6 hours/)
  })

  it('500 says the fault is on the service side', () => {
    const message = explain(serviceError(500, 'Could not fetch server count.'), { server_count: 1260 })
    expect(message).toMatch(/service/)
    expect(message).not.toContain(TOLERANCE)
    expect(message).not.toMatch(/api-key|bot-id/)
  })

  it('without any text from the service, names the status alone', () => {
    expect(explain(answer(502, ''), { command_count: 12 })).toMatch(/^Stats update failed: the service answered 502\. The service failed/)
  })

  it("400 to a command count alone, without the service's words: the ranges of both inputs, not the server tolerance", () => {
    const message = explain(answer(400, '<html><body>Bad Request</body></html>', { 'content-type': 'text/html' }), { command_count: 12 })
    expect(message).not.toContain(TOLERANCE)
    expect(message).toMatch(/Check command-count \(0 to 1000\) and server-count \(0 to 10000000\)\.$/)
  })

  it('400 on the server count says what to send instead, naming discord-token, and that nothing was stored', () => {
    const message = explain(serviceError(400, 'The server count provided (99999) is too far off.'), { server_count: 99999 })
    expect(message).toMatch(/refuses the whole update: nothing was stored\. /)
    expect(message).toMatch(
      /Send the count your bot sees \(its guild cache\), or leave server-count out and set discord-token to read it from Discord\.$/
    )
  })

  it('400 on the server count with a command count beside it: the command count was not stored either', () => {
    const message = explain(serviceError(400, 'The server count provided (99999) is too far off.'), {
      command_count: 12,
      server_count: 99999
    })
    expect(message).toMatch(/nothing was stored, the command count neither\./)
  })

  it.each([300, 301, 308, 399])('a redirect (%d) is not followed, and base-url should be the service itself', status => {
    const message = explain(answer(status, ''), { command_count: 12 })
    expect(message).toMatch(/A redirect is not followed: a request carrying the API key never goes to another address\./)
    expect(message).toMatch(/Set base-url to the service's own address\.$/)
  })

  it('a 5xx: nothing to change, not repeated, the next run tries again', () => {
    const message = explain(answer(503, ''), { command_count: 12 })
    expect(message).toMatch(/nothing in the workflow needs to change/)
    expect(message).toMatch(/The update was not repeated \(a second update could count as an early one\); the next run will try again\.$/)
  })

  it.each([403, 405, 413, 422])('an answer the service does not give (%d): not expected, not repeated, check base-url', status => {
    const message = explain(answer(status, '<html>Forbidden</html>', { 'content-type': 'text/html' }), { command_count: 12 })
    expect(message).toMatch(/This answer was not expected; the update was not repeated\. Check base-url and the service status\.$/)
    expect(message).not.toMatch(/on its side|redirect/)
  })

  it('an HTML error page gives a short message without the page', () => {
    const got = answer(502, HTML_PAGE, { 'content-type': 'text/html' })
    const message = explain(got, { command_count: 12 })
    expect(message).toContain('502')
    expect(message).toContain('non-JSON answer (text/html')
    expect(message).not.toMatch(/[<>]/)
    expect(message.length).toBeLessThan(500)
  })
})

describe('failureHeadline: the few words of a failed update', () => {
  it.each([
    [400, 'count refused by discord.place'],
    [401, 'API key refused'],
    [404, 'bot not listed on discord.place'],
    [410, 'API key revoked (strikes)'],
    [300, 'redirect not followed'],
    [308, 'redirect not followed'],
    [399, 'redirect not followed'],
    [500, 'discord.place failed on its side'],
    [503, 'discord.place failed on its side'],
    [299, 'unexpected answer (299)'],
    [400 + 18, 'unexpected answer (418)'],
    [499, 'unexpected answer (499)']
  ])('%d: %s', (status, words) => {
    expect(failureHeadline(status)).toBe(words)
  })
})

describe('strikeMessage: the strike, its cause and what to do', () => {
  const at = new Date('2026-11-25T12:00:00Z')
  const base = { answer: 'You can only update stats once every 6 hours.', overlap: undefined, nextUpdateAt: undefined, at }

  it('names the strike and the five-strike rule, quoting the service; an unknown next update says so', () => {
    const message = strikeMessage({ ...base, strikeCause: 'unknown' }, BOT_ID)
    expect(message).toMatch(
      /^Stats update refused as too early \(429: "You can only update stats once every 6 hours\."\): the service counted a strike against the API key, and 5 strikes within 6 hours revoke it\. /
    )
    expect(message).toMatch(/ When the next update is accepted is unknown\. The update was not retried\.$/)
  })

  it('without the service’s words, no empty quote', () => {
    expect(strikeMessage({ ...base, answer: undefined, strikeCause: 'unknown' }, BOT_ID)).toMatch(
      /^Stats update refused as too early \(429\): /
    )
  })

  it.each([
    [
      'unverified',
      /Likely cause: discord\.place has not verified the bot yet, and its submission counts as an update, so any update within 6 hours of submitting it is refused\. Keep cooldown-check: true, which holds updates until the bot is verified\./
    ],
    [
      'unchecked',
      /Likely cause: it was sent without reading the record first \(cooldown-check: false\), less than 6 hours after the last update \(or after the bot was submitted, if it is not verified yet\)\. Keep cooldown-check: true\./
    ],
    [
      'unknown',
      new RegExp(
        `Likely cause: overlapping runs, or an update from elsewhere .* one concurrency group \\(concurrency: group: discord-place-stats-${BOT_ID}, cancel-in-progress: false\\)\\.`
      )
    ]
  ] as const)('the cause %s', (cause, words) => {
    expect(strikeMessage({ ...base, strikeCause: cause }, BOT_ID)).toMatch(words)
  })

  it('overlap: when the other run updated, in UTC, and the group to share', () => {
    const message = strikeMessage({ ...base, strikeCause: 'overlap', overlap: new Date('2026-11-25T11:59:00Z') }, BOT_ID)
    expect(message).toContain(
      "Likely cause: overlapping runs. Another run updated the counts at 11:59 UTC, after this run read the bot's record"
    )
  })

  it('the next update, the workflow finding and a stop, each in its place', () => {
    const message = strikeMessage(
      { ...base, strikeCause: 'unknown', nextUpdateAt: new Date('2026-11-25T17:00:00Z') },
      BOT_ID,
      'The step was stopped by SIGTERM (a cancelled workflow or a time limit).',
      'The workflow that ran this step (w.yml, job stats) shows why: x.'
    )
    expect(message).toMatch(
      / The workflow that ran this step \(w\.yml, job stats\) shows why: x\. The next update is accepted from 17:00 UTC, 5 h after this run\. The update was not retried\. The step was stopped by SIGTERM \(a cancelled workflow or a time limit\)\. It came while the bot's record was read again, after the refusal\.$/
    )
  })
})
