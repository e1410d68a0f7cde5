/**
 * The vote-check mode's report (src/votes/report.ts), word for word: the log line per user, the
 * headline and the summary section of each outcome, the outputs, and what reportVotes leaves
 * for the runner when its outputs cannot be written. Outcomes are built by hand, as runVotes
 * returns them (test/votes/votes.test.ts runs the mode itself).
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
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

/** Settings of a vote check against a service other than the live one: the bot is named without a link. */
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

/** An outcome as runVotes returns it: the result follows from the votes and the error. */
function outcome(votes: [string, Vote][], fields: Partial<VoteOutcome> = {}): VoteOutcome {
  const error = fields.error
  const result = error !== undefined ? 'failed' : votes.every(([, vote]) => vote.voted) ? 'voted' : 'not-voted'
  return { result, votes: new Map(votes), status: 200, rateLimited: 0, unchecked: [], keyCheck: undefined, error, at: AT, ...fields }
}

const VOTED: Vote = { voted: true, votes: 1234, lastVote: AN_HOUR_AGO }
const NOT_VOTED: Vote = { voted: false, votes: 0, lastVote: null }
/** A 204 answer: voted, with neither a count nor a time. */
const BARE: Vote = { voted: true, votes: null, lastVote: null }

/** What the toolkit printed from now on, one entry a line. */
const printed = (): (() => string[]) => capturedStdout().lines

afterEach(() => {
  vi.unstubAllEnvs()
  vi.restoreAllMocks()
})

describe('the log of a vote check', () => {
  it('one line per user: voted or not, with the vote count and the last vote when the service gave them', () => {
    const lines = printed()
    announce(
      outcome([
        [A, VOTED],
        [B, NOT_VOTED],
        [C, BARE],
        ['567890123456789012', { voted: true, votes: null, lastVote: AN_HOUR_AGO }]
      ])
    )
    expect(lines()).toEqual([
      `User ${A}: voted in the last 24 hours (1234 votes, last 11:00 UTC, 1 h before this run).`,
      `User ${B}: has not voted in the last 24 hours (0 votes).`,
      `User ${C}: voted in the last 24 hours.`,
      'User 567890123456789012: voted in the last 24 hours (last 11:00 UTC, 1 h before this run).'
    ])
  })

  it('a key that could not be checked is a warning with its title; answers of the rate limit are counted', () => {
    const lines = printed()
    announce(outcome([], { result: 'dry-run', keyCheck: { state: 'unchecked', reason: 'the service answered 503' }, rateLimited: 2 }))
    expect(lines()).toEqual([
      '::warning title=Key not checked::The API key could not be checked (the service answered 503); the next run will check it.',
      "The service's rate limit answered 2 time(s); those checks were retried."
    ])
  })

  it('says nothing of a valid key, nor of a rate limit that never answered', () => {
    const lines = printed()
    announce(outcome([], { result: 'dry-run', keyCheck: { state: 'valid' }, rateLimited: 0 }))
    expect(lines()).toEqual([])
  })
})

describe('the headline of a vote check', () => {
  it.each<[string, VoteOutcome, string]>([
    ['one user voted', outcome([[A, VOTED]]), '✅ Vote check for Bot 123456789012345678: voted'],
    [
      'every user of three voted',
      outcome([
        [A, VOTED],
        [B, BARE],
        [C, VOTED]
      ]),
      '✅ Vote check for Bot 123456789012345678: all 3 users voted'
    ],
    ['one user has not voted', outcome([[A, NOT_VOTED]]), '⭕ Vote check for Bot 123456789012345678: not voted in the last 24 hours'],
    [
      'one user of three has not voted',
      outcome([
        [A, VOTED],
        [B, NOT_VOTED],
        [C, BARE]
      ]),
      '⭕ Vote check for Bot 123456789012345678: 1 of 3 users have not voted in the last 24 hours'
    ],
    [
      'a dry run',
      outcome([], { result: 'dry-run', status: undefined }),
      '🧪 Vote check for Bot 123456789012345678: dry run: nobody checked'
    ],
    [
      'a failure that says why, with users not checked',
      outcome([[A, VOTED]], { unchecked: [B, C], error: new ActionError('x', { headline: 'key refused' }) }),
      '❌ Vote check for Bot 123456789012345678: failed: key refused; 2 user(s) not checked'
    ],
    [
      'a failure without a headline, with users not checked',
      outcome([], { unchecked: [A], error: new ActionError('x') }),
      '❌ Vote check for Bot 123456789012345678: failed: 1 user(s) not checked'
    ],
    [
      'a failure that says why, every user checked',
      outcome([[A, VOTED]], { error: new ActionError('x', { headline: 'key refused' }) }),
      '❌ Vote check for Bot 123456789012345678: failed: key refused'
    ],
    [
      'a failure without an error of its own',
      outcome([[A, VOTED]], { result: 'failed' }),
      '❌ Vote check for Bot 123456789012345678: failed'
    ]
  ])('%s', (_label, given, headline) => {
    expect(renderSummary(settings(), given)).toMatch(new RegExp(`^<h3>${headline.replace(/[()]/g, '\\$&')}</h3>\n`))
  })
})

describe('the summary section of a vote check, whole', () => {
  it('users who voted and one who has not: one row each, in the order given', () => {
    expect(
      renderSummary(
        settings([A, B, C]),
        outcome([
          [A, VOTED],
          [B, NOT_VOTED],
          [C, BARE]
        ])
      )
    ).toBe(
      `<h3>⭕ Vote check for Bot ${BOT}: 1 of 3 users have not voted in the last 24 hours</h3>\n` +
        `<table>\n${HEADER}\n` +
        `<tr><td><code>${A}</code></td><td>yes</td><td>1,234</td><td>11:00 UTC, 1 h before this run</td></tr>\n` +
        `<tr><td><code>${B}</code></td><td>no</td><td>0</td><td></td></tr>\n` +
        `<tr><td><code>${C}</code></td><td>yes</td><td></td><td></td></tr>\n` +
        '</table>\n'
    )
  })

  it('a failure part-way: the users checked, those not checked, the error and the outputs failure', () => {
    const failed = outcome([[A, VOTED]], { unchecked: [B, C], error: new ActionError('The key was refused.', { headline: 'key refused' }) })
    expect(renderSummary(settings([A, B, C]), failed, 'Outputs failed.')).toBe(
      `<h3>❌ Vote check for Bot ${BOT}: failed: key refused; 2 user(s) not checked</h3>\n` +
        `<table>\n${HEADER}\n` +
        `<tr><td><code>${A}</code></td><td>yes</td><td>1,234</td><td>11:00 UTC, 1 h before this run</td></tr>\n` +
        `<tr><td><code>${B}</code></td><td>not checked</td><td></td><td></td></tr>\n` +
        `<tr><td><code>${C}</code></td><td>not checked</td><td></td><td></td></tr>\n` +
        '</table>\n' +
        '<p>❌ <strong>Error:</strong> The key was refused.</p>\n' +
        '<p>❌ <strong>Error:</strong> Outputs failed.</p>\n'
    )
  })

  it('a failure before any answer: the table lists the users not checked', () => {
    const page = renderSummary(settings([A, B]), outcome([], { unchecked: [A, B], error: new ActionError('Stopped.') }))
    expect(page).toBe(
      `<h3>❌ Vote check for Bot ${BOT}: failed: 2 user(s) not checked</h3>\n` +
        `<table>\n${HEADER}\n` +
        `<tr><td><code>${A}</code></td><td>not checked</td><td></td><td></td></tr>\n` +
        `<tr><td><code>${B}</code></td><td>not checked</td><td></td><td></td></tr>\n` +
        '</table>\n' +
        '<p>❌ <strong>Error:</strong> Stopped.</p>\n'
    )
  })

  it("a dry run's failed key check: no table, and no promise of what a real run would check", () => {
    const page = renderSummary(
      settings([A], { 'dry-run': 'true' }),
      outcome([], { error: new ActionError('The key was refused.', { headline: 'key refused' }) })
    )
    expect(page).toBe(
      `<h3>❌ Vote check for Bot ${BOT}: failed: key refused</h3>\n<p>❌ <strong>Error:</strong> The key was refused.</p>\n`
    )
  })

  it('a dry run: the users a real run would check', () => {
    expect(renderSummary(settings([A, B], { 'dry-run': 'true' }), outcome([], { result: 'dry-run', status: undefined }))).toBe(
      `<h3>🧪 Vote check for Bot ${BOT}: dry run: nobody checked</h3>\n<p>A real run would check 2 user(s): <code>${A}</code>, <code>${B}</code>.</p>\n`
    )
  })

  it('outputs that could not be written turn the headline failed, keeping what the check found', () => {
    expect(renderSummary(settings(), outcome([[A, BARE]]), 'Outputs failed.')).toBe(
      `<h3>❌ Vote check for Bot ${BOT}: voted; the step failed: its outputs could not be written</h3>\n` +
        `<table>\n${HEADER}\n<tr><td><code>${A}</code></td><td>yes</td><td></td><td></td></tr>\n</table>\n` +
        '<p>❌ <strong>Error:</strong> Outputs failed.</p>\n'
    )
  })
})

describe('the outputs and the summary file', () => {
  /** Fresh GITHUB_OUTPUT (a file, or a directory no output can be written to) and GITHUB_STEP_SUMMARY files. */
  const runner = (output: 'file' | 'directory' = 'file'): { outputs: () => Record<string, string>; summary: () => string } =>
    runnerFiles({ output })

  it('a failure part-way gives no last-vote, even with one user answered: it would not speak for the others', () => {
    const files = runner()
    writeOutputs(outcome([[A, VOTED]], { unchecked: [B], error: new ActionError('Stopped.') }))
    expect(files.outputs()).toEqual({
      result: 'failed',
      status: '200',
      votes: JSON.stringify({ [A]: { voted: true, votes: 1234, last_vote: '2026-11-24T11:00:00.000Z' } })
    })
  })

  it('one user without a last vote time gives no last-vote', () => {
    const files = runner()
    writeOutputs(outcome([[A, BARE]]))
    expect(files.outputs()).toEqual({
      result: 'voted',
      status: '200',
      voted: 'true',
      votes: JSON.stringify({ [A]: { voted: true, votes: null, last_vote: null } })
    })
  })

  it('reportVotes: every output, the log, the section followed by a line break, and no failure', async () => {
    const files = runner()
    const lines = printed()
    const given = outcome([[A, VOTED]])
    expect(await reportVotes(settings(), given)).toBeUndefined()
    expect(files.outputs()).toEqual({
      result: 'voted',
      status: '200',
      voted: 'true',
      votes: JSON.stringify({ [A]: { voted: true, votes: 1234, last_vote: '2026-11-24T11:00:00.000Z' } }),
      'last-vote': '2026-11-24T11:00:00.000Z'
    })
    expect(lines()).toEqual([`User ${A}: voted in the last 24 hours (1234 votes, last 11:00 UTC, 1 h before this run).`])
    expect(files.summary()).toBe(`${renderSummary(settings(), given)}\n`)
  })

  it('reportVotes, outputs that cannot be written: the failure is returned (the step error), not a warning', async () => {
    const files = runner('directory')
    const lines = printed()
    const failure = await reportVotes(settings(), outcome([[A, VOTED]]))
    expect(failure).toMatch(/^The step's outputs could not be written to GITHUB_OUTPUT \(.*\); later steps will not see them\./)
    expect(lines().filter(line => line.startsWith('::warning'))).toEqual([])
    expect(files.summary()).toMatch(/^<h3>❌ Vote check for Bot \d+: voted; the step failed: its outputs could not be written<\/h3>/)
  })

  it("reportVotes, outputs that cannot be written after a failure: the run's failure is returned, the outputs one is a warning", async () => {
    runner('directory')
    const lines = printed()
    const failure = await reportVotes(settings(), outcome([], { unchecked: [A], error: new ActionError('Stopped.') }))
    expect(failure).toBe('Stopped.')
    expect(lines().filter(line => line.startsWith('::warning'))).toEqual([
      expect.stringMatching(/^::warning::The step's outputs could not be written to GITHUB_OUTPUT/)
    ])
  })
})
