/**
 * Secrets are compared in constant time everywhere. Credentials are found by the SHA-256 of the
 * secret (an index lookup reveals nothing about the secret) and then checked with `sameHash`
 * (crypto.timingSafeEqual); Twilio's and Stripe's signatures are checked by their SDKs, which
 * compare in constant time too. This scan fails when source code compares anything named for a
 * secret, a signature or a secret's hash with `===` or `!==`, so a new comparison has to be
 * written with `sameHash` or `timingSafeEqual` (or added below with the reason it is not a secret).
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { sameHash, hashSecret } from '../../src/domain/shared/ids.ts'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

/** Compared with === on purpose: none is a secret. */
const NOT_SECRETS = [
  /secretId|setupId/, // the id of a stored secret, shown in lists and events: not the secret
]
/** Whole lines compared with === on purpose. */
const NOT_SECRET_LINES = [
  /password !== formField\(request\.body, 'confirm'\)/, // the password and its confirmation, both typed in this very request
]

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return sources(full)
    return entry.name.endsWith('.ts') ? [full] : []
  })
}

t.test('no secret, signature or secret hash is compared with === or !==', async (t) => {
  const named = /\b\w*(?:secret|signature|password|apiKey|keyHash|tokenHash|secretHash|csrf)\w*\b/i
  const offenders: string[] = []
  const files = [...sources(path.join(ROOT, 'src')), ...sources(path.join(ROOT, 'projections'))]
  for (const file of files) {
    const lines = readFileSync(file, 'utf8').split('\n')
    lines.forEach((line, i) => {
      if (line.trim().startsWith('//') || line.trim().startsWith('*')) return
      for (const match of line.matchAll(/([\w.?[\]'"]+)\s*[!=]==\s*([\w.?[\]'"]+)/g)) {
        const [, left = '', right = ''] = match
        const sides = [left, right]
        // Checking for absence (undefined, null, '') or against a constant (an error code, a kind) is not comparing a secret.
        if (sides.some((s) => /^(undefined|null|''|""|true|false|\d+)$/.test(s) || /^'[^']*'$/.test(s))) continue
        if (!sides.some((s) => named.test(s))) continue
        if (NOT_SECRETS.some((allowed) => allowed.test(match[0])) || NOT_SECRET_LINES.some((allowed) => allowed.test(line))) continue
        offenders.push(`${path.relative(ROOT, file)}:${i + 1}: ${line.trim()}`)
      }
    })
  }
  t.ok(files.length > 50, `scanned ${files.length} source files`)
  t.same(offenders, [], 'every secret comparison goes through sameHash or timingSafeEqual')
})

t.test('sameHash: constant time, and never throws on a length or encoding mismatch', async (t) => {
  const a = hashSecret('llwh_a')
  t.ok(sameHash(a, hashSecret('llwh_a')))
  t.notOk(sameHash(a, hashSecret('llwh_b')))
  t.notOk(sameHash(a, a.slice(0, 10)), 'a shorter hash is a mismatch, not a throw')
  t.notOk(sameHash(a, 'not hex at all'))
  t.notOk(sameHash(a, ''))
})

t.test('the callback verifiers compare in constant time', async (t) => {
  // Guard against an SDK upgrade that drops it: both libraries' verifiers are read here.
  const twilio = readFileSync(path.join(ROOT, 'node_modules/twilio/lib/webhooks/webhooks.js'), 'utf8')
  t.match(twilio, /timingSafeEqual/, 'twilio.validateRequest uses crypto.timingSafeEqual')
  const stripe = readFileSync(path.join(ROOT, 'node_modules/stripe/cjs/Webhooks.js'), 'utf8')
  t.match(stripe, /secureCompare/, 'Stripe.webhooks.constructEvent uses secureCompare')
  const stripeCompare = readFileSync(path.join(ROOT, 'node_modules/stripe/cjs/platform/NodePlatformFunctions.js'), 'utf8')
  t.match(stripeCompare, /timingSafeEqual/, 'which is crypto.timingSafeEqual on Node')
})
