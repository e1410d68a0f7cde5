/**
 * Text made safe to show: the secrets a run holds (what is masked, what is redacted) and the
 * forms each place needs: a log line, an annotation, the HTML summary, a figure or a time.
 * test/shared/redact.test.ts covers the many encodings of one key; this file covers the edges.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { addSecret, clearSecrets, FRAGMENT, maskSecret, proxyCredentials, redact } from '../../src/secrets.js'
import {
  annotationText,
  bounded,
  CONTROL_CHARACTER,
  excerpt,
  html,
  htmlLink,
  htmlMessage,
  logLine,
  logText,
  MAX_MESSAGE_CHARS,
  safeText
} from '../../src/text.js'
import { number, relative, when } from '../../src/summary.js'

const KEY = 'dpk_Hq7Zr2Lm9Xv4Tc8Nw3Bs6Jy1'

afterEach(() => clearSecrets())

/** Every piece of FRAGMENT characters of `secret` that `text` still holds. */
const leftPieces = (text: string, secret: string): string[] => {
  const found: string[] = []
  for (let i = 0; i + FRAGMENT <= secret.length; i++)
    if (text.includes(secret.slice(i, i + FRAGMENT))) found.push(secret.slice(i, i + FRAGMENT))
  return found
}

describe('addSecret: what the runner is asked to mask', () => {
  it('keeps every secret added, not only the last one', () => {
    addSecret(KEY)
    addSecret('ghs_Zx81Pq02Mn93Lk74')
    addSecret('pw8chars')
    addSecret('Sh0rt9')
    expect(redact(`a ${KEY} b ghs_Zx81Pq02Mn93Lk74 c pw8chars d Sh0rt9 e`)).toBe('a *** b *** c *** d *** e')
    expect(redact(`a ${KEY.toUpperCase()} b GHS_ZX81PQ02MN93LK74 c PW8CHARS d SH0RT9 e`)).toBe('a *** b *** c *** d *** e')
  })
})

describe('redact: where the secret is and what is around it', () => {
  it.each([
    ['at the very start', `${KEY} was refused`, '*** was refused'],
    ['at the very end', `refused: ${KEY}`, 'refused: ***'],
    ['alone', KEY, '***'],
    ['twice in a row', `${KEY}${KEY}`, '***'],
    ['twice, apart', `${KEY} and ${KEY}`, '*** and ***'],
    ['overlapping copies in two forms', `${KEY}${KEY.slice(-12).toUpperCase()}!`, '***!'],
    ['at the end, with its case changed', `refused: ${KEY.toLowerCase()}`, 'refused: ***'],
    ['at the start, with its case changed', `${KEY.toUpperCase()} refused`, '*** refused']
  ])('replaces the key %s, and keeps the rest', (_label, text, expected) => {
    addSecret(KEY)
    expect(redact(text)).toBe(expected)
  })

  it('keeps a text without the secret unchanged, empty text included', () => {
    addSecret(KEY)
    expect(redact('')).toBe('')
    expect(redact('Invalid API key.')).toBe('Invalid API key.')
  })

  it.each([
    ['as it is', (s: string) => s],
    ['with its case changed', (s: string) => s.toUpperCase()]
  ])('removes the last FRAGMENT characters of a secret %s', (_label, write) => {
    addSecret(KEY)
    expect(redact(`tail ${write(KEY.slice(-FRAGMENT))}.`)).toBe('tail ***.')
    expect(redact(`head ${write(KEY.slice(0, FRAGMENT))}.`)).toBe('head ***.')
  })

  it('removes a secret of 4 characters whole; a 3-character one would take common words with it', () => {
    addSecret('k9Qz')
    expect(redact('a k9Qz b K9QZ c')).toBe('a *** b *** c')
    clearSecrets()
    addSecret('k9Q')
    expect(redact('a k9Q b')).toBe('a k9Q b')
  })

  it('removes a secret of 9 characters whole, in any form, and no shorter piece of it', () => {
    const secret = 'Zq8Wx7Vy6'
    addSecret(secret)
    expect(redact(`a ${secret} b ${secret.toLowerCase()} c ${Buffer.from(secret).toString('hex')} d`)).toBe('a *** b *** c *** d')
    expect(redact(`a ${secret.slice(0, 8)} b`)).toBe(`a ${secret.slice(0, 8)} b`)
  })

  it.each([0, 1, 2])('removes a secret of 6 characters in base64, with %d bytes of other text before it', before => {
    const secret = 'Kp3Wz9'
    addSecret(secret)
    const encoded = Buffer.from('x'.repeat(before) + secret + 'y').toString('base64')
    expect(redact(`a ${encoded} b`)).toMatch(/^a \S{0,3}\*\*\*\S{0,4} b$/)
  })

  it('removes the key as the summary would escape it for HTML, each escaped character in its place', () => {
    const secret = 'Kx9&Qw7Rm2<Lm3Tz8>Zp5Hs4"Rt8Vb1'
    addSecret(secret)
    const escaped = secret.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
    expect(redact(`a ${escaped} b`)).toBe('a *** b')
  })

  it.each([...'\\`*_[]|~#!():@<>&"'])('removes the key Markdown-escaped, with %s escaped in it', char => {
    const secret = `Kx9Qw7Rm2Lm${char}3Tz8Zp5Hs4R`
    addSecret(secret)
    const escaped = secret.replace(char, `\\${char}`)
    expect(redact(`a ${escaped} b`)).toBe('a *** b')
  })

  it('removes the key URL-encoded as a whole address would be (encodeURI)', () => {
    const secret = 'Kx9 Qw7/Rm2?Lm3 Tz8#Zp5'
    addSecret(secret)
    expect(redact(`a ${encodeURI(secret)} b`)).toBe('a *** b')
  })

  it('removes the key partly percent-encoded, where an escape is followed by a hex digit', () => {
    addSecret(KEY)
    // Every other character encoded: `%717` is `q` then `7`, not a three-digit escape.
    const mixed = [...KEY].map((c, i) => (i % 2 === 0 ? c : `%${c.charCodeAt(0).toString(16)}`)).join('')
    expect(mixed).toContain('%717')
    expect(redact(`a ${mixed} b`)).toBe('a *** b')
  })

  it.each([
    ['\\u{} escapes', (c: string) => `\\u{${c.codePointAt(0)!.toString(16)}}`],
    ['HTML decimal references', (c: string) => `&#${c.codePointAt(0)};`],
    ['HTML hex references', (c: string) => `&#x${c.codePointAt(0)!.toString(16)};`]
  ])('removes a secret with characters beyond U+FFFF written as %s', (_label, write) => {
    const secret = 'Kx9😀Qw7𝄞Rm2🔑Lm3'
    addSecret(secret)
    expect(redact(`a ${[...secret].map(write).join('')} b`)).toBe('a *** b')
  })

  it('folds the case of every letter, A and Z included', () => {
    const secret = 'AqZwAeZrAtZy15'
    addSecret(secret)
    expect(redact(`x ${secret.toLowerCase()} y ${secret.toUpperCase()} w`)).toBe('x *** y *** w')
  })

  it('folds the case of letters beyond ASCII', () => {
    const secret = 'ÄöÜßÉèÇñØå12'
    addSecret(secret)
    expect(redact(`a ${secret.toLowerCase()} b`)).toBe('a *** b')
    expect(redact(`a ÄÖÜßÉÈÇÑØÅ12 b`)).toBe('a *** b')
  })

  it('reads a run of backslashes before a \\u escape as one escape, and a run before anything else as it is', () => {
    addSecret(KEY)
    const escapes = [...KEY].map(c => `\\\\\\u00${c.charCodeAt(0).toString(16)}`).join('')
    expect(redact(`a ${escapes} b`)).toBe('a *** b')
    const text = 'a \\\\\\ b \\\\q \\x \\u12 \\u{} \\u{12 &# &#x; &#; %4'
    expect(redact(text)).toBe(text)
  })

  it('removes a piece of a secret written with leading zeros in its references', () => {
    addSecret(KEY)
    const refs = [...KEY].map(c => `&#x0000${c.charCodeAt(0).toString(16)}`).join('')
    expect(redact(`a ${refs} b`)).toBe('a *** b')
  })
})

describe('redact: a secret as it is, whatever the text before it', () => {
  it.each([
    ['of 4 characters', 'ab12'],
    ['of 9 characters', 'abcdef123'],
    ['of 16 characters', 'ab12cd34ef56ab78']
  ])('removes a secret %s that follows a % (which would otherwise start an escape with it), at the end of a text too', (_label, secret) => {
    addSecret(secret)
    expect(redact(`x %${secret} y`)).toBe('x %*** y')
    expect(redact(`x %${secret}`)).toBe('x %***')
  })

  it('removes a run of FRAGMENT characters copied from the URL-encoded form, however little of the secret it spells', () => {
    const secret = 'a1 b2 c3 d4 e5 f6 g7'
    addSecret(secret)
    const piece = encodeURIComponent(secret).slice(2, 14)
    expect(piece).toBe('%20b2%20c3%2')
    expect(redact(`x ${piece} y`)).toBe('x *** y')
  })
})

describe('logLine: one line, inert to the runner', () => {
  it.each([
    ['a line break', 'a\nb', 'a b'],
    ['a run of control characters, as one space', 'a\r\n\t\u0000\u001f\u007f\u009f\u2028\u2029b', 'a b'],
    ['a tab', 'a\tb', 'a b']
  ])('replaces %s', (_label, text, expected) => {
    expect(logLine(text)).toBe(expected)
  })

  it('keeps printable text beyond the control characters', () => {
    expect(logLine(' \u00a0é€ ~ \u0020 ')).toBe(' \u00a0é€ ~   ')
  })

  it('never begins with :: even after a line break or spaces, and keeps a :: later in the line', () => {
    for (const text of ['::error::x', '\n::error::x', ' \t::warning::x', '\r\n  ::add-mask::x']) {
      expect(logLine(text)).not.toMatch(/^\s*::/)
      expect(logLine(text)).toContain(': :')
    }
    expect(logLine('a ::error::x')).toBe('a ::error::x')
    expect(logLine('::a::b::c')).toBe(': :a::b::c')
  })
})

describe('logText and annotationText: bounded, saying how much was cut', () => {
  it('keeps a log line of the limit whole, and cuts a longer one with a count of the rest', () => {
    expect(logText('x'.repeat(MAX_MESSAGE_CHARS))).toBe('x'.repeat(MAX_MESSAGE_CHARS))
    expect(logText('x'.repeat(MAX_MESSAGE_CHARS + 2500))).toBe(`${'x'.repeat(MAX_MESSAGE_CHARS)}… (2500 more characters not shown)`)
  })

  it('makes a log line one line, inert and redacted before it is cut', () => {
    addSecret(KEY)
    const text = logText(`::error::${KEY}\n##[add-mask]${'y'.repeat(MAX_MESSAGE_CHARS)}`)
    expect(text.startsWith(': :error::*** # #[add-mask]y')).toBe(true)
    expect(text).not.toContain('\n')
    expect(text).toMatch(/… \(\d+ more characters not shown\)$/)
  })

  it('keeps an annotation of the limit whole, and cuts a longer one with a count of the rest', () => {
    expect(annotationText('z'.repeat(MAX_MESSAGE_CHARS))).toBe('z'.repeat(MAX_MESSAGE_CHARS))
    expect(annotationText('z'.repeat(MAX_MESSAGE_CHARS + 1))).toBe(`${'z'.repeat(MAX_MESSAGE_CHARS)}… (1 more characters not shown)`)
  })

  it('keeps the line breaks of an annotation, redacts it and neutralises ##[', () => {
    addSecret(KEY)
    expect(annotationText(`refused\n${KEY.toUpperCase()}\n##[error]x`)).toBe('refused\n***\n# #[error]x')
  })

  it('cuts an annotation after redaction, so that a key across the cut leaves no piece', () => {
    addSecret(KEY)
    const text = annotationText(`${'a'.repeat(MAX_MESSAGE_CHARS - 5)}${KEY}${'b'.repeat(100)}`)
    expect(leftPieces(text, KEY)).toEqual([])
    expect(text).toMatch(/^a+\*\*\*b+… \(\d+ more characters not shown\)$/)
  })

  it('safeText changes a text with no secret and no ##[ not at all', () => {
    addSecret(KEY)
    expect(safeText('a #[ b ## [ c ::error:: d')).toBe('a #[ b ## [ c ::error:: d')
  })
})

describe('bounded and excerpt', () => {
  it('bounded keeps a text of exactly max characters, and cuts one more with the count', () => {
    expect(bounded('abcde', 5)).toBe('abcde')
    expect(bounded('abcdef', 5)).toBe('abcde… (1 more characters not shown)')
    expect(bounded('', 0)).toBe('')
  })

  it('bounded counts the characters left out after redaction', () => {
    addSecret(KEY)
    expect(bounded(`${KEY}${'c'.repeat(10)}`, 5)).toBe('***cc… (8 more characters not shown)')
  })

  it('excerpt puts a text on one line, trimmed, with runs of white space as one space', () => {
    expect(excerpt('  first\n\n  second\tthird \r\n ')).toBe('first second third')
  })

  it('excerpt keeps 200 characters by default, and says with … that there was more', () => {
    expect(excerpt('e'.repeat(200))).toBe('e'.repeat(200))
    expect(excerpt('e'.repeat(201))).toBe(`${'e'.repeat(200)}…`)
    expect(excerpt('abcdef', 3)).toBe('abc…')
    expect(excerpt('abc', 3)).toBe('abc')
  })

  it('excerpt redacts a key cut by line breaks before it joins the lines', () => {
    addSecret(KEY)
    expect(excerpt(`answer: ${KEY.slice(0, 12)}\n${KEY.slice(12)}`)).toBe('answer: ***')
  })
})

describe('html and htmlMessage: escaped, on one line', () => {
  it('escapes every character HTML gives a meaning to', () => {
    expect(html(`<a href="x" title='y'>&amp;</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;')
  })

  it('puts a text with blank lines on one line, so that it cannot end the HTML block', () => {
    expect(html('first\r\n\r\n# heading\n\n[link](x)\rlast')).toBe('first # heading [link](x) last')
  })

  it('htmlMessage shows `code` spans as code, escaped, and collapses white space', () => {
    expect(htmlMessage('  Set `command-count` to\n\n  a number <= `1,000`.  ')).toBe(
      'Set <code>command-count</code> to a number &lt;= <code>1,000</code>.'
    )
    expect(htmlMessage('a `` b')).toBe('a `` b')
    expect(htmlMessage('`<b>`')).toBe('<code>&lt;b&gt;</code>')
  })

  it('htmlMessage redacts a key a line break cut in two', () => {
    addSecret(KEY)
    expect(htmlMessage(`key ${KEY.slice(0, 14)}\n${KEY.slice(14)} refused`)).toBe('key *** refused')
  })

  it('htmlLink links only http and https addresses, in any case', () => {
    expect(htmlLink('site', 'HTTPS://discord.place/bots/1')).toBe('<a href="HTTPS://discord.place/bots/1">site</a>')
    expect(htmlLink('site', 'http://127.0.0.1:3000/a?b=1&c="2"')).toBe('<a href="http://127.0.0.1:3000/a?b=1&amp;c=&quot;2&quot;">site</a>')
    expect(htmlLink('site', 'ftp://x')).toBe('site')
    expect(htmlLink('site', ' https://x')).toBe('site')
    expect(htmlLink('site', 'https:x')).toBe('site')
  })
})

describe('number: thousands separated', () => {
  it.each([
    [0, '0'],
    [7, '7'],
    [999, '999'],
    [1000, '1,000'],
    [1260, '1,260'],
    [12345, '12,345'],
    [123456, '123,456'],
    [10_000_000, '10,000,000'],
    [-1234567, '-1,234,567'],
    [-5, '-5'],
    [1234.9, '1,234']
  ])('%d reads %s', (value, expected) => {
    expect(number(value)).toBe(expected)
  })
})

const HOUR_MS = 3_600_000

describe('relative and when: a time as a person reads it, later', () => {
  const now = new Date('2026-11-24T21:05:30.000Z')
  const at = (ms: number): Date => new Date(now.getTime() + ms)
  const MIN = 60_000

  // Relative to the run, never to the reader: a summary read the next morning stays true.
  it.each([
    [0, 'under a minute after this run'],
    [29_999, 'under a minute after this run'],
    [-29_999, 'under a minute before this run'],
    [30_000, '1 min after this run'],
    [-30_000, '1 min before this run'],
    [40 * MIN, '40 min after this run'],
    [59 * MIN, '59 min after this run'],
    [60 * MIN, '1 h after this run'],
    [61 * MIN, '1 h 1 min after this run'],
    [5 * 60 * MIN + 3 * MIN, '5 h 3 min after this run'],
    [-2 * 60 * MIN, '2 h before this run'],
    [-(2 * 60 * MIN + 59 * MIN), '2 h 59 min before this run'],
    [-40 * MIN, '40 min before this run'],
    [26 * 60 * MIN, '26 h after this run'],
    [47 * 60 * MIN + 59 * MIN, '47 h 59 min after this run'],
    [48 * 60 * MIN, '2 days after this run'],
    [-30 * 24 * 60 * MIN, '30 days before this run']
  ])('%d ms from the run reads %s', (ms, expected) => {
    expect(relative(at(ms), now)).toBe(expected)
  })

  it('gives the UTC time alone on the run’s day, with the date on another, and no parentheses to nest', () => {
    expect(when(new Date('2026-11-24T23:59:00.000Z'), now)).toBe('23:59 UTC, 2 h 54 min after this run')
    expect(when(new Date('2026-11-25T03:05:30.000Z'), now)).toBe('2026-11-25 03:05 UTC, 6 h after this run')
    expect(when(new Date('2026-11-23T21:05:30.000Z'), now)).toBe('2026-11-23 21:05 UTC, 24 h before this run')
    expect(when(new Date('2026-11-24T00:00:00.000Z'), now)).toBe('00:00 UTC, 21 h 6 min before this run')
    for (const ms of [-HOUR_MS, 0, HOUR_MS]) expect(when(at(ms), now)).not.toMatch(/[()]/)
  })
})

describe('control characters from outside are never printed raw', () => {
  const hostile = 'red \u001b[31mALERT\u001b[0m bell\u0007 nul\u0000 del\u007f c1\u0085 tab\tend'

  it('the summary (html): escaped as \\xNN, the tab kept', () => {
    expect(html(hostile)).toBe('red \\x1b[31mALERT\\x1b[0m bell\\x07 nul\\x00 del\\x7f c1\\x85 tab\tend')
  })

  it('an annotation or failure message (annotationText): escaped, line ends kept for the toolkit to escape', () => {
    expect(annotationText(`${hostile}\nsecond line`)).toBe(
      'red \\x1b[31mALERT\\x1b[0m bell\\x07 nul\\x00 del\\x7f c1\\x85 tab\tend\nsecond line'
    )
  })

  it('an excerpt of an answer: escaped, on one line', () => {
    expect(excerpt(hostile)).toBe('red \\x1b[31mALERT\\x1b[0m bell\\x07 nul\\x00 del\\x7f c1\\x85 tab end')
  })

  it('a log line: no control character at all', () => {
    expect(logLine(hostile)).not.toMatch(CONTROL_CHARACTER)
  })
})

describe('maskSecret: the whole secret, never a common word in it', () => {
  const masks = (secret: string): string[] => {
    const masked: string[] = []
    maskSecret(secret, value => masked.push(value))
    return masked
  }

  it('masks nothing for an empty value', () => {
    expect(masks('')).toEqual([])
  })

  it('masks a single-line secret once, as it is', () => {
    expect(masks(KEY)).toEqual([KEY])
    expect(masks('short')).toEqual(['short'])
  })

  it.each([
    ['Bot ', 'Bot MTIz.GhIj.tokenvalue'],
    ['bearer ', 'bearer MTIz.GhIj.tokenvalue'],
    ['BOT and a tab ', 'BOT\tMTIz.GhIj.tokenvalue'],
    ['Bearer and spaces ', 'Bearer   MTIz.GhIj.tokenvalue']
  ])('masks a token written with its scheme word (%s) also without it', (_label, secret) => {
    expect(masks(secret)).toEqual([secret, 'MTIz.GhIj.tokenvalue'])
  })

  it('does not take a word that only starts like a scheme word for one', () => {
    expect(masks('Botanical-garden-key')).toEqual(['Botanical-garden-key'])
    expect(masks('xBot MTIz.GhIj.tokenvalue')).toEqual(['xBot MTIz.GhIj.tokenvalue'])
    expect(masks('Bot ')).toEqual(['Bot '])
  })

  it('masks each line of a multi-line secret that is long enough on its own, trimmed, and not the short ones', () => {
    const secret = '  first-line-secret  \r\nab\nsecond-line-secret\nshort12\n12345678'
    expect(masks(secret)).toEqual([secret, 'first-line-secret', 'second-line-secret', '12345678'])
    // A line's length is counted without its indentation: '      word' and '  ab    ' are short.
    const indented = 'first-line-Hq7Zr2\n      word\n  ab    \n  Hq7Zr2Lm  '
    expect(masks(indented)).toEqual([indented, 'first-line-Hq7Zr2', 'Hq7Zr2Lm'])
  })

  it('keeps a multi-line token after its scheme word whole', () => {
    expect(masks('Bot line-one-value\nline-two-value')).toEqual([
      'Bot line-one-value\nline-two-value',
      'line-one-value\nline-two-value',
      'Bot line-one-value',
      'line-two-value'
    ])
  })
})

describe('proxyCredentials: what a proxy address holds that is secret', () => {
  it('finds the password and the user:password pair, as written and decoded, in every proxy variable', () => {
    expect(
      proxyCredentials({
        https_proxy: 'http://u1:p%40ss-one@proxy:3128',
        HTTPS_PROXY: 'http://u2:pass-two@proxy:3128',
        http_proxy: 'http://u3:pass-three@proxy:3128',
        HTTP_PROXY: 'http://u4:pass-four@proxy:3128'
      })
    ).toEqual([
      'p%40ss-one',
      'p@ss-one',
      'u1:p%40ss-one',
      'u1:p@ss-one',
      'pass-two',
      'u2:pass-two',
      'pass-three',
      'u3:pass-three',
      'pass-four',
      'u4:pass-four'
    ])
  })

  it('finds nothing in a proxy without a password, an address that is not one, or no proxy', () => {
    expect(proxyCredentials({ HTTPS_PROXY: 'http://user@proxy:3128', HTTP_PROXY: 'not a url', https_proxy: '' })).toEqual([])
    expect(proxyCredentials({})).toEqual([])
    expect(proxyCredentials({ NO_PROXY: 'http://u:p@x', ALL_PROXY: 'http://u:secret-pass@x' })).toEqual([])
  })

  it('keeps a password whose percent-encoding is broken as it is written', () => {
    expect(proxyCredentials({ HTTPS_PROXY: 'http://user:pa%zz-word@proxy:3128' })).toEqual(['pa%zz-word', 'user:pa%zz-word'])
  })

  it('finds a password without a user name', () => {
    expect(proxyCredentials({ HTTPS_PROXY: 'http://:lonely-pass@proxy:3128' })).toEqual(['lonely-pass', ':lonely-pass'])
  })

  it.each(['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY'])('finds the password and user:password in %s alone', name => {
    expect(proxyCredentials({ [name]: 'http://proxy-user:s3cret-pass@proxy.example:3128' })).toEqual([
      's3cret-pass',
      'proxy-user:s3cret-pass'
    ])
  })

  it('finds nothing in a proxy without a password, and reads on past a value that is not an address', () => {
    expect(proxyCredentials({ HTTPS_PROXY: 'http://proxy-user@proxy.example:3128' })).toEqual([])
    expect(proxyCredentials({ https_proxy: 'not an address', HTTP_PROXY: 'http://proxy-user:s3cret-pass@proxy.example:3128' })).toEqual([
      's3cret-pass',
      'proxy-user:s3cret-pass'
    ])
  })
})
