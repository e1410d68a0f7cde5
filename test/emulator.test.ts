/**
 * The emulator is the test double of a real system: these tests hold it to the live
 * service's OpenAPI document (../shared/spec/discord-place-openapi.json) and rules, not to
 * the action's assumptions.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from './support/action.js'
import { ServiceEmulator, SIX_HOURS } from './support/emulator.js'

const BOT = '123456789012345678'
const KEY = 'emulator-test-key'
const HOUR = 3_600_000

interface Schema {
  required?: string[]
  properties?: Record<string, { type?: string | string[] }>
}
let spec: { paths: Record<string, Record<string, { responses: Record<string, unknown> }>>; components: any }
beforeAll(async () => {
  spec = JSON.parse(await readFile(join(ROOT, '../shared/spec/discord-place-openapi.json'), 'utf8'))
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

let emulator: ServiceEmulator | undefined
afterEach(async () => {
  await emulator?.close()
  emulator = undefined
})

async function patch(
  body: unknown,
  headers: Record<string, string> = { Authorization: KEY }
): Promise<{ status: number; json: any; headers: Headers }> {
  const res = await fetch(`${emulator!.url}/bots/${BOT}/stats`, {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body)
  })
  return { status: res.status, json: await res.json().catch(() => undefined), headers: res.headers }
}

describe('service emulator', () => {
  it.each([
    [{}, 400],
    [{ command_count: '12' }, 400],
    [{ command_count: 12.5 }, 400],
    [{ command_count: 1001 }, 400],
    [{ server_count: -1 }, 400],
    [{ server_count: 10_000_001 }, 400],
    [{ command_count: 1, extra: true }, 400],
    [[1], 400]
  ])('refuses %j as the schema does', async (body, status) => {
    emulator = await ServiceEmulator.start({ bots: [{ id: BOT, apiKey: KEY }] })
    const res = await patch(body)
    expect(res.status).toBe(status)
    conforms(res.json, responseSchema('/bots/{id}/stats', 'patch', status).schema)
  })

  it('answers 401 without a key or with a wrong one, and 404 for an unknown bot', async () => {
    emulator = await ServiceEmulator.start({ bots: [{ id: BOT, apiKey: KEY }] })
    expect((await patch({ command_count: 1 }, {})).json.error).toBe('Authorization header is required.')
    expect((await patch({ command_count: 1 }, { Authorization: 'nope' })).json.error).toBe('Invalid API key.')
    const res = await fetch(`${emulator.url}/bots/223456789012345678/stats`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json', Authorization: KEY },
      body: '{"command_count":1}'
    })
    expect(res.status).toBe(404)
    conforms((await res.json()) as Record<string, unknown>, responseSchema('/bots/{id}/stats', 'patch', 404).schema)
  })

  it('accepts one update per 6 hours; early ones are strikes and the 5th revokes the key', async () => {
    emulator = await ServiceEmulator.start({ bots: [{ id: BOT, apiKey: KEY }] })
    const first = await patch({ command_count: 3 })
    expect(first.status).toBe(200)
    conforms(first.json, responseSchema('/bots/{id}/stats', 'patch', 200).schema)
    const statuses = []
    for (let i = 0; i < 5; i++) statuses.push((await patch({ command_count: 4 })).status)
    expect(statuses).toEqual([429, 429, 429, 429, 410])
    const after = await patch({ command_count: 4 })
    expect(after).toMatchObject({ status: 401, json: { error: 'This API key has been revoked.' } })
    expect(emulator.bot(BOT).commands).toBe(3)
  })

  it('takes a server count within max(50, 10%) of the real one', async () => {
    const old = new Date(Date.now() - 7 * HOUR)
    emulator = await ServiceEmulator.start({
      bots: [
        { id: BOT, apiKey: KEY, realServerCount: 1000, serversUpdatedAt: old, commandsUpdatedAt: old },
        { id: '223456789012345678', apiKey: KEY, realServerCount: 100 }
      ]
    })
    expect((await patch({ server_count: 1101 })).status).toBe(400)
    expect((await patch({ server_count: 1100 })).status).toBe(200)
    const small = async (n: number) =>
      (
        await fetch(`${emulator!.url}/bots/223456789012345678/stats`, {
          method: 'PATCH',
          headers: { 'Content-Type': 'application/json', Authorization: KEY },
          body: JSON.stringify({ server_count: n })
        })
      ).status
    expect(await small(151)).toBe(400)
    expect(await small(150)).toBe(200)
  })

  it('rate limits with RateLimit-* headers and a 429 carrying retry_after', async () => {
    emulator = await ServiceEmulator.start({ bots: [{ id: BOT, apiKey: KEY }], rateLimits: { votes: { limit: 2, windowMs: 60_000 } } })
    const get = () => fetch(`${emulator!.url}/bots/${BOT}/voters/223456789012345678`, { headers: { Authorization: KEY } })
    const first = await get()
    expect(first.headers.get('ratelimit-limit')).toBe('2')
    expect(first.headers.get('ratelimit-remaining')).toBe('1')
    await get()
    const limited = await get()
    expect(limited.status).toBe(429)
    const { schema, headers } = responseSchema('/bots/{id}/voters/{user_id}', 'get', 429)
    for (const header of headers) expect(limited.headers.get(header), header).not.toBeNull()
    const body = (await limited.json()) as Record<string, unknown>
    conforms(body, schema)
    expect(body['retry_after']).toBeGreaterThan(0)
  })

  it('serves the public record without a key, and 403 for an unverified bot', async () => {
    const updated = new Date(Date.now() - 2 * HOUR)
    emulator = await ServiceEmulator.start({
      bots: [
        { id: BOT, apiKey: KEY, commands: 12, servers: 1204, serversUpdatedAt: updated },
        { id: '223456789012345678', apiKey: KEY, verified: false }
      ]
    })
    const record = (await (await fetch(`${emulator.url}/bots/${BOT}`)).json()) as Record<string, unknown>
    expect(record).toMatchObject({ commands: 12, servers: 1204, servers_updated_at: updated.toISOString() })
    expect((await fetch(`${emulator.url}/bots/223456789012345678`)).status).toBe(403)
    expect(SIX_HOURS).toBe(6 * HOUR)
  })
})
