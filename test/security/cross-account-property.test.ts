/**
 * No tool, called with any key, returns another account's data (spec §1.6, §5 rule 5), as a
 * property: three accounts with leads; random tool calls, with any key of one account and random
 * arguments drawn mostly from the OTHER accounts' lead ids, phones (any formatting), names, list
 * cursors and idempotency keys; no answer, result or error, may contain anything of the others that
 * the caller did not send itself.
 */
import t from 'tap'
import fc from 'fast-check'
import { operatorContext } from '../helpers/build-app.ts'
import { mcpApp, type McpTestAccount } from '../http/mcp/mcp-helpers.ts'

const DIALABLE = { callerId: '+15125550100', callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false, callsPerSecond: 100 }
const TOOLS = ['get_next_actions', 'list_leads', 'get_lead', 'get_lead_history', 'mark_do_not_call', 'place_call', 'request_payment', 'send_sms']

interface Book {
  readonly name: string
  readonly account: McpTestAccount
  /** Every key of the account: one per scope set, and more with every scope (the per-key rate limit). */
  readonly keys: string[]
  readonly leads: Array<{ leadId: string; phone: string; name: string; source: string; vendor: string; email: string }>
  cursor: string | null
  /** What identifies this account or its leads in an answer. */
  readonly marks: string[]
}

t.test('random tool calls with any key never return another account\'s data', async (t) => {
  const app = await mcpApp(t)
  const books: Book[] = []
  for (const [i, name] of ['Alpha', 'Bravo', 'Charlie'].entries()) {
    const account = await app.account(`Agency ${name}`, { ...DIALABLE, callerId: `+1512555010${i}` })
    const keys = Object.values(account.keys).filter((k): k is string => k !== undefined)
    for (let k = 0; k < 8; k++) keys.push((await app.leadline.accounts.createApiKey(account.accountId, ['read', 'write', 'dial'], null, operatorContext)).key.secret)
    const leads = []
    for (let n = 0; n < 3; n++) {
      const fields = { name: `${name}person${n} Surname${name}`, phone: `(${415 + i}) 555-01${i}${n}`, source: `${name}-campaign`, vendor: `${name}-vendor`, email: `${name.toLowerCase()}${n}@example.com` }
      const { leadId, phone } = await account.pushLead({ ...fields, dnc: n === 2 ? 'yes' : '' })
      leads.push({ leadId, phone, name: fields.name, source: fields.source, vendor: fields.vendor, email: fields.email })
    }
    const page = (await app.call(account.keys.read, 'list_leads', { limit: 1 })).result?.structuredContent as { next_cursor: string | null }
    const marks = [account.accountId, ...Object.values(account.keyIds).filter((k): k is string => k !== undefined), `${name}person`, `Surname${name}`, `${name}-campaign`, `${name}-vendor`, `${name.toLowerCase()}0@`]
    books.push({ name, account, keys, leads, cursor: page.next_cursor, marks })
  }
  // An idempotency key each account has already used: another account reusing it must start afresh.
  for (const book of books) await app.call(book.account.keys.all, 'mark_do_not_call', { phone: book.leads[0]?.phone, idempotency_key: 'shared-key', dry_run: true })

  const phoneForms = (e164: string) => {
    const ten = e164.slice(-10)
    return [e164, ten, `(${ten.slice(0, 3)}) ${ten.slice(3, 6)}-${ten.slice(6)}`, `1${ten}`, `+1 ${ten.slice(0, 3)}.${ten.slice(3, 6)}.${ten.slice(6)}`]
  }
  const call = fc
    .record({ caller: fc.nat({ max: 2 }), victimOffset: fc.integer({ min: 1, max: 2 }), tool: fc.constantFrom(...TOOLS), lead: fc.nat({ max: 2 }), form: fc.nat({ max: 4 }), seed: fc.nat() })
    .chain(({ caller, victimOffset, tool, lead, form, seed }) => {
      const victim = books[(caller + victimOffset) % 3] as Book
      const target = victim.leads[lead] as Book['leads'][number]
      const value = fc.constantFrom<unknown>(
        target.leadId,
        phoneForms(target.phone)[form],
        target.name,
        target.source,
        target.vendor,
        target.email,
        victim.cursor,
        victim.account.accountId,
        'shared-key',
        seed,
        true,
        [target.phone],
        { lead_id: target.leadId },
      )
      const ref = fc.oneof(
        fc.constant({ phone: phoneForms(target.phone)[form] }),
        fc.constant({ lead_id: target.leadId }),
        fc.record({ phone: value, lead_id: value }, { requiredKeys: [] }),
      )
      const idem = fc.oneof(fc.constant('shared-key'), fc.string({ minLength: 1, maxLength: 12 }).map((k) => `k-${k.replace(/[^ -~]/g, 'x')}`))
      const shaped: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
        get_next_actions: fc.record({ limit: fc.integer({ min: 1, max: 100 }) }, { requiredKeys: [] }),
        list_leads: fc.record({ source: fc.constant(target.source), vendor: fc.constant(target.vendor), cursor: fc.constant(victim.cursor), limit: fc.integer({ min: 1, max: 500 }), do_not_call: fc.boolean(), since: fc.constant('2000-01-01') }, { requiredKeys: [] }),
        get_lead: ref,
        get_lead_history: ref,
        mark_do_not_call: fc.tuple(ref, idem).map(([r, k]) => ({ ...r, idempotency_key: k })),
        place_call: fc.tuple(fc.constantFrom(...phoneForms(target.phone)), fc.constantFrom(target.name, 'Someone'), idem).map(([phone, name, k]) => ({ phone, name, idempotency_key: k })),
        request_payment: fc.tuple(ref, idem, fc.integer({ min: 50, max: 10_000 })).map(([r, k, amountCents]) => ({ ...r, idempotency_key: k, amountCents, description: 'Deposit' })),
        send_sms: fc.tuple(ref, idem).map(([r, k]) => ({ ...r, idempotency_key: k, body: 'Hi' })),
      }
      // Mostly arguments a tool takes; sometimes with a stray account id, or entirely random ones.
      const args = fc.oneof(
        { weight: 6, arbitrary: shaped[tool] as fc.Arbitrary<Record<string, unknown>> },
        { weight: 1, arbitrary: fc.tuple(shaped[tool] as fc.Arbitrary<Record<string, unknown>>, fc.constantFrom('account_id', 'accountId', 'account'), value).map(([a, k, v]) => ({ ...a, [k]: v })) },
        { weight: 1, arbitrary: fc.dictionary(fc.constantFrom('phone', 'lead_id', 'name', 'source', 'cursor', 'idempotency_key', 'amountCents'), value, { maxKeys: 4 }) },
      )
      return fc.record({ caller: fc.constant(caller), tool: fc.constant(tool), args, dryRun: fc.boolean(), key: fc.nat() })
    })

  let calls = 0
  const sentBy: string[] = []
  const outcomes: Record<string, number> = {}
  await fc.assert(
    fc.asyncProperty(call, async ({ caller, tool, args, dryRun, key }) => {
      const book = books[caller] as Book
      const sent: Record<string, unknown> = { ...args, ...(dryRun ? { dry_run: true } : {}) }
      // Mostly keys with every scope, so the tools run; sometimes narrower ones.
      const answer = await app.call((key % 4 === 0 ? book.keys[key % book.keys.length] : book.keys[book.keys.length - 1 - (key % 8)]) as string, tool, sent)
      calls++
      const outcome = answer.error ? answer.error.data.code : 'result'
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1
      const text = JSON.stringify(answer)
      // What this account ever sent is its own: a place_call with another book's phone and name makes it a lead of this book too.
      sentBy[caller] = `${sentBy[caller] ?? ''}${JSON.stringify(sent)}`
      const said = sentBy[caller] as string
      const saidDigits = said.replace(/\D/g, '')
      for (const other of books) {
        if (other === book) continue
        // Anything of the other account the caller did not itself send is a leak.
        const leaked = [
          ...other.marks.filter((mark) => text.includes(mark) && !said.includes(mark)),
          ...other.leads.filter((l) => text.includes(l.leadId) && !said.includes(l.leadId)).map((l) => l.leadId),
          ...other.leads.filter((l) => text.includes(l.phone.slice(-10)) && !saidDigits.includes(l.phone.slice(-10))).map((l) => l.phone),
        ]
        if (leaked.length > 0) throw new Error(`${book.name}'s key, ${tool}(${JSON.stringify(sent)}) returned ${other.name}'s ${leaked.join(', ')}: ${text.slice(0, 600)}`)
      }
      if (answer.error?.data.code === 'internal_error') throw new Error(`internal_error: ${text}`)
    }),
    { numRuns: 400 },
  )
  t.pass(`${calls} random tool calls across three accounts: nothing of another account in any answer`)
  t.comment(JSON.stringify(outcomes))
  t.ok((outcomes.result ?? 0) > 20 && (outcomes.lead_not_found ?? 0) > 5, 'tools ran, and looked for other accounts\' leads')

  // And the other accounts' leads are as they were: nothing a foreign key did changed them.
  for (const book of books) {
    const page = (await app.call(book.account.keys.read, 'list_leads', { limit: 10 })).result?.structuredContent as { leads: Array<{ lead_id: string; do_not_call: boolean }> }
    t.same(page.leads.map((l) => l.lead_id).sort(), book.leads.map((l) => l.leadId).sort(), `${book.name} still has exactly its own leads`)
  }
})
