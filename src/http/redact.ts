/**
 * Keeps secrets out of logs: the webhook token may arrive in the query string, and a confused client
 * may put a token or key anywhere in the URL. A query parameter named for a secret (`token`, `key`,
 * `api_key`, …, matched after percent-decoding, in any case: `?%74oken=` is `token` to the query
 * parser) loses its value, and any path segment or parameter that holds something shaped like a
 * Leadline secret (`llwh_…`, `ll_live_…`, percent-encoded or not) is replaced whole. The secrets
 * scan (test/security/secrets-in-logs.test.ts) found `?%74oken=` and secrets in the path leaking.
 * The assistant's `whisper` to the owner (the lead's name and answers) is kept out the same way.
 */
const REDACTED = '[REDACTED]'
const SECRET_NAME = /^(?:token|key|api_key|apikey|api-key|access_token|webhook_token|service_token|hub\.verify_token|whisper)$/i
const SECRET_SHAPE = /llwh_|ll_live_/i
/** Anything that might decode to a secret's name or shape: a quick test before the careful one. */
const MAYBE = /%|llwh|ll_live|token|key|whisper/i

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

export function redactUrl(url: string): string {
  // Most URLs name no secret at all: one regex test and they are logged as they came.
  if (!MAYBE.test(url)) return url
  const q = url.indexOf('?')
  const path = (q === -1 ? url : url.slice(0, q))
    .split('/')
    .map((segment) => (holdsSecret(segment) ? REDACTED : segment))
    .join('/')
  if (q === -1) return path
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=')
      const name = eq === -1 ? pair : pair.slice(0, eq)
      if (holdsSecret(name)) return REDACTED
      if (eq !== -1 && (SECRET_NAME.test(decoded(name).trim()) || holdsSecret(pair.slice(eq + 1)))) return `${name}=${REDACTED}`
      return pair
    })
    .join('&')
  return `${path}?${query}`
}
