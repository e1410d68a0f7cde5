/**
 * End to end: vote-check mode of the bundled action against the service emulator: its outputs,
 * summary and failures as a workflow sees them. Retries and pacing are checked in process (test/votes/votes.test.ts).
 */
import { describe, expect, it } from 'vitest'
import { findLeaks, NODES, RUNTIME_NODE, type RunResult, runAction, errorsOf } from '../support/action.js'
import { type EmulatorOptions, ServiceEmulator } from '../support/emulator.js'
import { afterTest } from '../support/teardown.js'

const BOT = '123456789012345678'
const KEY = 'dp_vote-check-key_9z8y7x'
const HOUR = 3_600_000
const [ALICE, BOB, CAROL] = ['223456789012345678', '323456789012345678', '423456789012345678']

async function start(options: EmulatorOptions = {}): Promise<ServiceEmulator> {
  const now = Date.now()
  const emulator = await ServiceEmulator.start({
    bots: [
      {
        id: BOT,
        apiKey: KEY,
        voters: {
          [ALICE]: { vote: 3, lastVote: new Date(now - HOUR) },
          [BOB]: { vote: 1, lastVote: new Date(now - 30 * HOUR) },
          [CAROL]: { vote: 7, lastVote: new Date(now - 2 * HOUR) }
        }
      }
    ],
    ...options
  })
  afterTest(() => emulator.close())
  return emulator
}

async function check(node: string, service: ServiceEmulator, inputs: Record<string, string>, timeoutMs?: number): Promise<RunResult> {
  const result = await runAction({
    node,
    inputs: { 'bot-id': BOT, 'api-key': KEY, mode: 'vote-check', 'base-url': service.url, ...inputs },
    timeoutMs
  })
  expect(findLeaks(result, [KEY])).toEqual([])
  expect(service.received('stats')).toEqual([])
  expect(service.received('record')).toEqual([])
  return result
}

const votes = (result: RunResult): unknown => JSON.parse(result.outputs['votes'] ?? 'null')

describe.concurrent.each(NODES)('vote check on $name', ({ path: node }) => {
  it('reports mixed results from the live service style (200 JSON)', async () => {
    const service = await start()
    const result = await check(node, service, { 'user-id': `${ALICE}, ${BOB}\n${ALICE}` })
    expect(result.code).toBe(0)
    expect(service.received('votes').map(r => r.path)).toEqual([`/bots/${BOT}/voters/${ALICE}`, `/bots/${BOT}/voters/${BOB}`])
    for (const request of service.received('votes')) expect(request.headers.authorization).toBe(KEY)
    const lastVote = service.bot(BOT).voters[ALICE]!.lastVote!.toISOString()
    expect(result.outputs).toMatchObject({ result: 'not-voted', voted: 'false', status: '200' })
    expect(votes(result)).toEqual({
      [ALICE]: { voted: true, votes: 3, last_vote: lastVote },
      [BOB]: { voted: false, votes: 1, last_vote: service.bot(BOT).voters[BOB]!.lastVote!.toISOString() }
    })
    expect(result.outputs['last-vote']).toBeUndefined()
    expect(result.summary).toMatch(new RegExp(`^<h3>⭕ Vote check for Bot ${BOT}: 1 of 2 users have not voted in the last 24 hours</h3>`))
    expect(result.summary).toContain(`<tr><td><code>${ALICE}</code></td><td>yes</td><td>3</td>`)
    expect(result.summary).toContain(`<tr><td><code>${BOB}</code></td><td>no</td><td>1</td>`)
    expect(result.summary, 'no Markdown table').not.toMatch(/^\|/m)
  })

  it('sets last-vote for a single user', async () => {
    const service = await start()
    const result = await check(node, service, { 'user-id': CAROL })
    expect(result.code).toBe(0)
    expect(result.outputs).toMatchObject({
      result: 'voted',
      voted: 'true',
      'last-vote': service.bot(BOT).voters[CAROL]!.lastVote!.toISOString()
    })
  })

  it('takes 204 No Content as voted (the original description)', async () => {
    const service = await start({ voteStyle: 'no-content' })
    const result = await check(node, service, { 'user-id': `${ALICE},${CAROL}` })
    expect(result.code).toBe(0)
    expect(service.received('votes').map(r => r.status)).toEqual([204, 204])
    expect(result.outputs).toMatchObject({ result: 'voted', voted: 'true', status: '204' })
    expect(votes(result)).toEqual({
      [ALICE]: { voted: true, votes: null, last_vote: null },
      [CAROL]: { voted: true, votes: null, last_vote: null }
    })
  })

  it('fails with fail-if-not-voted, naming who has not voted, and still writes the outputs', async () => {
    const service = await start()
    const result = await check(node, service, { 'user-id': `${ALICE} ${BOB} 523456789012345678`, 'fail-if-not-voted': 'true' })
    expect(result.code).toBe(1)
    expect(errorsOf(result)).toHaveLength(1)
    expect(errorsOf(result)[0]).toContain(`${BOB}, 523456789012345678`)
    expect(errorsOf(result)[0]).not.toContain(ALICE)
    expect(result.outputs).toMatchObject({ result: 'not-voted', voted: 'false' })
  })

  it.each([
    ['an unknown bot (404)', { bots: [] }, undefined, /404 with "Bot not found\."/],
    ['a wrong key (401)', { bots: [{ id: BOT, apiKey: 'other' }] }, undefined, /401 with "Invalid API key\.".*api-key secret/],
    [
      'a revoked key (410)',
      {},
      {
        kind: 'answer',
        status: 410,
        headers: { 'Content-Type': 'application/json' },
        body: '{"success":false,"error":"Your API key has been revoked.","status":410}'
      },
      /410 with "Your API key has been revoked\.".*revoked the key after five updates were refused as early within 6 hours/
    ]
  ] as const)('fails on %s, never reading it as "not voted"', async (_, options, fault, message) => {
    const service = await start(options as EmulatorOptions)
    if (fault) service.inject('votes', fault)
    const result = await check(node, service, { 'user-id': ALICE })
    expect(result.code).toBe(1)
    expect(errorsOf(result)).toHaveLength(1)
    expect(errorsOf(result)[0]).toMatch(message)
    expect(result.outputs['result']).toBe('failed')
    expect(result.outputs['voted']).toBeUndefined()
    expect(result.stdout + result.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/)
  })
  // Retries of a 503 and of a 429 with Retry-After: in process, test/votes/votes.test.ts (runVotes).
})

describe.concurrent('vote check pacing', () => {
  const node = RUNTIME_NODE
  const users = Array.from({ length: 25 }, (_, i) => String(500000000000000000n + BigInt(i)))

  // Pacing 25 checks through a limiter of 10 per second: test/e2e/connections.test.ts, with its connection.

  it('stops at rate-limit-wait and lists the users not checked', async () => {
    const service = await start({ rateLimits: { votes: { limit: 5, windowMs: 60_000 } } })
    const result = await check(node, service, { 'user-id': users.slice(0, 8).join(','), 'rate-limit-wait': '1' })
    expect(result.code).toBe(1)
    expect(errorsOf(result)[0]).toMatch(/rate-limit-wait of 1 s/)
    expect(result.outputs['result']).toBe('failed')
    const checked = Object.keys(votes(result) as object)
    expect(checked).toEqual(users.slice(0, 5))
    expect(result.log.join('\n')).toContain(`Not checked: ${users.slice(5, 8).join(', ')}`)
    expect(result.summary).toContain('not checked')
  })
})

/** The vote limiter's answers (service-behaviour.md: 100 per 5 minutes per bot, 429 with Retry-After: 300). */
describe('vote check against the live limiter', () => {
  const node = RUNTIME_NODE

  it('sets status after a 429 that cannot be waited out within rate-limit-wait', async () => {
    const service = await start()
    service.spendLimit('votes', BOT, 100)
    const result = await check(node, service, { 'user-id': `${ALICE},${BOB}`, 'rate-limit-wait': '5' })
    expect(result.code).toBe(1)
    expect(
      service.received('votes').map(r => r.status),
      'one check, answered 429'
    ).toEqual([429])
    expect(result.outputs).toMatchObject({ result: 'failed', status: '429' })
    // Retry-After counts the seconds left in the window the spent limit opened: 300, or 299 on a
    // machine slow enough for a second to pass between the two.
    expect(errorsOf(result)).toEqual([expect.stringMatching(/wait of (299|300) s more, beyond the rate-limit-wait of 5 s/)])
  })

  it('a hard failure (410) ends the run at once: no request after it, no wait for the window, the step ends promptly', async () => {
    const service = await start()
    const window = { 'Content-Type': 'application/json', 'RateLimit-Limit': '2', 'RateLimit-Reset': '20' }
    // The first check spends one of two in a 20-second window; the second is answered 410
    // and spends the window: a run that went on would wait 20 s before the third.
    service.inject('votes', {
      kind: 'answer',
      status: 200,
      headers: { ...window, 'RateLimit-Remaining': '1' },
      body: JSON.stringify({ voted: true, vote: 3, lastVote: Date.now() - HOUR })
    })
    service.inject('votes', {
      kind: 'answer',
      status: 410,
      headers: { ...window, 'RateLimit-Remaining': '0' },
      body: JSON.stringify({ success: false, error: 'This API key has been revoked.', status: 410 })
    })
    const users = [ALICE, BOB, CAROL, '523456789012345678']
    // Room for the 20-second window, so that a run that waits for it fails the assertion below, by name.
    const result = await check(node, service, { 'user-id': users.join(','), 'rate-limit-wait': '60', timeout: '60' }, 25_000)

    expect(result.durationMs, 'the step ends promptly, not after the 20-second window').toBeLessThan(8_000)
    expect(
      service.received('votes').map(r => r.status),
      'no request after the 410'
    ).toEqual([200, 410])
    expect(result.code).toBe(1)
    expect(errorsOf(result)).toEqual([expect.stringMatching(/410 with "This API key has been revoked\."/)])
    expect(result.outputs).toMatchObject({ result: 'failed', status: '410' })
    expect(result.log.join('\n')).toContain(`Not checked: ${users.slice(1).join(', ')}`)
  })
})
