/**
 * Facebook Lead Ads through the real `leadline` command and real `leadline serve` processes: a page
 * connected from the command line, a notification answered by one server that is killed (kill -9)
 * while its Graph API request is still out, and a second server on the same files that fetches the
 * lead. The page access token, the app secret and the verify token appear in no output of any of
 * them (logs at trace level, every command's output), in no audit export or history, and the page
 * token not even in the log's file.
 */
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { runLeadline, startServer } from '../helpers/cli.ts'
import { FAKE_APP_SECRET, FAKE_PAGE_TOKEN, FAKE_VERIFY_TOKEN, hubSignature, leadgenNotification, startFakeGraph } from '../doubles/fake-facebook-graph.ts'

const PAGE = '104000000000001'
const LEADGEN = '900000000000042'

t.test('connect a page, lose a server mid-fetch, and the lead still arrives; no secret shows anywhere', async (t) => {
  const dir = t.testdir()
  const fake = await startFakeGraph()
  t.teardown(() => fake.close())
  fake.addLead(LEADGEN, { full_name: 'Kim Ray', phone_number: '+15125550191', email: 'kim@example.com' })
  const env = {
    LEADLINE_STORE: `sqlite:${path.join(dir, 'leadline.db')}`,
    LOG_LEVEL: 'trace',
    FACEBOOK_APP_SECRET: FAKE_APP_SECRET,
    FACEBOOK_VERIFY_TOKEN: FAKE_VERIFY_TOKEN,
    FACEBOOK_GRAPH_URL: fake.url,
    // Long enough for a loaded machine's answer, so that one fetch is not timed out and asked again.
    FACEBOOK_GRAPH_TIMEOUT_MS: '5000',
  }
  const outputs: string[] = []
  const cli = async (...args: string[]) => {
    const result = await runLeadline(args, env)
    outputs.push(result.stdout, result.stderr)
    t.equal(result.code, 0, `leadline ${args.slice(0, 3).join(' ')}: ${result.stderr}`)
    return result.stdout
  }

  const accountId = JSON.parse(await cli('account', 'create', '--name', 'Acme Roofing', '--json')).accountId as string
  const connected = await cli('source', 'facebook', 'connect', '--account', accountId, '--page-id', PAGE, '--page-token', FAKE_PAGE_TOKEN)
  t.match(connected, `Facebook page ${PAGE} connected to account ${accountId}`)
  t.match(connected, 'callback URL for the app\'s webhook (page, leadgen): http://')
  t.match(connected, '/api/ingest/facebook')
  // The same page, another account: refused, nothing changed (exit 1 with the domain's code).
  const other = JSON.parse(await cli('account', 'create', '--name', 'Other Co', '--json')).accountId as string
  const refused = await runLeadline(['source', 'facebook', 'connect', '--account', other, '--page-id', PAGE, '--page-token', FAKE_PAGE_TOKEN], env)
  outputs.push(refused.stdout, refused.stderr)
  t.not(refused.code, 0)
  t.match(refused.stderr, /facebook_page_connected_elsewhere|connected to account/)

  // The first server answers the subscription check and the notification; its fetch hangs and it is killed.
  fake.fail({ kind: 'hang' })
  const first = await startServer(env)
  const check = await fetch(`${first.url}/api/ingest/facebook?hub.mode=subscribe&hub.verify_token=${FAKE_VERIFY_TOKEN}&hub.challenge=4242`)
  t.equal(check.status, 200)
  t.equal(await check.text(), '4242')
  const body = leadgenNotification([{ leadgenId: LEADGEN, pageId: PAGE }])
  const post = await fetch(`${first.url}/api/ingest/facebook`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(body) }, body })
  t.equal(post.status, 200)
  for (const deadline = Date.now() + 120_000; fake.requests().length === 0 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 20))
  t.same(fake.requests().map((r) => r.answered), ['hung'], 'the fetch was out when the server died')
  first.child.kill('SIGKILL')
  await first.stop()
  outputs.push(first.output())

  // The second server finds the claim without an outcome and fetches again.
  const second = await startServer(env)
  t.teardown(() => second.stop())
  let listed: { leads: Array<Record<string, unknown>>; pages: Array<Record<string, unknown>> } = { leads: [], pages: [] }
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; ) {
    listed = JSON.parse(await cli('source', 'facebook', 'list', '--account', accountId, '--json'))
    if (listed.leads[0]?.stage === 'received') break
    await new Promise((resolve) => setTimeout(resolve, 300))
  }
  t.match(listed.leads, [{ leadgenId: LEADGEN, pageId: PAGE, stage: 'received', failure: null }])
  t.match(listed.pages, [{ pageId: PAGE, accountId }])
  t.same(fake.requests().map((r) => r.answered), ['hung', 200], 'asked again once')
  await second.stop()
  outputs.push(second.output())

  const history = await cli('history', '--account', accountId, '--phone', '+15125550191')
  t.match(history, /lead received: Kim Ray/)
  t.equal((history.match(/lead received/g) ?? []).length, 1, 'one lead')
  await cli('audit', 'export', '--account', accountId, '--output', path.join(dir, 'export.jsonl'))
  const exported = fs.readFileSync(path.join(dir, 'export.jsonl'), 'utf8')
  t.match(exported, 'FacebookLeadReceived')
  outputs.push(exported, await cli('source', 'facebook', 'list', '--account', accountId))

  const all = outputs.join('\n')
  t.match(all, /Facebook subscription check answered/, 'the servers logged at trace level')
  for (const [name, secret] of [['page access token', FAKE_PAGE_TOKEN], ['app secret', FAKE_APP_SECRET], ['verify token', FAKE_VERIFY_TOKEN]] as const) {
    t.notOk(all.includes(secret), `no ${name} in any log, command output or export`)
  }
  t.notOk(all.includes('llsealed1.'), 'nor the sealed token')
  const logFile = fs.readFileSync(path.join(dir, 'leadline.db'))
  t.notOk(logFile.includes(Buffer.from(FAKE_PAGE_TOKEN)), 'the log file holds the token sealed only')
})
