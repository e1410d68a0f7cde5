/**
 * End to end: the step's time is shared, never refused whole. A `timeout` at or below
 * `request-timeout` cuts each request to the time left, and the update is still sent; a request
 * that cannot finish (here a proxy that never answers CONNECT) is cut off at the deadline, and
 * the process exits by then, or at once after a stop signal, with its report written.
 *
 * The proxied runs aim at the default base-url (https://api.discord.place): @actions/http-client
 * never proxies a loopback host. The proxy reads each CONNECT and never answers it, so nothing
 * leaves the machine.
 */
import type { ChildProcess } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { findLeaks, NODES, type RunOptions, type RunResult, runAction, errorsOf } from '../support/action.js'
import { ServiceEmulator } from '../support/emulator.js'
import { ForwardProxy } from '../support/proxy.js'
import { afterTest } from '../support/teardown.js'

const BOT = '123456789012345678'
const KEY = 'dp_deadline-test-key_7c8d9e0f1a'
const HOUR = 60 * 60 * 1000
const POSIX_ONLY = process.platform === 'win32'

/** A proxy that reads every CONNECT and never answers it. */
async function hungProxy(): Promise<ForwardProxy> {
  const proxy = await ForwardProxy.start({})
  proxy.hangConnects = true
  afterTest(() => proxy.close())
  return proxy
}

/** Runs the bundle; a process still alive after `killAfterMs` fails with the rule it broke, not the test's timeout. */
async function run(node: string, rule: string, inputs: Record<string, string>, extra: Partial<RunOptions> = {}): Promise<RunResult> {
  const result = await runAction({ node, inputs: { 'bot-id': BOT, 'api-key': KEY, ...inputs }, timeoutMs: 8_000, ...extra }).catch(
    (error: unknown) => {
      throw new Error(`${rule}; ${error instanceof Error ? error.message : String(error)}`)
    }
  )
  expect(findLeaks(result, [KEY])).toEqual([])
  return result
}

describe.concurrent.each(NODES)("the step's time limit on $name", ({ path: node }) => {
  it('a proxy that never answers CONNECT: the run ends by its timeout (3 s), with one error', async () => {
    const proxy = await hungProxy()
    const rule = 'a request that cannot finish is cut off at the deadline, and the process exits by then'
    // Timed from the proxy's first CONNECT, which comes after the step's clock started: a loaded
    // machine's slow process start does not count, and a run that waited for the proxy would
    // reach the harness's 8 s limit instead.
    let connectedAt = 0
    let exitedAt = 0
    const control = (child: ChildProcess): void => {
      const poll = setInterval(() => {
        if (proxy.connects.length === 0) return
        clearInterval(poll)
        connectedAt = performance.now()
      }, 5)
      child.on('exit', () => {
        clearInterval(poll)
        exitedAt = performance.now()
      })
    }
    const result = await run(node, rule, { 'command-count': '14', timeout: '3' }, { env: { HTTPS_PROXY: proxy.url }, control })

    const afterConnect = exitedAt - connectedAt
    expect(connectedAt, 'the proxy got the CONNECT').toBeGreaterThan(0)
    expect(afterConnect, `${rule}: exited ${Math.round(afterConnect)} ms after the CONNECT`).toBeLessThan(4_500)
    expect(result.code, result.stdout + result.stderr).toBe(1)
    expect(errorsOf(result), 'one error, on one line').toEqual([expect.not.stringContaining('\n')])
    expect(proxy.connects.length, 'the record read went to the proxy').toBeGreaterThanOrEqual(1)
    expect(result.stdout + result.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/)
  })

  it.skipIf(POSIX_ONLY)('a proxy that never answers CONNECT, then SIGTERM: the run exits within 2 s of the signal', async () => {
    const proxy = await hungProxy()
    const rule = 'after a stop signal the process exits once its report is written'
    let sentAt = 0
    let exitedAt = 0
    const control = (child: ChildProcess): void => {
      // The signal about 1 s after the proxy got the CONNECT it holds.
      const poll = setInterval(() => {
        if (proxy.connects.length === 0) return
        clearInterval(poll)
        setTimeout(() => {
          sentAt = performance.now()
          child.kill('SIGTERM')
        }, 1_000)
      }, 10)
      child.on('exit', () => {
        clearInterval(poll)
        exitedAt = performance.now()
      })
    }
    const result = await run(node, rule, { 'command-count': '14', timeout: '60' }, { env: { HTTPS_PROXY: proxy.url }, control })

    expect(sentAt, 'the signal was sent').toBeGreaterThan(0)
    expect(exitedAt - sentAt, `${rule}: exited ${Math.round(exitedAt - sentAt)} ms after SIGTERM`).toBeLessThan(2_000)
    expect(result.code).toBe(1)
    expect(errorsOf(result)).toEqual([expect.stringMatching(/^The step was stopped by SIGTERM .*The stats update was not sent\./)])
    expect(result.outputs['result']).toBe('failed')
  })

  it('timeout 20 with the default request-timeout (30): the update is sent with the time left', async () => {
    const last = new Date(Date.now() - 7 * HOUR)
    const api = await ServiceEmulator.start({
      bots: [{ id: BOT, apiKey: KEY, commands: 12, servers: 1204, commandsUpdatedAt: last, serversUpdatedAt: last }]
    })
    afterTest(() => api.close())
    const rule = 'a timeout at or below request-timeout cuts each request to the time left; the update is sent'
    const result = await run(node, rule, { 'command-count': '14', 'server-count': '1260', timeout: '20', 'base-url': api.url })

    expect(errorsOf(result), rule).toEqual([])
    expect(result.code, result.stdout + result.stderr).toBe(0)
    expect(
      api.requests.map(r => `${r.method} ${r.route} ${r.status}`),
      rule
    ).toEqual(['GET record 200', 'PATCH stats 200'])
    expect(result.outputs).toMatchObject({ result: 'updated', status: '200' })
  })
})
