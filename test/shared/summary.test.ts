/**
 * The job summary's plumbing (src/summary.ts), shared by both modes' reports: writing a section
 * to GITHUB_STEP_SUMMARY (or not, in a local run), the cap on a section's size, the section of a
 * run that failed before its mode began, the headline of a step whose outputs could not be
 * written, and how the bot is named.
 */
import { writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import * as core from '@actions/core'
import { describe, expect, it, vi } from 'vitest'
import { addSecret, clearSecrets } from '../../src/secrets.js'
import {
  botTitle,
  failureSection,
  headlineWith,
  markedParagraph,
  utc,
  writeOutputsSafely,
  writeSection
} from '../../src/summary.js'
import { capturedStdout, runnerFiles } from '../support/step.js'
import { afterTest } from '../support/teardown.js'

const BOT_ID = '123456789012345678'

/**
 * A fresh step: an empty GITHUB_STEP_SUMMARY file (or a folder there, or the variable unset), and
 * what the step prints.
 */
function step(summaryFile: 'file' | 'directory' | 'unset' = 'file') {
  const { summary } = runnerFiles()
  const file = process.env['GITHUB_STEP_SUMMARY']!
  if (summaryFile !== 'file')
    process.env['GITHUB_STEP_SUMMARY'] = summaryFile === 'unset' ? '' : dirname(file)
  return { file, summary, printed: capturedStdout() }
}

/** A function that throws this. */
const throwing =
  (value: unknown): (() => never) =>
  () => {
    throw value
  }

describe('writeSection', () => {
  it('adds the section to the job summary, after what earlier steps wrote, and without what was left in the builder', async () => {
    const { file, summary, printed } = step()
    writeFileSync(file, '<p>an earlier step</p>\n')
    core.summary.addRaw('left over in the builder')
    await writeSection(builder => builder.addRaw('<h3>the section</h3>\n', false))
    expect(summary()).toBe('<p>an earlier step</p>\n<h3>the section</h3>\n')
    expect(printed.text()).toBe('')
  })

  it('in a local run without GITHUB_STEP_SUMMARY: writes nothing and says so in a debug line only', async () => {
    const { printed } = step('unset')
    const build = vi.fn()
    await writeSection(build)
    expect(build).not.toHaveBeenCalled()
    expect(printed.text()).toBe(
      '::debug::No job summary written: GITHUB_STEP_SUMMARY is not set.\n'
    )
  })

  it.each<[string, 'file' | 'directory', Parameters<typeof writeSection>[0], RegExp]>([
    [
      'a summary that cannot be written',
      'directory',
      summary => summary.addRaw('<p>x</p>\n', false),
      /: .*EISDIR/
    ],
    [
      'a builder that throws, whatever it throws (a string, as a library might)',
      'file',
      throwing('not an Error'),
      /: not an Error\n$/
    ]
  ])('%s: one warning, never a crash', async (_, file, build, why) => {
    const { printed } = step(file)
    await expect(writeSection(build)).resolves.toBeUndefined()
    expect(printed.lines()).toEqual([
      expect.stringMatching(/^::warning::The job summary could not be written: /)
    ])
    expect(printed.text()).toMatch(why)
  })

  it('a section of exactly the cap (256 KiB) is written whole; one over it is cut at a line end 200 characters short, saying so', async () => {
    const { file, summary } = step()
    const CAP = 256 * 1024
    const line = `${'x'.repeat(99)}\n`
    const whole = line.repeat(CAP / 100) + 'y'.repeat(CAP % 100)
    expect(whole).toHaveLength(CAP)
    await writeSection(builder => builder.addRaw(whole, false))
    expect(summary()).toBe(whole)
    writeFileSync(file, '')
    await writeSection(builder => builder.addRaw(line.repeat(CAP / 100 + 1), false))
    const written = summary()
    const note =
      '\n<p>(The rest of this section was cut: it would have been too large for the job summary.)</p>\n'
    // Whole lines up to the last line end at or before character 262,144 − 200 = 261,944.
    expect(written).toBe(line.repeat(2619) + note)
    expect(written.length).toBeLessThanOrEqual(CAP)
  })
})

it.each([
  [
    'names the bot once its ID was read, and why the run failed in a few words',
    ["Input 'timeout' must be a whole number.", BOT_ID, "bad input 'timeout'"],
    `<h3>❌ Bot ${BOT_ID}: failed: bad input &#39;timeout&#39;</h3>\n<p>❌ <strong>Error:</strong> Input &#39;timeout&#39; must be a whole number.</p>\n`
  ],
  [
    'names discord.place before the ID is known, and says only "failed" without a headline',
    ['Something <b>broke</b>.'],
    '<h3>❌ discord.place: failed</h3>\n<p>❌ <strong>Error:</strong> Something &lt;b&gt;broke&lt;/b&gt;.</p>\n'
  ]
] as const)(
  'the section of a run that failed before its mode began: %s',
  async (_, [message, botId, headline], section) => {
    const { summary } = step()
    await writeSection(builder => failureSection(builder, message, botId, headline))
    expect(summary()).toBe(section)
  }
)

const X4K = 'x'.repeat(4_000)
it.each([
  {
    title: 'one line, escaped, `code` as code',
    icon: '⚠️',
    label: 'Warning:',
    message: 'Set `command-count`\n\nor <none>.',
    shown: 'Set <code>command-count</code> or &lt;none&gt;.'
  },
  {
    title: 'over 4,000 characters: cut, saying so',
    icon: '❌',
    label: 'Error:',
    message: `${X4K}x`,
    shown: `${X4K}… (1 more characters not shown)`
  },
  { title: '4,000 characters: whole', icon: '❌', label: 'Error:', message: X4K, shown: X4K }
])('markedParagraph: $title', ({ icon, label, message, shown }) => {
  expect(markedParagraph(icon, label, message)).toBe(
    `<p>${icon} <strong>${label}</strong> ${shown}</p>\n`
  )
})

// The bot's page on discord.place is linked when the run spoke to the live service; another
// service's pages are not discord.place's.
it.each([
  [
    'Example <Bot>',
    'https://api.discord.place',
    `<a href="https://discord.place/bots/${BOT_ID}">Example &lt;Bot&gt;</a>`
  ],
  [
    undefined,
    'https://api.discord.place',
    `<a href="https://discord.place/bots/${BOT_ID}">Bot ${BOT_ID}</a>`
  ],
  ['Example <Bot>', 'http://127.0.0.1:8080', 'Example &lt;Bot&gt;'],
  [undefined, 'https://staging.example', `Bot ${BOT_ID}`]
])('botTitle: %j on %s', (name, baseUrl, title) => {
  expect(botTitle(BOT_ID, name, baseUrl)).toBe(title)
})

describe('a step whose outputs could not be written', () => {
  it.each<[string, string | undefined, [string, string], [string, string]]>([
    ['keeps it when the outputs were written', undefined, ['✅', 'updated'], ['✅', 'updated']],
    [
      'marks it failed, keeping what happened',
      'disk full',
      ['✅', 'updated'],
      ['❌', 'updated; the step failed: its outputs could not be written']
    ],
    [
      'leaves a failed one as it is: it says the step failed',
      'disk full',
      ['❌', 'failed: key refused'],
      ['❌', 'failed: key refused']
    ]
  ])('the headline: headlineWith %s', (_, failure, headline, expected) => {
    expect(headlineWith(failure, headline)).toEqual(expected)
  })

  it('writeOutputsSafely: nothing to report when the writes went through; a failed write, one clear error, redacted', () => {
    const write = vi.fn()
    expect(writeOutputsSafely(write)).toBeUndefined()
    expect(write).toHaveBeenCalledOnce()
    addSecret('dp_0utput-K3y-s3cr3t')
    afterTest(clearSecrets)
    expect(
      writeOutputsSafely(
        throwing(new Error('ENOSPC: no space left on device, write dp_0utput-K3y-s3cr3t'))
      )
    ).toBe(
      "The step's outputs could not be written to GITHUB_OUTPUT (ENOSPC: no space left on device, write ***); later steps will not see them. " +
        'Check that the runner can write its temporary files (disk space, permissions).'
    )
    expect(writeOutputsSafely(throwing('a string'))).toMatch(
      /^The step's outputs could not be written to GITHUB_OUTPUT \(a string\); later steps/
    )
  })
})

it('utc: the time alone on the run’s day, the date with it on another', () => {
  const now = new Date('2026-11-24T21:05:30.000Z')
  expect(utc(new Date('2026-11-24T00:00:59.999Z'), now)).toBe('00:00 UTC')
  expect(utc(new Date('2026-11-25T00:00:00.000Z'), now)).toBe('2026-11-25 00:00 UTC')
  expect(utc(new Date('2025-11-24T21:05:00.000Z'), now)).toBe('2025-11-24 21:05 UTC')
})
