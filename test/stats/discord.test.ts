/**
 * Discord's API as a source of the counts (src/stats/discord.ts): its answers and limits, in
 * process against Discord's fake and the service emulator on a clock the test controls. A 429
 * with Discord's rate-limit headers is waited out, a 503 or a dropped connection retried; a 429
 * without them is an IP ban, which stops the run before anything is sent to the service.
 */
import { expect, it } from 'vitest'
import { DiscordFake } from '../support/fakes.js'
import {
  DISCORD_TOKEN,
  discordFake,
  emulatedBot,
  statsInputs,
  TestClock
} from '../support/inprocess.js'
import type { Fault } from '../../scripts/emulator/server.js'
import { expectCleanFailure, statsStep } from '../support/step.js'

const BAN =
  "Discord refused the request with a 429 that carries no rate-limit headers: the runner's IP address is temporarily banned by " +
  'Discord (common on shared runners). It was not retried; run again later, or give the counts as inputs for now.'
const RETRIED: Fault[] = [
  { kind: 'answer', status: 503, body: 'upstream connect error' },
  { kind: 'reset' }
]

// Discord's next answers to /applications/@me, the statuses it recorded, the run's waits (a retry's
// backoff any), and the failure.
it.each<[string, Fault[], number[], number[], string?]>([
  [
    'waits the retry_after of a 429, then goes on',
    [DiscordFake.rateLimited(0.3)],
    [429, 200],
    [300]
  ],
  [
    'retries a 503 and a dropped connection',
    RETRIED,
    [503, 0, 200],
    [expect.any(Number), expect.any(Number)]
  ],
  [
    'stops at once on a 429 without rate-limit headers (an IP ban), before any request to the service',
    [DiscordFake.banned],
    [429],
    [],
    BAN
  ]
])('%s', async (_, faults, statuses, waits, failure) => {
  const clock = new TestClock()
  const emulator = await emulatedBot(clock)
  const fake = await discordFake()
  for (const fault of faults) fake.inject('application', fault)
  const inputs = {
    'command-count': '1',
    'cooldown-check': 'false',
    'discord-token': DISCORD_TOKEN,
    'discord-api-url': fake.url
  }
  const step = await statsStep(statsInputs(emulator, inputs), clock)
  expect(fake.requests.map(r => r.status)).toEqual(statuses)
  expect(step.waits).toEqual(waits)
  if (failure === undefined) {
    expect(step.failure).toBeUndefined()
    expect(emulator.received('stats').map(r => JSON.parse(r.body) as unknown)).toEqual([
      { command_count: 1, server_count: 1250 }
    ])
  } else {
    expect(expectCleanFailure(step)).toBe(failure)
    expect(emulator.requests).toEqual([])
  }
})
