/**
 * Discord's API as a source of the counts (src/stats/discord.ts): its answers and limits, in
 * process against Discord's fake and the service emulator on a clock the test controls. A 429
 * with Discord's rate-limit headers is waited out, a 503 or a dropped connection retried; a 429
 * without them is an IP ban, which stops the run before anything is sent to the service.
 */
import { describe, expect, it } from 'vitest'
import type { ServiceEmulator } from '../support/emulator.js'
import { DiscordFake } from '../support/fakes.js'
import { DISCORD_TOKEN, discordFake, emulatedBot, statsInputs, TestClock } from '../support/inprocess.js'
import { expectCleanFailure, statsStep } from '../support/step.js'

/** An update due without the record read, the server count read from Discord. */
const fromDiscord = (emulator: ServiceEmulator, fake: DiscordFake): Record<string, string> =>
  statsInputs(emulator, { 'command-count': '1', 'cooldown-check': 'false', 'discord-token': DISCORD_TOKEN, 'discord-api-url': fake.url })

describe("Discord's answers", () => {
  it('waits the retry_after of a 429, then goes on', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const fake = await discordFake()
    fake.inject('application', DiscordFake.rateLimited(0.3))
    const run = await statsStep(fromDiscord(emulator, fake), clock)
    expect(run.failure).toBeUndefined()
    expect(fake.requests.map(r => r.status)).toEqual([429, 200])
    expect(run.waits).toContain(300)
    expect(emulator.received('stats').map(r => JSON.parse(r.body) as unknown)).toEqual([{ command_count: 1, server_count: 1250 }])
  })

  it('retries a 503 and a dropped connection', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const fake = await discordFake()
    fake.inject('application', { kind: 'answer', status: 503, body: 'upstream connect error' })
    fake.inject('application', { kind: 'reset' })
    const run = await statsStep(fromDiscord(emulator, fake), clock)
    expect(run.failure).toBeUndefined()
    expect(fake.requests).toHaveLength(3)
    expect(emulator.received('stats')).toHaveLength(1)
  })

  it('stops at once on a 429 without rate-limit headers (an IP ban), before any request to the service', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const fake = await discordFake()
    fake.inject('application', DiscordFake.banned)
    const run = await statsStep(fromDiscord(emulator, fake), clock)
    const message = expectCleanFailure(run)
    expect(fake.requests).toHaveLength(1)
    expect(message).toMatch(/no rate-limit headers.*banned/)
    expect(message).not.toContain('<')
    expect(emulator.requests).toEqual([])
  })
})
