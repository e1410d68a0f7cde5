/** Secrets removed from outside text in every form, before it is cut, escaped or printed. */
import { afterEach, describe, expect, it } from 'vitest'
import { excerpt } from '../src/http.js'
import { addSecret, clearSecrets, FRAGMENT, logLine, redact } from '../src/redact.js'
import { escapeText } from '../src/report.js'

const KEY = 'dpk_Hq7Zr2Lm9Xv4Tc8Nw3Bs6Jy1'

afterEach(() => clearSecrets())

describe('redact', () => {
  it('changes nothing while no secret is known', () => {
    expect(redact(`key ${KEY}`)).toBe(`key ${KEY}`)
  })

  it.each([
    ['as it is', KEY],
    ['URL-encoded', encodeURIComponent('a&b=' + KEY)],
    ['JSON-escaped', JSON.stringify(`"${KEY}"`)],
    ['Markdown-escaped', KEY.replace(/_/g, '\\_')],
    ['base64', Buffer.from(KEY).toString('base64')],
    ['cut to its first half', KEY.slice(0, 14)],
    ['cut to its last FRAGMENT characters', KEY.slice(-FRAGMENT)]
  ])('removes the key %s', (_label, form) => {
    addSecret(KEY)
    const out = redact(`before ${form} after`)
    expect(out).toMatch(/^before .*\*\*\*.* after$/)
    for (let i = 0; i + FRAGMENT <= KEY.length; i++) expect(out).not.toContain(KEY.slice(i, i + FRAGMENT))
  })

  it('keeps text that shares fewer than FRAGMENT characters with a secret', () => {
    addSecret(KEY)
    const text = `dpk_Hq7Zr is how keys start; Service answered 401: Invalid API key.`
    expect(redact(text)).toBe(text)
  })

  it('returns the forms a log line could carry, for the runner to mask, each secret whole', () => {
    expect(addSecret('p@ss word+x/"y')).toEqual(['p@ss word+x/"y', 'p%40ss%20word%2Bx%2F%22y', 'p@ss word+x/\\"y'])
  })

  it('still redacts the forms it does not mask (Markdown-escaped, base64)', () => {
    addSecret(KEY)
    expect(redact(`a ${KEY.replace(/_/g, '\\_')} b ${Buffer.from(KEY).toString('base64')}`)).toMatch(/^a \*\*\* b \*\*\*=*$/)
  })

  it('runs before excerpt cuts, so a cut leaves no piece of a secret', () => {
    addSecret(KEY)
    const long = `${'x'.repeat(190)}${KEY}`
    const cut = excerpt(long, 200)
    expect(cut).not.toContain(KEY.slice(0, FRAGMENT))
    expect(cut.endsWith('***')).toBe(true)
  })

  it('runs before the summary escapes Markdown', () => {
    addSecret(KEY)
    expect(escapeText(`the key ${KEY}`)).toBe('the key \\*\\*\\*')
  })
})

describe('logLine', () => {
  it('never begins with ::, which the runner would read as a command', () => {
    expect(logLine('::stop-commands::zz is not in the workspace')).toBe(': :stop-commands::zz is not in the workspace')
    expect(logLine('  ::error::x')).toBe('  : :error::x')
    expect(logLine('file ::error::x')).toBe('file ::error::x')
  })

  it('keeps a line to one line, so nothing in it can start a workflow command', () => {
    expect(logLine('file a.json\n::error::x\r\n::add-mask::Bot\u2028y\u001b[31m')).toBe('file a.json ::error::x ::add-mask::Bot y [31m')
  })
})
