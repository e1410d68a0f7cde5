/**
 * The one owner of secrets: `registerSecret` masks a secret for the runner and remembers every
 * form of it; `redact` removes them from any text that came from outside before that text is
 * cut, escaped or printed (text.ts).
 *
 * The runner masks only the exact values registered, and not an escaped copy in the job summary.
 * So every form a program produces of each secret is replaced here, and so is any run of at least
 * FRAGMENT characters copied from one: a service that quotes half a key has leaked half a key. A
 * form deliberately disguised (other invisible characters, fullwidth letters) is out of scope:
 * only a party that already holds the secret could write it (SECURITY.md).
 *
 * Two passes, both linear in the text (it may be a megabyte): the text as it is, against the
 * forms as they are; and the text as `read` reads it (escapes decoded, case folded, cuts left
 * out), against the same forms read alike, plus the byte encodings (hex, base64 at each alignment).
 */

/** The shortest piece of a secret that counts as a leak on its own. */
export const FRAGMENT = 10

/**
 * A form shorter than FRAGMENT is replaced only whole, and only from this length: shorter ones are
 * too common.
 */
const MIN_WHOLE = 4

/**
 * Forms shorter than FRAGMENT (matched whole) and every FRAGMENT-character window of the others, as
 * they are and as `read` reads them.
 */
const asIs = { whole: new Set<string>(), pieces: new Set<string>() }
const asRead: Forms = { whole: new Set(), pieces: new Set() }
type Forms = typeof asIs

function remember(forms: Forms, form: string): void {
  if (form.length >= MIN_WHOLE && form.length < FRAGMENT) forms.whole.add(form)
  for (let i = 0; i + FRAGMENT <= form.length; i++) forms.pieces.add(form.slice(i, i + FRAGMENT))
}

/**
 * Remembers every form of a secret for `redact`. Returns the forms a log line could carry (as it
 * is, URL- or JSON-encoded) for the runner's masks, which are set for the whole secret only.
 */
export function addSecret(secret: string): string[] {
  if (secret.length === 0) return []
  const bytes = Buffer.from(secret, 'utf8')
  const logged = [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]
  const escaped = [
    secret
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;'),
    secret.replace(/([\\`*_[\]|~#!():@<>&"])/g, '\\$1'),
    bytes.toString('base64').replace(/=+$/, '')
  ]
  // Read, the URL-encoded form is the secret's UTF-8 bytes, one character each: a copy
  // percent-encoded or in `\x` escapes, byte by byte, reads the same.
  for (const form of [...logged, ...escaped]) {
    remember(asIs, form)
    remember(asRead, read(form).text)
  }
  for (const form of [bytes.toString('hex'), ...base64Interiors(bytes)])
    remember(asRead, read(form).text)
  return [...new Set(logged)]
}

/**
 * The base64 characters that depend on the secret's bytes alone (not a neighbour's bits), with 0,
 * 1 or 2 bytes of other text before it, in the standard and the URL-safe alphabet.
 */
function base64Interiors(bytes: Buffer): string[] {
  const interiors: string[] = []
  for (let before = 0; before < 3; before++) {
    const encoded = Buffer.concat([Buffer.alloc(before), bytes]).toString('base64')
    const interior = encoded.slice(
      Math.ceil((before * 8) / 6),
      Math.floor(((before + bytes.length) * 8) / 6)
    )
    interiors.push(interior, interior.replace(/\+/g, '-').replace(/\//g, '_'))
  }
  return interiors
}

/** Forgets every secret (tests only). */
export function clearSecrets(): void {
  for (const set of [asIs.whole, asIs.pieces, asRead.whole, asRead.pieces]) set.clear()
}

/**
 * `text` with every secret form, and every run of FRAGMENT or more characters copied from one,
 * replaced by `***`.
 */
export function redact(text: string): string {
  if ([asIs, asRead].every(forms => forms.whole.size + forms.pieces.size === 0)) return text
  // +1 where a span to replace starts, -1 where it ends: marking stays linear however the spans
  // overlap.
  const marks = new Int32Array(text.length + 1)
  const mark = (from: number, to: number): void => {
    marks[from]! += 1
    marks[to]! -= 1
  }
  find(asIs, text, mark)
  const reading = read(text)
  // A span found in the text as read is mapped back to the original: it starts where its first
  // character was read from and ends where its last one was read from (`to` is past the span, so
  // its last character is `to - 1`). An escape, or a lower case of two characters, is thus
  // replaced whole however little of it the span takes, and cuts inside the span go with it.
  find(asRead, reading.text, (from, to) => mark(reading.start[from]!, reading.end[to - 1]!))
  // Where the running sum of the marks turns positive a replaced stretch starts, and where it falls
  // back to zero the stretch ends: overlapping spans make one `***`.
  let out = ''
  let depth = 0
  let from = 0
  for (let i = 0; i < text.length; i++) {
    const before = depth
    depth += marks[i]!
    if (before === 0 && depth > 0) out += text.slice(from, i) + '***'
    else if (before > 0 && depth === 0) from = i
  }
  return depth > 0 ? out : out + text.slice(from)
}

/** Calls `mark` with the span of each copy of a form, or of a window of one, in `text`. */
function find(forms: Forms, text: string, mark: (from: number, to: number) => void): void {
  for (const form of forms.whole) {
    for (let at = text.indexOf(form); at !== -1; at = text.indexOf(form, at + 1))
      mark(at, at + form.length)
  }
  for (let i = 0; i + FRAGMENT <= text.length; i++)
    if (forms.pieces.has(text.slice(i, i + FRAGMENT))) mark(i, i + FRAGMENT)
}

/**
 * What cuts a secret where it is wrapped or hyphenated: white space, line breaks, zero-width
 * spaces, soft hyphens.
 */
const CUT = /[\s\u200b\u00ad]/

/**
 * A cut, or one escape of a character as programs write them: `%6B`; `&#107;`, `&#x6b;` (the
 * `;` may be left out, leading zeros allowed); `\u006B`, `\u{6b}`, `\x6b`, with the backslash
 * doubled as in a JSON string (`\\u006b`). A run of backslashes is matched whole, escape or not,
 * so that no run is read twice.
 */
const TOKEN = new RegExp(
  String.raw`${CUT.source}|%([0-9a-f]{2})|&#(?:x0*([0-9a-f]{1,6})|0*(\d{1,7}));?|\\+(?:u\{0*([0-9a-f]{1,6})\}|u([0-9a-f]{4})|x([0-9a-f]{2}))?`,
  'gi'
)

/**
 * `text` as the second pass reads it: escapes decoded (the two `\u` escapes of a surrogate pair
 * read as one character), case folded, cuts left out. `start` and `end` give, for each character
 * read, the span of `text` it was read from.
 */
function read(text: string): { text: string; start: Int32Array; end: Int32Array } {
  // No character reads as more than one, but `İ`, whose lower case is two (`i` and a dot above).
  const size = text.length + text.split('\u0130').length - 1
  const start = new Int32Array(size)
  const end = new Int32Array(size)
  let out = ''
  const add = (char: string, from: number, to: number): void => {
    if (CUT.test(char)) return
    const lower = char.toLowerCase()
    start.fill(from, out.length, out.length + lower.length)
    end.fill(to, out.length, out.length + lower.length)
    out += lower
  }
  const plain = (chars: string, from: number): void => {
    const lower = chars.toLowerCase()
    if (lower.length !== chars.length) {
      for (const char of chars) add(char, from, (from += char.length))
      return
    }
    for (let k = 0; k < chars.length; k++) {
      start[out.length + k] = from + k
      end[out.length + k] = from + k + 1
    }
    out += lower
  }
  let next = 0
  for (const match of text.matchAll(TOKEN)) {
    const [token, percent, hexReference, decimalReference, braced, u, x] = match
    plain(text.slice(next, match.index), next)
    next = match.index + token.length
    const point = codePoint(percent ?? hexReference ?? braced ?? u ?? x, decimalReference)
    if (point >= 0 && point <= 0x10ffff) add(String.fromCodePoint(point), match.index, next)
    // Not a cut, and no escape (a run of backslashes alone, a reference past U+10FFFF): as it is.
    else if (!CUT.test(token)) plain(token, match.index)
  }
  plain(text.slice(next), next)
  return { text: out, start, end }
}

/** The code point an escape names, in hex or in decimal; -1 for a token that is no escape. */
function codePoint(hex: string | undefined, decimal: string | undefined): number {
  if (hex !== undefined) return parseInt(hex, 16)
  if (decimal !== undefined) return Number(decimal)
  return -1
}

/**
 * A secret as people paste it, taken apart: `NAME=` in front (a `.env` line), quotes around it, a
 * scheme word (`Bot …`, `Bearer …`). `extra` says in words what was around it and what is left
 * inside it that a key or token never holds (quotes, `=`, white space).
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
  const inside = [
    /["'`]/.test(value) && 'quotes',
    value.includes('=') && '"="',
    /\s/.test(value) && 'white space'
  ].filter(Boolean)
  if (inside.length > 0) extra.push(`${inside.join(', ')} inside it`)
  return { value, extra }
}

/** Shorter lines of a secret are not masked on their own: they could be common words. */
const MIN_MASKED_PART = 8

/**
 * Masks a secret whole (never a word in it), without what was pasted around it, and each long line:
 * the runner masks by line.
 */
export function maskSecret(secret: string, mask: (secret: string) => void): void {
  if (secret === '') return
  const parts = new Set([secret])
  const { value } = unwrapSecret(secret)
  if (value.length >= MIN_MASKED_PART) parts.add(value)
  for (const line of secret.split(/\r?\n/))
    if (line.trim().length >= MIN_MASKED_PART) parts.add(line.trim())
  for (const part of parts) mask(part)
}

/**
 * A proxy's credentials (`https_proxy=http://user:password@host`): the password and user:password,
 * as written and decoded.
 */
export function proxyCredentials(env: Readonly<Record<string, string | undefined>>): string[] {
  const found = new Set<string>()
  for (const name of ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY']) {
    const value = env[name]
    if (!value || !URL.canParse(value)) continue
    const url = new URL(value)
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
 * The one call that makes a secret safe: masks it for the runner (`core.setSecret`) and remembers
 * every form of it for `redact`. A refused value is still a secret: called before any validation.
 */
export function registerSecret(secret: string, setSecret: (form: string) => void): void {
  maskSecret(secret, part => {
    for (const form of addSecret(part)) setSecret(form)
  })
}
