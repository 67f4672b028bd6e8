/**
 * A real CalDAV server for the calendar tests: Radicale 3 (Debian's `radicale` package, installed by
 * `.ci/run`), started on 127.0.0.1 on a port the system picks, with a temporary folder of its own and
 * one htpasswd user. Not a double: the tests talk to the server the owner's calendar could be on.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/** Debian's entry point; RADICALE_BIN points elsewhere (a virtualenv's, say). */
const RADICALE_BIN = process.env.RADICALE_BIN ?? 'radicale'
/** Radicale says this once its socket listens; the port it bound follows. */
const LISTENING = /Listening on '\[?127\.0\.0\.1\]?:(\d+)'/
const GIVE_UP_MS = 30_000

export interface Radicale {
  /** The server's root, e.g. `http://127.0.0.1:40123/`. */
  readonly url: string
  readonly username: string
  readonly password: string
  /** Its storage folder, to read or break what it keeps. */
  readonly folder: string
  /** Everything it logged, for a failing test's message. */
  log(): string
  /** Stops the server and removes its folder. */
  stop(): Promise<void>
}

export interface RadicaleOptions {
  readonly username?: string
  readonly password?: string
}

/** Starts Radicale and resolves once it answers HTTP; rejects (with its log) if it exits or never answers. */
export async function startRadicale(options: RadicaleOptions = {}): Promise<Radicale> {
  const username = options.username ?? 'owner'
  const password = options.password ?? `pw-${Math.random().toString(36).slice(2)}`
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'leadline-radicale-'))
  const usersFile = path.join(folder, 'users')
  const configFile = path.join(folder, 'config')
  // `plain` is one of Radicale 3's htpasswd encryptions; bcrypt would need python3-bcrypt as well.
  fs.writeFileSync(usersFile, `${username}:${password}\n`, { mode: 0o600 })
  fs.writeFileSync(
    configFile,
    [
      '[server]',
      'hosts = 127.0.0.1:0',
      '[auth]',
      'type = htpasswd',
      `htpasswd_filename = ${usersFile}`,
      'htpasswd_encryption = plain',
      // Radicale slows every failed login down by default; the tests check refusals on purpose.
      'delay = 0',
      '[storage]',
      `filesystem_folder = ${path.join(folder, 'collections')}`,
      '[rights]',
      'type = owner_only',
      '[logging]',
      'level = info',
      '',
    ].join('\n'),
  )

  let output = ''
  const child = spawn(RADICALE_BIN, ['--config', configFile], { stdio: ['ignore', 'pipe', 'pipe'] })
  const removeFolder = () => fs.rmSync(folder, { recursive: true, force: true })

  let port: number
  try {
    port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Radicale did not listen within ${GIVE_UP_MS} ms:\n${output}`)), GIVE_UP_MS)
      const onData = (chunk: Buffer) => {
        output += chunk.toString('utf8')
        const found = LISTENING.exec(output)
        if (found) {
          clearTimeout(timer)
          resolve(Number(found[1]))
        }
      }
      child.stdout?.on('data', onData)
      child.stderr?.on('data', onData)
      child.once('error', (error) => {
        clearTimeout(timer)
        reject(new Error(`Radicale could not start (${RADICALE_BIN}: ${error.message}); install it with apt-get install radicale`))
      })
      child.once('exit', (code, signal) => {
        clearTimeout(timer)
        reject(new Error(`Radicale exited (${code ?? signal}) before listening:\n${output}`))
      })
    })
    await untilAnswering(`http://127.0.0.1:${port}/`, child)
  } catch (error) {
    await stopChild(child)
    removeFolder()
    throw error
  }

  return {
    url: `http://127.0.0.1:${port}/`,
    username,
    password,
    folder,
    log: () => output,
    async stop() {
      await stopChild(child)
      removeFolder()
    },
  }
}

/** Asks until Radicale answers an HTTP request (any status: 401 to an anonymous request is an answer). */
async function untilAnswering(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + GIVE_UP_MS
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Radicale exited (${child.exitCode})`)
    try {
      const response = await fetch(url, { method: 'OPTIONS' })
      await response.arrayBuffer()
      return
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`Radicale did not answer ${url}: ${String(error)}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
}

/** SIGTERM, then SIGKILL if it has not exited after a while; resolves once it has. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000)
  await exited
  clearTimeout(timer)
}
