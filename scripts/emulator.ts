/**
 * Serves the service emulator (emulator/service.ts) on loopback until it is stopped, for
 * the CI job that runs the action with `uses: ./` as a real runner does. It holds one example
 * bot, last updated 7 hours ago (so an update is due), with one user who voted an hour ago and
 * one who never did.
 *
 *   tsx scripts/emulator.ts [url-file]
 *
 * The address is printed, and written to url-file when one is named (for a later step to read).
 */
import { writeFile } from 'node:fs/promises'
import { ServiceEmulator } from './emulator/service.js'

const HOUR = 60 * 60 * 1000
/** The example bot and its key: the emulator's, not a secret. */
export const EXAMPLE = {
  id: '123456789012345678',
  apiKey: 'example-api-key-0123456789',
  voter: '234567890123456789',
  nonVoter: '345678901234567890'
}

const emulator = await ServiceEmulator.start({
  bots: [
    {
      id: EXAMPLE.id,
      apiKey: EXAMPLE.apiKey,
      commands: 12,
      servers: 1204,
      realServerCount: 1262,
      commandsUpdatedAt: new Date(Date.now() - 7 * HOUR),
      serversUpdatedAt: new Date(Date.now() - 7 * HOUR),
      voters: { [EXAMPLE.voter]: { vote: 3, lastVote: new Date(Date.now() - HOUR) } }
    }
  ]
})
const urlFile = process.argv[2]
if (urlFile !== undefined) await writeFile(urlFile, emulator.url)
console.log(`Service emulator at ${emulator.url}; stop it with Ctrl+C or SIGTERM.`)
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const r of emulator.requests)
      console.log(`${r.method} ${r.path}${r.body ? ` ${r.body}` : ''} -> ${r.status}`)
    void emulator.close().then(() => process.exit(0))
  })
}
