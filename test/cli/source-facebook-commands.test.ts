/**
 * `leadline source facebook connect|list|disconnect|retry` in this process, through `runCli`: readable
 * output and --json, the page token from a file, refusals with exit 2, and the token never printed.
 * source-facebook.test.ts runs the command and `leadline serve` as processes, with a server killed mid-fetch.
 */
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { runLeadlineInProcess } from '../helpers/cli.ts'
import { FAKE_PAGE_TOKEN } from '../doubles/fake-facebook-graph.ts'

const PAGE = '104000000000001'

t.test('connect, list, retry and disconnect a page; bad input exits 2; the token is never printed', async (t) => {
  const dir = t.testdir()
  const env = { LEADLINE_STORE: `sqlite:${path.join(dir, 'leadline.db')}`, LEADLINE_PUBLIC_URL: 'https://leads.example.com' }
  const outputs: string[] = []
  const run = async (...args: string[]) => {
    const result = await runLeadlineInProcess(args, env)
    outputs.push(result.stdout, result.stderr)
    return result
  }
  const accountId = JSON.parse((await run('account', 'create', '--name', 'Acme Roofing', '--json')).stdout).accountId as string

  const empty = await run('source', 'facebook', 'list', '--account', accountId)
  t.equal(empty.code, 0, empty.stderr)
  t.match(empty.stdout, /^no Facebook pages: leadline source facebook connect [^\n]*\n\nno Facebook leads yet/)

  const tokenFile = path.join(dir, 'page-token')
  fs.writeFileSync(tokenFile, `${FAKE_PAGE_TOKEN}\n`)
  const connected = await run('source', 'facebook', 'connect', '--account', accountId, '--page-id', PAGE, '--page-token-file', tokenFile)
  t.equal(connected.code, 0, connected.stderr)
  t.match(connected.stdout, `Facebook page ${PAGE} connected to account ${accountId}: its leads arrive in this account`)
  t.match(connected.stdout, "callback URL for the app's webhook (page, leadgen): https://leads.example.com/api/ingest/facebook")
  const again = await run('source', 'facebook', 'connect', '--account', accountId, '--page-id', PAGE, '--page-token', FAKE_PAGE_TOKEN, '--json')
  t.equal(again.code, 0, again.stderr)
  t.match(JSON.parse(again.stdout), { accountId, pageId: PAGE, callbackUrl: 'https://leads.example.com/api/ingest/facebook', facebookConfigured: false })

  const listed = await run('source', 'facebook', 'list', '--account', accountId, '--json')
  t.match(JSON.parse(listed.stdout), { accountId, pages: [{ pageId: PAGE }], leads: [] })
  t.match((await run('source', 'facebook', 'list', '--account', accountId, '--stage', 'due', '--limit', '5')).stdout, new RegExp(`page\\s+connected\\s+token set\\n${PAGE}`))

  const retry = await run('source', 'facebook', 'retry', '--account', accountId, '--leadgen-id', '900000000000042')
  t.not(retry.code, 0, 'a lead never notified cannot be retried')

  const disconnected = await run('source', 'facebook', 'disconnect', '--account', accountId, '--page-id', PAGE)
  t.equal(disconnected.code, 0, disconnected.stderr)
  t.match(disconnected.stdout, `Facebook page ${PAGE} disconnected from account ${accountId}`)

  const bad: Array<[string[], RegExp]> = [
    [['source', 'facebook', 'connect', '--account', accountId, '--page-id', PAGE, '--page-token', 'x', '--page-token-file', tokenFile], /give --page-token or --page-token-file, not both/],
    [['source', 'facebook', 'connect', '--account', accountId, '--page-id', PAGE, '--page-token-file', path.join(dir, 'missing')], /cannot read --page-token-file: ENOENT/],
    [['source', 'facebook', 'connect', '--account', accountId, '--page-id', PAGE], /--page-token \(or --page-token-file\)/],
    [['source', 'facebook', 'list', '--account', accountId, '--stage', 'soon'], /--stage takes due, fetching, received, failed/],
    [['source', 'facebook', 'list', '--account', accountId, '--limit', '0'], /--limit takes 1 to 500/],
    [['source', 'facebook', 'nope'], /unknown command "source facebook nope": use connect, list, disconnect or retry/],
  ]
  for (const [args, message] of bad) {
    const result = await run(...args)
    t.equal(result.code, 2, `${args.slice(2, 3).join(' ')}: exit 2`)
    t.match(result.stderr, message)
  }
  t.notOk(outputs.some((output) => output.includes(FAKE_PAGE_TOKEN)), 'the page token is in no output')
})
