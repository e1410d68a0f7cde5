/**
 * The job summary's plumbing (src/summary.ts), shared by both modes' reports: writing a section
 * to GITHUB_STEP_SUMMARY (or not, in a local run), the cap on a section's size, the section of a
 * run that failed before its mode began, the headline of a step whose outputs could not be
 * written, and how the bot is named.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as core from '@actions/core'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { addSecret, clearSecrets } from '../../src/secrets.js'
import {
  botTitle,
  failureSection,
  headlineWith,
  markedParagraph,
  MAX_SECTION_CHARS,
  utc,
  writeOutputsSafely,
  writeSection
} from '../../src/summary.js'

const BOT_ID = '123456789012345678'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  vi.unstubAllEnvs()
  vi.restoreAllMocks()
  while (cleanups.length > 0) await cleanups.pop()!()
})

/** A fresh step: an empty GITHUB_STEP_SUMMARY file (or the variable unset), and what the step prints. */
async function step(summaryFile: 'file' | 'directory' | 'unset' = 'file'): Promise<{ file: string; printed: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'summary-'))
  cleanups.push(() => rm(dir, { recursive: true, force: true }))
  const file = summaryFile === 'directory' ? dir : join(dir, 'summary')
  if (summaryFile === 'file') await writeFile(file, '')
  vi.stubEnv('GITHUB_STEP_SUMMARY', summaryFile === 'unset' ? '' : file)
  // @actions/core's summary keeps the file of its first write, as one step's process would.
  core.summary.emptyBuffer()
  ;(core.summary as unknown as { _filePath?: string })._filePath = undefined
  const printed: string[] = []
  vi.spyOn(process.stdout, 'write').mockImplementation(chunk => {
    printed.push(String(chunk))
    return true
  })
  return { file, printed }
}

describe('writeSection', () => {
  it('adds the section to the job summary, after what earlier steps wrote, and without what was left in the builder', async () => {
    const { file, printed } = await step()
    await writeFile(file, '<p>an earlier step</p>\n')
    core.summary.addRaw('left over in the builder')
    await writeSection(summary => summary.addRaw('<h3>the section</h3>\n', false))
    expect(await readFile(file, 'utf8')).toBe('<p>an earlier step</p>\n<h3>the section</h3>\n')
    expect(printed).toEqual([])
  })

  it('in a local run without GITHUB_STEP_SUMMARY: writes nothing and says so in a debug line only', async () => {
    const { printed } = await step('unset')
    const build = vi.fn()
    await writeSection(build)
    expect(build).not.toHaveBeenCalled()
    expect(printed.join('')).toBe('::debug::No job summary written: GITHUB_STEP_SUMMARY is not set.\n')
  })

  it('a summary that cannot be written is one warning, never a crash', async () => {
    const { printed } = await step('directory')
    await expect(writeSection(summary => summary.addRaw('<p>x</p>\n', false))).resolves.toBeUndefined()
    expect(printed).toHaveLength(1)
    expect(printed[0]).toMatch(/^::warning::The job summary could not be written: .*EISDIR/)
  })

  it('a builder that throws is reported the same way, whatever it throws', async () => {
    const { printed } = await step()
    await writeSection(() => {
      throw 'not an Error' // a thrown string, as a library might
    })
    expect(printed).toEqual(['::warning::The job summary could not be written: not an Error\n'])
  })

  it('a section of exactly the cap is written whole', async () => {
    const { file } = await step()
    const section = `${'x'.repeat(99)}\n`.repeat(MAX_SECTION_CHARS / 100) + 'y'.repeat(MAX_SECTION_CHARS % 100)
    expect(section).toHaveLength(MAX_SECTION_CHARS)
    await writeSection(summary => summary.addRaw(section, false))
    expect(await readFile(file, 'utf8')).toBe(section)
  })

  it('a section over the cap (256 KiB) is cut at the end of a line, 200 characters short of the cap, and says so', async () => {
    const { file } = await step()
    const line = `${'x'.repeat(99)}\n`
    const section = line.repeat(MAX_SECTION_CHARS / 100 + 1)
    await writeSection(summary => summary.addRaw(section, false))
    const written = await readFile(file, 'utf8')
    const note = '\n<p>(The rest of this section was cut: it would have been too large for the job summary.)</p>\n'
    expect(written.endsWith(note)).toBe(true)
    const kept = written.slice(0, -note.length)
    // Whole lines up to the last line end at or before character 262,144 − 200 = 261,944.
    expect(kept).toBe(line.repeat(2619))
    expect(written.length).toBeLessThanOrEqual(MAX_SECTION_CHARS)
  })
})

describe('the section of a run that failed before its mode began', () => {
  async function section(message: string, botId?: string, headline?: string): Promise<string> {
    const { file } = await step()
    await writeSection(summary => failureSection(summary, message, botId, headline))
    return readFile(file, 'utf8')
  }

  it('names the bot once its ID was read, and why the run failed in a few words', async () => {
    expect(await section("Input 'timeout' must be a whole number.", BOT_ID, "bad input 'timeout'")).toBe(
      `<h3>❌ Bot ${BOT_ID}: failed: bad input &#39;timeout&#39;</h3>\n` +
        '<p>❌ <strong>Error:</strong> Input &#39;timeout&#39; must be a whole number.</p>\n'
    )
  })

  it('names discord.place before the ID is known, and says only "failed" without a headline', async () => {
    expect(await section('Something <b>broke</b>.')).toBe(
      '<h3>❌ discord.place: failed</h3>\n<p>❌ <strong>Error:</strong> Something &lt;b&gt;broke&lt;/b&gt;.</p>\n'
    )
  })
})

describe('markedParagraph', () => {
  it('shows the message on one line, escaped, its `code` spans as code', () => {
    expect(markedParagraph('⚠️', 'Warning:', 'Set `command-count`\n\nor <none>.')).toBe(
      '<p>⚠️ <strong>Warning:</strong> Set <code>command-count</code> or &lt;none&gt;.</p>\n'
    )
  })

  it('cuts a message longer than 4,000 characters, saying how much is not shown', () => {
    expect(markedParagraph('❌', 'Error:', 'x'.repeat(4_001))).toBe(
      `<p>❌ <strong>Error:</strong> ${'x'.repeat(4_000)}… (1 more characters not shown)</p>\n`
    )
    expect(markedParagraph('❌', 'Error:', 'x'.repeat(4_000))).toBe(`<p>❌ <strong>Error:</strong> ${'x'.repeat(4_000)}</p>\n`)
  })
})

describe('botTitle', () => {
  it("links the bot's page on discord.place when the run spoke to the live service", () => {
    expect(botTitle(BOT_ID, 'Example <Bot>', 'https://api.discord.place')).toBe(
      `<a href="https://discord.place/bots/${BOT_ID}">Example &lt;Bot&gt;</a>`
    )
    expect(botTitle(BOT_ID, undefined, 'https://api.discord.place')).toBe(
      `<a href="https://discord.place/bots/${BOT_ID}">Bot ${BOT_ID}</a>`
    )
  })

  it("names it without a link for another service, whose pages are not discord.place's", () => {
    expect(botTitle(BOT_ID, 'Example <Bot>', 'http://127.0.0.1:8080')).toBe('Example &lt;Bot&gt;')
    expect(botTitle(BOT_ID, undefined, 'https://staging.example')).toBe(`Bot ${BOT_ID}`)
  })
})

describe('a step whose outputs could not be written', () => {
  it('keeps the headline as it was when the outputs were written', () => {
    expect(headlineWith(undefined, ['✅', 'updated'])).toEqual(['✅', 'updated'])
  })

  it('marks a headline failed, keeping what happened', () => {
    expect(headlineWith('disk full', ['✅', 'updated'])).toEqual(['❌', 'updated; the step failed: its outputs could not be written'])
  })

  it('leaves a failed headline as it is: it already says the step failed', () => {
    expect(headlineWith('disk full', ['❌', 'failed: key refused'])).toEqual(['❌', 'failed: key refused'])
  })

  it('writeOutputsSafely: nothing to report when the writes went through', () => {
    const write = vi.fn()
    expect(writeOutputsSafely(write)).toBeUndefined()
    expect(write).toHaveBeenCalledOnce()
  })

  it('writeOutputsSafely: a failed write becomes one clear error, redacted, whatever was thrown', () => {
    addSecret('dp_0utput-K3y-s3cr3t')
    cleanups.push(async () => clearSecrets())
    expect(
      writeOutputsSafely(() => {
        throw new Error('ENOSPC: no space left on device, write dp_0utput-K3y-s3cr3t')
      })
    ).toBe(
      "The step's outputs could not be written to GITHUB_OUTPUT (ENOSPC: no space left on device, write ***); later steps will not see them. " +
        'Check that the runner can write its temporary files (disk space, permissions).'
    )
    expect(
      writeOutputsSafely(() => {
        throw 'a string'
      })
    ).toMatch(/^The step's outputs could not be written to GITHUB_OUTPUT \(a string\); later steps/)
  })
})

describe('utc', () => {
  const now = new Date('2026-11-24T21:05:30.000Z')

  it('the time alone on the run’s day, the date with it on another', () => {
    expect(utc(new Date('2026-11-24T00:00:59.999Z'), now)).toBe('00:00 UTC')
    expect(utc(new Date('2026-11-25T00:00:00.000Z'), now)).toBe('2026-11-25 00:00 UTC')
    expect(utc(new Date('2025-11-24T21:05:00.000Z'), now)).toBe('2025-11-24 21:05 UTC')
  })
})
