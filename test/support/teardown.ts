/**
 * Teardown at the end of the test that set something up. vitest's own onTestFinished, called
 * outside a test's context, attaches to the test that started last: among concurrent tests that
 * may be another one, which would close a server its own test still uses. So every test runs in
 * an async context of its own (trackTests, for every file), and afterTest registers with it.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { AddressInfo, Server, Socket } from 'node:net'
import * as core from '@actions/core'
import { aroundEach, onTestFinished, type TestContext } from 'vitest'
import { clearSecrets } from '../../src/secrets.js'

/** The running test's own onTestFinished. */
const running = new AsyncLocalStorage<TestContext['onTestFinished']>()

/** Runs each test of the file in an async context that knows the test. */
export function trackTests(): void {
  // Destructured: vitest reads a hook's second parameter as the fixtures it needs (test.extend).
  aroundEach(async (runTest, { onTestFinished: finished }) => running.run(finished, runTest))
}

/** Runs `teardown` when the current test has finished, passed or failed. Call it inside a test. */
export function afterTest(teardown: () => unknown): void {
  const finished = running.getStore() ?? onTestFinished
  finished(async () => {
    await teardown()
  })
}

/**
 * A step of its own: @actions/core's summary keeps the file of its first write (one step's process
 * would), so its buffer is emptied and the file forgotten.
 */
export function forgetSummaryFile(): void {
  core.summary.emptyBuffer()
  ;(core.summary as unknown as { _filePath?: string })._filePath = undefined
}

/**
 * The process as a run of the action starts: this environment, no exit code, no secret known, no
 * job summary begun.
 */
export function freshProcess(environment: NodeJS.ProcessEnv): void {
  for (const name of Object.keys(process.env)) if (!(name in environment)) delete process.env[name]
  Object.assign(process.env, environment)
  process.exitCode = undefined
  clearSecrets()
  forgetSummaryFile()
}

/**
 * Starts a server a test builds for itself on 127.0.0.1 at a free port, and returns the port;
 * closed when the test ends.
 */
export async function listenForTest(server: Server): Promise<number> {
  const sockets = new Set<Socket>()
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  afterTest(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise<void>(resolve => server.close(() => resolve()))
  })
  return (server.address() as AddressInfo).port
}
