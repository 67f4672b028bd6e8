/** The tool-client tests' fixture: a listening server with an account that may call now, two keys and one lead. */
import type { Test } from 'tap'
import type { Io } from '../../src/cli/cli-io.ts'
import { runCli } from '../../src/cli/main.ts'
import { buildApp, operatorContext } from '../helpers/build-app.ts'

export interface ClientSetup {
  /** LEADLINE_URL of the running server. */
  readonly env: NodeJS.ProcessEnv
  /** A key with read, write and dial. */
  readonly all: string
  readonly reader: string
}

export async function clientSetup(t: Test): Promise<ClientSetup> {
  const built = await buildApp(t)
  const { account, token } = await built.createAccount('Acme', { callerId: '+15125550100', callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false, callsPerSecond: 50 })
  const all = (await built.leadline.accounts.createApiKey(account.accountId, ['read', 'write', 'dial'], null, operatorContext)).key.secret
  const reader = (await built.leadline.accounts.createApiKey(account.accountId, ['read'], null, operatorContext)).key.secret
  const url = await built.listen()
  const pushed = await fetch(`${url}/api/ingest/lead`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-token': token },
    body: JSON.stringify({ name: 'Jane Doe', phone: '(312) 555-0142', email: 'jane@example.com', source: 'Spring promo' }),
  })
  t.equal(pushed.status, 201, 'a lead to work with')
  return { env: { LEADLINE_URL: url }, all, reader }
}

/** Runs the CLI in this process (the same `runCli` bin/leadline.js runs), capturing its output. */
export async function runInProcess(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const io: Io = { out: (text) => (stdout += `${text}\n`), err: (text) => (stderr += `${text}\n`), env }
  const code = await runCli(args, io)
  return { code, stdout, stderr }
}
