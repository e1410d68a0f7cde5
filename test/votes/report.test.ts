/**
 * The vote-check mode's report (src/votes/report.ts): the log, the summary section's layout (its
 * headline words are VOTE_OUTCOMES, pinned by docs/troubleshooting.md), the outputs, and what
 * reportVotes leaves for the runner. Outcomes are built by hand, as runVotes returns them
 * (check.test.ts runs the mode itself).
 */
import { describe, expect, it } from 'vitest'
import { ActionError } from '../../src/errors.js'
import type { VoteSettings } from '../../src/settings.js'
import type { Vote, VoteOutcome } from '../../src/votes/check.js'
import { announce, renderSummary, reportVotes, writeOutputs } from '../../src/votes/report.js'
import { BOT, botInputs, settingsFor } from '../support/inprocess.js'
import { capturedStdout, runnerFiles } from '../support/step.js'

const [A, B, C] = ['234567890123456789', '345678901234567890', '456789012345678901']
/** When the outcome was decided: the times shown are relative to it. */
const AT = new Date('2026-11-24T12:00:00Z')
const LAST_VOTE = '2026-11-24T11:00:00.000Z'
const TITLE = `Vote check for Bot ${BOT}`

/**
 * Settings of a vote check against a service other than the live one (the bot named without a
 * link), unless `more` says.
 */
const settings = (users = [A], more: Record<string, string> = {}): VoteSettings =>
  settingsFor<VoteSettings>(
    botInputs(
      { url: 'https://staging.example' },
      { mode: 'vote-check', 'user-id': users.join(','), ...more }
    )
  )

/**
 * An outcome as runVotes returns it, with these fields: the result follows from the votes and the
 * error.
 */
function outcome(fields: Partial<VoteOutcome>, ...votes: [string, Vote][]): VoteOutcome {
  const error = fields.error
  let result: VoteOutcome['result'] = votes.every(([, vote]) => vote.voted) ? 'voted' : 'not-voted'
  if (error !== undefined) result = 'failed'
  return {
    result,
    votes: new Map(votes),
    status: 200,
    rateLimited: 0,
    unchecked: [],
    keyCheck: undefined,
    error,
    at: AT,
    ...fields
  }
}
/** The outcome of a run that checked every user. */
const checked = (...votes: [string, Vote][]): VoteOutcome => outcome({}, ...votes)

const VOTED: Vote = { voted: true, votes: 1234, lastVote: new Date(LAST_VOTE) }
const NOT_VOTED: Vote = { voted: false, votes: 0, lastVote: null }
/** A 204 answer: voted, with neither a count nor a time. */
const BARE: Vote = { voted: true, votes: null, lastVote: null }
const DRY_RUN: Partial<VoteOutcome> = { result: 'dry-run', status: undefined }
const refused = (message: string): ActionError =>
  new ActionError(message, { headline: 'key refused' })
const stopped = (unchecked: string[]): Partial<VoteOutcome> => ({
  unchecked,
  error: new ActionError('Stopped.')
})
/** fail-if-not-voted: the result stays not-voted, and the run fails. */
const NOT_VOTED_FAILING = outcome(
  { result: 'not-voted', error: new ActionError('Not voted: 1.') },
  [A, NOT_VOTED]
)

describe('the log of a vote check', () => {
  it.each<[string, VoteOutcome, string[]]>([
    [
      'one line per user: voted or not, with the vote count and the last vote when the service gave them',
      checked(
        [A, VOTED],
        [B, NOT_VOTED],
        [C, BARE],
        ['567890123456789012', { ...BARE, lastVote: new Date(LAST_VOTE) }]
      ),
      [
        `User ${A}: voted in the last 24 hours (1234 votes, last 11:00 UTC, 1 h before this run).`,
        `User ${B}: has not voted in the last 24 hours (0 votes).`,
        `User ${C}: voted in the last 24 hours.`,
        'User 567890123456789012: voted in the last 24 hours (last 11:00 UTC, 1 h before this run).'
      ]
    ],
    [
      'a key that could not be checked is a warning with its title; answers of the rate limit are counted',
      outcome({
        ...DRY_RUN,
        keyCheck: { state: 'unchecked', reason: 'the service answered 503' },
        rateLimited: 2
      }),
      [
        '::warning title=Key not checked::The API key could not be checked (the service answered 503); the next run will check it.',
        "The service's rate limit answered 2 time(s); those checks were retried."
      ]
    ],
    [
      'nothing of a valid key, nor of a rate limit that never answered',
      outcome({ ...DRY_RUN, keyCheck: { state: 'valid' } }),
      []
    ]
  ])('%s', (_, given, expected) => {
    const lines = capturedStdout().lines
    announce(given)
    expect(lines()).toEqual(expected)
  })
})

describe('the summary section of a vote check', () => {
  const row = (id: string, ...cells: string[]): string =>
    `<tr><td><code>${id}</code></td>${cells.map(cell => `<td>${cell}</td>`).join('')}</tr>\n`
  const table = (...rows: string[]): string =>
    `<table>\n<tr><th>User</th><th>Voted in the last 24 hours</th><th>Votes</th><th>Last vote</th></tr>\n${rows.join('')}</table>\n`
  const unchecked = (id: string): string => row(id, 'not checked', '', '')
  const error = (message: string): string => `<p>❌ <strong>Error:</strong> ${message}</p>\n`
  const VOTED_ROW = row(A, 'yes', '1,234', '11:00 UTC, 1 h before this run')
  it('names the bot with a link on the live service; one user who has not voted, in the words for one', () => {
    const html = renderSummary(
      settings([A], { 'base-url': 'https://api.discord.place' }),
      checked([A, NOT_VOTED])
    )
    expect(html).toMatch(
      new RegExp(
        `^<h3>⭕ Vote check for <a href="https://discord.place/bots/${BOT}">Bot ${BOT}</a>: not voted in `
      )
    )
  })

  // Two users asked for; `section` is what follows the headline (anything when left out).
  it.each<{
    label: string
    given: VoteOutcome
    headline: string
    section?: string
    outputsFailure?: string
  }>([
    {
      label: 'one user voted',
      given: checked([A, VOTED]),
      headline: '✅ voted',
      section: table(VOTED_ROW)
    },
    {
      label: 'every user of three voted',
      given: checked([A, VOTED], [B, BARE], [C, VOTED]),
      headline: '✅ all 3 users voted'
    },
    {
      label: 'one of three has not voted: one row each, in the order given',
      given: checked([A, VOTED], [B, NOT_VOTED], [C, BARE]),
      headline: '⭕ 1 of 3 users have not voted in the last 24 hours',
      section: table(VOTED_ROW, row(B, 'no', '0', ''), row(C, 'yes', '', ''))
    },
    {
      label: 'a failure without an error of its own',
      given: outcome({ result: 'failed' }, [A, VOTED]),
      headline: '❌ failed',
      section: table(VOTED_ROW)
    },
    {
      label: 'nothing answered: the users not checked',
      given: outcome(stopped([A, B])),
      headline: '❌ failed: 2 user(s) not checked',
      section: table(unchecked(A), unchecked(B)) + error('Stopped.')
    },
    {
      label:
        'a failure part-way: the users checked, those not checked, the error (escaped) and the outputs failure',
      given: outcome({ unchecked: [B, C], error: refused('The key <b>was</b> refused.') }, [
        A,
        BARE
      ]),
      headline: '❌ failed: key refused; 2 user(s) not checked',
      section:
        table(row(A, 'yes', '', ''), unchecked(B), unchecked(C)) +
        error('The key &lt;b&gt;was&lt;/b&gt; refused.') +
        error('Outputs failed.'),
      outputsFailure: 'Outputs failed.'
    },
    {
      label: "a dry run's failed key check: no table, nor what a real run would check",
      given: outcome({ error: refused('No.'), status: undefined }),
      headline: '❌ failed: key refused',
      section: error('No.')
    },
    {
      label: 'a dry run: the users a real run would check',
      given: outcome(DRY_RUN),
      headline: '🧪 dry run: nobody checked',
      section: `<p>A real run would check 2 user(s): <code>${A}</code>, <code>${B}</code>.</p>\n`
    },
    {
      label:
        'outputs that could not be written turn the headline failed, keeping what the check found',
      given: checked([A, VOTED]),
      headline: '❌ voted; the step failed: its outputs could not be written',
      section: table(VOTED_ROW) + error('Outputs failed.'),
      outputsFailure: 'Outputs failed.'
    }
  ])('$label', ({ given, headline, section, outputsFailure }) => {
    const html = renderSummary(settings([A, B]), given, outputsFailure)
    expect(html.split('\n')[0]).toBe(`<h3>${headline.replace(' ', ` ${TITLE}: `)}</h3>`)
    if (section !== undefined) expect(html.slice(html.indexOf('\n') + 1)).toBe(section)
  })
})

describe('the outputs of a vote check', () => {
  /** The `votes` output (interface.md): per user, `voted`, `votes` and `last_vote`. */
  const json = ([id, v]: [string, Vote]) => [
    id,
    { voted: v.voted, votes: v.votes, last_vote: v.lastVote?.toISOString() ?? null }
  ]
  const YES = { result: 'voted', status: '200', voted: 'true' }
  const NO = { result: 'not-voted', status: '200', voted: 'false' }
  const DRY_CHECKED = outcome({ ...DRY_RUN, keyCheck: { state: 'valid' } })

  // Columns: the outcome, the outputs but `votes` (a dry run has none).
  it.each<[string, VoteOutcome, Record<string, string>]>([
    [
      'one user voted: voted, votes and last-vote',
      checked([A, VOTED]),
      { ...YES, 'last-vote': LAST_VOTE }
    ],
    ['one user without a last vote time: no last-vote', checked([A, BARE]), YES],
    [
      'several users, one not voted: no last-vote, which would speak for one of them',
      checked([A, VOTED], [B, NOT_VOTED]),
      NO
    ],
    ['fail-if-not-voted: result not-voted and voted false', NOT_VOTED_FAILING, NO],
    [
      'a failure part-way: the votes it has, no voted nor last-vote',
      outcome(stopped([B]), [A, VOTED]),
      { result: 'failed', status: '200' }
    ],
    [
      'a dry run: its result alone, no status (a key check is no vote check)',
      DRY_CHECKED,
      { result: 'dry-run' }
    ]
  ])('%s', (_, given, expected) => {
    const files = runnerFiles()
    writeOutputs(given)
    expect(files.outputs()).toEqual(
      given.result === 'dry-run'
        ? expected
        : { ...expected, votes: JSON.stringify(Object.fromEntries([...given.votes].map(json))) }
    )
  })
})

describe('reportVotes: the outputs, the log, the section and a line break; it returns the failure for the step', () => {
  // The outputs failure's words are pinned in test/shared/summary.test.ts.
  const UNWRITABLE = "The step's outputs could not be written"
  // Columns: GITHUB_OUTPUT, the outcome, the failure returned, the lines printed, the section (by
  // default as renderSummary writes it).
  it.each<{
    label: string
    output: 'file' | 'directory'
    given: VoteOutcome
    failure: string | undefined
    printed: string[]
    summary?: RegExp
  }>([
    {
      label: 'a check that went through: no failure',
      output: 'file',
      given: checked([A, VOTED]),
      failure: undefined,
      printed: [`User ${A}: voted`]
    },
    {
      label: "fail-if-not-voted: the run's failure, the outputs written",
      output: 'file',
      given: NOT_VOTED_FAILING,
      failure: 'Not voted: 1.',
      printed: [`User ${A}: has not voted`]
    },
    {
      label: 'outputs that cannot be written: their failure, not a warning',
      output: 'directory',
      given: checked([A, VOTED]),
      failure: UNWRITABLE,
      printed: [`User ${A}: voted`]
    },
    {
      label:
        "outputs that cannot be written after a failure: the run's failure, the outputs' a warning",
      output: 'directory',
      given: outcome(stopped([A])),
      failure: 'Stopped.',
      printed: [`::warning::${UNWRITABLE}`],
      summary:
        /^<h3>❌ .*Stopped\.<\/p>\n<p>❌ <strong>Error:<\/strong> The step&#39;s outputs could not be written.*<\/p>\n\n$/s
    }
  ])('$label', async ({ output, given, failure, printed, summary }) => {
    const files = runnerFiles({ output })
    const lines = capturedStdout().lines
    const returned = await reportVotes(settings(), given)
    expect(returned).toEqual(
      failure === UNWRITABLE ? expect.stringMatching(`^${UNWRITABLE} to GITHUB_OUTPUT`) : failure
    )
    expect(lines()).toEqual(printed.map(start => expect.stringMatching(`^${start}`)))
    if (summary !== undefined) expect(files.summary()).toMatch(summary)
    else
      expect(files.summary()).toBe(
        `${renderSummary(settings(), given, output === 'file' ? undefined : returned)}\n`
      )
    if (output === 'file') expect(files.outputs()).toMatchObject({ result: given.result })
  })
})
