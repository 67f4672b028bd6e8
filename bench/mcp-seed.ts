/**
 * bench:mcp's setup, in a process of its own so the benchmark's load generator does not share a heap
 * with 100,000 leads' worth of garbage: an account, its read keys, and its leads received through the
 * intake service two days in the past (so every one is stale for get_next_actions). Prints one JSON
 * line: the keys, the webhook token and how long the seeding took.
 *
 *   node --import tsx bench/mcp-seed.ts STORE_URL LEADS KEYS
 */
import { pathToFileURL } from 'node:url'
import { loadConfig } from '../src/config/config.ts'
import { openLeadline } from '../src/leadline.ts'
import { receiveLead } from '../src/commands/receive-lead.command.ts'

export const AREA_CODES = ['212', '312', '415', '512', '617', '713', '305', '206', '303', '404']
/** The phone of the i-th bench lead (the arriving ones continue the sequence). */
export const benchPhone = (i: number) => `${AREA_CODES[i % AREA_CODES.length]}${String(2_000_000 + i).padStart(7, '0')}`

export interface Seeded {
  readonly keys: string[]
  readonly webhookToken: string
  readonly seedSeconds: number
}

// Seeds only when run as a script: bench:mcp imports benchPhone from here with arguments of its own.
const [store, leadsArg, keysArg] = process.argv.slice(2)
if (store !== undefined && import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const LEADS = Number(leadsArg)
  const KEYS = Number(keysArg)
  const operator = { actor: { kind: 'operator', id: 'bench' } } as const
  const twoDaysAgo = () => new Date(Date.now() - 2 * 24 * 3600 * 1000)
  const setup = await openLeadline({ store, viewsPath: loadConfig({ LEADLINE_STORE: store }).viewsPath, clock: twoDaysAgo })
  const { account, webhookToken } = await setup.accounts.create('Bench', { callerId: '+15125550100' }, operator)
  const keys: string[] = []
  for (let i = 0; i < KEYS; i++) keys.push((await setup.accounts.createApiKey(account.accountId, ['read'], null, operator)).key.secret)
  const started = Date.now()
  let next = 0
  await Promise.all(
    Array.from({ length: 200 }, async () => {
      for (let i = next++; i < LEADS; i = next++) {
        await receiveLead(setup, account, { name: `Lead ${i}`, phone: benchPhone(i), source: `campaign-${i % 7}`, vendor: `vendor-${i % 3}`, email: `lead${i}@example.com` }, operator)
      }
    }),
  )
  await setup.runner.catchUp()
  const seedSeconds = (Date.now() - started) / 1000
  await setup.close()
  process.stdout.write(`${JSON.stringify({ keys, webhookToken: webhookToken.secret, seedSeconds } satisfies Seeded)}\n`)
}
