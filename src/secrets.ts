/**
 * The one owner of secrets: `registerSecret` masks a secret for the runner and remembers every
 * form of it, in one call; `redact` removes them from any text that came from outside (an
 * answer's error text, a library's error message) before that text is cut, escaped or printed.
 *
 * The runner masks only the exact values registered with `::add-mask::`. A remote text that
 * echoes a secret in another form would otherwise be printed readable, and an escaped copy in
 * the job summary is not masked at all. So every form of each secret is replaced here, and so
 * is any run of at least FRAGMENT characters copied from one: a service that quotes the first
 * half of a key has still leaked half a key.
 *
 * Two passes find what to replace, and each marks spans of the original text:
 * - the text as it is, against the forms as they are (raw, URL- and JSON-encoded, HTML- and
 *   Markdown-escaped, base64);
 * - a normalised copy of the text (read code point by code point, a surrogate pair as one;
 *   `%6b`, `&#107;`, `&#x6b;` and `\u006b` decoded; compatibility forms folded (NFKC:
 *   fullwidth `ｋｅｙ`, mathematical `𝐤𝐞𝐲`, circled and superscript digits, ligatures); case
 *   folded; spaces, line breaks, and every format (Unicode category Cf: direction marks,
 *   U+2063, tags) and control character (Cc: C0 and C1) left out), against the forms
 *   normalised the same way, plus the byte encodings (hex, base64 at each of the three
 *   alignments, standard and URL-safe). A key with its case changed, fully percent-encoded,
 *   written as character references or escapes, in fullwidth or mathematical letters, or cut
 *   into pieces with separators or invisible characters between them reads as the key itself
 *   there, and the span of the original text it came from is replaced whole.
 * Both passes are linear in the text (one pass to normalise, with a table for ASCII and a
 * cache of what each other code point folds to; one Set lookup of a FRAGMENT-character window
 * per position; one indexOf per short form), because this runs on every log line and on
 * answers of up to a megabyte.
 *
 * Every text the action shows passes through `redact` first; text.ts then gives it the form its
 * place needs (a log line, an annotation, the HTML summary). Plain module state, no runner
 * protocol (the runner's mask is handed in), so every mode and the HTTP layer use it alike.
 */

/** The shortest piece of a secret that counts as a leak on its own. */
export const FRAGMENT = 10

const REPLACEMENT = '***'

/** A form shorter than FRAGMENT is replaced only whole, and only from this length: shorter ones are too common. */
const MIN_WHOLE = 4

/** The forms as they are: those shorter than FRAGMENT (matched whole), and every FRAGMENT-character window of the others. */
let shortForms: string[] = []
const pieces = new Set<string>()
/** The same for the normalised forms, matched in the normalised text. */
let shortNormalised: string[] = []
const normalisedPieces = new Set<string>()

/**
 * Remembers a secret (every form of it) for `redact`. Returns the forms a log line could carry
 * (as it is, URL- or JSON-encoded), for the runner's masks; the other forms are left to
 * `redact`, and so is any piece of a secret: a mask is set for the whole secret only.
 */
export function addSecret(secret: string): string[] {
  if (secret.length === 0) return []
  const logged = [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]
  const escaped = [
    encodeURI(secret),
    secret.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'),
    secret.replace(/([\\`*_[\]|~#!():@<>&"])/g, '\\$1'),
    Buffer.from(secret, 'utf8').toString('base64').replace(/=+$/, '')
  ]
  const bytes = Buffer.from(secret, 'utf8')
  // Percent-encoding and `\x` escapes carry bytes: decoded one character per byte, a non-ASCII
  // secret reads as its UTF-8 bytes in Latin-1.
  const encoded = [bytes.toString('hex'), bytes.toString('latin1'), ...base64Interiors(bytes)]
  const asIs = [...logged, ...escaped]
  for (const form of asIs) windows(form, pieces)
  shortForms = [...new Set([...shortForms, ...asIs.filter(form => form.length >= MIN_WHOLE && form.length < FRAGMENT)])]
  const normalised = [...asIs, ...encoded].map(normalisedForm)
  for (const form of normalised) windows(form, normalisedPieces)
  shortNormalised = [...new Set([...shortNormalised, ...normalised.filter(form => form.length >= MIN_WHOLE && form.length < FRAGMENT)])]
  return [...new Set(logged)]
}

/**
 * A form as the normalised text reads it. Most forms are printable ASCII with nothing that
 * starts an escape (`%`, `&`, `\`): each character reads as its lower case (the ASCII table),
 * so the pass of `normalise`, run on every form of every secret on every run, is not needed.
 */
function normalisedForm(form: string): string {
  return /^[\x21-\x24\x27-\x5b\x5d-\x7e]*$/.test(form) ? form.toLowerCase() : normalise(form).text
}

function windows(form: string, into: Set<string>): void {
  for (let i = 0; i + FRAGMENT <= form.length; i++) into.add(form.slice(i, i + FRAGMENT))
}

/**
 * The base64 characters that depend on the secret's bytes alone, with 0, 1 or 2 bytes of
 * other text before it (the characters that also hold a neighbour's bits differ from copy to
 * copy), in the standard and the URL-safe alphabet.
 */
function base64Interiors(bytes: Buffer): string[] {
  const interiors: string[] = []
  for (let before = 0; before < 3; before++) {
    const encoded = Buffer.concat([Buffer.alloc(before), bytes]).toString('base64')
    const interior = encoded.slice(Math.ceil((before * 8) / 6), Math.floor(((before + bytes.length) * 8) / 6))
    interiors.push(interior, interior.replace(/\+/g, '-').replace(/\//g, '_'))
  }
  return interiors
}

/**
 * Forgets every secret, and what each character read so far folds to, so that each test reads
 * its text afresh (tests only).
 */
export function clearSecrets(): void {
  shortForms = []
  pieces.clear()
  shortNormalised = []
  normalisedPieces.clear()
  FOLDED.clear()
}

/** `text` with every secret form, and every run of FRAGMENT or more characters copied from one, replaced by `***`. */
export function redact(text: string): string {
  if (pieces.size === 0 && shortForms.length === 0 && shortNormalised.length === 0) return text
  if (text.length === 0) return text
  // +1 where a span to replace starts, -1 where it ends: marking stays linear however the spans overlap.
  const marks = new Int32Array(text.length + 1)
  let any = false
  const mark = (from: number, to: number): void => {
    marks[from]! += 1
    marks[to]! -= 1
    any = true
  }

  for (const form of shortForms) {
    for (let at = text.indexOf(form); at !== -1; at = text.indexOf(form, at + 1)) mark(at, at + form.length)
  }
  for (let i = 0; i + FRAGMENT <= text.length; i++) if (pieces.has(text.slice(i, i + FRAGMENT))) mark(i, i + FRAGMENT)

  const normal = normalise(text)
  const { start, end } = normal
  for (const form of shortNormalised) {
    for (let at = normal.text.indexOf(form); at !== -1; at = normal.text.indexOf(form, at + 1)) {
      mark(start[at]!, end[at + form.length - 1]!)
    }
  }
  for (let i = 0; i + FRAGMENT <= normal.text.length; i++) {
    if (normalisedPieces.has(normal.text.slice(i, i + FRAGMENT))) mark(start[i]!, end[i + FRAGMENT - 1]!)
  }

  if (!any) return text
  let out = ''
  let depth = 0
  let from = 0
  for (let i = 0; i < text.length; i++) {
    const before = depth
    depth += marks[i]!
    if (before === 0 && depth > 0) {
      out += text.slice(from, i) + REPLACEMENT
    } else if (before > 0 && depth === 0) {
      from = i
    }
  }
  return depth > 0 ? out : out + text.slice(from)
}

/**
 * Characters a secret can be cut with and still be read: white space and line breaks, and
 * the invisible ones (zero-width space, non-joiner and joiner, word joiner, byte order mark,
 * soft hyphen, no-break space). Every format character (category Cf: direction marks,
 * invisible operators, tags) and control character (Cc: C0 and C1) is left out as well.
 */
const SEPARATORS = new Set([0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0, 0xad, 0x200b, 0x200c, 0x200d, 0x2028, 0x2029, 0x2060, 0xfeff])
const INVISIBLE = /\p{Cf}|\p{Cc}/u

/** Whether a character is left out of the normalised text. */
function leftOut(char: string): boolean {
  return SEPARATORS.has(char.codePointAt(0)!) || INVISIBLE.test(char)
}

/**
 * Each ASCII character as the normalised text reads it, without a call to `normalize`: its
 * lower case, or 0 when it is left out (NUL is, so no character reads as 0). In ASCII that is
 * the controls (Cc: below 0x20, and 0x7f) and the space; no ASCII character is a format
 * character (Cf). Written out rather than with INVISIBLE, whose Unicode tables would be
 * compiled on every run (about 0.4 ms) for text that is mostly ASCII; a test holds the two equal.
 */
const ASCII = Uint16Array.from({ length: 0x80 }, (_, code) =>
  code <= 0x20 || code === 0x7f ? 0 : String.fromCharCode(code).toLowerCase().charCodeAt(0)
)

/**
 * What each non-ASCII code point read so far reads as (see `fold`): `normalize` runs once per
 * code point, not once per character read. Emptied when it holds MAX_FOLDED, so that a text of
 * many different characters cannot make it grow without bound.
 */
const FOLDED = new Map<number, string>()
const MAX_FOLDED = 0x10000

/**
 * The most characters a code point reads as: 4 (`⑽` is `(10)`, `㎉` is `kcal`). The 28 whose
 * compatibility form is longer (words in katakana squares such as `㌔`, Arabic phrases up to 15
 * letters long, musical notes) spell no printable secret, and are read as themselves, so that
 * a text of them reads at most four times as long.
 */
const MAX_EXPANSION = 4

/**
 * A code point as the normalised text reads it: its compatibility form (NFKC: fullwidth,
 * mathematical, circled or superscript forms read as the plain character, a ligature as its
 * letters), case folded, without the characters left out. Empty for a separator, a format or
 * a control character; several characters for some ('ﬁ' reads as 'fi', '㎏' as 'kg').
 */
function fold(point: number): string {
  let folded = FOLDED.get(point)
  if (folded === undefined) {
    const char = String.fromCodePoint(point)
    folded = [...char.normalize('NFKC').toLowerCase()].filter(part => !leftOut(part)).join('')
    if (folded.length > MAX_EXPANSION) folded = char
    if (FOLDED.size === MAX_FOLDED) FOLDED.clear()
    FOLDED.set(point, folded)
  }
  return folded
}

interface Normalised {
  readonly text: string
  /** For each character of `text`, the span of the original it was read from. */
  readonly start: Int32Array
  readonly end: Int32Array
}

/**
 * `text` read code point by code point (a surrogate pair, or two escapes that spell one, as
 * one), with character escapes decoded (`%6B`, `&#107;`, `&#x6b;`, `&#0107`, `\u006B`,
 * `\u{6b}`, `\x6b`), each folded (`fold`): one pass, each character read a bounded number of
 * times. Mostly shorter than `text`, since every escape is longer than what it decodes to and
 * separators are left out, but a code point may read as several characters (up to
 * MAX_EXPANSION), so the arrays grow when they are full: by doubling, which keeps the pass
 * linear.
 */
function normalise(text: string): Normalised {
  let codes = new Uint16Array(text.length)
  let start = new Int32Array(text.length)
  let end = new Int32Array(text.length)
  let length = 0
  const push = (code: number, from: number, to: number): void => {
    if (length === codes.length) {
      const size = 2 * length + 16
      codes = grown(codes, new Uint16Array(size))
      start = grown(start, new Int32Array(size))
      end = grown(end, new Int32Array(size))
    }
    codes[length] = code
    start[length] = from
    end[length] = to
    length++
  }
  const emit = (point: number, from: number, to: number): void => {
    if (point < 0x80) {
      const code = ASCII[point]!
      if (code > 0) push(code, from, to)
    } else {
      const folded = fold(point)
      for (let k = 0; k < folded.length; k++) push(folded.charCodeAt(k), from, to)
    }
  }
  let i = 0
  while (i < text.length) {
    const escape = decodeEscape(text, i)
    if (escape === undefined) {
      const point = text.codePointAt(i)!
      const next = point > 0xffff ? i + 2 : i + 1
      emit(point, i, next)
      i = next
    } else if (escape.point === undefined) {
      // A run of backslashes that starts no escape: taken as it is, and not read again.
      for (let j = i; j < escape.next; j++) emit(text.charCodeAt(j), j, j + 1)
      i = escape.next
    } else {
      let { point, next } = escape
      // `\uD835\uDC1A` (JSON's escape of a character beyond U+FFFF): the two halves read as one.
      if ((point & 0xfc00) === 0xd800) {
        const low = decodeEscape(text, next)
        const lowPoint = low?.point ?? 0
        if ((lowPoint & 0xfc00) === 0xdc00) {
          point = 0x10000 + ((point - 0xd800) << 10) + (lowPoint - 0xdc00)
          next = low!.next
        }
      }
      emit(point, i, next)
      i = next
    }
  }
  return { text: Buffer.from(codes.buffer, 0, length * 2).toString('utf16le'), start, end }
}

/** `into` holding `from` at its start. */
function grown<T extends Uint16Array | Int32Array>(from: T, into: T): T {
  into.set(from)
  return into
}

function hexDigit(text: string, at: number): number {
  const code = text.charCodeAt(at)
  if (code >= 0x30 && code <= 0x39) return code - 0x30
  const lower = code | 0x20
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1
}

function decimalDigit(text: string, at: number): number {
  const code = text.charCodeAt(at)
  return code >= 0x30 && code <= 0x39 ? code - 0x30 : -1
}

/** `digits` hex digits at `at` as a number, or -1. */
function hexNumber(text: string, at: number, digits: number): number {
  let value = 0
  for (let k = 0; k < digits; k++) {
    const digit = hexDigit(text, at + k)
    if (digit < 0) return -1
    value = value * 16 + digit
  }
  return value
}

/**
 * The escape that starts at `at`, if any: the code point it stands for and where it ends.
 * A run of backslashes that is not followed by an escape is returned without a code point, so
 * that the caller skips the whole run at once.
 */
function decodeEscape(text: string, at: number): { point: number | undefined; next: number } | undefined {
  const char = text.charCodeAt(at)
  if (char === 0x25 /* % */) {
    const value = hexNumber(text, at + 1, 2)
    return value < 0 ? undefined : { point: value, next: at + 3 }
  }
  if (char === 0x26 /* & */ && text.charCodeAt(at + 1) === 0x23 /* # */) return characterReference(text, at)
  if (char === 0x5c /* \ */) {
    // `\\u006b`: the escape written inside a JSON string is read as the escape itself.
    let j = at
    while (text.charCodeAt(j) === 0x5c) j++
    const letter = text.charCodeAt(j) | 0x20
    if (letter === 0x75 /* u */ && text.charCodeAt(j + 1) === 0x7b /* { */) {
      // Any number of leading zeros, as JavaScript reads them; then at most 7 digits, so that
      // a value past the last code point is not read further.
      let k = j + 2
      while (text.charCodeAt(k) === 0x30 /* 0 */) k++
      const significantFrom = k
      let value = 0
      while (k < significantFrom + 7 && hexDigit(text, k) >= 0) value = value * 16 + hexDigit(text, k++)
      if (k > j + 2 && text.charCodeAt(k) === 0x7d /* } */ && value <= 0x10ffff) return { point: value, next: k + 1 }
    } else if (letter === 0x75) {
      const value = hexNumber(text, j + 1, 4)
      if (value >= 0) return { point: value, next: j + 5 }
    } else if (letter === 0x78 /* x */) {
      const value = hexNumber(text, j + 1, 2)
      if (value >= 0) return { point: value, next: j + 3 }
    }
    return { point: undefined, next: j }
  }
  return undefined
}

/** `&#107;`, `&#x6B;`, `&#0107` (the `;` may be left out, and leading zeros are allowed). */
function characterReference(text: string, at: number): { point: number; next: number } | undefined {
  let k = at + 2
  const hex = (text.charCodeAt(k) | 0x20) === 0x78 /* x */
  if (hex) k++
  const digitsFrom = k
  while (text.charCodeAt(k) === 0x30 /* 0 */) k++
  const significantFrom = k
  let value = 0
  for (;;) {
    const digit = hex ? hexDigit(text, k) : decimalDigit(text, k)
    if (digit < 0) break
    value = value * (hex ? 16 : 10) + digit
    k++
    // Past the last code point: not a reference, and no need to read further.
    if (k - significantFrom > 7) return undefined
  }
  if (k === digitsFrom || value > 0x10ffff) return undefined
  if (text.charCodeAt(k) === 0x3b /* ; */) k++
  return { point: value, next: k }
}

/**
 * A secret as people paste it, taken apart: a variable name in front (a `.env` line,
 * `DISCORD_TOKEN=…`), quotes around it, a scheme word (`Bot …`, `Bearer …`). `value` is what is
 * left; `extra` says in words what does not belong in a secret, what was around it and what is
 * left inside it (a key or token never holds quotes, `=` or white space).
 */
export function unwrapSecret(text: string): { value: string; extra: string[] } {
  const extra: string[] = []
  let value = text
  const take = (pattern: RegExp, what: (match: RegExpExecArray) => string): void => {
    const match = pattern.exec(value)
    if (match === null) return
    extra.push(what(match))
    value = match.at(-1)!
  }
  take(/^(?:export\s+)?[A-Za-z_]\w*\s*=\s*(\S[\s\S]*)$/, () => 'a variable name and "=" in front')
  take(/^(["'`])([\s\S]*)\1$/, () => 'quotes around it')
  take(/^(Bot|Bearer)\s+([\s\S]*)$/i, match => `the word "${match[1]}" in front`)
  const inside = [/["'`]/.test(value) && 'quotes', value.includes('=') && '"="', /\s/.test(value) && 'white space'].filter(Boolean)
  if (inside.length > 0) extra.push(`${inside.join(', ')} inside it`)
  return { value, extra }
}

/** Shorter lines of a secret are not masked on their own: they could be common words. */
const MIN_MASKED_PART = 8

/**
 * Masks a secret as a whole, never a common word in it. A secret pasted with more than itself
 * (quotes, `NAME=`, a scheme word: unwrapSecret) is also masked without it, and each line of a multi-line value
 * that is long enough on its own, because the runner masks line by line. A refused value is
 * still a secret, so this runs before any validation.
 */
export function maskSecret(secret: string, mask: (secret: string) => void): void {
  if (secret === '') return
  const parts = new Set([secret])
  const { value } = unwrapSecret(secret)
  if (value.length >= MIN_MASKED_PART) parts.add(value)
  for (const line of secret.split(/\r?\n/)) if (line.trim().length >= MIN_MASKED_PART) parts.add(line.trim())
  for (const part of parts) mask(part)
}

/**
 * The credentials of a proxy the action will use (`https_proxy=http://user:password@host`):
 * the password and the whole user:password pair, as written and decoded.
 */
export function proxyCredentials(env: Readonly<Record<string, string | undefined>>): string[] {
  const found = new Set<string>()
  for (const name of ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY']) {
    const value = env[name]
    if (!value) continue
    let url: URL
    try {
      url = new URL(value)
    } catch {
      continue
    }
    if (url.password === '') continue
    for (const text of [url.password, `${url.username}:${url.password}`]) {
      found.add(text)
      try {
        found.add(decodeURIComponent(text))
      } catch {
        // Not valid percent-encoding: only the form as written can appear.
      }
    }
  }
  return [...found]
}

/**
 * The one call that makes a secret safe: masks it for the runner (`setSecret`, i.e.
 * `core.setSecret`: the whole value, a token without its scheme word, each long line) and
 * remembers every form of it for `redact`. Called for every secret the moment it is read,
 * before any validation or log line.
 */
export function registerSecret(secret: string, setSecret: (form: string) => void): void {
  maskSecret(secret, part => {
    for (const form of addSecret(part)) setSecret(form)
  })
}
