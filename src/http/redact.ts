/**
 * Keeps secrets out of logs, by pattern (issue #40): a query parameter, header or body field whose
 * name holds `token`, `key`, `secret`, `password`, `signature` or `code` (and the other words of
 * SECRET_WORDS), in any case and percent-decoded (`?%74oken=` is `token` to the query parser), loses
 * its value; so `?google_key=` on the webhook, `hub.verify_token`, an OAuth `code` or
 * `refresh_token`, a CSRF token, a session cookie and a password on sign-in are never written.
 * Anything shaped like a Leadline secret (`llwh_…`, `ll_live_…`, `llop_…`, `whsec_…`), in a path
 * segment or anywhere in a text, is replaced whole. The secrets scan
 * (test/security/secrets-in-logs.test.ts) sends every credential kind in every position and reads
 * the logs. The assistant's `whisper` to the owner (the lead's name and answers) is kept out the same way.
 */
const REDACTED = '[REDACTED]'
const SECRET_WORDS = 'token|key|secret|passw|pwd|signature|code|csrf|session|auth|cookie|credential|whisper'
/** A name that holds a credential: anything containing one of SECRET_WORDS. */
const SECRET_NAME = new RegExp(SECRET_WORDS, 'i')
const SECRET_SHAPE = /llwh_|ll_live_|llop_|whsec_/i
/** Anything that might decode to a secret's name or shape: a quick test before the careful one. */
const MAYBE = new RegExp(`%|llwh|ll_live|llop|whsec|${SECRET_WORDS}`, 'i')
/** In free text (an error's message): `name=value`, `name: value`, `"name":"value"` where the name holds a secret word. */
const NAMED_VALUE = new RegExp(`([\\w.\\-\\[\\]]*(?:${SECRET_WORDS})[\\w.\\-\\[\\]]*)(\\\\?["']?\\s*[:=]\\s*\\\\?["']?)([^\\s"'&,;}\\\\]+)`, 'gi')
const SHAPED_VALUE = /(?:llwh_|ll_live_|llop_|whsec_)[A-Za-z0-9+/=_-]*/gi
/** A URL's user name and password (`https://user:pass@host`). */
const USER_INFO = /(\/\/)[^/\s@:]+:[^/\s@]+@/g

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '))
  } catch {
    return text
  }
}

function holdsSecret(piece: string): boolean {
  return SECRET_SHAPE.test(piece) || (piece.includes('%') && SECRET_SHAPE.test(decoded(piece)))
}

/** Whether a parameter, header or field of this name holds a credential. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name) || (name.includes('%') && SECRET_NAME.test(decoded(name)))
}

export function redactUrl(url: string): string {
  // Most URLs name no secret at all: one regex test and they are logged as they came.
  if (!MAYBE.test(url)) return url
  const q = url.indexOf('?')
  const path = (q === -1 ? url : url.slice(0, q))
    .split('/')
    .map((segment) => (holdsSecret(segment) ? REDACTED : segment))
    .join('/')
    .replace(USER_INFO, `$1${REDACTED}@`)
  if (q === -1) return path
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=')
      const name = eq === -1 ? pair : pair.slice(0, eq)
      if (holdsSecret(name)) return REDACTED
      if (eq !== -1 && (isSecretName(name) || holdsSecret(pair.slice(eq + 1)))) return `${name}=${REDACTED}`
      return pair
    })
    .join('&')
  return `${path}?${query}`
}

/**
 * A copy of headers, a body or a query as an object, with every value under a secret's name
 * replaced (nested objects too) and every secret-shaped string cut out: for whatever logs them.
 */
export function redactFields(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value)
  if (value === null || typeof value !== 'object' || depth > 8) return value
  if (Array.isArray(value)) return value.map((item) => redactFields(item, depth + 1))
  const copy: Record<string, unknown> = {}
  for (const [name, field] of Object.entries(value as Record<string, unknown>)) copy[name] = isSecretName(name) ? REDACTED : redactFields(field, depth + 1)
  return copy
}

/** Free text (a message, an error's message or stack): named secret values and secret shapes replaced. */
export function redactText(text: string): string {
  if (!MAYBE.test(text) && !text.includes('@')) return text
  return text.replace(NAMED_VALUE, `$1$2${REDACTED}`).replace(SHAPED_VALUE, REDACTED).replace(USER_INFO, `$1${REDACTED}@`)
}
