/**
 * Which key seals the stored secrets: LEADLINE_SECRET_KEY when set; else, for the embedded store, a
 * key file made once beside the log (mode 0600), so a fresh machine needs nothing; the in-memory log
 * of the tests gets a key of its own. An EventStoreDB store without the variable refuses to start:
 * every node must hold the same key, and a key file on one node would lock the others out.
 */
import fs from 'node:fs'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { defaultSecretKeyPath, parseSecretKey, secretKeyFromEnv } from '../../config/config.ts'
import { createSecretBox, type SecretBox } from './secret-box.ts'

export class SecretKeyMissingError extends Error {
  constructor(store: string) {
    super(
      `LEADLINE_SECRET_KEY is required with the store "${store.split(':')[0]}": every node seals and opens stored secrets ` +
        '(outbound event signing secrets, page access tokens) with the same key. Make one with `openssl rand -base64 32` and give every node the same value.',
    )
    this.name = 'SecretKeyMissingError'
  }
}

/** The box for this store and environment (see above). */
export function openSecretBox(store: string, env: NodeJS.ProcessEnv): SecretBox {
  const key = secretKeyFromEnv(env)
  if (key !== null) return createSecretBox(key)
  if (store === 'memory:') return createSecretBox(randomBytes(32))
  const file = defaultSecretKeyPath(store)
  if (file === null) throw new SecretKeyMissingError(store)
  return createSecretBox(readOrMakeKeyFile(file))
}

/** The key in `file`, made first if there is none; two processes starting at once end up with the same one. */
export function readOrMakeKeyFile(file: string): Buffer {
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true })
    // Written whole under another name, then linked in place: link fails if the file appeared meanwhile,
    // so no process ever reads a half-written key and the first one made is the one kept.
    const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
    fs.writeFileSync(draft, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' })
    try {
      fs.linkSync(draft, file)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    } finally {
      fs.rmSync(draft, { force: true })
    }
  }
  const key = parseSecretKey(fs.readFileSync(file, 'utf8'))
  if (key === null) throw new Error(`the secret key file ${file} does not hold a key (32 bytes as base64 or hex): restore it from a backup, or set LEADLINE_SECRET_KEY`)
  return key
}
