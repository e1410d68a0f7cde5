/**
 * End to end: a refused input fails the bundled action with one `::error::` line that names
 * the input, before any request reaches the service, and no stack trace. Every case of these
 * tables runs in process (test/shared/cases.test.ts); here a few run through dist/ on Node 24:
 * an input that names no bot yet, a step with nothing to send, a key cut by a line break (masked
 * line by line, as the runner masks), vote mode, and the credential mix-ups of each kind, as
 * pasted (quoted, a `.env` line) too.
 */
import { describe, it } from 'vitest'
import { NODES, runAction } from '../support/action.js'
import { expectMixUpRefused, expectRefused, MIX_UPS, pick, REFUSALS } from '../support/cases.js'

describe.concurrent.each(NODES)('refused inputs on $name', ({ path: node }) => {
  it.for(pick(REFUSALS, ['bot-id empty', 'no count at all', 'api-key with a line break inside', 'vote-check without user-id']))(
    '%s',
    refusal => expectRefused(options => runAction({ ...options, node }), refusal)
  )
})

describe.concurrent.each(NODES)('credentials that belong elsewhere on $name', ({ path: node }) => {
  it.for(
    pick(MIX_UPS, [
      "api-key holding this bot's Discord token",
      'discord-token of another bot',
      'api-key holding the Discord token in quotes',
      'api-key holding a .env line',
      'discord-token holding the key in quotes'
    ])
  )('%s: refused before any request', mixUp => expectMixUpRefused(options => runAction({ ...options, node }), mixUp))
})
