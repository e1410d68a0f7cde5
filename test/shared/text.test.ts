/**
 * Text made safe to show: where a secret stands in a text and what is around it, the masks the
 * runner is given, and the forms each place needs: a log line, an annotation, the HTML summary,
 * a figure or a time. test/shared/secrets.test.ts covers the many encodings of a secret.
 */
import { afterEach, describe, expect, it } from 'vitest'
import {
  addSecret,
  clearSecrets,
  FRAGMENT,
  maskSecret,
  proxyCredentials,
  redact
} from '../../src/secrets.js'
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

/** The key cut into pieces of `size` characters with `separator` between them. */
const cut = (size: number, separator: string): string =>
  KEY.match(new RegExp(`.{1,${size}}`, 'g'))!.join(separator)

describe('redact: where the secret is and what is around it', () => {
  it.each([
    ['at the very start', `${KEY} was refused`, '*** was refused'],
    ['at the very end', `refused: ${KEY}`, 'refused: ***'],
    ['alone', KEY, '***'],
    ['twice in a row', `${KEY}${KEY}`, '***'],
    ['twice, apart', `${KEY} and ${KEY}`, '*** and ***'],
    ['overlapping copies in two forms', `${KEY}${KEY.slice(-12).toUpperCase()}!`, '***!'],
    ['twice in different forms', `${KEY.toLowerCase()} and ${cut(3, ' ')}.`, '*** and ***.'],
    ['at the end, with its case changed', `refused: ${KEY.toLowerCase()}`, 'refused: ***'],
    ['at the start, with its case changed', `${KEY.toUpperCase()} refused`, '*** refused'],
    [
      'its first FRAGMENT characters, case changed',
      `head ${KEY.slice(0, FRAGMENT).toUpperCase()}.`,
      'head ***.'
    ],
    [
      'its last FRAGMENT characters, case changed',
      `tail ${KEY.slice(-FRAGMENT).toUpperCase()}.`,
      'tail ***.'
    ],
    ['nowhere', 'Invalid API key.', 'Invalid API key.'],
    ['nowhere in an empty text', '', '']
  ])('replaces the key %s, and keeps the rest', (_label, text, expected) => {
    addSecret(KEY)
    expect(redact(text)).toBe(expected)
  })

  it('keeps every secret added, not only the last one', () => {
    for (const secret of [KEY, 'ghs_Zx81Pq02Mn93Lk74', 'pw8chars', 'Sh0rt9']) addSecret(secret)
    expect(redact(`a ${KEY} b ghs_Zx81Pq02Mn93Lk74 c pw8chars d Sh0rt9 e`)).toBe(
      'a *** b *** c *** d *** e'
    )
    expect(redact(`a ${KEY.toUpperCase()} b GHS_ZX81PQ02MN93LK74 c PW8CHARS d SH0RT9 e`)).toBe(
      'a *** b *** c *** d *** e'
    )
  })

  it.each([0, 1, 2])(
    'removes a secret of 6 characters in base64, with %d bytes of other text before it',
    before => {
      addSecret('Kp3Wz9')
      expect(
        redact(`a ${Buffer.from('x'.repeat(before) + 'Kp3Wz9y').toString('base64')} b`)
      ).toMatch(/^a \S{0,3}\*\*\*\S{0,4} b$/)
    }
  )

  it('folds the case of every letter, A and Z and letters beyond ASCII included', () => {
    for (const secret of ['AqZwAeZrAtZy15', 'ÄöÜßÉèÇñØå12']) addSecret(secret)
    expect(redact('x aqzwaezratzy15 y AQZWAEZRATZY15 w äöüßéèçñøå12 v ÄÖÜßÉÈÇÑØÅ12')).toBe(
      'x *** y *** w *** v ***'
    )
  })

  it('reads a run of backslashes before a \\u escape as one escape, and a run before anything else as it is', () => {
    addSecret(KEY)
    expect(
      redact(`a ${[...KEY].map(c => `\\\\\\u00${c.charCodeAt(0).toString(16)}`).join('')} b`)
    ).toBe('a *** b')
    const text = 'a \\\\\\ b \\\\q \\x \\u12 \\u{} \\u{12 &# &#x; &#; %4'
    expect(redact(text)).toBe(text)
  })
})

describe('logLine and logText: one line, inert to the runner', () => {
  it.each([
    ['a line break', 'a\nb', 'a b'],
    [
      'a run of control characters, as one space',
      'a\r\n\t\u0000\u001f\u007f\u009f\u2028\u2029b',
      'a b'
    ],
    [
      'lines that would be commands',
      'file a.json\n::error::x\r\n::add-mask::Bot\u2028y\u001b[31m',
      'file a.json ::error::x ::add-mask::Bot y [31m'
    ],
    [
      'printable text beyond the control characters, as it is',
      ' \u00a0é€ ~ \u0020 ',
      ' \u00a0é€ ~   '
    ],
    [
      'a line that begins with ::',
      '::stop-commands::zz is not in the workspace',
      ': :stop-commands::zz is not in the workspace'
    ],
    ['a line that begins with :: after spaces', '  ::error::x', '  : :error::x'],
    ['a line that begins with :: after a line break', '\r\n  ::add-mask::x', '   : :add-mask::x'],
    [':: later in the line, as it is', 'file ::error::x', 'file ::error::x'],
    ['the first :: only', '::a::b::c', ': :a::b::c'],
    // The runner reads its legacy syntax anywhere in a line (##[): shown with a visible space.
    [
      'a legacy set-output command at the start',
      '##[set-output name=x;]v',
      '# #[set-output name=x;]v'
    ],
    ['a legacy add-mask command mid-line', 'file ##[add-mask]word', 'file # #[add-mask]word'],
    ['a legacy command after a run of #', 'see ###[error]x', 'see ## #[error]x'],
    ['two legacy commands', '##[group]a ##[endgroup]', '# #[group]a # #[endgroup]'],
    ['a legacy command whose #s a line break kept apart', 'a #\n#[warning]b', 'a # #[warning]b']
  ])('replaces %s', (_label, text, expected) => {
    expect(logLine(text)).toBe(expected)
  })

  it('leaves no ##[ and no leading :: in any line, whatever the text around it', () => {
    for (const text of [
      '##[',
      '###[[',
      '#\u0000#[',
      '##[##[',
      '# ##[ ##[',
      '::##[x]',
      '\n##[x]',
      ' \t::warning::x'
    ]) {
      expect(logLine(text)).not.toContain('##[')
      expect(logLine(text)).not.toMatch(/^\s*::/)
    }
  })

  it('redacts before it neutralises, and a redaction cannot make a ##[', () => {
    addSecret(KEY)
    expect(logLine(`##${KEY}[ and ${KEY.toUpperCase()}##[x]`)).toBe('##***[ and ***# #[x]')
  })

  it('keeps a log line of the limit whole, and cuts a longer one, made one line, inert and redacted first, with a count of the rest', () => {
    addSecret(KEY)
    expect(logText('x'.repeat(MAX_MESSAGE_CHARS))).toBe('x'.repeat(MAX_MESSAGE_CHARS))
    expect(logText('x'.repeat(MAX_MESSAGE_CHARS + 2500))).toBe(
      `${'x'.repeat(MAX_MESSAGE_CHARS)}… (2500 more characters not shown)`
    )
    const text = logText(`::error::${KEY}\n##[add-mask]${'y'.repeat(MAX_MESSAGE_CHARS)}`)
    expect(text).toMatch(/^: :error::\*\*\* # #\[add-mask\]y+… \(27 more characters not shown\)$/)
  })
})

describe('safeText and annotationText: redacted, inert, line breaks kept (the toolkit escapes them)', () => {
  it('redacts every form of a secret, neutralises ##[, and changes nothing else', () => {
    addSecret(KEY)
    expect(safeText(`refused ${KEY.toUpperCase()} and ${cut(3, '\u200B')}`)).toBe(
      'refused *** and ***'
    )
    expect(safeText(`first ${KEY}\n##[add-mask]word\r\nlast ##[error]x`)).toBe(
      'first ***\n# #[add-mask]word\r\nlast # #[error]x'
    )
    const text =
      'Stats update failed: the service answered 400 with "Server count must be between 0 and 10 Million." #1 [a] #[ ## [ ::error::'
    expect(safeText(text)).toBe(text)
  })

  it('keeps an annotation of the limit whole, and cuts a longer one after redaction, with a count of the rest', () => {
    addSecret(KEY)
    expect(annotationText('z'.repeat(MAX_MESSAGE_CHARS))).toBe('z'.repeat(MAX_MESSAGE_CHARS))
    expect(annotationText('z'.repeat(MAX_MESSAGE_CHARS + 1))).toBe(
      `${'z'.repeat(MAX_MESSAGE_CHARS)}… (1 more characters not shown)`
    )
    expect(annotationText(`refused\n${KEY.toUpperCase()}\n##[error]x`)).toBe(
      'refused\n***\n# #[error]x'
    )
    // A key across the cut leaves no piece.
    const text = annotationText(`${'a'.repeat(MAX_MESSAGE_CHARS - 5)}${KEY}${'b'.repeat(100)}`)
    expect(text).toBe(
      `${'a'.repeat(MAX_MESSAGE_CHARS - 5)}***${'b'.repeat(2)}… (98 more characters not shown)`
    )
  })
})

describe('bounded and excerpt', () => {
  it('bounded keeps a text of exactly max characters, and cuts one more with the count of what is left after redaction', () => {
    expect(bounded('abcde', 5)).toBe('abcde')
    expect(bounded('abcdef', 5)).toBe('abcde… (1 more characters not shown)')
    expect(bounded('', 0)).toBe('')
    addSecret(KEY)
    expect(bounded(`${KEY}${'c'.repeat(10)}`, 5)).toBe('***cc… (8 more characters not shown)')
  })

  it('bounded redacts before it cuts, so a secret shorter than FRAGMENT that the cut would halve is still removed', () => {
    addSecret('pw8chars')
    // Cut first, the piece left ('pw8ch') would no longer be a secret's form.
    expect(bounded(`${'x'.repeat(95)}pw8chars${'y'.repeat(50)}`, 100)).toBe(
      `${'x'.repeat(95)}***${'y'.repeat(2)}… (48 more characters not shown)`
    )
  })

  it('excerpt puts a text on one line, trimmed, with runs of white space as one space, and keeps 200 characters by default', () => {
    expect(excerpt('  first\n\n  second\tthird \r\n ')).toBe('first second third')
    expect(excerpt('e'.repeat(200))).toBe('e'.repeat(200))
    expect(excerpt('e'.repeat(201))).toBe(`${'e'.repeat(200)}…`)
    expect(excerpt('abcdef', 3)).toBe('abc…')
    expect(excerpt('abc', 3)).toBe('abc')
  })

  it('excerpt redacts before it cuts, and a key cut by line breaks before it joins the lines', () => {
    addSecret(KEY)
    expect(excerpt(`answer: ${KEY.slice(0, 12)}\n${KEY.slice(12)}`)).toBe('answer: ***')
    expect(excerpt(`${'x'.repeat(190)}${KEY}`, 200)).toBe(`${'x'.repeat(190)}***`)
  })
})

describe('html and htmlMessage: escaped, on one line', () => {
  it('escapes every character HTML gives a meaning to, and puts a text with blank lines on one line, so that it cannot end the HTML block', () => {
    expect(html(`<a href="x" title='y'>&amp;</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;'
    )
    expect(html('first\r\n\r\n# heading\n\n[link](x)\rlast')).toBe('first # heading [link](x) last')
  })

  it('htmlMessage shows `code` spans as code, escaped, collapses white space, and redacts a key a line break cut in two', () => {
    expect(htmlMessage('  Set `command-count` to\n\n  a number <= `1,000`.  ')).toBe(
      'Set <code>command-count</code> to a number &lt;= <code>1,000</code>.'
    )
    expect(htmlMessage('a `` b')).toBe('a `` b')
    expect(htmlMessage('`<b>`')).toBe('<code>&lt;b&gt;</code>')
    addSecret(KEY)
    expect(htmlMessage(`key ${KEY.slice(0, 14)}\n${KEY.slice(14)} refused`)).toBe('key *** refused')
  })

  it('htmlLink links only http and https addresses, in any case', () => {
    expect(htmlLink('site', 'HTTPS://discord.place/bots/1')).toBe(
      '<a href="HTTPS://discord.place/bots/1">site</a>'
    )
    expect(htmlLink('site', 'http://127.0.0.1:3000/a?b=1&c="2"')).toBe(
      '<a href="http://127.0.0.1:3000/a?b=1&amp;c=&quot;2&quot;">site</a>'
    )
    for (const url of ['ftp://x', ' https://x', 'https:x'])
      expect(htmlLink('site', url)).toBe('site')
  })
})

describe('control characters from outside are never printed raw', () => {
  it('escaped as \\xNN in the summary, an annotation (line ends kept) and an excerpt (on one line); none in a log line', () => {
    const hostile = 'red \u001b[31mALERT\u001b[0m bell\u0007 nul\u0000 del\u007f c1\u0085 tab\tend'
    const escaped = 'red \\x1b[31mALERT\\x1b[0m bell\\x07 nul\\x00 del\\x7f c1\\x85 tab'
    expect(html(hostile)).toBe(`${escaped}\tend`)
    expect(annotationText(`${hostile}\nsecond line`)).toBe(`${escaped}\tend\nsecond line`)
    expect(excerpt(hostile)).toBe(`${escaped} end`)
    expect(logLine(hostile)).not.toMatch(CONTROL_CHARACTER)
  })
})

describe('number', () => {
  it('separates thousands, and drops a fraction', () => {
    const values = [0, 7, 999, 1000, 1260, 12345, 123456, 10_000_000, -1234567, -5, 1234.9]
    expect(values.map(number)).toEqual([
      '0',
      '7',
      '999',
      '1,000',
      '1,260',
      '12,345',
      '123,456',
      '10,000,000',
      '-1,234,567',
      '-5',
      '1,234'
    ])
  })
})

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
    expect(when(new Date('2026-11-24T23:59:00.000Z'), now)).toBe(
      '23:59 UTC, 2 h 54 min after this run'
    )
    expect(when(new Date('2026-11-25T03:05:30.000Z'), now)).toBe(
      '2026-11-25 03:05 UTC, 6 h after this run'
    )
    expect(when(new Date('2026-11-23T21:05:30.000Z'), now)).toBe(
      '2026-11-23 21:05 UTC, 24 h before this run'
    )
    expect(when(new Date('2026-11-24T00:00:00.000Z'), now)).toBe(
      '00:00 UTC, 21 h 6 min before this run'
    )
    for (const ms of [-60 * MIN, 0, 60 * MIN]) expect(when(at(ms), now)).not.toMatch(/[()]/)
  })
})

describe('maskSecret: the whole secret, never a common word in it', () => {
  it.each<[label: string, secret: string, masked: string[]]>([
    ['nothing for an empty value', '', []],
    ['a single-line secret once, as it is', KEY, [KEY]],
    ['a short one too', 'short', ['short']],
    [
      'a token with its scheme word also without it',
      'Bot MTIz.GhIj.tokenvalue',
      ['Bot MTIz.GhIj.tokenvalue', 'MTIz.GhIj.tokenvalue']
    ],
    [
      'whatever its case',
      'bearer MTIz.GhIj.tokenvalue',
      ['bearer MTIz.GhIj.tokenvalue', 'MTIz.GhIj.tokenvalue']
    ],
    [
      'after a tab',
      'BOT\tMTIz.GhIj.tokenvalue',
      ['BOT\tMTIz.GhIj.tokenvalue', 'MTIz.GhIj.tokenvalue']
    ],
    [
      'after spaces',
      'Bearer   MTIz.GhIj.tokenvalue',
      ['Bearer   MTIz.GhIj.tokenvalue', 'MTIz.GhIj.tokenvalue']
    ],
    // A word that only starts like a scheme word is none.
    ['a word that starts like Bot', 'Botanical-garden-key', ['Botanical-garden-key']],
    ['a word that ends like Bot', 'xBot MTIz.GhIj.tokenvalue', ['xBot MTIz.GhIj.tokenvalue']],
    ['a scheme word alone', 'Bot ', ['Bot ']],
    // The runner masks line by line: each line long enough on its own, trimmed (a line's length is
    // counted without its indentation).
    [
      'each long line of a multi-line secret',
      '  first-line-secret  \r\nab\nsecond-line-secret\nshort12\n12345678',
      [
        '  first-line-secret  \r\nab\nsecond-line-secret\nshort12\n12345678',
        'first-line-secret',
        'second-line-secret',
        '12345678'
      ]
    ],
    [
      'no indented short line',
      'first-line-Hq7Zr2\n      word\n  ab    \n  Hq7Zr2Lm  ',
      ['first-line-Hq7Zr2\n      word\n  ab    \n  Hq7Zr2Lm  ', 'first-line-Hq7Zr2', 'Hq7Zr2Lm']
    ],
    [
      'a multi-line token after its scheme word whole',
      'Bot line-one-value\nline-two-value',
      [
        'Bot line-one-value\nline-two-value',
        'line-one-value\nline-two-value',
        'Bot line-one-value',
        'line-two-value'
      ]
    ]
  ])('masks %s', (_label, secret, expected) => {
    const masked: string[] = []
    maskSecret(secret, value => masked.push(value))
    expect(masked).toEqual(expected)
  })
})

describe('proxyCredentials: what a proxy address holds that is secret', () => {
  it('finds the password and the user:password pair, as written and decoded, in every proxy variable', () => {
    expect(
      proxyCredentials({
        https_proxy: 'http://u1:p%40ss-one@proxy:3128',
        HTTPS_PROXY: 'http://u2:pass-two@proxy:3128',
        http_proxy: 'http://u3:pass-three@proxy:3128',
        HTTP_PROXY: 'http://u4:pass-four@proxy:3128',
        ALL_PROXY: 'http://u:secret-pass@x'
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

  it('finds nothing without a password, nor a user name alone, and reads on past them; keeps a broken percent-encoding as written', () => {
    // Each variable in turn, past one that holds no address, nothing, or no password; never
    // NO_PROXY.
    const env = {
      https_proxy: 'no address',
      HTTPS_PROXY: 'http://user@p:1',
      http_proxy: '',
      NO_PROXY: 'http://u:p@x'
    }
    expect(proxyCredentials({ ...env, HTTP_PROXY: 'http://u:last-pass@p:1' })).toEqual([
      'last-pass',
      'u:last-pass'
    ])
    expect(proxyCredentials(env)).toEqual([])
    expect(proxyCredentials({})).toEqual([])
    expect(proxyCredentials({ HTTPS_PROXY: 'http://user:pa%zz-word@proxy:3128' })).toEqual([
      'pa%zz-word',
      'user:pa%zz-word'
    ])
    expect(proxyCredentials({ HTTPS_PROXY: 'http://:lonely-pass@proxy:3128' })).toEqual([
      'lonely-pass',
      ':lonely-pass'
    ])
  })
})
