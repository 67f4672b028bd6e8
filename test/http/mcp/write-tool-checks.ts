/**
 * The checks every write tool of issue #30 passes through the endpoint: a key without the tool's scope
 * is refused -32003 and changes nothing; 20 concurrent calls with one idempotency_key append one
 * change; a dry run appends nothing; bad input is a clear -32602 that appends nothing; a key of
 * another account cannot touch the lead (lead_not_found, as for a lead that does not exist). One app
 * a tool: the checks that change nothing run first on Jane, the race on a lead of its own.
 */
import type { Test } from 'tap'
import { mcpApp, type McpTestAccount, type McpTestApp } from './mcp-helpers.ts'

export const JANE_LAST10 = '3125550142'

export interface WriteToolCase {
  readonly tool: string
  readonly scope: 'write' | 'dial'
  /** Settings of the account the lead is in (calling hours, caller id for dial tools). */
  readonly settings?: Record<string, unknown>
  /** Arguments that change the lead (without the lead reference and idempotency key). */
  readonly args: Record<string, unknown>
  /** Arguments the schema or the tool refuses, with the error.data.code expected. */
  readonly bad: ReadonlyArray<{ readonly args: Record<string, unknown>; readonly code: string }>
  /** The event type one real call appends. */
  readonly event: string
  /** Runs on each new lead before the checks (pause before resume, say). */
  readonly prepare?: (app: McpTestApp, account: McpTestAccount, phone: string) => Promise<void>
  readonly options?: Parameters<typeof mcpApp>[1]
}

export async function janeApp(t: Test, c: Pick<WriteToolCase, 'settings' | 'prepare' | 'options'>) {
  const app = await mcpApp(t, c.options ?? {})
  const acme = await app.account('Acme Roofing', c.settings ?? {})
  await acme.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142', email: 'jane@example.com', state: 'IL' })
  await c.prepare?.(app, acme, '(312) 555-0142')
  await app.settle()
  const types = async () => (await app.leadline.store.readStream(`lead-${acme.accountId}-${JANE_LAST10}`)).map((e) => e.type)
  return { app, acme, types }
}

const jane = { phone: '(312) 555-0142' }

export function writeToolChecks(t: Test, c: WriteToolCase): void {
  const otherScope = c.scope === 'write' ? 'dial' : 'write'
  const key = (acme: McpTestAccount) => acme.keys[c.scope] as string

  t.test(`${c.tool}: scope, bad input, another account, dry run, and the idempotency race`, async (t) => {
    const { app, acme, types } = await janeApp(t, c)
    const bob = { phone: '(415) 555-0101' }
    await acme.pushLead({ name: 'Bob Roe', ...bob })
    await c.prepare?.(app, acme, bob.phone)
    const before = await types()

    await t.test(`a read key, and a key with only the ${otherScope} scope, are refused -32003`, async (t) => {
      for (const other of [acme.keys.read, acme.keys[otherScope] as string]) {
        const answer = await app.call(other, c.tool, { ...jane, ...c.args, idempotency_key: `scope-${other.slice(-6)}` })
        t.equal(answer.error?.code, -32003)
        t.equal(answer.error?.data.code, 'insufficient_scope')
      }
    })

    await t.test('bad input is a clear error', async (t) => {
      for (const [i, bad] of c.bad.entries()) {
        const answer = await app.call(key(acme), c.tool, { ...jane, ...bad.args, idempotency_key: `bad-${i}` })
        t.equal(answer.error?.data.code, bad.code, `${JSON.stringify(bad.args)}: ${answer.error?.message}`)
        t.ok((answer.error?.message ?? '').length > 10, 'says what is wrong')
      }
      const none = await app.call(key(acme), c.tool, { ...c.args, idempotency_key: 'no-lead' })
      t.equal(none.error?.data.code, 'invalid_arguments', 'a lead must be named')
    })

    await t.test('a key of another account cannot touch the lead', async (t) => {
      // Its own number: a caller ID belongs to one account.
      const settings: Record<string, unknown> = c.settings ?? {}
      const other = await app.account('Other Agency', typeof settings.callerId === 'string' ? { ...settings, callerId: '+15125550299' } : settings)
      const lead = (await app.call(acme.keys.read, 'get_lead', jane)).result?.structuredContent.lead
      for (const [i, reference] of [jane, { lead_id: lead.lead_id }].entries()) {
        for (const dryRun of [true, false]) {
          const answer = await app.call(other.keys.all, c.tool, { ...reference, ...c.args, idempotency_key: `other-${i}-${dryRun}`, dry_run: dryRun })
          t.equal(answer.error?.data.code, 'lead_not_found', `${JSON.stringify(reference)} dry_run ${dryRun}`)
        }
      }
      t.same(await app.leadline.store.readStream(`lead-${other.accountId}-${JANE_LAST10}`), [], "nothing on the other account's stream")
    })
    t.same(await types(), before, 'none of these changed the lead')

    await t.test('a dry run answers and changes nothing; its key stays unused', async (t) => {
      const answer = await app.call(key(acme), c.tool, { ...jane, ...c.args, idempotency_key: 'dry', dry_run: true })
      t.equal(answer.error, undefined, JSON.stringify(answer.error))
      t.equal(answer.result?.structuredContent.dry_run, true)
      t.same(await types(), before)
      const real = await app.call(key(acme), c.tool, { ...jane, ...c.args, idempotency_key: 'dry' })
      t.equal(real.result?.structuredContent.dry_run, false)
      t.ok((await types()).includes(c.event))
    })

    await t.test('20 concurrent calls with one idempotency_key make one change and one answer', async (t) => {
      const bobTypes = async () => (await app.leadline.store.readStream(`lead-${acme.accountId}-4155550101`)).map((e) => e.type)
      const start = await bobTypes()
      const answers = await Promise.all(Array.from({ length: 20 }, () => app.call(key(acme), c.tool, { ...bob, ...c.args, idempotency_key: 'same-key' })))
      t.ok(answers.every((a) => a.error === undefined), JSON.stringify(answers.find((a) => a.error)?.error))
      const first = answers[0]?.result?.structuredContent
      t.ok(answers.every((a) => JSON.stringify(a.result?.structuredContent) === JSON.stringify(first)), 'every answer is the first')
      t.equal((await bobTypes()).slice(start.length).filter((type) => type === c.event).length, 1, `one ${c.event}`)
    })
  })
}
