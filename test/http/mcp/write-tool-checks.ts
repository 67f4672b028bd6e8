/**
 * The checks every write tool of issue #30 passes through the endpoint: a key without the tool's scope
 * is refused -32003 and changes nothing; 20 concurrent calls with one idempotency_key append one
 * change; a dry run appends nothing; bad input is a clear -32602 that appends nothing; a key of
 * another account cannot touch the lead (lead_not_found, as for a lead that does not exist).
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
  /** Runs before each check on Jane's new lead (pause before resume, say). */
  readonly prepare?: (app: McpTestApp, account: McpTestAccount) => Promise<void>
  readonly options?: Parameters<typeof mcpApp>[1]
}

export async function janeApp(t: Test, c: Pick<WriteToolCase, 'settings' | 'prepare' | 'options'>) {
  const app = await mcpApp(t, c.options ?? {})
  const acme = await app.account('Acme Roofing', c.settings ?? {})
  await acme.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142', email: 'jane@example.com', state: 'IL' })
  await c.prepare?.(app, acme)
  await app.settle()
  const types = async () => (await app.leadline.store.readStream(`lead-${acme.accountId}-${JANE_LAST10}`)).map((e) => e.type)
  return { app, acme, types }
}

const jane = { phone: '(312) 555-0142' }

export function writeToolChecks(t: Test, c: WriteToolCase): void {
  const otherScope = c.scope === 'write' ? 'dial' : 'write'

  t.test(`${c.tool}: a read key, and a key with only the ${otherScope} scope, are refused -32003 and change nothing`, async (t) => {
    const { app, acme, types } = await janeApp(t, c)
    const before = await types()
    for (const key of [acme.keys.read, acme.keys[otherScope] as string]) {
      const answer = await app.call(key, c.tool, { ...jane, ...c.args, idempotency_key: `scope-${key.slice(-6)}` })
      t.equal(answer.error?.code, -32003)
      t.equal(answer.error?.data.code, 'insufficient_scope')
    }
    t.same(await types(), before)
  })

  t.test(`${c.tool}: 20 concurrent calls with one idempotency_key make one change and one answer`, async (t) => {
    const { app, acme, types } = await janeApp(t, c)
    const before = await types()
    const answers = await Promise.all(Array.from({ length: 20 }, () => app.call(acme.keys[c.scope] as string, c.tool, { ...jane, ...c.args, idempotency_key: 'same-key' })))
    t.ok(answers.every((a) => a.error === undefined), JSON.stringify(answers.find((a) => a.error)?.error))
    const first = answers[0]?.result?.structuredContent
    t.ok(answers.every((a) => JSON.stringify(a.result?.structuredContent) === JSON.stringify(first)), 'every answer is the first')
    const added = (await types()).slice(before.length)
    t.equal(added.filter((type) => type === c.event).length, 1, `one ${c.event}`)
  })

  t.test(`${c.tool}: a dry run answers and changes nothing`, async (t) => {
    const { app, acme, types } = await janeApp(t, c)
    const before = await types()
    const answer = await app.call(acme.keys[c.scope] as string, c.tool, { ...jane, ...c.args, idempotency_key: 'dry', dry_run: true })
    t.equal(answer.error, undefined, JSON.stringify(answer.error))
    t.equal(answer.result?.structuredContent.dry_run, true)
    t.same(await types(), before)
    // The key was not used up: the real call runs.
    const real = await app.call(acme.keys[c.scope] as string, c.tool, { ...jane, ...c.args, idempotency_key: 'dry' })
    t.equal(real.result?.structuredContent.dry_run, false)
    t.ok((await types()).includes(c.event))
  })

  t.test(`${c.tool}: bad input is a clear error and changes nothing`, async (t) => {
    const { app, acme, types } = await janeApp(t, c)
    const before = await types()
    for (const [i, bad] of c.bad.entries()) {
      const answer = await app.call(acme.keys[c.scope] as string, c.tool, { ...jane, ...bad.args, idempotency_key: `bad-${i}` })
      t.equal(answer.error?.data.code, bad.code, `${JSON.stringify(bad.args)}: ${answer.error?.message}`)
      t.ok((answer.error?.message ?? '').length > 10, 'says what is wrong')
    }
    const none = await app.call(acme.keys[c.scope] as string, c.tool, { ...c.args, idempotency_key: 'no-lead' })
    t.equal(none.error?.data.code, 'invalid_arguments', 'a lead must be named')
    t.same(await types(), before)
  })

  t.test(`${c.tool}: a key of another account cannot touch the lead`, async (t) => {
    const { app, acme, types } = await janeApp(t, c)
    const other = await app.account('Other Agency', c.settings ?? {})
    const before = await types()
    const lead = (await app.call(acme.keys.read, 'get_lead', jane)).result?.structuredContent.lead
    for (const [i, reference] of [jane, { lead_id: lead.lead_id }].entries()) {
      for (const dryRun of [true, false]) {
        const answer = await app.call(other.keys.all, c.tool, { ...reference, ...c.args, idempotency_key: `other-${i}-${dryRun}`, dry_run: dryRun })
        t.equal(answer.error?.data.code, 'lead_not_found', `${JSON.stringify(reference)} dry_run ${dryRun}`)
      }
    }
    t.same(await types(), before)
    t.same(await app.leadline.store.readStream(`lead-${other.accountId}-${JANE_LAST10}`), [], "nothing on the other account's stream")
  })
}
