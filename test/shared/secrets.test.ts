/** Secrets removed from outside text in every form, before it is cut, escaped or printed. */
import { afterEach, describe, expect, it } from 'vitest'
import { addSecret, clearSecrets, FRAGMENT, redact, registerSecret } from '../../src/secrets.js'
import { html, logLine } from '../../src/text.js'

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
    for (let i = 0; i + FRAGMENT <= KEY.length; i++)
      expect(out).not.toContain(KEY.slice(i, i + FRAGMENT))
  })

  it('returns the forms a log line could carry, for the runner to mask, each secret whole (once: the forms of a plain key are the key)', () => {
    expect(addSecret('p@ss word+x/"y')).toEqual([
      'p@ss word+x/"y',
      'p%40ss%20word%2Bx%2F%22y',
      'p@ss word+x/\\"y'
    ])
    expect(addSecret(KEY)).toEqual([KEY])
  })
})

/** The key's UTF-8 bytes, each written by `write`. */
const eachByte = (write: (byte: number, index: number) => string): string =>
  [...Buffer.from(KEY)].map(write).join('')
const hex2 = (byte: number): string => byte.toString(16).padStart(2, '0')
/** The key's base64 with `before` bytes of other text in front of it. */
const base64After = (before: string): string => Buffer.from(before + KEY).toString('base64')
const urlSafe = (base64: string): string =>
  base64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
/** The key cut into pieces of `size` characters with `separator` between them. */
const cut = (size: number, separator: string): string =>
  KEY.match(new RegExp(`.{1,${size}}`, 'g'))!.join(separator)

describe('redact: every form of a secret, in a log line and in the summary', () => {
  it.each([
    ['with its case changed: upper case', KEY.toUpperCase()],
    ['with its case changed: lower case', KEY.toLowerCase()],
    [
      'with its case changed: mixed',
      [...KEY].map((c, i) => (i % 2 ? c.toUpperCase() : c.toLowerCase())).join('')
    ],
    ['as hex, lower case', Buffer.from(KEY).toString('hex')],
    ['as hex, upper case', Buffer.from(KEY).toString('hex').toUpperCase()],
    ['as hex with spaces between the bytes', eachByte(hex2).replace(/(..)(?!$)/g, '$1 ')],
    ['fully percent-encoded, upper case', eachByte(b => `%${hex2(b).toUpperCase()}`)],
    ['fully percent-encoded, lower case', eachByte(b => `%${hex2(b)}`)],
    ['as HTML decimal references', eachByte(b => `&#${b};`)],
    [
      'as HTML decimal references with leading zeros',
      eachByte(b => `&#${String(b).padStart(7, '0')};`)
    ],
    [
      'as HTML decimal references with more leading zeros than a code point has digits',
      eachByte(b => `&#${String(b).padStart(12, '0')};`)
    ],
    ['as HTML decimal references without semicolons', eachByte(b => `&#${b}`)],
    ['as HTML hex references, lower case', eachByte(b => `&#x${hex2(b)};`)],
    [
      'as HTML hex references, upper case with leading zeros',
      eachByte(b => `&#X00${hex2(b).toUpperCase()};`)
    ],
    ['as \\u escapes, lower case', eachByte(b => `\\u00${hex2(b)}`)],
    ['as \\u escapes, upper case', eachByte(b => `\\u00${hex2(b).toUpperCase()}`)],
    [
      'as \\u escapes inside a JSON string (\\\\u)',
      JSON.stringify(eachByte(b => `\\u00${hex2(b)}`)).slice(1, -1)
    ],
    ['as \\x escapes', eachByte(b => `\\x${hex2(b)}`)],
    ['as \\u{} escapes', eachByte(b => `\\u{${hex2(b)}}`)],
    // JavaScript reads any number of leading zeros in \u{}: so does redact.
    ['as \\u{} escapes with eight digits', eachByte(b => `\\u{${hex2(b).padStart(8, '0')}}`)],
    [
      'as \\u{} escapes with twenty leading zeros',
      eachByte(b => `\\u{${'0'.repeat(20)}${hex2(b)}}`)
    ],
    ['in base64 with 1 byte before it', base64After('x')],
    ['in base64 with 2 bytes before it', base64After('xy')],
    ['in base64 with 3 bytes before it', base64After('xyz')],
    ['in URL-safe base64', urlSafe(base64After(''))],
    ['in URL-safe base64 with 1 byte before it', urlSafe(base64After('?'))],
    ['in URL-safe base64 with 2 bytes before it', urlSafe(base64After('?>'))],
    ['in base64 wrapped over lines', base64After('u').replace(/(.{8})(?=.)/g, '$1\r\n')],
    [
      'half percent-encoded, half HTML references, case changed',
      eachByte((b, i) => (i < 14 ? `%${hex2(b)}` : `&#x${hex2(b)};`)).toUpperCase()
    ]
  ])('removes the key %s', (_label, form) => {
    addSecret(KEY)
    // Base64 keeps the characters that also hold the bytes around the key, and its padding.
    const around = /^before [\w+/=-]{0,4}\*\*\*[\w+/=-]{0,3} after$/
    expect(logLine(`before ${form} after`)).toMatch(around)
    expect(html(`before ${form} after`)).toMatch(around)
    expect(redact(`before ${form} after`)).toMatch(around)
  })

  it.each([
    ['spaces', ' ', 9],
    ['tabs', '\t', 3],
    ['line breaks', '\n', 4],
    ['CRLF line breaks', '\r\n', 7],
    ['no-break spaces (U+00A0)', '\u00A0', 4],
    ['en spaces (U+2002)', '\u2002', 5],
    ['zero-width spaces (U+200B)', '\u200B', 1],
    ['soft hyphens (U+00AD)', '\u00AD', 2]
  ])(
    'removes the key cut by %s, with its case changed too, and at the very end of a text',
    (_label, separator, size) => {
      addSecret(KEY)
      const form = cut(size, separator)
      expect(logLine(`before ${form} after`)).toBe('before *** after')
      expect(html(`before ${form} after`)).toBe('before *** after')
      expect(redact(`before ${form.toUpperCase()} after`)).toBe('before *** after')
      expect(redact(`end: ${form}`)).toBe('end: ***')
      // The cut that wrapped the line after the key is not the key's: it stays.
      expect(redact(`end: ${form}${separator}`)).toBe(`end: ***${separator}`)
    }
  )

  it.each([
    ['with its case changed', KEY.slice(3, 15).toUpperCase()],
    ['as hex', Buffer.from(KEY.slice(0, 12)).toString('hex')],
    ['percent-encoded', eachByte(b => `%${hex2(b)}`).slice(0, 36)],
    ['cut by line breaks', `${KEY.slice(0, 6)}\n${KEY.slice(6, 12)}`]
  ])('removes a piece of FRAGMENT characters of the key %s', (_label, form) => {
    addSecret(KEY)
    expect(logLine(`before ${form} after`)).toBe('before *** after')
  })

  it('keeps ordinary text (beyond ASCII too), hex, base64 and escapes that hold no secret, and every common word of a secret', () => {
    addSecret('password-Hq7Zr2Lm9Xv4')
    const text =
      'Password reset: 100% done &#38; PASS WORD \\u0041 \\\\ ' +
      'sha 0123456789abcdef0123456789abcdef01234567 ' +
      `body ${Buffer.from('{"success":false,"error":"Invalid API key."}').toString('base64')} ` +
      'Z\u200Bero\u00ADwidth %zz &#xyz; &#99999999; \\u{110000} \\uZZZZ ' +
      '😀 𝐇𝐞𝐥𝐥𝐨 İ \\u{1d400} &#xFF41; \\ud835 \uD835 \uFDFA'
    expect(redact(text)).toBe(text)
    expect(logLine(text)).toBe(text)
  })

  it.each([
    ['fully percent-encoded', (t: string) => [...Buffer.from(t)].map(b => `%${hex2(b)}`).join('')],
    ['upper case', (t: string) => t.toUpperCase()],
    ['as hex', (t: string) => Buffer.from(t).toString('hex')],
    ['as HTML references', (t: string) => [...t].map(c => `&#${c.codePointAt(0)};`).join('')],
    ['in base64 with 1 byte before it', (t: string) => Buffer.from(`x${t}`).toString('base64')]
  ])(
    'removes a non-ASCII secret %s (its bytes, percent-encoded, read as UTF-8)',
    (_label, write) => {
      const secret = 'pässwörd-Hq7Zr2Lm9-€'
      addSecret(secret)
      expect(redact(`a ${write(secret)} b`)).toMatch(/^a \S{0,4}\*\*\*\S{0,3} b$/)
    }
  )
})

/**
 * Every UTF-16 unit of `text` as a `\u` escape, as a JSON encoder that keeps to ASCII writes it
 * (`\ud835\udc1d`).
 */
const jsonAscii = (text: string): string =>
  text.replace(/[\s\S]/g, c => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)

describe('redact: the span read from characters beyond ASCII', () => {
  it('maps the span right after characters beyond U+FFFF, their escapes and escaped halves of a pair', () => {
    addSecret(KEY)
    const before = '😀 𝐀𝐁 \\u{1d400} \\ud835\\udc00 \\ud835x \udc00 \uFFFF'
    expect(redact(`${before}${KEY.toUpperCase()}😀 after`)).toBe(`${before}***😀 after`)
    // An escaped half of a pair with no other half is read as it is, and takes nothing with it.
    expect(redact(`${jsonAscii(KEY)}\\udc00 \\ud835${jsonAscii(KEY)}`)).toBe(
      '***\\udc00 \\ud835***'
    )
  })

  it('maps the span right after a dotted capital I (U+0130), whose lower case is two characters, in a text of any length', () => {
    addSecret(KEY)
    expect(redact(`İİ ${KEY.toUpperCase()} İİ`)).toBe('İİ *** İİ')
    expect(redact(`İİ${cut(1, '\u200B')}İİ`)).toBe('İİ***İİ')
    // Read, the text is twice as long as it is.
    const long = 'İ'.repeat(10_000)
    expect(redact(long)).toBe(long)
    expect(redact(`${long}${KEY.toUpperCase()}`)).toBe(`${long}***`)
  })
})

/**
 * The key's base64 with `before` and `after` around it, with only the characters made of the key's
 * bits alone replaced.
 */
const base64Redacted = (before: string, after: string): string => {
  const encoded = Buffer.from(before + KEY + after).toString('base64')
  // A base64 character holds 6 bits: those from the first one wholly after `before` to the last one
  // wholly inside the key.
  const from = Math.ceil((before.length * 8) / 6)
  const to = Math.floor(((before.length + KEY.length) * 8) / 6)
  return `${encoded.slice(0, from)}***${encoded.slice(to)}`
}

describe('redact: the edges of a replaced span', () => {
  it.each([
    ['1 byte before it, and nothing after it (padded)', 'x', ''],
    ['1 byte before it and 1 after it', 'x', '!'],
    ['2 bytes before it, and nothing after it', 'x0', ''],
    ['2 bytes before it and 2 after it', 'x0', '!?']
  ])(
    'replaces the base64 characters made of the key alone, and keeps those that also carry the text around it (%s)',
    (_label, before, after) => {
      // 'x' and '0' end in zero bits: the character they share with the key reads as it would after
      // zero bytes, and is kept all the same.
      addSecret(KEY)
      const encoded = Buffer.from(before + KEY + after).toString('base64')
      expect(redact(`a ${encoded} b`)).toBe(`a ${base64Redacted(before, after)} b`)
    }
  )

  it.each([
    ['100%', 'a % that is not followed by two hex digits'],
    ['format %@', 'a % followed by @, as in an Objective-C format'],
    ['C:\\u', 'a \\u that is not followed by four hex digits'],
    ['C:\\x', 'a \\x that is not followed by two hex digits'],
    ['see \\u{', 'a \\u{ that is never closed']
  ])('leaves no character of the key readable after %s (%s)', prefix => {
    addSecret(KEY)
    // Upper case, so only the second pass finds the key: the escape must not take its first
    // characters.
    expect(redact(`${prefix}${KEY.toUpperCase()} end`)).toBe(`${prefix}*** end`)
    expect(logLine(`${prefix}${KEY.toUpperCase()}`)).toBe(`${prefix}***`)
  })
})

/** [secret, text, the text redacted] */
type Case = [secret: string, text: string, expected: string]
const base64 = (text: string): string => Buffer.from(text).toString('base64')
/** The key's first FRAGMENT - 1 characters: one short of a piece of it. */
const head = KEY.slice(0, FRAGMENT - 1)

describe('redact: one secret, short, escaped, or next to what could read as an escape', () => {
  it.each<Case>([
    // A secret shorter than FRAGMENT only whole, in any form; one of 3 characters would take common
    // words with it.
    ['k9Qz', 'a k9Qz b K9QZ c', 'a *** b *** c'],
    ['k9Q', 'a k9Q b K9Q c k9q', 'a k9Q b K9Q c k9q'],
    [
      'hunt3R2x9',
      `a hunt3R2x9 b HUNT3R2X9 c ${Buffer.from('hunt3R2x9').toString('hex')} d`,
      'a *** b *** c *** d'
    ],
    ['hunt3R2x9', `a ${[...'hunt3R2x9'].join('\u200B')} b`, 'a *** b'],
    ['hunt3R2x9', 'a hunt3R2x b HUNT c', 'a hunt3R2x b HUNT c'],
    // A form of four characters whole though the secret is shorter: the hex of a two-character
    // secret.
    ['ab', 'x 6162 y ab', 'x *** y ab'],
    // Whole in its base64 without padding, the padding of a padded copy kept; with 1 or 2 bytes
    // before it, up to the characters it shares.
    ['k3y9', 'a azN5OQ b', 'a *** b'],
    ['k3y9', 'a azN5OQ== b', 'a ***== b'],
    ['k3y9', `body ${base64('{"token":"k3y9"}')} end`, 'body eyJ0b2tlbiI6Im***kifQ== end'],
    ['k3y9', `body ${base64('{"token": "k3y9"}')} end`, 'body eyJ0b2tlbiI6ICJ***In0= end'],
    // Whole where its last characters and the text after it read as an escape.
    ['Zq7%', 'a Zq7%41 b', 'a ***41 b'],
    ['Zq7%', 'a ZQ7% b', 'a *** b'],
    // Right after a % (which would otherwise start an escape with it, so only the text as it is
    // holds it), at the end of a text too.
    ...['ab12', 'abcdef123', 'ab12cd34ef', 'ab12cd34ef56ab78'].flatMap((secret): Case[] => [
      [secret, `x %${secret} y`, 'x %*** y'],
      [secret, `%${secret}`, '%***']
    ]),
    // A run of FRAGMENT characters copied from the URL-encoded form, however little of the secret
    // it spells.
    ['a1 b2 c3 d4 e5 f6 g7', 'x %20b2%20c3%2 y', 'x *** y'],
    // Case changed right after a backslash whose letter could start an escape, as in a Windows
    // path.
    ['user-Hq7Zr2Lm9Xv4', 'C:\\data\\USER-HQ7ZR2LM9XV4', 'C:\\data\\***'],
    ['xoxb-Hq7Zr2Lm9Xv4', 'C:\\data\\XOXB-HQ7ZR2LM9XV4', 'C:\\data\\***'],
    ['ab12-Hq7Zr2Lm9Xv4', 'C:\\data\\AB12-HQ7ZR2LM9XV4', 'C:\\data\\***'],
    // Starting with digits right after & or # (a query string, a URL fragment).
    ['8731-Hq7Zr2Lm9Xv4', '?page=2&8731-HQ7ZR2LM9XV4 and', '?page=2&*** and'],
    ['8731-Hq7Zr2Lm9Xv4', 'https://example.com/cb#8731-HQ7ZR2LM9XV4', 'https://example.com/cb#***'],
    // Holding a space or an escape, echoed with its case changed: read as the escape decodes and
    // without its space, in the second pass.
    ...[' ', '%4a', '&#74;', '\\u004a', '\\x4a'].map((escape): Case => [
      `Zq7Rm${escape}Px8Kv2Lw`,
      `a ZQ7RM${escape}PX8KV2LW b`,
      'a *** b'
    ]),
    // A backslash that starts no escape is a character of the secret, to its last one.
    ['Hq7Zr2\\Lm9Xv4\\', 'a HQ7ZR2\\LM9XV4\\ b', 'a *** b'],
    ['Hq7Zr2\\Lm9Xv4\\', 'a Hq7Zr2Lm9Xv4 b', 'a Hq7Zr2Lm9Xv4 b'],
    // References and escapes past the last code point (U+10FFFF) are text, and the key is still
    // found after them.
    [
      KEY,
      'a &#1114112; &#x110000; &#X0110000 \\u{110000} b',
      'a &#1114112; &#x110000; &#X0110000 \\u{110000} b'
    ],
    [
      KEY,
      `a &#1114112; &#x110000; &#X0110000 \\u{110000} b ${KEY.toUpperCase()}`,
      'a &#1114112; &#x110000; &#X0110000 \\u{110000} b ***'
    ],
    [KEY, `&#1114112;${KEY.toUpperCase()}`, '&#1114112;***'],
    // Text that shares fewer than FRAGMENT characters with the key is kept.
    [
      KEY,
      'dpk_Hq7Zr is how keys start; 401: Invalid API key.',
      'dpk_Hq7Zr is how keys start; 401: Invalid API key.'
    ],
    // Nine characters of the key followed at the text end by an escape cut short are not its tenth
    // character: kept.
    ...['\\u{32', '\\u003', '\\x3', '%3', '&#x'].map((escape): Case => [
      KEY,
      `a ${head}${escape}`,
      `a ${head}${escape}`
    ]),
    // The forms of the summary and of an address: HTML-escaped, Markdown-escaped (each character in
    // its place), encodeURI.
    [
      'Kx9&Qw7Rm2<Lm3Tz8>Zp5Hs4"Rt8Vb1',
      'a Kx9&amp;Qw7Rm2&lt;Lm3Tz8&gt;Zp5Hs4&quot;Rt8Vb1 b',
      'a *** b'
    ],
    ...[...'\\`*_[]|~#!():@<>&"'].map((c): Case => [
      `Kx9Qw7Rm2Lm${c}3Tz8Zp5Hs4R`,
      `a Kx9Qw7Rm2Lm\\${c}3Tz8Zp5Hs4R b`,
      'a *** b'
    ]),
    ['Kx9 Qw7/Rm2?Lm3 Tz8#Zp5', `a ${encodeURI('Kx9 Qw7/Rm2?Lm3 Tz8#Zp5')} b`, 'a *** b'],
    // Every other character percent-encoded: `%717` is `q` then `7`, not a three-digit escape.
    [
      KEY,
      `a ${[...KEY].map((c, i) => (i % 2 === 0 ? c : `%${c.charCodeAt(0).toString(16)}`)).join('')} b`,
      'a *** b'
    ],
    // Characters beyond U+FFFF as \u{} escapes, HTML decimal references, and hex references with
    // leading zeros and no semicolons.
    ...[
      (c: number) => `\\u{${c.toString(16)}}`,
      (c: number) => `&#${c};`,
      (c: number) => `&#x0000${c.toString(16)}`
    ].map((write): Case => {
      const secret = 'Kx9😀Qw7𝄞Rm2🔑Lm3'
      return [secret, `a ${[...secret].map(c => write(c.codePointAt(0)!)).join('')} b`, 'a *** b']
    })
  ])('%s: %j', (secret, text, expected) => {
    addSecret(secret)
    expect(redact(text)).toBe(expected)
  })
})

describe('redact: a secret whose forms hold an escaped character in every run of FRAGMENT characters', () => {
  it.each([0, 1, 2])(
    'removes a secret whose base64 is full of + and / in URL-safe base64 (- and _), with %d bytes before it',
    before => {
      const secret = 'k?>Q?>Zr?>Lm?>Tz?>Wx'
      addSecret(secret)
      const encoded = urlSafe(Buffer.from('y'.repeat(before) + secret).toString('base64'))
      // Both characters the URL-safe alphabet changes are there, every few characters.
      expect(encoded.match(/-/g)?.length).toBeGreaterThanOrEqual(1)
      expect(encoded.match(/_/g)?.length).toBeGreaterThanOrEqual(1)
      expect(redact(`a ${encoded} b`)).toMatch(/^a [\w-]{0,4}\*\*\*[\w-]{0,3} b$/)
    }
  )
})

describe('registerSecret: what the runner masks and redact removes, in one call', () => {
  const registered = (secret: string): string[] => {
    const masked: string[] = []
    registerSecret(secret, form => masked.push(form))
    return masked
  }

  it('masks nothing for an empty value, and then redacts nothing', () => {
    expect(registered('')).toEqual([])
    expect(addSecret('')).toEqual([])
    expect(redact('an empty value: "" %22%22')).toBe('an empty value: "" %22%22')
  })

  it('masks a token written with its scheme word and spaces also without the scheme, and redacts the bare token', () => {
    expect(registered('Bearer   MTIz.GhIj.tokenvalue')).toEqual([
      'Bearer   MTIz.GhIj.tokenvalue',
      'Bearer%20%20%20MTIz.GhIj.tokenvalue',
      'MTIz.GhIj.tokenvalue'
    ])
    expect(redact('token=MTIz.GhIj.tokenvalue')).toBe('token=***')
  })

  it('masks a passphrase that only holds a scheme word inside it as a whole, never its last words alone', () => {
    expect(registered('Talbot is 42')).toEqual(['Talbot is 42', 'Talbot%20is%2042'])
  })
})
