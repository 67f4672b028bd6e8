/**
 * An outbound events signing secret is shown once (by `leadline events subscribe`, `rotate-secret`, or
 * the console page that answers them) and never again: not by `events list`, the console's Events page,
 * `audit export` (any flags), nor any tool's answer; and its sealed form on the log is never shown either.
 * The console page lists the deliveries, with their answers.
 */
import path from 'node:path'
import t from 'tap'
import { runCli } from '../../src/cli/main.ts'
import { signedInConsole, TEST_ENV } from '../http/console/console-helpers.ts'
import { buildApp } from '../helpers/build-app.ts'
import { mcpApp } from '../http/mcp/mcp-helpers.ts'
import { startReceiver } from '../processes/outbound-events/receiver.ts'
import { waitFor } from '../helpers/dialing-app.ts'

const dir = t.testdir()
const env = { LEADLINE_STORE: `sqlite:${path.join(dir, 'log.db')}`, LOG_LEVEL: 'silent', LEADLINE_SIMULATED_DELAY_MS: '20', LEADLINE_EVENTS_ALLOW_PRIVATE: '1' }

async function cli(args: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await runCli(args, { out: (s) => out.push(s), err: (s) => err.push(s), env })
  return { code, stdout: out.join('\n'), stderr: err.join('\n') }
}

t.test('the command line: subscribe and rotate-secret show the secret once; list, show, deliveries and export never do', async (t) => {
  const created = JSON.parse((await cli(['account', 'create', '--name', 'Acme', '--json'])).stdout) as { accountId: string }
  const accountId = created.accountId
  const subscribed = await cli(['events', 'subscribe', '--account', accountId, '--url', 'https://crm.example.com/hooks', '--types', 'lead.received,call.answered'])
  t.equal(subscribed.code, 0, subscribed.stderr)
  const secret = /signing secret \(shown once, store it now\): (whsec_[A-Za-z0-9+/=]{44})/.exec(subscribed.stdout)?.[1] as string
  t.ok(secret, 'shown by subscribe')
  const subscriptionId = /subscription (sub_[0-9a-z]+)/.exec(subscribed.stdout)?.[1] as string
  const rotated = await cli(['events', 'rotate-secret', '--account', accountId, '--subscription', subscriptionId, '--json'])
  const newSecret = (JSON.parse(rotated.stdout) as { secret: string }).secret
  t.match(newSecret, /^whsec_/)

  for (const args of [['events', 'list', '--account', accountId], ['events', 'list', '--account', accountId, '--json'], ['account', 'show', accountId, '--json'],
    ['audit', 'export', '--account', accountId], ['audit', 'export', '--account', accountId, '--include-recordings'], ['events', 'deliveries', '--account', accountId, '--json']]) {
    const result = await cli(args)
    t.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`)
    const shown = result.stdout + result.stderr
    t.notOk(shown.includes(secret) || shown.includes(newSecret) || shown.includes('llsealed1.'), `${args.slice(0, 2).join(' ')} ${args.slice(3).join(' ')}: no secret, no ciphertext`)
  }
  t.match((await cli(['events', 'list', '--account', accountId])).stdout, newSecret.slice(0, 'whsec_'.length + 4), 'its first characters only')
})

t.test('the console: the secret on the answering page, behind Reveal, then never; the deliveries with their answers', async (t) => {
  // The receiver listens on 127.0.0.1: the operator's setting for a self-hosted network.
  const f = await signedInConsole(t, { app: await buildApp(t, { env: { ...TEST_ENV, LEADLINE_EVENTS_ALLOW_PRIVATE: '1' } }) })
  const receiver = await startReceiver((n) => (n === 1 ? 500 : 200))
  t.teardown(() => receiver.close())
  await f.browser.get('/app/connections/events')
  const answered = await f.browser.post('/app/connections/events', { url: receiver.url, types: ['lead.received'] })
  t.equal(answered.statusCode, 200)
  const secret = /id="signing-secret" value="(whsec_[^"]+)"/.exec(answered.body)?.[1] as string
  t.ok(secret, 'shown on the page that answers the subscription')
  t.match(answered.body, /<details class="reveal"><summary>Reveal the secret<\/summary>/)
  receiver.secret = secret.replace(/&#43;/g, '+').replace(/&#61;/g, '=').replace(/&#47;/g, '/')

  const lead = await f.app.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': f.token }, payload: { phone: '312-555-0142', name: 'Jane' } })
  t.equal(lead.statusCode, 201)
  await waitFor('delivered on the second attempt', () => receiver.received.length === 2 && f.app.leadline.eventSubscriptions.deliveries(f.accountId)[0]?.status === 'delivered', 20_000)
  t.ok(receiver.received.every((r) => r.verified), 'the secret shown verifies the deliveries')

  const page = await f.browser.get('/app/connections/events')
  t.notOk(page.body.includes(secret) || page.body.includes(receiver.secret) || page.body.includes('llsealed1.'), 'never shown again, sealed or not')
  t.match(page.body, /<code>lead.received<\/code>[\s\S]*?<span class="ok">delivered<\/span>[\s\S]*?<td>2<\/td>/, 'the delivery, delivered after 2 attempts')
})

t.test('no tool answer holds a secret or its sealed form', async (t) => {
  // crm.example.com resolves to a public address of the test's own (no network needed).
  const app = await mcpApp(t, { eventReceivers: { resolve: async () => [{ address: '93.184.215.14', family: 4 }] } })
  const account = await app.account()
  const { secret } = await app.leadline.eventSubscriptions.subscribe(account.accountId, 'https://crm.example.com/hooks', null, { actor: { kind: 'operator', id: 'test' } })
  const { leadId } = await account.pushLead({ phone: '312-555-0142', name: 'Jane Doe' })
  await app.quiet()
  for (const [tool, args] of [['list_leads', {}], ['get_lead', { lead_id: leadId }], ['get_lead_history', { lead_id: leadId }], ['get_next_actions', {}]] as const) {
    const answer = JSON.stringify(await app.call(account.keys.all, tool, args))
    t.notOk(answer.includes(secret) || answer.includes('llsealed1.') || answer.includes('whsec_'), `${tool}: nothing of it`)
  }
})
