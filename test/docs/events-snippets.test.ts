/**
 * docs/events.md's receivers, run as the page prints them: the Node one (the `standardwebhooks`
 * package) and the Python one (the standard library's hmac: the same signature, computed another
 * way), each a real process on 127.0.0.1 subscribed to a real server's events. Each must take the
 * real deliveries, print each event once, and refuse a request signed with another secret.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { Webhook } from 'standardwebhooks'
import t, { type Test } from 'tap'
import { dialingApp, freePortUrl, postLead, waitFor } from '../helpers/dialing-app.ts'
import { operatorContext } from '../helpers/build-app.ts'

const page = fs.readFileSync(new URL('../../docs/events.md', import.meta.url), 'utf8')
const section = page.slice(page.indexOf('## Verify the signature'), page.indexOf('## Retries and the delivery log'))
const firstBlock = (language: string): string | undefined => new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(section)?.[1]

/** Starts the snippet as its comment says (secret and port in the environment); its printed lines. */
async function startSnippet(t: Test, command: string, file: string, base: string, secret: string): Promise<string[]> {
  const lines: string[] = []
  const child = spawn(command, [file], { env: { ...process.env, LEADLINE_EVENTS_SECRET: secret, PORT: new URL(base).port }, stdio: ['ignore', 'pipe', 'inherit'] })
  let rest = ''
  child.stdout.on('data', (chunk: Buffer) => {
    const parts = (rest + chunk.toString('utf8')).split('\n')
    rest = parts.pop() as string
    lines.push(...parts)
  })
  t.teardown(() => void child.kill())
  await waitFor(`${path.basename(file)} listening`, () => fetch(base, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then((r) => r.status === 400, () => false), 15_000)
  return lines
}

for (const [name, command, language, file] of [['Node', process.execPath, 'js', 'receiver.mjs'], ['Python', 'python3', 'python', 'receiver.py']] as const) {
  t.test(`the ${name} receiver of docs/events.md takes real deliveries, each once, and refuses a forged one`, async (t) => {
    const snippet = firstBlock(language)
    if (!snippet) return t.fail(`no ${language} block under "Verify the signature"`)
    const built = await dialingApp(t, { eventReceivers: { allowPrivate: true }, deliveryPolicy: { firstDelayMs: 50, maxDelayMs: 200, pollMs: 20 } })
    // The test's directory is in the checkout, so the Node receiver finds `standardwebhooks` in node_modules, as a reader's project would.
    const script = path.join(built.dir, file)
    fs.writeFileSync(script, snippet)
    const { account, token } = await built.createAccount('Acme', { speedToLead: false })
    const base = await freePortUrl()
    const { secret } = await built.leadline.eventSubscriptions.subscribe(account.accountId, `${base}/hooks`, ['lead.received', 'lead.updated'], operatorContext)
    const printed = await startSnippet(t, command, script, base, secret)

    const created = (await postLead(built.app, token, { phone: '+13125550142', name: 'Jane Doe' })).body
    await postLead(built.app, token, { phone: '+13125550142', name: 'Jane Doe', email: 'jane@example.com' })
    await waitFor('both delivered', () => built.leadline.eventSubscriptions.deliveries(account.accountId).filter((d) => d.status === 'delivered').length === 2, 15_000)
    t.same(printed, [`lead.received ${created.leadId}`, `lead.updated ${created.leadId}`], 'each event printed once, in order')

    // A delivery sent again (same webhook-id) is taken (204) and not printed twice; a forged one is refused.
    const [delivered] = built.leadline.eventSubscriptions.deliveries(account.accountId, { limit: 1 })
    const body = JSON.stringify({ type: 'lead.updated', timestamp: new Date().toISOString(), data: { lead_id: created.leadId } })
    const post = (signingSecret: string, id: string) => {
      const now = new Date()
      const signature = new Webhook(signingSecret).sign(id, now, body)
      return fetch(`${base}/hooks`, { method: 'POST', headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': signature }, body })
    }
    t.equal((await post(secret, delivered!.webhookId)).status, 204, 'a repeat is taken')
    t.equal((await post(`whsec_${Buffer.alloc(32, 9).toString('base64')}`, 'msg_forged')).status, 400, 'another secret is refused')
    t.equal(printed.length, 2, 'nothing printed twice, nothing forged printed')
  })
}
