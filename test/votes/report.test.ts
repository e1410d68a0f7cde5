/**
 * The vote-check mode's report (src/votes/report.ts), word for word: the log line per user, the
 * headline and the summary section of each outcome, the outputs, and what reportVotes leaves
 * for the runner when its outputs cannot be written. Outcomes are built by hand, as runVotes
 * returns them (votes.test.ts runs the mode itself).
 */
import { describe, expect, it } from 'vitest'
import { ActionError } from '../../src/errors.js'
import type { VoteSettings } from '../../src/settings.js'
import type { Vote, VoteOutcome } from '../../src/votes/check.js'
import { announce, renderSummary, reportVotes, writeOutputs } from '../../src/votes/report.js'
import { settingsFor } from '../support/inprocess.js'
import { capturedStdout, runnerFiles } from '../support/step.js'

const BOT = '123456789012345678'
const [A, B, C] = ['234567890123456789', '345678901234567890', '456789012345678901'] as const
/** When the outcome was decided: the times shown are relative to it. */
const AT = new Date('2026-11-24T12:00:00Z')
const AN_HOUR_AGO = new Date('2026-11-24T11:00:00Z')
const HEADER = '<tr><th>User</th><th>Voted in the last 24 hours</th><th>Votes</th><th>Last vote</th></tr>'

/** Settings of a vote check against a service other than the live one (the bot named without a link), unless `more` says. */
function settings(users: readonly string[] = [A], more: Record<string, string> = {}): VoteSettings {
  return settingsFor<VoteSettings>({
    mode: 'vote-check',
    'bot-id': BOT,
    'api-key': 'dp_v0tes-r3port-K3y',
    'user-id': users.join(','),
    'base-url': 'https://staging.example',
    ...more
  })
}

/** An outcome as runVotes returns it, with these fields: the result follows from the votes and the error. */
function outcome(fields: Partial<VoteOutcome>, ...votes: [string, Vote][]): VoteOutcome {
  const error = fields.error
  const result = error !== undefined ? 'failed' : votes.every(([, vote]) => vote.voted) ? 'voted' : 'not-voted'
  return { result, votes: new Map(votes), status: 200, rateLimited: 0, unchecked: [], keyCheck: undefined, error, at: AT, ...fields }
}
/** The outcome of a run that checked every user. */
const checked = (...votes: [string, Vote][]): VoteOutcome => outcome({}, ...votes)
/** The headline's start. */
const TITLE = `Vote check for Bot ${BOT}`

const VOTED: Vote = { voted: true, votes: 1234, lastVote: AN_HOUR_AGO }
const NOT_VOTED: Vote = { voted: false, votes: 0, lastVote: null }
/** A 204 answer: voted, with neither a count nor a time. */
const BARE: Vote = { voted: true, votes: null, lastVote: null }
const DRY_RUN: Partial<VoteOutcome> = { result: 'dry-run', status: undefined }
const refused = (message = 'x'): ActionError => new ActionError(message, { headline: 'key refused' })
const stopped = (unchecked: string[]): Partial<VoteOutcome> => ({ unchecked, error: new ActionError('Stopped.') })
/** fail-if-not-voted: the result stays not-voted, and the run fails. */
const NOT_VOTED_FAILING = outcome({ result: 'not-voted', error: new ActionError('Not voted: 1.') }, [A, NOT_VOTED])

describe('the log of a vote check', () => {
  it.each<[string, VoteOutcome, string[]]>([
    [
      'one line per user: voted or not, with the vote count and the last vote when the service gave them',
      checked([A, VOTED], [B, NOT_VOTED], [C, BARE], ['567890123456789012', { voted: true, votes: null, lastVote: AN_HOUR_AGO }]),
      [
        `User ${A}: voted in the last 24 hours (1234 votes, last 11:00 UTC, 1 h before this run).`,
        `User ${B}: has not voted in the last 24 hours (0 votes).`,
        `User ${C}: voted in the last 24 hours.`,
        'User 567890123456789012: voted in the last 24 hours (last 11:00 UTC, 1 h before this run).'
      ]
    ],
    [
      'a key that could not be checked is a warning with its title; answers of the rate limit are counted',
      outcome({ ...DRY_RUN, keyCheck: { state: 'unchecked', reason: 'the service answered 503' }, rateLimited: 2 }),
      [
        '::warning title=Key not checked::The API key could not be checked (the service answered 503); the next run will check it.',
        "The service's rate limit answered 2 time(s); those checks were retried."
      ]
    ],
    ['nothing of a valid key, nor of a rate limit that never answered', outcome({ ...DRY_RUN, keyCheck: { state: 'valid' } }), []]
  ])('%s', (_, given, expected) => {
    const lines = capturedStdout().lines
    announce(given)
    expect(lines()).toEqual(expected)
  })
})

// The other headlines are pinned in the whole sections below.
describe('the headline of a vote check', () => {
  it.each<[string, VoteOutcome, string]>([
    ['one user voted', checked([A, VOTED]), `✅ ${TITLE}: voted`],
    ['every user of three voted', checked([A, VOTED], [B, BARE], [C, VOTED]), `✅ ${TITLE}: all 3 users voted`],
    ['one user has not voted', checked([A, NOT_VOTED]), `⭕ ${TITLE}: not voted in the last 24 hours`],
    ['a failure without an error of its own', outcome({ result: 'failed' }, [A, VOTED]), `❌ ${TITLE}: failed`]
  ])('%s', (_label, given, headline) => {
    expect(renderSummary(settings(), given).startsWith(`<h3>${headline}</h3>\n`)).toBe(true)
  })
})

describe('the summary section of a vote check, whole', () => {
  const row = (id: string, ...cells: string[]): string =>
    `<tr><td><code>${id}</code></td>${cells.map(cell => `<td>${cell}</td>`).join('')}</tr>\n`
  const table = (...rows: string[]): string => `<table>\n${HEADER}\n${rows.join('')}</table>\n`
  const error = (message: string): string => `<p>❌ <strong>Error:</strong> ${message}</p>\n`
  const HOUR_AGO = '11:00 UTC, 1 h before this run'

  it.each<[string, VoteSettings, VoteOutcome, string | undefined, string]>([
    [
      'users who voted and one who has not, on the live service: one row each, in the order given, the bot linked',
      settings([A, B, C], { 'base-url': 'https://api.discord.place' }),
      checked([A, VOTED], [B, NOT_VOTED], [C, BARE]),
      undefined,
      `<h3>⭕ Vote check for <a href="https://discord.place/bots/${BOT}">Bot ${BOT}</a>: 1 of 3 users have not voted in the last 24 hours</h3>\n` +
        table(row(A, 'yes', '1,234', HOUR_AGO), row(B, 'no', '0', ''), row(C, 'yes', '', ''))
    ],
    [
      'a failure part-way: the users checked, those not checked, the error (escaped) and the outputs failure',
      settings([A, B, C]),
      outcome({ unchecked: [B, C], error: refused('The key <b>was</b> refused.') }, [A, VOTED]),
      'Outputs failed.',
      `<h3>❌ ${TITLE}: failed: key refused; 2 user(s) not checked</h3>\n` +
        table(row(A, 'yes', '1,234', HOUR_AGO), row(B, 'not checked', '', ''), row(C, 'not checked', '', '')) +
        error('The key &lt;b&gt;was&lt;/b&gt; refused.') +
        error('Outputs failed.')
    ],
    [
      'a failure before any answer: the table lists the users not checked',
      settings([A, B]),
      outcome(stopped([A, B])),
      undefined,
      `<h3>❌ ${TITLE}: failed: 2 user(s) not checked</h3>\n` +
        table(row(A, 'not checked', '', ''), row(B, 'not checked', '', '')) +
        error('Stopped.')
    ],
    [
      "a dry run's failed key check: no table, and no promise of what a real run would check",
      settings([A], { 'dry-run': 'true' }),
      outcome({ error: refused('The key was refused.') }),
      undefined,
      `<h3>❌ ${TITLE}: failed: key refused</h3>\n` + error('The key was refused.')
    ],
    [
      'a dry run: the users a real run would check',
      settings([A, B], { 'dry-run': 'true' }),
      outcome(DRY_RUN),
      undefined,
      `<h3>🧪 ${TITLE}: dry run: nobody checked</h3>\n<p>A real run would check 2 user(s): <code>${A}</code>, <code>${B}</code>.</p>\n`
    ],
    [
      'outputs that could not be written turn the headline failed, keeping what the check found',
      settings(),
      checked([A, BARE]),
      'Outputs failed.',
      `<h3>❌ ${TITLE}: voted; the step failed: its outputs could not be written</h3>\n` +
        table(row(A, 'yes', '', '')) +
        error('Outputs failed.')
    ]
  ])('%s', (_, given, result, outputsFailure, html) => {
    expect(renderSummary(given, result, outputsFailure)).toBe(html)
  })
})

describe('the outputs of a vote check', () => {
  const LAST_VOTE = '2026-11-24T11:00:00.000Z'
  /** The `votes` output (interface.md): per user, `voted`, `votes` and `last_vote`. */
  const votes = (...entries: [string, Vote][]): string =>
    JSON.stringify(
      Object.fromEntries(entries.map(([id, v]) => [id, { voted: v.voted, votes: v.votes, last_vote: v.lastVote?.toISOString() ?? null }]))
    )

  it.each<[string, VoteOutcome, Record<string, string>]>([
    [
      'one user voted: voted, votes and last-vote',
      checked([A, VOTED]),
      {
        result: 'voted',
        status: '200',
        voted: 'true',
        votes: `{"${A}":{"voted":true,"votes":1234,"last_vote":"${LAST_VOTE}"}}`,
        'last-vote': LAST_VOTE
      }
    ],
    [
      'one user without a last vote time: no last-vote',
      checked([A, BARE]),
      { result: 'voted', status: '200', voted: 'true', votes: votes([A, BARE]) }
    ],
    [
      'several users, one not voted: voted false, and no last-vote, which would speak for one of them',
      checked([A, VOTED], [B, NOT_VOTED]),
      { result: 'not-voted', status: '200', voted: 'false', votes: votes([A, VOTED], [B, NOT_VOTED]) }
    ],
    [
      'fail-if-not-voted: result not-voted and voted false',
      NOT_VOTED_FAILING,
      { result: 'not-voted', status: '200', voted: 'false', votes: votes([A, NOT_VOTED]) }
    ],
    [
      'a failure part-way: the votes it has, but no voted nor last-vote, which would speak for users not checked',
      outcome(stopped([B]), [A, VOTED]),
      { result: 'failed', status: '200', votes: votes([A, VOTED]) }
    ],
    [
      'a dry run: its result alone, no status (the key check is not a vote check)',
      outcome({ ...DRY_RUN, keyCheck: { state: 'valid' } }),
      { result: 'dry-run' }
    ]
  ])('%s', (_, given, expected) => {
    const files = runnerFiles()
    writeOutputs(given)
    expect(files.outputs()).toEqual(expected)
  })
})

describe('reportVotes', () => {
  it('writes the outputs, the log and the section followed by a line break, and returns no failure', async () => {
    const files = runnerFiles()
    const lines = capturedStdout().lines
    const given = checked([A, VOTED])
    expect(await reportVotes(settings(), given)).toBeUndefined()
    expect(files.outputs()).toMatchObject({ result: 'voted', 'last-vote': '2026-11-24T11:00:00.000Z' })
    expect(lines(), 'the log line of the user').toEqual([expect.stringMatching(`^User ${A}: voted`)])
    expect(files.summary()).toBe(`${renderSummary(settings(), given)}\n`)
  })

  // The outputs failure's words are pinned in test/shared/summary.test.ts.
  const UNWRITABLE = /^The step's outputs could not be written to GITHUB_OUTPUT/
  const UNWRITABLE_WARNING = /^::warning::The step's outputs could not be written/
  it.each<[string, 'file' | 'directory', VoteOutcome, string | RegExp, RegExp[], RegExp]>([
    [
      "fail-if-not-voted: the run's failure, the outputs written",
      'file',
      NOT_VOTED_FAILING,
      'Not voted: 1.',
      [],
      /^<h3>⭕ .*Error:<\/strong> Not voted: 1\./s
    ],
    [
      'outputs that cannot be written: their failure, not a warning',
      'directory',
      checked([A, VOTED]),
      UNWRITABLE,
      [],
      /^<h3>❌ .*: voted; the step failed/
    ],
    [
      "outputs that cannot be written after a failure: the run's failure, the outputs' a warning",
      'directory',
      outcome(stopped([A])),
      'Stopped.',
      [UNWRITABLE_WARNING],
      /^<h3>❌ .*: failed: 1 user\(s\) not checked<\/h3>.*Stopped\..*outputs could not be written/s
    ]
  ])('returns the failure for the step: %s', async (_, output, given, failure, warnings, summary) => {
    const files = runnerFiles({ output })
    const lines = capturedStdout().lines
    const returned = await reportVotes(settings(), given)
    if (typeof failure === 'string') expect(returned).toBe(failure)
    else expect(returned).toMatch(failure)
    expect(lines().filter(line => line.startsWith('::warning'))).toEqual(warnings.map(warning => expect.stringMatching(warning)))
    expect(files.summary()).toMatch(summary)
    if (output === 'file') expect(files.outputs()).toMatchObject({ result: given.result })
  })
})
